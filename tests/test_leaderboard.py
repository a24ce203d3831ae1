"""PolicyAgent, the arena agent of any policy function, and benchmarks/leaderboard.py.

The leaderboard script trains each row and rates it on the pool; here it runs one tiny row
end to end (one iteration of the quickstart with a training seed, a few rating games), adds
that run again as one trained outside the script (``--add-run``), then re-prints saved
results with ``--render``; the table's seeds, the environment steps, and the page that
keeps the tables are checked on data. The examples' own adapters (``as_agent``) are tested
after their tiny trainings in tests/test_integrations.py.
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
#: One quickstart iteration of 8 games, no evaluation, rated in two games, with its curve,
#: trained with seed 3.
TINY = ["--rows", "quickstart", "--budget", "5", "--rate-games", "2", "--curve", "2"]
TINY += ["--seeds", "3"]
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
    assert row["command"].endswith(" env.num_envs=8 train.seed=3") and row["train_seed"] == 3
    run = path.parent / "quickstart-seed3"
    assert row["agent"] == f"checkpoint:{run / 'checkpoints/latest.pt'}"
    assert row["env_steps"] == row["iterations"] * 8 * 8  # 8 games, 8 searched hops each
    assert row["rating"]["games"] == 2 and row["rating"]["pool"] == "v1"
    assert row["rating_text"].startswith("Elo ") and row["train_seconds"] > 0
    assert 1 <= row["iterations"] <= 2
    assert [p["iteration"] for p in row["curve"]] == list(range(1, row["iterations"] + 1))
    assert [p["env_steps"] for p in row["curve"]] == [64 * p["iteration"] for p in row["curve"]]
    assert row["curve"][-1]["rating"] == row["rating"]  # the last snapshot is the final net
    changed = "train.checkpoint_every=1, eval.every=0, env.num_envs=8"
    assert row["default_run"] == {"status": "differs", "reason": f"the run changed {changed}"}
    heads = "| Row | Seeds | Elo, mean of the seeds | Spread across seeds | Each seed's Elo | "
    heads += "Environment steps | Training | Elo after 5 s of training | Command |"
    assert heads in printed
    assert (
        f"| AlphaZero quickstart | 0 | differs: the run changed {changed} |  |  |  |  | "
        f"seed 3: {row['rating_text']} (with {changed}) | `damas train " in printed
    )
    assert f"- Command: `{results['command']}`" in printed
    first = row["curve"][0]
    minutes = f"{first['elapsed_s'] / 60:.1f}"
    assert f"| AlphaZero quickstart | 3 | {minutes} | 64 | 1 | {first['rating_text']} |" in printed


def test_a_run_trained_outside_the_script_is_added(tiny_results: tuple[Path, str]) -> None:
    """``--add-run`` rates a run folder of ``damas train`` and adds it to a results file,
    with its seed, its environment steps and how its config differs from the recipe's; a
    second run of the same seed replaces the first."""
    path, _ = tiny_results
    run, out = path.parent / "quickstart-seed3", path.parent / "added.json"
    for _ in range(2):
        printed = run_script(
            "--add-run", "quickstart", str(run), "--rate-games", "2", "--out", str(out)
        )
    (row,) = json.loads(out.read_text())["rows"]
    assert row["status"] == "ok" and row["train_seed"] == 3 and row["rating"]["games"] == 2
    assert row["env_steps"] == 64 * row["iterations"] and "curve" not in row
    assert row["command"].startswith(f"damas train configs/quickstart.yaml --out {run} ")
    assert row["command"].endswith(" (trained outside the script)")
    assert "train.seed=3" in row["command"] and "train.seed" not in row["changed"]
    assert "env.num_envs=8" in row["changed"]
    assert "| AlphaZero quickstart | 1 | " in printed and "| one seed: no spread | " in printed


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
    assert row["train_seed"] == 0 and row["env_steps"] == 256
    assert "| SB3 MaskablePPO | 1 | " in printed
    assert f" | seed 0: {row['rating_text']} (with total_steps=256) | 256 | " in printed


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
    assert table[1].startswith("| AlphaZero quickstart | 0 | differs: the run changed ")
    assert f" | seed 3: {row['rating_text']} (with train.checkpoint_every=1, " in table[1]
    assert table[2] == (
        "| RLlib PPO | 0 | not run here: ImportError: No module named 'pyarrow'; pip install -e "
        "'.[rllib]' |  |  |  |  |  | `examples/integrations/rllib_ppo.py: main()` |"
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


def test_the_table_shows_each_rows_seeds_with_their_mean_and_spread(
    leaderboard: ModuleType,
) -> None:
    """A row gathers its default runs by training seed across files: from files of default
    runs (a later run of a seed replaces the earlier), else from a longer run's snapshot,
    else (NNUE) the pool's rating of the shipped agent; it shows how many seeds it has, their
    mean, their spread (never one seed's as a spread), each seed's Elo, the mean environment
    steps and training time. The 1 h column comes from the longer runs; strongest first."""
    header = {"variant": "english", "pool": "v1", "command": "python benchmarks/leaderboard.py"}
    header["machine"] = {"cpu": "a CPU", "cores": 2, "python": "3.11", "load_at_start": [1.0]}
    settings = {"ci": 50, "rate_games": 600, "budget": None, "overrides": [], "steps": None}

    def run(name: str, title: str, seed: int, elo: float, **more: Any) -> dict[str, Any]:
        return (
            {"row": name, "title": title, "status": "ok", "train_seed": seed}
            | more
            | (fake_rating(elo))
        )

    quick = [
        run("quickstart", "AlphaZero quickstart", s, elo, train_seconds=60.0 * (s + 1))
        for s, elo in [(0, 100), (1, 300), (2, 380)]
    ]
    quick[0] |= {"command": "damas train q", "env_steps": 15360}
    ppo = {"row": "ppo", "title": "PPO self-play", "status": "ok", "train_seed": 0}
    ppo |= fake_rating(850) | {"train_seconds": 3600.0}
    ppo["default_run"] = {"status": "ok", "iteration": 300, "elapsed_s": 2400.0}
    ppo["default_run"] |= fake_rating(900) | {"env_steps": 2_457_600}
    added = run("ppo", "PPO self-play", 1, 800, train_elapsed_s=2600.0, env_steps=2_457_600)
    alphazero = run("alphazero", "AlphaZero", 0, 700)
    alphazero["default_run"] = {"status": "ok", "iteration": 900, "elapsed_s": 3000.0}
    alphazero["default_run"] |= fake_rating(650)
    nnue = run("nnue", "NNUE alpha-beta", 0, 1500)
    nnue["default_run"] = {"status": "differs", "reason": "the run changed nnue.workers=1"}
    longer = {"budget": 3600.0, "overrides": ["train.iterations=1000000"]}
    one_worker = {"overrides": [*longer["overrides"], "nnue.workers=1"]}
    replaced = run("quickstart", "AlphaZero quickstart", 0, 9999)
    files = [
        header | {"settings": settings, "rows": [replaced]},
        header | {"settings": settings, "rows": quick},
        header | {"settings": settings | longer, "rows": [alphazero, ppo]},
        header | {"settings": settings | longer | one_worker, "rows": [nnue]},
        header | {"settings": settings, "rows": [added]},
    ]
    lines = leaderboard.table(files).splitlines()
    rows = [line for line in lines if line.startswith("| ")]
    assert rows[0] == (
        "| Row | Seeds | Elo, mean of the seeds | Spread across seeds | Each seed's Elo | "
        "Environment steps | Training | Elo after 1 h of training | Command |"
    )
    from damas_agents.rating import load_pool

    shipped = next(m for m in load_pool("english").members if "v1,depth=6," in m.spec)
    low, high = shipped.ci
    assert rows[1].startswith(
        f"| NNUE alpha-beta | 1 | {shipped.elo:.0f} | one seed: no spread | the shipped agent, "
        f"in the pool: Elo {shipped.elo:.0f} [{low:.0f}, {high:.0f}], {shipped.games} games | "
        "not recorded |  | seed 0: Elo 1500 ± 40 (with nnue.workers=1) |"
    )
    assert rows[2].startswith(
        "| PPO self-play | 2 | 850 | 800 to 900 (two seeds) | seed 0: Elo 900 ± 40 (iteration "
        "300 of a longer run); seed 1: Elo 800 ± 40 | 2.46 M | 41.7 min | seed 0: Elo 850 ± 40 |"
    )
    assert rows[3].startswith(
        "| AlphaZero | 1 | 650 | one seed: no spread | seed 0: Elo 650 ± 40 (iteration 900 of "
        "a longer run) | not recorded | 50.0 min | seed 0: Elo 700 ± 40 |"
    )
    assert rows[4] == (
        "| AlphaZero quickstart | 3 | 260 | 100 to 380, sd 144 | seed 0: Elo 100 ± 40; seed 1: "
        "Elo 300 ± 40; seed 2: Elo 380 ± 40 | 15 k (1 of 3 seeds recorded) | 2.0 min |  | "
        "`damas train q` |"
    )


def test_a_run_the_recipes_own_budget_ended_is_one_of_its_seeds(leaderboard: ModuleType) -> None:
    """A run with the recipe's own time budget that stopped before the recipe's iterations
    ended as its default run would have: it counts among the row's seeds, its other changes
    said (a run stopped by its iterations, or with another budget, does not)."""
    header = {"variant": "english", "pool": "v1", "command": "python benchmarks/leaderboard.py"}
    header["machine"] = {"cpu": "a CPU", "cores": 2, "python": "3.11", "load_at_start": [1.0]}
    settings = {"ci": 50, "rate_games": 600, "steps": None, "budget": 3600.0}
    settings["overrides"] = ["train.iterations=1000000", "nnue.workers=1"]
    nnue = {"row": "nnue", "title": "NNUE alpha-beta", "status": "ok", "train_seed": 0}
    nnue |= fake_rating(1500) | {"iterations": 2796, "train_elapsed_s": 3600.0}
    added = {"row": "nnue", "title": "NNUE alpha-beta", "status": "ok", "train_seed": 1}
    added |= fake_rating(1600) | {"train_elapsed_s": 3600.0}
    files = [header | {"settings": settings, "rows": [nnue]}]
    files += [header | {"settings": settings | {"budget": None, "overrides": []}, "rows": [added]}]
    rows = [line for line in leaderboard.table(files).splitlines() if line.startswith("| NNUE")]
    assert rows[0].startswith(
        "| NNUE alpha-beta | 2 | 1550 | 1500 to 1600 (two seeds) | seed 0: Elo 1500 ± 40 (with "
        "nnue.workers=1); seed 1: Elo 1600 ± 40 | "
    )
    for changed in ({"iterations": 100000}, {"budget": 1800.0}):
        run = nnue | {k: v for k, v in changed.items() if k == "iterations"}
        other = settings | {k: v for k, v in changed.items() if k == "budget"}
        again = [header | {"settings": other, "rows": [run]}, files[1]]
        lines = leaderboard.table(again).splitlines()
        assert any(line.startswith("| NNUE alpha-beta | 1 | 1600 | ") for line in lines), changed


def write_run(run_dir: Path, config: str, metrics: list[dict[str, float]]) -> Path:
    """Writes a run folder's config (a recipe's, read from configs/) and metrics.jsonl."""
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text((ROOT / "configs" / config).read_text())
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    return run_dir


def test_environment_steps_are_the_moves_of_the_training_games(
    leaderboard: ModuleType, tmp_path: Path
) -> None:
    """AlphaZero counts its searched hops, PPO its batch env's hops (every game, both sides),
    NNUE its self-play plies; a run without its config has none."""
    lines = [{"iteration": 1, "positions": 512, "games": 4, "game_length": 50.0}]
    lines += [{"iteration": 2, "positions": 512, "games": 2, "game_length": 80.0}]
    steps = {
        name: leaderboard.env_steps(write_run(tmp_path / name, f"{name}.yaml", lines), lines)
        for name in ("alphazero_english", "ppo_english", "nnue_english")
    }
    assert steps["alphazero_english"] == {1: 512, 2: 1024}
    assert steps["ppo_english"] == {1: 128 * 64, 2: 2 * 128 * 64}
    assert steps["nnue_english"] == {1: 200, 2: 360}
    assert leaderboard.env_steps(tmp_path, lines) == {}


def test_saved_results_and_commands_show_no_path_of_the_machine(leaderboard: ModuleType) -> None:
    """Paths of this checkout or of the folder holding it are written relative to it, in the
    results files and in the table; the saved results hold none."""
    folder = leaderboard.ROOT.parent
    results = {"command": f"--runs {folder}/runs/lb --out {leaderboard.ROOT}/runs/a.json"}
    results["rows"] = [{"agent": f"checkpoint:{folder}/runs/lb/ppo/checkpoints/latest.pt"}]
    assert leaderboard.relative(results) == {
        "command": "--runs runs/lb --out runs/a.json",
        "rows": [{"agent": "checkpoint:runs/lb/ppo/checkpoints/latest.pt"}],
    }
    for saved in sorted((ROOT / "docs" / "assets" / "leaderboard").glob("*.json")):
        text = saved.read_text()
        assert str(folder) + "/" not in text and '"/' not in text, saved.name


def test_the_leaderboard_page_keeps_its_tables_in_step() -> None:
    """The leaderboard page holds its tables (it reads on GitHub too), each as the site
    renders it from the saved results and the pools: ``python docs/hooks.py`` rewrites them.
    It shows no path of the building machine."""
    hooks = load_script("docs_hooks", ROOT / "docs" / "hooks.py")
    page = hooks.LEADERBOARD_PAGE.read_text()
    assert hooks.leaderboard_page(page) == page, "run python docs/hooks.py"
    for marker in (hooks.RECIPES_MARKER, hooks.POOLS_MARKER):
        end = marker.replace("<!-- ", "<!-- end of ")
        assert page.count(marker) == page.count(end) == 1
    site = hooks.on_page_markdown(page)
    assert "leaderboard -->" not in site and "pools -->" not in site
    assert hooks.recipes_table() in site and hooks.pool_tables() in site
    paths = re.findall(r"(?<![\w./~-])/(?:work|root|home|tmp|Users)/\S*", page)
    assert not paths and str(ROOT) not in page
