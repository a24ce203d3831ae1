"""damas_env.family: the base variants, switch differences, and random play equal to the
same random choices played through Game."""

import numpy as np
import pytest

from damas_env import Position
from damas_env.family import base_variants, closest_relative, random_play, switch_changes
from damas_env.game import Game, Reason
from damas_env.rules import get_ruleset


def test_base_variants_are_the_family_without_giveaway_aliases_or_presets() -> None:
    names = base_variants()
    assert names[0] == "international"
    assert sorted(names) == sorted(
        [
            "international",
            "brazilian",
            "canadian",
            "english",
            "russian",
            "pool",
            "frisian",
            "frysk",
            "italian",
            "turkish",
            "breakthrough",
            "spanish",
            "portuguese",
            "czech",
            "thai",
        ]
    )


def test_switch_changes_name_each_differing_switch_with_both_values() -> None:
    assert switch_changes("international") == {}
    assert switch_changes("breakthrough") == {"first_king_wins": (False, True)}
    assert switch_changes("frysk", "frisian") == {"rows_per_side": (4, 1)}
    assert switch_changes("portuguese", "spanish") == {}  # the same rules
    frisian = get_ruleset("frisian")
    assert switch_changes(frisian.replace(capture_directions="diagonal"), frisian) == {
        "capture_directions": ("diagonal_and_orthogonal", "diagonal")
    }


def test_closest_relative() -> None:
    assert closest_relative("frysk") == "frisian"
    assert closest_relative("portuguese") == "spanish"
    assert closest_relative("breakthrough") == "international"


def test_one_ply_counts_the_start_position_moves() -> None:
    stats = random_play("international", games=3, max_plies=1)
    assert stats.plies.tolist() == [1, 1, 1]
    assert stats.moves.tolist() == [Position.start("international").perft(1)] * 3
    assert stats.branching == (9.0, 0.0)
    assert stats.reason_counts() == {"max_plies": 3}
    assert stats.draw_rate == (1.0, 0.0)


def reference_play(variant: str, games: int, seed: int, max_plies: int) -> list[tuple]:
    """The same random choices (one rng.integers(len(legal moves)) a ply) played by Game."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(games):
        game, moves = Game(variant), 0
        first = game.turn
        while not game.is_over and game.ply < max_plies:
            legal = game.legal_moves()
            moves += len(legal)
            game.push(legal[rng.integers(len(legal))])
        outcome = game.outcome()
        if outcome is None:
            rows.append((game.ply, moves, 0.5, Reason.MAX_PLIES))
            continue
        score = 0.5 if outcome.winner is None else float(outcome.winner == first)
        rows.append((game.ply, moves, score, outcome.reason))
    return rows


@pytest.mark.parametrize("variant", ["english", "frisian", "breakthrough", "turkish"])
def test_random_play_equals_game_on_the_same_choices(variant: str) -> None:
    stats = random_play(variant, games=4, seed=3, max_plies=150)
    got = list(zip(stats.plies, stats.moves, stats.scores, stats.reasons, strict=True))
    assert got == reference_play(variant, games=4, seed=3, max_plies=150)


def test_random_play_figures() -> None:
    stats = random_play("english", games=30, seed=0)
    assert stats.first_player == "black"
    assert set(stats.scores) <= {0.0, 0.5, 1.0}
    assert sum(stats.reason_counts().values()) == 30
    draws = np.isin(stats.reasons, [Reason.REPETITION, Reason.NO_PROGRESS, Reason.MAX_PLIES])
    assert ((stats.scores == 0.5) == draws).all()  # English has no other drawing rule
    mean, se = stats.first_player_score
    assert 0 <= mean <= 1 and 0 < se < 0.2
    row = stats.row()
    assert row["games"] == 30 and " ± " in row["plies"]
    assert random_play("english", games=30, seed=0).plies.tolist() == stats.plies.tolist()


def test_random_play_refuses_too_few_games() -> None:
    with pytest.raises(ValueError, match="games >= 2"):
        random_play("english", games=1)
