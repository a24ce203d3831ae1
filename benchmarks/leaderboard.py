"""The leaderboard: our training recipes and the RL-library examples, each trained by its
default run and rated on the English pool (``damas rate``: Elo with ``random`` = 0).

    python benchmarks/leaderboard.py --workers 2                 # every row, default runs
    python benchmarks/leaderboard.py --rows quickstart alphazero ppo nnue --budget 3600 \
        --set train.iterations=1000000 --curve --workers 2       # each recipe for an hour
    python benchmarks/leaderboard.py --rows sb3 tianshou --parallel 2  # a row per core
    python benchmarks/leaderboard.py --render runs/leaderboard-a/results.json b.json
    python benchmarks/leaderboard.py --complete runs/leaderboard-b/results.json  # default runs

==========  ===============================================================================
Row         Training (its default run)
==========  ===============================================================================
quickstart  ``damas train configs/quickstart.yaml`` (30 iterations: minutes)
alphazero   ``damas train configs/alphazero_english.yaml --time-budget 3600``
ppo         ``damas train configs/ppo_english.yaml`` (300 iterations: about an hour)
nnue        ``damas train configs/nnue_english.yaml --time-budget 3600``
sb3         ``main()`` of ``examples/integrations/sb3_maskable_ppo.py``
sb3-batch   ``main()`` of ``examples/integrations/sb3_maskable_ppo_batch.py``
tianshou    ``main()`` of ``examples/integrations/tianshou_dqn.py``
torchrl     ``main()`` of ``examples/integrations/torchrl_ppo.py``
rllib       ``main()`` of ``examples/integrations/rllib_ppo.py``
==========  ===============================================================================

Each row (``--rows``, default all) runs in a process of its own, ``--parallel N`` at a time
(give each a core: nnue self-plays in two processes), trains, then rates what it trained with
:func:`damas_agents.rating.rate` (``--ci``, ``--rate-games``, ``--seed``): a recipe's
``checkpoints/latest.pt`` as ``checkpoint:PATH`` (the raw policy; nnue its alpha-beta) in
``--workers`` processes, an example's model through its ``as_agent`` in the row's process.
``--budget S`` gives each recipe a time budget of S seconds (replacing alphazero's and nnue's
hour) and ``--set KEY=VALUE`` overrides the recipes' configs (``train.iterations=1000000``
makes the quickstart and ppo train for the whole budget too, not stop at their iterations);
the examples run ``main()`` with its defaults on ``--threads`` torch threads, as their
command lines do (``--steps N``: with ``total_steps=N``).

``--curve [N]`` also rates N of each recipe's network snapshots (``checkpoints/iter_*.pt``,
kept every ``train.checkpoint_every`` iterations), those nearest to evenly spaced training
times: Elo against the trainer's clock (``elapsed_s`` of ``metrics.jsonl``, from the first
iteration on: the setup is left out).

It prints a markdown table under the machine and the command line: each row's Elo after its
default run (with its 95% interval, or the bound when every game was won or lost; the games;
the training's wall time, setup included) and after each ``--budget``, and its command. A
run with ``--budget`` or ``--set`` also stands for the default run where it differs from it
only in length (``train.iterations``, the time budget): the snapshot of the iteration where
the default run stops is rated (``--complete RESULTS`` does it for a saved file that lacks
it). The NNUE recipe's default run trained the shipped ``pretrained:english-v1``: where no
run here stands for it, the pool's own rating of that member does, said as such.

Everything goes to ``--out`` (default ``RUNS/results.json``, rewritten as each row ends; the
runs, each row's log and JSON go to ``--runs``, default ``runs/leaderboard-<time>``). With
matplotlib the curves are drawn to ``curve.png`` and ``curve.svg`` beside it. A row whose
library is missing says "not run here" and why, one that fails says "failed" and why, and
the other rows go on.
``--render FILE...`` prints the table (and draws the curves) of saved results again, merging
files of rows run separately.

Sizes, on a 2-core machine: alphazero, ppo and nnue train about an hour each, the quickstart
and each example a few minutes; a rating takes minutes (about 0.04 s a game near random,
0.15 s near alphabeta:depth=6, at most ``--rate-games``), so ``--curve`` adds about that
much per point.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "agents"))
sys.path.insert(0, str(ROOT))

from damas_agents.files import write_atomically  # noqa: E402
from damas_agents.rating.pool import cpu_model  # noqa: E402

EXAMPLES = ROOT / "examples" / "integrations"
VARIANT = "english"
FORMAT = 1  # of the results file


@dataclass(frozen=True)
class Row:
    """One entry of the leaderboard: a recipe (a config) or an example (a script)."""

    name: str
    title: str
    config: str | None = None
    """A recipe: its config, relative to the repository."""
    budget: float | None = None
    """A recipe's time budget in its default run (None: it ends after its iterations)."""
    example: str | None = None
    """An example: its module in examples/integrations/."""
    extra: str = ""
    """The pip extra an example needs."""
    shipped: str | None = None
    """A rating pool member whose network this recipe's default run trained (the shipped
    agent): the pool's own rating of it stands for the default run when none was run here."""


ROWS = (
    Row("quickstart", "AlphaZero quickstart", config="configs/quickstart.yaml"),
    Row("alphazero", "AlphaZero", config="configs/alphazero_english.yaml", budget=3600.0),
    Row("ppo", "PPO self-play", config="configs/ppo_english.yaml"),
    Row(
        "nnue",
        "NNUE alpha-beta",
        config="configs/nnue_english.yaml",
        budget=3600.0,
        shipped="pretrained:english-v1,depth=6",
    ),
    Row("sb3", "SB3 MaskablePPO", example="sb3_maskable_ppo", extra="sb3"),
    Row("sb3-batch", "SB3 MaskablePPO, batch env", example="sb3_maskable_ppo_batch", extra="sb3"),
    Row("tianshou", "Tianshou DQN", example="tianshou_dqn", extra="tianshou"),
    Row("torchrl", "TorchRL PPO", example="torchrl_ppo", extra="torchrl"),
    Row("rllib", "RLlib PPO", example="rllib_ppo", extra="rllib"),
)
ROW_NAMES = [row.name for row in ROWS]


def machine() -> dict[str, Any]:
    """Returns the processor, cores, Python and system that ran the rows, and the load."""
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "system": platform.platform(),
        "load_at_start": load,
    }


def machine_text(info: dict[str, Any]) -> str:
    """Returns the machine as one line."""
    load = info.get("load_at_start")
    busy = f", load {load[0]:.1f} at the start" if load else ""
    return f"{info['cpu']}, {info['cores']} cores, Python {info['python']}{busy}"


# --- One row, in its own process ------------------------------------------------------------


def run_row(row: Row, args: argparse.Namespace) -> dict[str, Any]:
    """Trains and rates one row; returns its results (a failure is a result too)."""
    result: dict[str, Any] = {"row": row.name, "title": row.title, "status": "ok"}
    result["kind"] = "recipe" if row.config else "example"
    try:
        if row.config:
            _run_recipe(row, args, result)
        else:
            _run_example(row, args, result)
    except _NotRunError as error:
        result |= {"status": "not run here", "reason": str(error)}
    except _TrainingError as error:
        result |= {"status": "failed", "reason": str(error)}
    except Exception as error:  # the row's failure, recorded; the other rows go on
        traceback.print_exc()
        result |= {"status": "failed", "reason": _one_line(error)}
    return result


class _NotRunError(Exception):
    """The row cannot run on this machine (its library is missing)."""


class _TrainingError(Exception):
    """``damas train`` failed (its message says why)."""


def _one_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1] if lines else ''}".rstrip(": ")


def _rate(agent: Any, args: argparse.Namespace, workers: int) -> dict[str, Any]:
    """Rates an agent on the pool; returns the rating as JSON-ready values."""
    from damas_agents.rating import rate

    started = time.perf_counter()
    rated = rate(agent, VARIANT, args.ci, args.rate_games, args.seed, workers, progress=True)
    return {
        "rating": rated.to_dict(),
        "rating_text": rated.rating.text(),
        "rate_seconds": time.perf_counter() - started,
        "rate_workers": workers,
    }


def _run_recipe(row: Row, args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Runs ``damas train`` on the recipe's config, then rates its latest checkpoint."""
    assert row.config is not None
    out = Path(args.runs) / row.name
    budget = args.budget if args.budget is not None else row.budget
    options = ["--out", str(out), "--no-progress"]
    options += ["--time-budget", f"{budget:g}"] if budget is not None else []
    options += ["--set", *args.overrides] if args.overrides else []
    result["command"] = shlex.join(["damas", "train", row.config, *options])
    command = [sys.executable, "-m", "damas_agents.command", "train", str(ROOT / row.config)]
    started = time.perf_counter()
    status, last = _run_teeing_stderr([*command, *options])
    result["train_seconds"] = time.perf_counter() - started
    if status != 0:
        raise _TrainingError(f"damas train exited with status {status}: {last}")
    metrics = _metrics(out)
    result["iterations"] = int(metrics[-1]["iteration"]) if metrics else 0
    result["train_elapsed_s"] = metrics[-1]["elapsed_s"] if metrics else None
    latest = out / "checkpoints" / "latest.pt"
    result["agent"] = f"checkpoint:{latest}"
    result |= _rate(result["agent"], args, args.workers)
    if args.curve:
        result["curve"] = _curve(out, metrics, args, result)
    if args.budget is not None or args.overrides:
        result["default_run"] = default_run(row, out, metrics, args, result)


#: The overrides that leave a recipe's default run as it was, for as long as it lasts.
_LENGTH_ONLY = ("train.iterations=",)


def default_run(
    row: Row, run_dir: Path, metrics: list[dict[str, float]], args: argparse.Namespace, final: dict
) -> dict[str, Any]:
    """Returns the rating of the network the recipe's default run would have ended with, read
    from a longer run of the same recipe: the snapshot of the iteration where the default run
    stops (its ``train.iterations``, or its time budget), rated here; or why there is none.

    Only a run that differs from the default run in its length can stand for it (the
    iterations, the time budget): the recipes' schedules do not depend on either, so the
    first iterations of a longer run are the default run's.
    """
    from damas_agents.models.config import load_config

    changed = [o for o in args.overrides if not o.startswith(_LENGTH_ONLY)]
    if changed:
        return {"status": "differs", "reason": f"the run changed {', '.join(changed)}"}
    iterations = load_config(ROOT / str(row.config)).train.iterations
    elapsed = {int(m["iteration"]): m["elapsed_s"] for m in metrics}
    over_time = [i for i, s in sorted(elapsed.items()) if row.budget and s >= row.budget]
    stop = min([iterations, *over_time[:1]])
    if stop > final["iterations"]:
        return {"status": "not reached", "reason": f"the run ended before iteration {stop}"}
    if stop == final["iterations"]:
        point = {key: final[key] for key in ("rating", "rating_text", "rate_seconds")}
        return {"status": "ok", "iteration": stop, "elapsed_s": elapsed.get(stop)} | point
    files = _snapshot_files(run_dir)
    kept = [i for i in files if i <= stop and i in elapsed]
    if not kept:
        return {"status": "not reached", "reason": f"no snapshot at or before iteration {stop}"}
    iteration = max(kept)
    rated = _rate(f"checkpoint:{files[iteration]}", args, args.workers)
    print(f"default run: iteration {iteration}  {rated['rating_text']}", flush=True)
    return {"status": "ok", "iteration": iteration, "elapsed_s": elapsed[iteration]} | rated


def _run_teeing_stderr(command: list[str]) -> tuple[int, str]:
    """Runs a command, its stderr passed on line by line; returns its exit status and the
    last line it wrote to stderr (a failing ``damas train`` says why there)."""
    last = "(no message)"
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=_env()) as process:
        assert process.stderr is not None
        for line in process.stderr:
            sys.stderr.write(line)
            last = line.strip() or last
    return process.returncode, last


def _metrics(run_dir: Path) -> list[dict[str, float]]:
    path = run_dir / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _curve(
    run_dir: Path, metrics: list[dict[str, float]], args: argparse.Namespace, final: dict
) -> list[dict[str, Any]]:
    """Rates the snapshots nearest to `args.curve` evenly spaced training times; the last
    point is the run's final rating (its last snapshot is latest.pt's network)."""
    points = []
    snapshots = _snapshots(run_dir, metrics, args.curve)
    for k, (iteration, elapsed, path) in enumerate(snapshots):
        is_last = k == len(snapshots) - 1 and iteration == final["iterations"]
        rated = final if is_last else _rate(f"checkpoint:{path}", args, args.workers)
        points.append({"iteration": iteration, "elapsed_s": elapsed, "checkpoint": str(path)})
        points[-1] |= {key: rated[key] for key in ("rating", "rating_text", "rate_seconds")}
        text = f"curve: {elapsed / 60:6.1f} min  iteration {iteration}  {rated['rating_text']}"
        print(text, flush=True)
    return points


def _snapshot_files(run_dir: Path) -> dict[int, Path]:
    """Returns a run's network snapshots (``checkpoints/iter_*.pt``) by iteration."""
    return {int(p.stem.split("_")[1]): p for p in (run_dir / "checkpoints").glob("iter_*.pt")}


def _snapshots(
    run_dir: Path, metrics: list[dict[str, float]], points: int
) -> list[tuple[int, float, Path]]:
    """Returns (iteration, training seconds, file) of the snapshots nearest to `points`
    evenly spaced times of the run, earliest first, each once."""
    files = _snapshot_files(run_dir)
    elapsed = {int(m["iteration"]): m["elapsed_s"] for m in metrics}
    available = sorted(i for i in files if i in elapsed)
    if not available:
        return []
    end = elapsed[available[-1]]
    chosen = {
        min(available, key=lambda i: abs(elapsed[i] - end * k / points))
        for k in range(1, points + 1)
    }
    return [(i, elapsed[i], files[i]) for i in sorted(chosen)]


def load_example(name: str) -> ModuleType:
    """Imports examples/integrations/<name>.py.

    Raises:
        ImportError: the example's library (or one it needs) is not installed.
    """
    spec = importlib.util.spec_from_file_location(f"leaderboard_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _run_example(row: Row, args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Runs the example's ``main()`` with its defaults, then rates ``as_agent(model)``."""
    assert row.example is not None
    script = f"examples/integrations/{row.example}.py"
    result["command"] = f"{script}: main()"
    try:
        example = load_example(row.example)
    except ImportError as error:
        cause = error
        while isinstance(cause.__cause__, ImportError):  # ray.rllib: ray.tune: pyarrow
            cause = cause.__cause__
        why = _one_line(error) + (f" (cause: {_one_line(cause)})" if cause is not error else "")
        raise _NotRunError(f"{why}; pip install -e '.[{row.extra}]'") from None
    overrides = {"total_steps": args.steps} if args.steps else {}
    defaults = inspect.signature(example.main).parameters.values()
    arguments = {p.name: p.default for p in defaults} | overrides
    shown = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
    result["command"] = f"{script}: main({shown})"
    import torch

    torch.set_num_threads(args.threads)
    try:
        started = time.perf_counter()
        model, score = example.main(**overrides)
        result["train_seconds"] = time.perf_counter() - started
        result["score_vs_random"] = score
        agent = example.as_agent(model)
        result["agent"] = agent.name
        result |= _rate(agent, args, 1)  # an agent in memory plays in this process
    finally:
        if "ray" in sys.modules:
            sys.modules["ray"].shutdown()


# --- The rows' processes --------------------------------------------------------------------


def _env() -> dict[str, str]:
    """Returns the environment of the processes started here: this checkout's packages first
    (over an installed damas-env)."""
    paths = [str(ROOT), str(ROOT / "agents"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def _child_argv(row: Row, args: argparse.Namespace) -> list[str]:
    """Returns the command line that runs one row in a process of its own."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", row.name]
    argv += ["--runs", str(args.runs), "--ci", f"{args.ci:g}", "--seed", str(args.seed)]
    argv += ["--rate-games", str(args.rate_games), "--workers", str(args.workers)]
    argv += ["--threads", str(args.threads)]
    argv += ["--steps", str(args.steps)] if args.steps else []
    argv += ["--budget", f"{args.budget:g}"] if args.budget is not None else []
    argv += ["--curve", str(args.curve)] if args.curve else []
    argv += ["--set", *args.overrides] if args.overrides else []
    return argv


def run_rows(rows: list[Row], args: argparse.Namespace, results: dict[str, Any]) -> None:
    """Runs the rows, `args.parallel` processes at a time, adding each row's results (and
    writing the results file) as it ends."""
    runs, waiting = Path(args.runs), list(rows)
    running: dict[str, tuple[subprocess.Popen, Any, float]] = {}
    while waiting or running:
        while waiting and len(running) < args.parallel:
            row = waiting.pop(0)
            (runs / f"{row.name}.json").unlink(missing_ok=True)  # a row's results are its own
            log = (runs / f"{row.name}.log").open("w")
            argv = _child_argv(row, args)
            child = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=_env())
            running[row.name] = (child, log, time.perf_counter())
            _say(f"{row.name}: started (log {runs / f'{row.name}.log'})")
        time.sleep(0.5)
        for name, (child, log, started) in list(running.items()):
            if child.poll() is None:
                continue
            log.close()
            del running[name]
            row_result = _child_result(runs, name, child.returncode)
            results["rows"].append(row_result)
            write_atomically(args.out, json.dumps(results, indent=2).encode())
            minutes = (time.perf_counter() - started) / 60
            _say(f"{name}: {_status_text(row_result)} ({minutes:.1f} min)")


def _child_result(runs: Path, name: str, returncode: int) -> dict[str, Any]:
    """Returns the results a row's process wrote, or its failure if it wrote none."""
    path = runs / f"{name}.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    row = next(r for r in ROWS if r.name == name)
    lines = [line for line in (runs / f"{name}.log").read_text().splitlines() if line.strip()]
    reason = f"its process exited with status {returncode}: {lines[-1] if lines else ''}"
    return {"row": name, "title": row.title, "status": "failed", "reason": reason}


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


# --- The table and the plot -----------------------------------------------------------------


def _status_text(row: dict[str, Any]) -> str:
    """Returns the rating as the table shows it, or why there is none."""
    if row["status"] == "ok":
        return str(row["rating_text"])
    return f"{row['status']}: {row.get('reason', '')}"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def table(results: list[dict[str, Any]]) -> str:
    """Returns the markdown leaderboard of one or more results files, strongest first, then
    the rows without a rating.

    Each row shows the Elo after its default run (from a file of default runs; else from a
    longer run's snapshot where the default run stops; else, for a recipe whose default
    run trained a pool member, the pool's rating of it), and the Elo after each time budget
    that a file ran the recipes for (``--budget``). A later file's row replaces an earlier's.
    """
    default, budgets, titles = _columns(results)
    first = results[0]
    lines = [
        f"Elo on the {first['variant']} pool {first['pool']} (random = 0), 95% intervals; "
        f"each rating stops at ±{first['settings']['ci']:g} Elo or "
        f"{first['settings']['rate_games']} games.",
        "",
    ]
    for result in results:
        lines.append(f"- Machine: {machine_text(result['machine'])}")
        lines.append(f"- Command: `{result['command']}`")
    spans = sorted(budgets)
    heads = ["Row", "Elo after its default run", "Games", "Training"]
    heads += [f"Elo after {_span(b)} of training" for b in spans] + ["Command"]
    lines += ["", _table_row(heads), "|" + "---|" * len(heads)]
    commands = {row["row"]: row.get("command", "") for r in results for row in r["rows"]}
    names = sorted(titles, key=lambda n: -_strength(default.get(n) or _best(budgets, n)))
    for name in names:  # strongest first; those without a rating in the files' order
        cell = default.get(name, {"text": "not run", "games": "", "seconds": None})
        cells = [titles[name], cell["text"], cell["games"], _duration(cell["seconds"])]
        cells += [budgets[b].get(name, {"text": ""})["text"] for b in spans]
        command = f"`{commands[name]}`" if commands.get(name) else ""
        lines.append(_table_row([*cells, command]))
    lines += _curve_table(results)
    return "\n".join(lines)


def _columns(
    results: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[float, dict[str, Any]], dict[str, str]]:
    """Returns the cells after the rows' default runs and after each time budget, and the
    rows' titles, by row name."""
    default: dict[str, dict[str, Any]] = {}
    budgets: dict[float, dict[str, dict[str, Any]]] = {}
    titles: dict[str, str] = {}
    for result in results:
        budget = result["settings"].get("budget")
        changed = _changed(result["settings"])
        for row in result["rows"]:
            titles[row["row"]] = row["title"]
            if budget is None:
                default[row["row"]] = _cell(row, row.get("train_seconds"), changed)
                continue
            budgets.setdefault(budget, {})[row["row"]] = _cell(row, None, changed)
            stand_in = row.get("default_run")
            if stand_in and row["row"] not in default:
                default[row["row"]] = _cell(stand_in, stand_in.get("elapsed_s"), snapshot=True)
    pool = _pool_ratings(results[0]["variant"])
    for row in ROWS:
        missing = row.name not in default or default[row.name]["rating"] is None
        if row.name in titles and missing and row.shipped in pool:
            default[row.name] = pool[row.shipped]
    return default, budgets, titles


def _curve_table(results: list[dict[str, Any]]) -> list[str]:
    """Returns the lines of the learning curves' table (none without a curve)."""
    lines: list[str] = []
    curves = [row for r in results for row in r["rows"] if row.get("curve")]
    if curves:
        lines += [
            "",
            "| Row | Training minutes | Iteration | Elo on the pool |",
            "|---|---|---|---|",
        ]
        for row in curves:
            for point in row["curve"]:
                minutes = f"{point['elapsed_s'] / 60:.1f}"
                lines.append(
                    _table_row([row["title"], minutes, point["iteration"], point["rating_text"]])
                )
    return lines


def _changed(settings: dict[str, Any]) -> str:
    """Returns what a results file changed in the rows' training, besides its length (the
    time budget, ``train.iterations``): "" if nothing."""
    overrides = [o for o in settings.get("overrides", []) if not o.startswith(_LENGTH_ONLY)]
    steps = [f"total_steps={settings['steps']}"] if settings.get("steps") else []
    return ", ".join([*overrides, *steps])


def _cell(
    row: dict[str, Any], seconds: float | None, changed: str = "", snapshot: bool = False
) -> dict[str, Any]:
    """Returns a table cell's rating (or why there is none), its games and training time;
    `changed` says how the run differed from the recipe, `snapshot` that the rating is of a
    longer run's snapshot where the default run stops."""
    if row.get("status") != "ok":
        return {"text": _status_text(row), "games": "", "seconds": None, "rating": None}
    text = str(row["rating_text"])
    text += f" (with {changed})" if changed else ""
    if snapshot:
        text += f" (iteration {row['iteration']} of a longer run)"
    games = row["rating"]["games"]
    return {"text": text, "games": games, "seconds": seconds, "rating": row["rating"]}


def _pool_ratings(variant: str) -> dict[str, dict[str, Any]]:
    """Returns the table cells of the pool members' own ratings (the round robin's fit)."""
    from damas_agents.rating import available_pools, load_pool

    if variant not in available_pools():
        return {}
    pool = load_pool(variant)
    cells = {}
    for member in pool.members:
        low, high = member.ci
        text = f"Elo {member.elo:.0f} [{low:.0f}, {high:.0f}] (the shipped agent, in the pool)"
        rating = {"elo": member.elo, "elo_ci": [low, high], "elo_bound": None}
        cells[member.spec] = {"text": text, "games": member.games, "seconds": None}
        cells[member.spec]["rating"] = rating
    return cells


def _span(seconds: float) -> str:
    """Returns a time budget in words: ``1 h``, ``30 min``, ``5 s``."""
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"


def _best(budgets: dict[float, dict[str, dict[str, Any]]], name: str) -> dict[str, Any] | None:
    """Returns a row's cell after the longest budget it ran for, if any."""
    cells = [budgets[b][name] for b in sorted(budgets) if name in budgets[b]]
    return cells[-1] if cells else None


def _table_row(cells: list[Any]) -> str:
    """Returns one markdown table row (a "|" inside a cell escaped)."""
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def _strength(cell: dict[str, Any] | None) -> float:
    """Returns a cell's Elo (its bound where it has no estimate; -inf without a rating)."""
    rating = cell.get("rating") if cell else None
    if not rating:
        return -float("inf")
    if rating["elo"] is not None:
        return float(rating["elo"])
    low, high = rating["elo_ci"]
    return float(low if rating["elo_bound"] == "lower" else high)


def plot(results: list[dict[str, Any]], path: Path) -> list[Path]:
    """Draws Elo against training minutes, a line per recipe with a curve and a point per
    other rated row (95% intervals as bars, a bound as a triangle pointing its open way), to
    `path` as PNG and SVG; returns the files (none without matplotlib or a rating)."""
    rows = {row["row"]: row for result in results for row in result["rows"]}
    rated = [row for row in rows.values() if row["status"] == "ok"]
    if not rated or importlib.util.find_spec("matplotlib") is None:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    for row in rated:
        points = row.get("curve") or [{"elapsed_s": row["train_seconds"], "rating": row["rating"]}]
        _draw(
            axes, row["title"], [p["elapsed_s"] / 60 for p in points], [p["rating"] for p in points]
        )
    first = results[0]
    axes.set_xlabel("training minutes (recipes: the trainer's clock; examples: main()'s wall time)")
    axes.set_ylabel(f"Elo on the {first['variant']} pool {first['pool']} (random = 0)")
    axes.set_xlim(left=0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", loc="center right")  # clear of the curves at the top
    files = [path.with_suffix(".png"), path.with_suffix(".svg")]
    for file in files:
        figure.savefig(file, bbox_inches="tight")
    plt.close(figure)
    return files


def _draw(axes: Any, label: str, minutes: list[float], ratings: list[dict[str, Any]]) -> None:
    """Draws one row's ratings: a line through them, bars or bound triangles at each."""
    elos = [_strength({"status": "ok", "rating": r}) for r in ratings]
    (line,) = axes.plot(minutes, elos, label=label)
    for x, elo, rating in zip(minutes, elos, ratings, strict=True):
        if rating["elo_bound"] is None:
            low, high = rating["elo_ci"]
            axes.errorbar([x], [elo], [[elo - low], [high - elo]], fmt="o", color=line.get_color())
        else:
            marker = "^" if rating["elo_bound"] == "lower" else "v"
            axes.plot([x], [elo], marker=marker, color=line.get_color(), fillstyle="none")


# --- Command line ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """Returns the script's argument parser."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rows", nargs="+", choices=ROW_NAMES, default=ROW_NAMES, metavar="ROW")
    p.add_argument("--budget", type=float, help="seconds of training for each recipe")
    p.add_argument("--set", dest="overrides", nargs="+", default=[], metavar="KEY=VALUE")
    p.add_argument("--parallel", type=int, default=1, help="rows at a time (default 1)")
    p.add_argument("--workers", type=int, default=1, help="rating processes of a recipe (1)")
    p.add_argument("--threads", type=int, default=1, help="torch threads of an example (1)")
    p.add_argument("--steps", type=int, help="the examples' total_steps (default: main()'s)")
    p.add_argument("--ci", type=float, default=50.0, help="rate to a 95%% interval of ±CI (50)")
    p.add_argument("--rate-games", type=int, default=600, help="most games a rating plays")
    p.add_argument("--seed", type=int, default=0, help="seed of the ratings (0)")
    p.add_argument(
        "--curve", type=int, nargs="?", const=6, default=0, metavar="N",
        help="rate N snapshots of each recipe's run (default N: 6)",
    )  # fmt: skip
    p.add_argument("--runs", type=Path, help="where the runs and logs go")
    p.add_argument("--out", type=Path, help="the results file (default RUNS/results.json)")
    p.add_argument("--render", nargs="+", type=Path, metavar="RESULTS", help="print saved results")
    p.add_argument(
        "--complete",
        type=Path,
        metavar="RESULTS",
        help="rate the default runs a saved file of longer runs lacks, and rewrite it",
    )
    p.add_argument("--child", choices=ROW_NAMES, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Runs the leaderboard (or one row of it, or renders saved results); returns 0."""
    args = build_parser().parse_args(argv)
    if args.render:
        return _render([json.loads(path.read_text()) for path in args.render], args.render[0])
    if args.complete:
        return _complete(args.complete, args)
    args.runs = args.runs or ROOT / "runs" / f"leaderboard-{time.strftime('%Y%m%d-%H%M%S')}"
    args.runs.mkdir(parents=True, exist_ok=True)
    if args.child:
        row = next(r for r in ROWS if r.name == args.child)
        result = run_row(row, args)
        write_atomically(args.runs / f"{row.name}.json", json.dumps(result, indent=2).encode())
        return 0
    args.out = args.out or args.runs / "results.json"
    results = _header(args, sys.argv[1:] if argv is None else argv)
    rows = [row for row in ROWS if row.name in args.rows]
    _say(f"{len(rows)} row(s), {args.parallel} at a time, in {args.runs}")
    run_rows(rows, args, results)
    results["rows"].sort(key=lambda row: ROW_NAMES.index(row["row"]))
    write_atomically(args.out, json.dumps(results, indent=2).encode())
    _say(f"written: {args.out}")
    return _render([results], args.out)


def _complete(path: Path, args: argparse.Namespace) -> int:
    """Adds the default run's rating to each recipe row of a saved results file of longer
    runs that has none (a file written before the rows rated it), rating with the file's own
    settings; rewrites the file and prints its table."""
    results = json.loads(path.read_text())
    settings = results["settings"]
    for key in ("ci", "rate_games", "seed", "workers", "budget"):
        setattr(args, key, settings[key])
    args.overrides = settings["overrides"]
    for result in results["rows"]:
        row = next(r for r in ROWS if r.name == result["row"])
        if row.config is None or result["status"] != "ok" or "default_run" in result:
            continue
        if args.budget is None and not args.overrides:
            continue  # the row is its default run
        run_dir = Path(result["agent"].removeprefix("checkpoint:")).parent.parent
        result["default_run"] = default_run(row, run_dir, _metrics(run_dir), args, result)
        write_atomically(path, json.dumps(results, indent=2).encode())
    return _render([results], path)


def _header(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    """Returns the results file's fields before any row: machine, command, settings."""
    from damas_agents.rating import POOL_VERSION

    settings = {
        key: getattr(args, key)
        for key in ("ci", "rate_games", "seed", "workers", "threads", "steps", "budget", "curve")
    }
    return {
        "leaderboard": FORMAT,
        "variant": VARIANT,
        "pool": POOL_VERSION,
        "machine": machine(),
        "command": "python benchmarks/leaderboard.py " + shlex.join(argv),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "settings": settings | {"overrides": args.overrides},
        "rows": [],
    }


def _render(results: list[dict[str, Any]], near: Path) -> int:
    """Prints the table of results and draws their curves beside `near`."""
    print(table(results))
    for file in plot(results, near.with_name("curve")):
        print(f"drawn: {file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
