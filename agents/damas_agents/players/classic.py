"""Classical baseline agents: random, greedy and alpha-beta search.

    agent = AlphaBetaAgent(depth=4, seed=0)
    result = agent.search(position)     # move, score, depth, nodes, seconds, pv
    move = agent.choose(position)       # what act() plays, hop by hop

Moves come from the engine; each agent's tie-breaks come from its own seeded generator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from damas_agents.players.base import MoveAgent, Observation
from damas_agents.search.alphabeta import (
    LATEST_SEARCH,
    MIN_SECONDS,
    Searcher,
    SearchResult,
    search_plan,
)
from damas_agents.search.nnue import NetWeights
from damas_env import Move, Position, Ruleset
from damas_env import kernels as K
from damas_env.checks import shown

__all__ = [
    "RandomAgent",
    "GreedyAgent",
    "AlphaBetaAgent",
    "SearchResult",
    "king_value",
    "material_gain",
]


class RandomAgent:
    """Plays a uniformly random legal hop (a set bit of the action mask)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        """Restarts the random stream from `seed`."""
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Does nothing: the random stream runs on across games, as seeded at construction."""

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns a random legal hop.

        Raises:
            ValueError: the mask allows no action (the game is over or it is not our turn).
        """
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("the action mask allows no action: nothing to play")
        return int(legal[self.rng.integers(legal.size)])


class GreedyAgent(MoveAgent):
    """Plays the move that leaves the mover the best material; ties drawn at random.

    Men count 1 and kings 2.5 where kings fly, 1.5 where they step (the engine's piece values,
    :func:`damas_env.kernels.piece_values`). Under giveaway rules the best material is the
    least (the aim is to lose pieces).
    """

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        """Restarts the tie-breaking stream from `seed`."""
        self.rng = np.random.default_rng(seed)

    def choose(self, position: Position) -> Move:
        """Returns a legal move with the best material balance after it."""
        moves = position.legal_moves()
        gains = np.array([material_gain(position, m) for m in moves])
        if position.rules.giveaway:
            gains = -gains
        best = np.flatnonzero(gains == gains.max())
        return moves[int(best[self.rng.integers(best.size)])]


def king_value(rules: Ruleset) -> float:
    """Returns a king's worth in men: 2.5 for flying kings, 1.5 for kings that step."""
    return int(K.piece_values(rules.flying_kings)[2 + 2]) / K.MAN_VALUE


def material_gain(position: Position, move: Move) -> float:
    """Returns how much the mover's material balance (men 1, kings king_value) rises, in men."""
    values = K.piece_values(position.rules.flying_kings)
    board = position.board
    taken = sum(int(values[2 + abs(int(board[sq]))]) for sq in move.captures)
    crowned = int(values[2 + 2] - values[2 + 1]) if move.crowns else 0
    return (taken + crowned) / K.MAN_VALUE


class AlphaBetaAgent(MoveAgent):
    """Plays the move found by a compiled alpha-beta search, limited by depth, nodes or time.

    Args:
        depth: iterative deepening stops after this many plies (captures are searched on).
        nodes: positions the search may visit per move.
        time: seconds the search may take per move (converted into node budgets, so a move
            takes about that long, rarely a little more).
        seed: seeds the choice among root moves with exactly the best score.
        tt_bits: the transposition table holds 2**tt_bits entries (16 bytes each).
        weights: a learned evaluation (:mod:`damas_agents.search.nnue`) instead of the classical
            piece-square table.
        rules: the rules the evaluation was trained on: the agent then plays only those
            (:meth:`check_rules`).
        name: the agent's name (default: ``alphabeta:`` and its limits).
        search: the search version (:data:`~damas_agents.search.alphabeta.SEARCH_VERSIONS`),
            default the latest; an older one plays as that version always did (the rating
            pools' members are pinned to one).

    Raises:
        ValueError: no limit is given, a limit is not positive, or there is no such search
            version.
    """

    def __init__(
        self,
        depth: int | None = None,
        nodes: int | None = None,
        time: float | None = None,
        seed: int | None = None,
        tt_bits: int = 20,
        weights: NetWeights | None = None,
        rules: Ruleset | None = None,
        name: str | None = None,
        search: int | None = None,
    ) -> None:
        super().__init__()
        limits = {"depth": depth, "nodes": nodes, "time": time}
        given = {k: v for k, v in limits.items() if v is not None}
        if not given:
            raise ValueError("AlphaBetaAgent needs a limit: depth=, nodes= or time=")
        for key, value in given.items():
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not number or not 0 < value < math.inf:  # NaN fails the comparison too
                raise ValueError(f"{key} must be a positive finite number, not {shown(value)}")
            if key != "time" and not isinstance(value, int):
                raise ValueError(f"{key} must be an int, not {shown(value)}")
            if key == "time" and value < MIN_SECONDS:
                raise ValueError(f"time must be at least {MIN_SECONDS} s, not {shown(value)}")
        if not 4 <= tt_bits <= 30:
            raise ValueError(f"tt_bits must be 4..30, not {tt_bits}")
        if search is not None:
            search_plan(search)  # raises for a version that does not exist
            given["search"] = search
        self.search_version = LATEST_SEARCH if search is None else search
        self.depth, self.nodes, self.time = depth, nodes, time
        self.tt_bits = tt_bits
        self.rng = np.random.default_rng(seed)
        self.weights, self.rules = weights, rules
        self.name = name or "alphabeta:" + ",".join(f"{k}={v}" for k, v in given.items())
        self._searchers: dict[Ruleset, Searcher] = {}

    def reseed(self, seed: int | None) -> None:
        """Restarts the tie-breaking stream from `seed`."""
        self.rng = np.random.default_rng(seed)

    def check_rules(self, rules: Ruleset) -> None:
        """Raises ValueError if the agent's learned evaluation was trained on other rules."""
        if self.rules is not None and rules != self.rules:
            raise ValueError(
                f"{self.name} was trained on {self.rules.name!r} rules and cannot play a "
                f"{rules.name!r} game"
            )

    def search(self, position: Position) -> SearchResult:
        """Returns the search's best move of a position, with its score, depth, nodes and pv.

        The root moves are the position's legal moves (its king runs applied); below the
        root the search knows the pieces only
        (:class:`~damas_agents.search.alphabeta.Searcher`).

        Raises:
            ValueError: the position has no legal move, or its rules are not the ones the
                learned evaluation was trained on.
        """
        self.check_rules(position.rules)
        return self._searcher(position.rules).search(
            position, self.depth, self.nodes, self.time, self.rng
        )

    def choose(self, position: Position) -> Move:
        """Returns the move to play: the search's best."""
        return self.search(position).move

    def evaluate(self, position: Position) -> int:
        """Returns the static evaluation of a position, in centi-men for the side to move."""
        return self._searcher(position.rules).evaluate(position)

    def _searcher(self, rules: Ruleset) -> Searcher:
        """Returns the search tables of a ruleset (made on first use)."""
        searcher = self._searchers.get(rules)
        if searcher is None:
            searcher = Searcher(rules, self.tt_bits, self.weights, search=self.search_version)
            self._searchers[rules] = searcher
        return searcher
