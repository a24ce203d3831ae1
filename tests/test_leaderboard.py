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
from helpers import load_script

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
    return load_script("leaderboard", SCRIPT)


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
    changed = "train.checkpoint_every=1, eval.every=0, env.num_envs=8"
    assert row["default_run"] == {"status": "differs", "reason": f"the run changed {changed}"}
    heads = "| Row | Elo after its default run | Games | Training | Elo after 5 s of training |"
    assert heads + " Command |" in printed
    assert (
        f"| AlphaZero quickstart | differs: the run changed {changed} |  |  | "
        f"{row['rating_text']} (with {changed}) | `damas train " in printed
    )
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
    assert f"| SB3 MaskablePPO | {row['rating_text']} (with total_steps=256) | 2 | " in printed


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
    other["settings"] = {**other["settings"], "budget": None, "overrides": []}
    second = tmp_path / "rllib.json"
    second.write_text(json.dumps(other))
    assert leaderboard.main(["--render", str(path), str(second)]) == 0
    printed = capsys.readouterr().out
    row = json.loads(path.read_text())["rows"][0]
    lines = printed.splitlines()
    table = [line for line in lines if line.startswith("| ") and "Training minutes" not in line]
    assert table[1].startswith("| AlphaZero quickstart | differs: the run changed ")
    assert f" | {row['rating_text']} (with train.checkpoint_every=1, " in table[1]
    assert table[2] == (
        "| RLlib PPO | not run here: ImportError: No module named 'pyarrow'; pip install -e "
        "'.[rllib]' |  |  |  | `examples/integrations/rllib_ppo.py: main()` |"
    )
    assert "- Command: `python benchmarks/leaderboard.py --rows rllib`" in lines
    if importlib.util.find_spec("matplotlib") is not None:
        assert (path.parent / "curve.png").stat().st_size > 0
        assert (path.parent / "curve.svg").stat().st_size > 0


def fake_rating(elo: float, games: int = 100) -> dict[str, Any]:
    """Returns a rating as the script stores it."""
    rating = {"elo": elo, "elo_ci": [elo - 40, elo + 40], "elo_bound": None, "games": games}
    return {"rating": rating, "rating_text": f"Elo {elo:.0f} ± 40", "rate_seconds": 1.0}


@pytest.fixture
def longer_run(
    leaderboard: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[dict[str, float]], list[str]]:
    """A run of 40 iterations, 5 s each, snapshots every 10, whose recipe's default run is
    20 iterations; ratings are faked (the specs rated are listed)."""
    from damas_agents.models import config

    (tmp_path / "checkpoints").mkdir()
    for i in (10, 20, 30, 40):
        (tmp_path / "checkpoints" / f"iter_{i:06d}.pt").touch()
    metrics = [{"iteration": i, "elapsed_s": 5.0 * i} for i in range(1, 41)]
    rated: list[str] = []
    monkeypatch.setattr(
        config,
        "load_config",
        lambda path: argparse.Namespace(train=argparse.Namespace(iterations=20)),
    )
    monkeypatch.setattr(
        leaderboard, "_rate", lambda spec, args, workers: rated.append(spec) or fake_rating(500)
    )
    return tmp_path, metrics, rated


@pytest.mark.parametrize(
    ("budget", "overrides", "expected"),
    [
        (None, ["train.iterations=40"], {"status": "ok", "iteration": 20, "elapsed_s": 100.0}),
        (64.0, [], {"status": "ok", "iteration": 10, "elapsed_s": 50.0}),  # stops at 13
        (None, ["train.iterations=40", "train.lr=1"], {"status": "differs"}),
    ],
)
def test_a_longer_run_stands_for_the_default_run_where_it_stops(
    leaderboard: ModuleType,
    longer_run: tuple[Path, list[dict[str, float]], list[str]],
    budget: float | None,
    overrides: list[str],
    expected: dict[str, Any],
) -> None:
    """The snapshot at (or just before) the iteration where the default run stops, by its
    iterations or its time budget, is rated; a run changed otherwise cannot stand for it."""
    run_dir, metrics, rated = longer_run
    row = leaderboard.Row("ppo", "PPO", config="configs/ppo_english.yaml", budget=budget)
    args = argparse.Namespace(overrides=overrides, workers=1)
    final = {"iterations": 40} | fake_rating(900)
    got = leaderboard.default_run(row, run_dir, metrics, args, final)
    assert {key: got[key] for key in expected} == expected
    if expected["status"] == "ok":
        assert rated == [f"checkpoint:{run_dir}/checkpoints/iter_{expected['iteration']:06d}.pt"]
        assert got["rating"]["elo"] == 500
    else:
        assert got["reason"] == "the run changed train.lr=1" and rated == []


def test_the_default_run_is_the_final_network_or_not_reached(
    leaderboard: ModuleType, longer_run: tuple[Path, list[dict[str, float]], list[str]]
) -> None:
    run_dir, metrics, rated = longer_run
    row = leaderboard.Row("ppo", "PPO", config="configs/ppo_english.yaml")
    args = argparse.Namespace(overrides=[], workers=1)
    final = {"iterations": 20} | fake_rating(900)
    got = leaderboard.default_run(row, run_dir, metrics[:20], args, final)
    assert got["status"] == "ok" and got["rating"]["elo"] == 900 and rated == []
    final = {"iterations": 15} | fake_rating(900)
    got = leaderboard.default_run(row, run_dir, metrics[:15], args, final)
    assert got == {"status": "not reached", "reason": "the run ended before iteration 20"}


def test_the_table_takes_default_runs_from_longer_runs_and_the_pool(
    leaderboard: ModuleType,
) -> None:
    """Default runs come from a file of default runs, else from a longer run's snapshot, else
    (NNUE) from the pool's rating of the shipped agent; the 1 h column from the longer runs;
    strongest first."""
    header = {"variant": "english", "pool": "v1", "command": "python benchmarks/leaderboard.py"}
    header["machine"] = {"cpu": "a CPU", "cores": 2, "python": "3.11", "load_at_start": [1.0]}
    settings = {"ci": 50, "rate_games": 600, "budget": None, "overrides": [], "steps": None}
    quick = {"row": "quickstart", "title": "AlphaZero quickstart", "status": "ok"}
    quick |= fake_rating(300) | {"train_seconds": 200.0, "command": "damas train q"}
    defaults = header | {"settings": settings, "rows": [quick]}
    longer = {"budget": 3600.0, "overrides": ["train.iterations=1000000"]}
    one_worker = {"overrides": [*longer["overrides"], "nnue.workers=1"]}
    alphazero = {"row": "alphazero", "title": "AlphaZero", "status": "ok"} | fake_rating(700)
    alphazero["default_run"] = {"status": "ok", "iteration": 900, "elapsed_s": 3000.0}
    alphazero["default_run"] |= fake_rating(650)
    nnue = {"row": "nnue", "title": "NNUE alpha-beta", "status": "ok"} | fake_rating(1500)
    nnue["default_run"] = {"status": "differs", "reason": "the run changed nnue.workers=1"}
    hours = [
        header | {"settings": settings | longer, "rows": [alphazero]},
        header | {"settings": settings | longer | one_worker, "rows": [nnue]},
    ]
    lines = leaderboard.table([defaults, *hours]).splitlines()
    rows = [line for line in lines if line.startswith("| ")]
    assert rows[0] == (
        "| Row | Elo after its default run | Games | Training | Elo after 1 h of training "
        "| Command |"
    )
    from damas_agents.rating import load_pool

    shipped = next(m for m in load_pool("english").members if m.spec.endswith("v1,depth=6"))
    low, high = shipped.ci
    assert rows[1].startswith(
        f"| NNUE alpha-beta | Elo {shipped.elo:.0f} [{low:.0f}, {high:.0f}] (the shipped agent, "
        f"in the pool) | {shipped.games} |  | Elo 1500 ± 40 (with nnue.workers=1) |"
    )
    assert rows[2].startswith(
        "| AlphaZero | Elo 650 ± 40 (iteration 900 of a longer run) | 100 | 50.0 min "
        "| Elo 700 ± 40 |"
    )
    assert rows[3] == "| AlphaZero quickstart | Elo 300 ± 40 | 100 | 3.3 min |  | `damas train q` |"
