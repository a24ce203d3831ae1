"""The draughts family side by side: what distinguishes each ruleset, and how its games go
under uniformly random play.

    >>> from damas_env.family import base_variants, random_play
    >>> stats = random_play("english", games=20, seed=0)
    >>> stats.games, stats.first_player
    (20, 'black')

Random play picks uniformly among the legal moves of the position (its king runs apply the
king move limit), under the game's draw rules, as :class:`~damas_env.game.Game` plays;
:class:`RandomPlayStats` gives means and standard errors.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ending import Reason
from .engine import Position, move_from_row
from .rules import RULES_DIR, Ruleset, get_ruleset, ruleset_names
from .turn import Turn, result_value

__all__ = [
    "RandomPlayStats",
    "base_variants",
    "closest_relative",
    "random_play",
    "switch_changes",
]

#: Plies after which a random game is cut (reason ``max_plies``, scored as a draw): random
#: kings in a ruleset without a no-progress rule (Frisian) can wander for long.
MAX_PLIES = 1000


# --- The family -------------------------------------------------------------------------------


def base_variants() -> list[str]:
    """Returns the registered variants that are neither giveaway forms, aliases nor presets,
    International first, then by board size and name."""
    names = []
    for name in ruleset_names():
        rules = get_ruleset(name)
        is_preset = (RULES_DIR / f"{name}.yaml").exists()
        if rules.name == name and not rules.giveaway and not is_preset:
            names.append(name)
    return sorted(names, key=lambda n: (n != "international", get_ruleset(n).board_size, n))


def switch_changes(
    rules: Ruleset | str, parent: Ruleset | str = "international"
) -> dict[str, tuple[Any, Any]]:
    """Returns the switches in which `rules` differs from `parent`, as
    {switch: (parent's value, this value)}, in the order Ruleset declares them (the name and
    the display names of the colours left out)."""
    mine, theirs = get_ruleset(rules).to_dict(), get_ruleset(parent).to_dict()
    return {
        k: (theirs[k], v)
        for k, v in mine.items()
        if k not in ("name", "colour_names") and v != theirs[k]
    }


def closest_relative(rules: Ruleset | str, among: list[str] | None = None) -> str:
    """Returns the variant (of `among`, by default :func:`base_variants`) from which `rules`
    differs in the fewest switches, itself excepted; ties go to the first listed."""
    rules = get_ruleset(rules)
    others = [n for n in (among or base_variants()) if n != rules.name]
    return min(others, key=lambda n: len(switch_changes(rules, n)))


# --- Random play ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomPlayStats:
    """Random games of one ruleset, one entry per game in each array."""

    variant: str
    """The ruleset's name."""
    first_player: str
    """The colour that moves first ("white" or "black")."""
    plies: np.ndarray
    """Plies (complete moves) of each game."""
    moves: np.ndarray
    """Legal moves summed over the positions of each game where a move was played."""
    scores: np.ndarray
    """The first player's score in each game: 1 a win, 0.5 a draw or a cut game, 0 a loss."""
    reasons: np.ndarray
    """Why each game ended: a :class:`~damas_env.ending.Reason` code."""

    @property
    def games(self) -> int:
        """Returns the number of games."""
        return len(self.plies)

    @property
    def branching(self) -> tuple[float, float]:
        """Returns the mean number of legal moves per position (every position of every game
        counted once) and its standard error (a ratio estimate, the games independent)."""
        ratio = self.moves.sum() / self.plies.sum()
        residual = self.moves - ratio * self.plies
        se = residual.std(ddof=1) / np.sqrt(self.games) / self.plies.mean()
        return float(ratio), float(se)

    @property
    def length(self) -> tuple[float, float]:
        """Returns the mean game length in plies and its standard error."""
        return _mean_se(self.plies)

    @property
    def draw_rate(self) -> tuple[float, float]:
        """Returns the share of games drawn (cut games included) and its standard error."""
        return _mean_se((self.scores == 0.5).astype(float))

    @property
    def first_player_score(self) -> tuple[float, float]:
        """Returns the first player's mean score (win 1, draw ½) and its standard error."""
        return _mean_se(self.scores)

    def reason_counts(self) -> dict[str, int]:
        """Returns how many games ended for each reason, by label, most frequent first."""
        counts = Counter(Reason(int(r)).label for r in self.reasons)
        return dict(counts.most_common())

    def row(self) -> dict[str, Any]:
        """Returns the figures as one table row ("mean ± standard error" strings)."""
        (b, b_se), (p, p_se) = self.branching, self.length
        (d, d_se), (s, s_se) = self.draw_rate, self.first_player_score
        return {
            "games": self.games,
            "first": self.first_player,
            "branching": f"{b:.2f} ± {b_se:.2f}",
            "plies": f"{p:.1f} ± {p_se:.1f}",
            "draw rate": f"{d:.3f} ± {d_se:.3f}",
            "first-player score": f"{s:.3f} ± {s_se:.3f}",
            "endings": ", ".join(f"{k} {v}" for k, v in self.reason_counts().items()),
        }


def _mean_se(values: np.ndarray) -> tuple[float, float]:
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def random_play(
    rules: Ruleset | str, games: int, seed: int = 0, max_plies: int = MAX_PLIES
) -> RandomPlayStats:
    """Plays `games` games of uniformly random legal moves from the start position.

    Args:
        rules: a ruleset or its name.
        games: how many games, at least 2 (for the standard errors).
        seed: seed of the move choices; the same seed plays the same games.
        max_plies: plies after which a game is cut (reason ``max_plies``, scored a draw).

    Raises:
        ValueError: games is under 2 or max_plies under 1.
    """
    if games < 2 or max_plies < 1:
        raise ValueError(f"random_play needs games >= 2 and max_plies >= 1: {games}, {max_plies}")
    rules = get_ruleset(rules)
    start, turn = Position.start(rules), Turn(rules)
    rng = np.random.default_rng(seed)
    rows = np.array([_random_game(turn, start, rng, max_plies) for _ in range(games)])
    return RandomPlayStats(
        variant=rules.name,
        first_player=rules.first_player,
        plies=rows[:, 0].astype(int),
        moves=rows[:, 1].astype(int),
        scores=rows[:, 2],
        reasons=rows[:, 3].astype(int),
    )


def _random_game(
    turn: Turn, start: Position, rng: np.random.Generator, max_plies: int
) -> tuple[int, int, float, int]:
    """Plays one random game on `turn` from `start`; returns its plies, the legal moves
    summed over its positions, the first player's score and the Reason code."""
    engine = turn.engine
    turn.reset(start.board, start.turn)
    moves = 0
    while turn.reason == Reason.NONE and turn.ply < max_plies:
        n = engine.generate(Position.of_game(turn.rules, turn.board, turn.side, turn.counters))
        moves += n
        turn.play_move(move_from_row(engine.moves[rng.integers(n)]).squares)
    if turn.reason == Reason.NONE:
        return turn.ply, moves, 0.5, Reason.MAX_PLIES
    score = (1.0 + result_value(turn.result, int(start.turn))) / 2
    return turn.ply, moves, score, turn.reason
