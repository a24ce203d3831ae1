"""Hostile input to ``damas arena`` and ``damas play``: every refusal is one line on stderr
with exit status 2, before any game starts; no input makes them hang or fill the memory."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import Exploit, crafted_checkpoint, tiny_config

from damas_agents import arena
from damas_agents.arena import play
from damas_agents.arena.cli import main as arena_main
from damas_agents.arena.play import main as play_main


@pytest.fixture(scope="module")
def english_pt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a tiny checkpoint trained (not at all) on English rules."""
    from damas_agents.models.checkpoint import save_checkpoint
    from damas_agents.training.alphazero import AlphaZeroTrainer

    path = tmp_path_factory.mktemp("ck") / "english.pt"
    save_checkpoint(path, AlphaZeroTrainer(tiny_config()))
    return path


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
        ("alphabeta:time=1e308", "must be a number from 0.001 to 3600"),
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


def test_a_worker_that_dies_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures.process import BrokenProcessPool

    def killed(*args: object, **kwargs: object) -> None:
        raise BrokenProcessPool("a process in the process pool was terminated abruptly")

    monkeypatch.setattr("damas_agents.arena.match.play_match", killed)
    status, err = _exit(capsys, arena_main, ["--agents", "random", "greedy", "--workers", "2"])
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("damas arena: error: a worker process died: a process in the")


# --- checkpoints in the arena ---------------------------------------------------------------


def test_a_checkpoint_whose_fingerprint_disagrees_is_refused_before_any_game(
    capsys: pytest.CaptureFixture[str], english_pt: Path, tmp_path: Path
) -> None:
    def grow(data: dict) -> None:
        data["fingerprint"]["network"].update(channels=200000, blocks=50)

    crafted = crafted_checkpoint(english_pt, tmp_path / "fp.pt", grow)
    argv = ["--agents", f"checkpoint:{crafted}", "random", "--games", "2", "--no-progress"]
    status, err = _exit(capsys, arena_main, argv)
    assert status == 2 and "fingerprint disagrees with its own config: network.blocks" in err


def test_a_code_running_pickle_is_refused_without_torchs_advice(
    capsys: pytest.CaptureFixture[str], english_pt: Path, tmp_path: Path
) -> None:
    crafted = crafted_checkpoint(
        english_pt, tmp_path / "evil.pt", lambda d: d.update(history=[Exploit()])
    )
    status, err = _exit(capsys, arena_main, ["--agents", f"checkpoint:{crafted}", "random"])
    assert status == 2 and err.rstrip().endswith("refused unread, it could run code")
    assert "weights_only" not in err and "Re-running" not in err


# --- damas play -----------------------------------------------------------------------------


def test_play_refuses_a_checkpoint_of_other_rules_before_the_first_move(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, english_pt: Path
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("32-28\n"))
    argv = ["--variant", "international", "--opponent", f"checkpoint:{english_pt}", "--text"]
    status, err = _exit(capsys, play_main, argv)
    assert status == 2
    assert "trained on 'english' rules and cannot play a 'international' game" in err
    assert err.endswith("\n") and err.count("\n") == 1


def test_play_text_caps_the_line_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """A gigabyte without a newline is read in pieces and dropped, never held whole."""
    reads: list[int] = []

    class Zeros(io.StringIO):
        def readline(self, size: int = -1) -> str:  # type: ignore[override]
            reads.append(size)
            return "\0" * size if len(reads) < 1000 else ""  # 4 MB, then end of input

    out = io.StringIO()
    _, result = play.play_text("english", "random", lines=Zeros(), out=out, seed=0)
    assert result == "*" and all(0 < size <= play.MAX_LINE_CHARS + 1 for size in reads)
    assert "error: a line longer than 4096 characters was ignored" in out.getvalue()


def test_play_text_drops_an_over_long_line_and_reads_on() -> None:
    lines = io.StringIO("x" * 10_000 + "\n" + "resign\n")
    out = io.StringIO()
    _, result = play.play_text("english", "random", lines=lines, out=out, seed=0)
    assert result == "1-0" and "was ignored" in out.getvalue()
    assert "x" * 100 not in out.getvalue()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--time", "-5"], "argument --time: must be a number of seconds > 0 and <= 86400"),
        (["--time", "nan"], "argument --time: must be a number of seconds"),
        (["--time", "0"], "argument --time: must be a number of seconds > 0"),
        (["--time", "1e400"], "argument --time: must be a number of seconds"),
        (["--time", "60", "--increment", "inf"], "argument --increment: must be a number"),
        (["--time", "60", "--increment", "-1"], "argument --increment: must be a number"),
        (["--text", "--time", "60"], "--time and --increment apply to the window only"),
        (["--text", "--increment", "2"], "--time and --increment apply to the window only"),
        (["--increment", "2"], "--increment needs --time"),
    ],
)
def test_play_refuses_clocks_it_would_ignore(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, err = _exit(capsys, play_main, ["--opponent", "random", *argv])
    assert status == 2 and message in err


def test_arena_refuses_a_checkpoint_of_other_rules_before_any_game(
    capsys: pytest.CaptureFixture[str], english_pt: Path
) -> None:
    argv = ["--variant", "international", "--agents", f"checkpoint:{english_pt}", "random"]
    status, err = _exit(capsys, arena_main, [*argv, "--games", "2", "--no-progress"])
    assert status == 2 and "cannot play a 'international' game" in err


@pytest.mark.parametrize("limit", [{"time": float("nan")}, {"time": float("inf")}, {"depth": 0}])
def test_alphabeta_refuses_non_finite_or_empty_limits(limit: dict) -> None:
    from damas_agents.players.classic import AlphaBetaAgent

    with pytest.raises(ValueError, match="positive finite number"):
        AlphaBetaAgent(**limit)
