"""The damas command line: perft, moves, show, variants; JSON output; errors on stderr."""

import json

import pytest
from helpers import VARIANTS

from damas_env import Position, get_ruleset
from damas_env.cli import main, ruleset_summary


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_perft_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "--variant", "english", "--depth", "6", "--json")
    data = json.loads(out)
    assert status == 0 and data["nodes"] == 36768 and data["fen"] == "B:W21-32:B1-12"


def test_perft_divide_sums_to_total(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "--depth", "3", "--divide", "--json")
    data = json.loads(out)
    assert len(data["divide"]) == 9 and sum(data["divide"].values()) == data["nodes"] == 658


def test_perft_with_fen_and_preset_path(capsys: pytest.CaptureFixture[str]) -> None:
    woldouby = "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"
    _, out, _ = run(capsys, "perft", "--fen", woldouby, "--depth", "4", "--json")
    assert json.loads(out)["nodes"] == 73
    preset = "damas_env/presets/website_checkers.yaml"
    _, out, _ = run(capsys, "perft", "--variant", preset, "--depth", "4", "--json")
    assert json.loads(out)["nodes"] == 1469


def test_moves_json_uses_pdn_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "moves", "--variant", "english", "--fen", "W:W27:B23,15", "--json")
    (move,) = json.loads(out)["moves"]
    assert move == {
        "pdn": "27x11",
        "from": 27,
        "to": 11,
        "path": [27, 18, 11],
        "captures": [23, 15],
        "crowns": False,
    }


def test_moves_text_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "moves", "--variant", "checkers")
    assert out.startswith("7 legal moves for black: 9-13 9-14")
    _, out, _ = run(capsys, "show", "--variant", "website_checkers")
    assert "B:W21-32:B1-12  (red to move; B in the FEN)" in out and out.count("b") == 12


def test_variants_lists_presets(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "variants", "--json")
    assert {"international", "english_adjudicated", "canadian_giveaway"} <= set(
        json.loads(out)["variants"]
    )


def test_variants_prints_a_summary_per_ruleset_and_names_with_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, "variants")
    lines = dict(line.split(maxsplit=1) for line in out.splitlines())
    assert (
        lines["international"]
        == "10x10, 20 men each, white moves first, flying kings, majority capture"
    )
    assert lines["american"] == "= english"
    assert set(lines) == set(json.loads(run(capsys, "variants", "--json")[1])["variants"])
    _, out, _ = run(capsys, "variants", "--names")
    assert out.split() == list(lines)


def test_variants_json_has_summaries_and_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(run(capsys, "variants", "--json")[1])
    assert set(data["summaries"]) == set(data["variants"])
    assert data["aliases"]["checkers"] == "english"
    assert data["summaries"]["english_adjudicated"].endswith("200-ply limit (material decides)")


@pytest.mark.parametrize(
    ("variant", "words"),
    [
        ("frisian", ["10x10, 20 men each", "orthogonal captures too", "value majority",
                     "a king worth 1.99 men", "capture priority: with a king",
                     "king move limit 3"]),
        ("frysk", ["10x10, 5 men each"]),
        ("italian", ["8x8, single corner right, 12 men each", "short kings",
                     "with a king > most kings > earliest king", "men cannot take kings"]),
        ("turkish", ["8x8, all squares played, 16 men each, back row empty",
                     "orthogonal moves, orthogonal captures", "pieces removed as taken",
                     "no turning back in a capture"]),
        ("breakthrough", ["the first king wins"]),
        ("spanish", ["single corner right", "flying kings", "capture priority: most kings"]),
        ("czech", ["free capture choice, capture priority: with a king"]),
        ("thai", ["8 men each", "a king lands right behind", "pieces removed as taken"]),
        ("english_giveaway", ["black moves first", "short kings", "giveaway"]),
        ("website_checkers", ["red moves first", "200-ply limit"]),
    ],
)  # fmt: skip
def test_ruleset_summary_says_what_distinguishes_a_variant(variant: str, words: list[str]) -> None:
    summary = ruleset_summary(get_ruleset(variant))
    assert all(w in summary for w in words), summary


def test_ruleset_summary_follows_the_switches() -> None:
    russian = get_ruleset("russian")
    assert "free capture choice" in ruleset_summary(russian)
    changed = russian.replace(capture_precedence="most_pieces", king_move_limit=2)
    assert "majority capture" in ruleset_summary(changed)
    assert ruleset_summary(changed).endswith("king move limit 2")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_works_on_the_command_line(
    capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    """moves, show and a depth-4 perft (with --divide) for every built-in variant."""
    pos = Position.start(variant)
    status, out, _ = run(capsys, "moves", "--variant", variant, "--json")
    moves = json.loads(out)
    assert status == 0 and len(moves["moves"]) == len(pos.legal_moves())
    assert moves["fen"] == pos.fen()
    status, out, _ = run(capsys, "show", "--variant", variant)
    assert status == 0 and out.startswith(str(pos)) and pos.fen() in out
    status, out, _ = run(
        capsys, "perft", "--variant", variant, "--depth", "4", "--divide", "--json"
    )
    perft = json.loads(out)
    assert status == 0 and perft["nodes"] == sum(perft["divide"].values()) == pos.perft(4)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["moves", "--variant", "makruk"], "unknown variant 'makruk'"),
        (["moves", "--fen", "W:W99:B1"], "square 99 is not on the board"),
        (["perft", "--depth", "0"], "--depth must be at least 1"),
        (["show", "--variant", "missing.yaml"], "cannot read rules file"),
    ],
)
def test_errors_go_to_stderr_with_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and message in err


def test_the_library_command_lists_only_what_it_is_given(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["train", "x.yaml"])
    assert done.value.code == 2 and "invalid choice: 'train'" in capsys.readouterr().err
    assert main(["train", "x"], {"train": ("help", lambda argv: len(argv))}) == 1


@pytest.mark.parametrize("argv", [["--help"], ["train", "--help"]])
def test_the_training_help_names_every_algorithm(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """``damas --help`` and ``damas train --help`` name the three algorithms; the examples
    name bundled configs (no configs/ path, which exists only in the source tree)."""
    from damas_agents.command import main as damas_main

    with pytest.raises(SystemExit) as stop:
        damas_main(argv)
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert stop.value.code == 0
    assert all(word in text for word in ("nnue", "AlphaZero-style", "PPO")), text
    assert "configs/" not in text


def test_version_is_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    import damas_env

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"damas-env {damas_env.__version__}"


def test_compiling_is_announced_once_per_module(capsys: pytest.CaptureFixture[str]) -> None:
    """The first compile of a package module's kernel (a cache miss) prints one line;
    loading cached code or compiling another project's function prints nothing."""
    import numba

    from damas_env import kernels as K

    def twice(x):  # type: ignore[no-untyped-def]
        return 2 * x

    twice.__module__ = "damas_env.test_module"
    K.NOTICE.noted.discard("damas_env.test_module")
    numba.njit(twice)(3)
    numba.njit(twice)(4.0)  # another compile of the same module: no second line
    err = capsys.readouterr().err
    assert err.count("damas-env: compiling the kernels of damas_env.test_module") == 1
    assert "first run only" in err

    def other(x):  # type: ignore[no-untyped-def]
        return x + 1

    other.__module__ = "someone_else"
    numba.njit(other)(1)
    assert capsys.readouterr().err == ""


def test_importing_damas_env_makes_openmp_threads_sleep_unless_told_otherwise() -> None:
    """OMP_WAIT_POLICY=PASSIVE by default (idle threads do not spin on a shared machine);
    a value the user set is kept."""
    import os
    import subprocess
    import sys

    code = "import damas_env, os; print(os.environ['OMP_WAIT_POLICY'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "PASSIVE"
    env["OMP_WAIT_POLICY"] = "ACTIVE"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "ACTIVE"


@pytest.mark.parametrize("argv", [["show", "--variant", "english"], ["variants"]])
def test_a_reader_that_leaves_early_gets_no_traceback(argv: list[str]) -> None:
    """``damas show | head -1``: the pipe closes before the output is written."""
    import subprocess
    import sys

    code = "import sys; from damas_agents.command import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    status = proc.wait(timeout=120)
    assert proc.stderr.read() == b""
    assert status == 1
