"""PolicyAgent, the arena agent of any policy function, and benchmarks/leaderboard.py.

The leaderboard script trains each row and rates it on the pool; here it runs one tiny row
end to end (one iteration of the quickstart, a few rating games), then re-prints saved
results with ``--render``. The examples' own adapters (``as_agent``) are tested after their
tiny trainings in tests/test_integrations.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from damas_agents.arena import play_match
from damas_agents.players.base import Agent, PolicyAgent, play_hop
from damas_agents.rating import rate
from damas_env.draughts_v0 import raw_env

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "benchmarks" / "leaderboard.py"
#: One quickstart iteration of 8 games, no evaluation, rated in two games, with its curve.
TINY = ["--rows", "quickstart", "--budget", "5", "--rate-games", "2", "--curve", "2"]
TINY += ["--set", "train.iterations=2", "train.checkpoint_every=1", "eval.every=0"]
TINY += ["env.num_envs=8"]


def first_legal(planes: np.ndarray, mask: np.ndarray) -> int:
    """Returns the lowest legal action (a deterministic policy)."""
    return int(np.flatnonzero(mask)[0])


def test_a_policy_agent_plays_complete_games_in_the_arena() -> None:
    seen: list[tuple[tuple[int, ...], np.dtype]] = []

    def policy(planes: np.ndarray, mask: np.ndarray) -> np.int64:
        seen.append((planes.shape, mask.dtype))
        return np.flatnonzero(mask)[-1]  # a numpy integer is an action too

    agent = PolicyAgent(policy, "last-legal")
    assert isinstance(agent, Agent)
    match = play_match(agent, "random", "english", games=2, progress=False)
    assert match.agent_a == "last-legal" and match.games == 2
    assert "illegal_action" not in match.reasons()
    assert set(seen) == {((8, 8, 8), np.dtype(np.int8))}  # draughts_v0's planes and mask


def test_a_policy_agent_is_rated_on_the_pool() -> None:
    result = rate(PolicyAgent(first_legal, "first-legal"), "english", games=2)
    assert result.agent == "first-legal" and result.rating.games == 2


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        (0, "first-legal-bug chose action 0, which the action mask forbids (legal: ["),
        (-1, "chose action -1, which the action mask forbids"),
        (896, "chose action 896, which the action mask forbids"),
        (np.array([[3]]), "chose action 3, which the action mask forbids"),
        (2.0, "returned 2.0, not an integer action"),
        (True, "returned True, not an integer action"),
        (np.array([1, 2]), "not an integer action"),
        (None, "returned None, not an integer action"),
    ],
)
def test_a_policy_agent_refuses_what_the_mask_forbids(chosen: object, message: str) -> None:
    env = raw_env("english")
    env.reset()
    agent = PolicyAgent(lambda planes, mask: chosen, "first-legal-bug")
    with pytest.raises(ValueError, match=re.escape(message)):
        play_hop(agent, env)


def test_a_policy_agent_needs_a_callable() -> None:
    with pytest.raises(TypeError, match="policy must be callable, not str"):
        PolicyAgent("random")  # type: ignore[arg-type]


# --- benchmarks/leaderboard.py --------------------------------------------------------------


@pytest.fixture(scope="module")
def leaderboard() -> ModuleType:
    """Imports the script as a module."""
    spec = importlib.util.spec_from_file_location("leaderboard", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def run_script(*args: str) -> str:
    """Returns the stdout of the leaderboard script, which must succeed."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Runs the tiny leaderboard once; returns its results file and what it printed."""
    runs = tmp_path_factory.mktemp("leaderboard")
    return runs / "results.json", run_script(*TINY, "--runs", str(runs))


def test_the_leaderboard_trains_rates_and_tables_a_recipe(tiny_results: tuple[Path, str]) -> None:
    path, printed = tiny_results
    results = json.loads(path.read_text())
    assert results["variant"] == "english" and results["pool"] == "v1"
    assert results["command"] == "python benchmarks/leaderboard.py " + " ".join(
        [*TINY, "--runs", str(path.parent)]
    )
    assert results["machine"]["cores"] >= 1 and results["machine"]["python"]
    assert results["settings"]["rate_games"] == 2 and results["settings"]["budget"] == 5
    (row,) = results["rows"]
    assert row["row"] == "quickstart" and row["status"] == "ok", row
    assert row["command"].startswith("damas train configs/quickstart.yaml --out ")
    assert "--time-budget 5 --set train.iterations=2" in row["command"]
    assert row["agent"] == f"checkpoint:{path.parent / 'quickstart/checkpoints/latest.pt'}"
    assert row["rating"]["games"] == 2 and row["rating"]["pool"] == "v1"
    assert row["rating_text"].startswith("Elo ") and row["train_seconds"] > 0
    assert 1 <= row["iterations"] <= 2
    assert [p["iteration"] for p in row["curve"]] == list(range(1, row["iterations"] + 1))
    assert row["curve"][-1]["rating"] == row["rating"]  # the last snapshot is the final net
    assert "| Row | Elo on the pool | Games | Training | Command |" in printed
    assert f"| AlphaZero quickstart | {row['rating_text']} | 2 | " in printed
    assert f"- Command: `{results['command']}`" in printed
    first = row["curve"][0]
    minutes = f"{first['elapsed_s'] / 60:.1f}"
    assert f"| AlphaZero quickstart | {minutes} | 1 | {first['rating_text']} |" in printed


def test_the_leaderboard_rates_an_example_through_its_adapter(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    printed = run_script(
        "--rows", "sb3", "--steps", "256", "--rate-games", "2", "--runs", str(tmp_path)
    )
    (row,) = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert row["status"] == "ok" and row["kind"] == "example", row
    assert row["command"] == (
        "examples/integrations/sb3_maskable_ppo.py: main(total_steps=256, variant='english', "
        "n_envs=4, eval_games=50, seed=0, every=10.0)"
    )
    assert row["agent"] == "sb3-maskable-ppo" and row["rating"]["games"] == 2
    assert row["rate_workers"] == 1 and -1 <= row["score_vs_random"] <= 1
    assert f"| SB3 MaskablePPO | {row['rating_text']} | 2 | " in printed


def test_a_row_that_fails_or_cannot_run_says_why(
    leaderboard: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    run_script("--rows", "quickstart", "--set", "train.iterations=0", "--runs", str(runs))
    (row,) = json.loads((runs / "results.json").read_text())["rows"]
    assert row["status"] == "failed" and row["row"] == "quickstart"
    assert row["reason"] == (
        "damas train exited with status 2: damas train: --set 'train.iterations=0': "
        "train.iterations must be > 0, not 0"
    )

    (tmp_path / "missing.py").write_text("import no_such_library_for_the_leaderboard\n")
    monkeypatch.setattr(leaderboard, "EXAMPLES", tmp_path)
    missing = leaderboard.Row("missing", "A missing library", example="missing", extra="sb3")
    result = leaderboard.run_row(missing, argparse.Namespace())
    assert result["status"] == "not run here" and result["kind"] == "example"
    assert result["reason"] == (
        "ModuleNotFoundError: No module named 'no_such_library_for_the_leaderboard'; "
        "pip install -e '.[sb3]'"
    )
    assert result["command"] == "examples/integrations/missing.py: main()"


def test_render_merges_saved_results(
    leaderboard: ModuleType,
    tiny_results: tuple[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, _ = tiny_results
    other: dict[str, Any] = json.loads(path.read_text())
    other["command"] = "python benchmarks/leaderboard.py --rows rllib"
    other["rows"] = [
        {
            "row": "rllib",
            "title": "RLlib PPO",
            "status": "not run here",
            "reason": "ImportError: No module named 'pyarrow'; pip install -e '.[rllib]'",
            "command": "examples/integrations/rllib_ppo.py: main()",
        }
    ]
    second = tmp_path / "rllib.json"
    second.write_text(json.dumps(other))
    assert leaderboard.main(["--render", str(path), str(second)]) == 0
    printed = capsys.readouterr().out
    row = json.loads(path.read_text())["rows"][0]
    lines = printed.splitlines()
    table = [line for line in lines if line.startswith("| ") and "Training minutes" not in line]
    assert table[1].startswith(f"| AlphaZero quickstart | {row['rating_text']} | 2 | ")
    assert table[2] == (
        "| RLlib PPO | not run here: ImportError: No module named 'pyarrow'; pip install -e "
        "'.[rllib]' |  |  | `examples/integrations/rllib_ppo.py: main()` |"
    )
    assert "- Command: `python benchmarks/leaderboard.py --rows rllib`" in lines
    if importlib.util.find_spec("matplotlib") is not None:
        assert (path.parent / "curve.png").stat().st_size > 0
        assert (path.parent / "curve.svg").stat().st_size > 0
