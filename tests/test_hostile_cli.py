"""Hostile input to ``damas arena`` and ``damas play``: every refusal is one line on stderr
with exit status 2, before any game starts; no input makes them hang or fill the memory."""

from __future__ import annotations

import pytest

from agents import arena
from agents.cli import main as arena_main


def _exit(capsys: pytest.CaptureFixture[str], main, argv: list[str]) -> tuple[int, str]:
    """Returns the exit status of a command line and its stderr (argparse exits, main returns)."""
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, err


# --- damas arena: bounds on games, workers, plies and the seed -------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--games", "1000000000"], "argument --games: must be an int in [1, 100000]"),
        (["--games", "1" + "0" * 23], "argument --games: must be an int in [1, 100000]"),
        (["--games", "\u0663"], "argument --games: must be an int"),
        (["--workers", "100000"], "argument --workers: must be an int in [1, 256]"),
        (["--workers", "0"], "argument --workers: must be an int in [1, 256]"),
        (["--max-plies", "9" * 30], "argument --max-plies: must be an int in [1, 100000]"),
        (["--seed", "-1"], "argument --seed: must be an int in [0, 4294967295], not '-1'"),
        (["--seed", "9" * 5000], "argument --seed: must be an int"),
    ],
)
def test_arena_refuses_out_of_bounds_numbers(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, err = _exit(capsys, arena_main, ["--agents", "random", "greedy", *argv])
    assert status == 2 and message in err and len(err) < 2000


def test_arena_bounds_the_games_of_a_whole_round_robin(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--agents", "random", "greedy", "random", "--games", "40000", "--no-progress"]
    status, err = _exit(capsys, arena_main, argv)
    assert status == 2
    assert "games per pair (3 pairs) must be an int in [1, 33333], not 40000" in err


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: arena.play_match("random", "random", games=10**9), "games must be an int in"),
        (lambda: arena.play_match("random", "random", games=2, seed=-1), "seed must be an int"),
        (lambda: arena.play_match("random", "random", workers=10**6), "workers must be an int"),
        (lambda: arena.play_match("random", "random", max_plies=10**23), "max_plies must be"),
        (lambda: arena.round_robin(["random"] * 65, games=1), "2 to 64 agents"),
    ],
)
def test_arena_library_refuses_out_of_bounds_numbers(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# --- agent specs: bounded, finite, ASCII budgets ---------------------------------------------


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:sims=1000000000000", "sims in agent spec 'mcts:sims=1000000000000' must be"),
        ("alphabeta:depth=99999999999999999999999", "must be an integer from 1 to 64"),
        ("alphabeta:time=1e400", "must be a finite number, not 1e400"),
        ("alphabeta:time=1e308", "must be a number above 0 and at most 3600"),
        ("mcts:sims=2,c=1e999", "must be a finite number, not 1e999"),
        ("mcts:sims=\u0663", "must be an integer from 1 to 100000"),
        ("alphabeta:depth=\u0661", "must be an integer from 1 to 64"),
    ],
)
def test_arena_refuses_unbounded_or_odd_budgets(
    capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    status, err = _exit(capsys, arena_main, ["--agents", "random", spec, "--no-progress"])
    assert status == 2 and err.startswith("damas arena: error: option") and message in err


# --- external engines --------------------------------------------------------------------------


def test_an_engine_that_dies_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--agents", "hub:/bin/true", "random", "--games", "2", "--no-progress"]
    status, err = _exit(capsys, arena_main, argv)
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("damas arena: error: hub:true: the engine died")
