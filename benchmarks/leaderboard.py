"""The leaderboard: our training recipes and the RL-library examples, each trained by its
default run and rated on the English pool (``damas rate``: Elo with ``random`` = 0).

    python benchmarks/leaderboard.py --workers 2                 # every row, default runs
    python benchmarks/leaderboard.py --rows quickstart ppo --seeds 0 1 2  # three seeds each
    python benchmarks/leaderboard.py --rows quickstart alphazero ppo nnue --budget 3600 \
        --set train.iterations=1000000 --curve --workers 2       # each recipe for an hour
    python benchmarks/leaderboard.py --rows sb3 tianshou --parallel 2  # a row per core
    python benchmarks/leaderboard.py --render runs/leaderboard-a/results.json b.json
    python benchmarks/leaderboard.py --complete runs/leaderboard-b/results.json  # default runs
    python benchmarks/leaderboard.py --add-run ppo runs/ppo-s1 runs/ppo-s2 --out runs/ppo.json

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
command lines do (``--steps N``: with ``total_steps=N``). ``--seeds S...`` trains each row
once per training seed (a recipe with ``--set train.seed=S``, an example with ``main(seed=S)``;
one whose ``main()`` takes no seed says so), each run in ``RUNS/<row>-seed<S>``.
``--add-run ROW RUN...`` rates runs of a recipe trained outside the script (the ``--out``
folders of ``damas train``) as the script rates its own (``--curve`` too), and adds them to
``--out``, with their seeds and how their configs differ from the recipe's.

``--curve [N]`` also rates N of each recipe's network snapshots (``checkpoints/iter_*.pt``,
kept every ``train.checkpoint_every`` iterations), those nearest to evenly spaced training
times: Elo against the trainer's clock (``elapsed_s`` of ``metrics.jsonl``, from the first
iteration on: the setup is left out) and against environment steps (:func:`env_steps`: the
moves of the training games; an example's ``total_steps``).

It prints a markdown table under the machine and the command line: each row's Elo after its
default run, over its training seeds (how many; their mean and spread; each seed's Elo with
its 95% interval, or the bound when every game was won or lost; the environment steps and
the training's wall time, setup included, or the trainer's clock for an added run) and after
each ``--budget``, and its command. A run with ``--budget`` or ``--set`` also stands for the
default run where it differs from it only in length (``train.iterations``, the time budget):
the snapshot of the iteration where the default run stops is rated (``--complete RESULTS``
does it for a saved file that lacks it); a run with the recipe's own time budget that the
budget ended is a default run, its other changes said, as for an added run. The NNUE
recipe's default run trained the shipped ``pretrained:english-v1``: where no run here stands
for it, the pool's own rating of that member does, said as such.

Everything goes to ``--out`` (default ``RUNS/results.json``, rewritten as each row ends; the
runs, each row's log and JSON go to ``--runs``, default ``runs/leaderboard-<time>``), its
paths written relative to the checkout, or to the folder holding it. With
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
import statistics
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
        shipped="pretrained:english-v1,depth=6,search=1",
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
    """Runs ``damas train`` on the recipe's config (with ``train.seed`` set to the training
    seed, if one is given), then rates the run."""
    assert row.config is not None
    out = Path(args.runs) / run_name(row, args.train_seed)
    budget = args.budget if args.budget is not None else row.budget
    overrides = [*args.overrides]
    overrides += [f"train.seed={args.train_seed}"] if args.train_seed is not None else []
    options = ["--out", str(out), "--no-progress"]
    options += ["--time-budget", f"{budget:g}"] if budget is not None else []
    options += ["--set", *overrides] if overrides else []
    result["command"] = shlex.join(["damas", "train", row.config, *options])
    command = [sys.executable, "-m", "damas_agents.command", "train", str(ROOT / row.config)]
    started = time.perf_counter()
    status, last = _run_teeing_stderr([*command, *options])
    result["train_seconds"] = time.perf_counter() - started
    if status != 0:
        raise _TrainingError(f"damas train exited with status {status}: {last}")
    metrics = rate_run(out, args, result)
    if args.budget is not None or args.overrides:
        result["default_run"] = default_run(row, out, metrics, args, result)


def run_name(row: Row, train_seed: int | None) -> str:
    """Returns the name of a row's run folder, log and JSON: the row's, and its training seed
    when ``--seeds`` gave one."""
    return row.name if train_seed is None else f"{row.name}-seed{train_seed}"


def rate_run(run_dir: Path, args: argparse.Namespace, result: dict[str, Any]) -> list[dict]:
    """Rates a recipe's run (its ``checkpoints/latest.pt``, and its curve with ``--curve``)
    into `result`, with its training seed, iterations and environment steps; returns the
    run's metrics."""
    metrics = _metrics(run_dir)
    steps = env_steps(run_dir, metrics)
    result["train_seed"] = _run_config(run_dir).train.seed
    result["iterations"] = int(metrics[-1]["iteration"]) if metrics else 0
    result["train_elapsed_s"] = metrics[-1]["elapsed_s"] if metrics else None
    result["env_steps"] = steps.get(result["iterations"])
    result["agent"] = f"checkpoint:{run_dir / 'checkpoints' / 'latest.pt'}"
    result |= _rate(result["agent"], args, args.workers)
    if args.curve:
        result["curve"] = _curve(run_dir, metrics, args, result)
    return metrics


def _run_config(run_dir: Path) -> Any:
    """Returns the config a run trained with (its ``config.yaml``)."""
    from damas_agents.models.config import load_config

    return load_config(run_dir / "config.yaml")


def env_steps(run_dir: Path, metrics: list[dict[str, float]]) -> dict[int, float]:
    """Returns the environment steps a run had taken by each iteration its ``metrics.jsonl``
    logged (every one, in the recipes): the moves played in its training games, both sides'.

    AlphaZero counts its searched hops (``positions``; a forced hop is played unsearched);
    PPO's batch env advances each of its ``env.num_envs`` games ``ppo.rollout_steps`` hops an
    iteration; NNUE plays ``games`` self-play games of ``game_length`` plies. Empty without
    the run's ``config.yaml``.
    """
    if not (run_dir / "config.yaml").exists():
        return {}
    config = _run_config(run_dir)
    steps, total = {}, 0.0
    for line in metrics:
        iteration = int(line["iteration"])
        if config.algorithm == "ppo":
            total = float(iteration * config.env.num_envs * config.ppo.rollout_steps)
        elif config.algorithm == "nnue":
            total += line["games"] * line.get("game_length", 0.0)
        else:
            total += line["positions"]
        steps[iteration] = total
    return steps


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
    steps = env_steps(run_dir, metrics)
    if stop == final["iterations"]:
        point = {key: final[key] for key in ("rating", "rating_text", "rate_seconds")}
        found = {"iteration": stop, "elapsed_s": elapsed.get(stop), "env_steps": steps.get(stop)}
        return {"status": "ok"} | found | point
    files = _snapshot_files(run_dir)
    kept = [i for i in files if i <= stop and i in elapsed]
    if not kept:
        return {"status": "not reached", "reason": f"no snapshot at or before iteration {stop}"}
    iteration = max(kept)
    rated = _rate(f"checkpoint:{files[iteration]}", args, args.workers)
    print(f"default run: iteration {iteration}  {rated['rating_text']}", flush=True)
    found = {"iteration": iteration, "elapsed_s": elapsed[iteration]}
    return {"status": "ok"} | found | {"env_steps": steps.get(iteration)} | rated


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
    steps = env_steps(run_dir, metrics)
    snapshots = _snapshots(run_dir, metrics, args.curve)
    for k, (iteration, elapsed, path) in enumerate(snapshots):
        is_last = k == len(snapshots) - 1 and iteration == final["iterations"]
        rated = final if is_last else _rate(f"checkpoint:{path}", args, args.workers)
        points.append({"iteration": iteration, "elapsed_s": elapsed, "checkpoint": str(path)})
        points[-1]["env_steps"] = steps.get(iteration)
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
    parameters = inspect.signature(example.main).parameters
    if args.train_seed is not None:
        if "seed" not in parameters:
            raise _NotRunError(f"{script}: main() takes no seed")
        overrides["seed"] = args.train_seed
    arguments = {p.name: p.default for p in parameters.values()} | overrides
    shown = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
    result["command"] = f"{script}: main({shown})"
    result["train_seed"] = arguments.get("seed")
    result["env_steps"] = arguments.get("total_steps")
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


def _child_argv(row: Row, seed: int | None, args: argparse.Namespace) -> list[str]:
    """Returns the command line that runs one row (with one training seed) in a process of
    its own."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", row.name]
    argv += ["--train-seed", str(seed)] if seed is not None else []
    argv += ["--runs", str(args.runs), "--ci", f"{args.ci:g}", "--seed", str(args.seed)]
    argv += ["--rate-games", str(args.rate_games), "--workers", str(args.workers)]
    argv += ["--threads", str(args.threads)]
    argv += ["--steps", str(args.steps)] if args.steps else []
    argv += ["--budget", f"{args.budget:g}"] if args.budget is not None else []
    argv += ["--curve", str(args.curve)] if args.curve else []
    argv += ["--set", *args.overrides] if args.overrides else []
    return argv


def run_rows(rows: list[Row], args: argparse.Namespace, results: dict[str, Any]) -> None:
    """Runs the rows, each with each training seed of ``--seeds``, `args.parallel` processes
    at a time, adding each run's results (and writing the results file) as it ends."""
    runs = Path(args.runs)
    waiting = [(row, seed) for row in rows for seed in (args.seeds or [None])]
    running: dict[str, tuple[subprocess.Popen, Any, float]] = {}
    while waiting or running:
        while waiting and len(running) < args.parallel:
            row, seed = waiting.pop(0)
            name = run_name(row, seed)
            (runs / f"{name}.json").unlink(missing_ok=True)  # a run's results are its own
            log = (runs / f"{name}.log").open("w")
            argv = _child_argv(row, seed, args)
            child = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=_env())
            running[name] = (child, log, time.perf_counter())
            _say(f"{name}: started (log {runs / f'{name}.log'})")
        time.sleep(0.5)
        for name, (child, log, started) in list(running.items()):
            if child.poll() is None:
                continue
            log.close()
            del running[name]
            row_result = _child_result(runs, name, child.returncode)
            results["rows"].append(row_result)
            _write(args.out, results)
            minutes = (time.perf_counter() - started) / 60
            _say(f"{name}: {_status_text(row_result)} ({minutes:.1f} min)")


def _child_result(runs: Path, name: str, returncode: int) -> dict[str, Any]:
    """Returns the results a run's process wrote, or its failure if it wrote none."""
    path = runs / f"{name}.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    row = _row(name)
    lines = [line for line in (runs / f"{name}.log").read_text().splitlines() if line.strip()]
    reason = f"its process exited with status {returncode}: {lines[-1] if lines else ''}"
    return {"row": row.name, "title": row.title, "status": "failed", "reason": reason}


def _write(path: Path, results: dict[str, Any]) -> None:
    """Writes a results file, its paths shown relative to the checkout (or to the folder
    holding it)."""
    write_atomically(path, json.dumps(relative(results), indent=2).encode())


def relative(value: Any) -> Any:
    """Returns JSON-ready `value` with each path of this checkout, or of the folder holding
    it (``runs/`` beside it), written relative to that folder, so that no results file nor
    page shows the building machine's paths."""
    if isinstance(value, dict):
        return {key: relative(item) for key, item in value.items()}
    if isinstance(value, list):
        return [relative(item) for item in value]
    if isinstance(value, str):
        for folder in (ROOT, ROOT.parent):
            value = value.replace(f"{folder}{os.sep}", "")
    return value


def _resolved(path: str) -> Path:
    """Returns a run's path as a results file holds it, made absolute again."""
    for folder in (ROOT, ROOT.parent):
        if not Path(path).is_absolute() and (folder / path).exists():
            return folder / path
    return Path(path)


def _row(name: str) -> Row:
    """Returns the row of a row's name or of its run's (``ppo-seed1``)."""
    return next(r for r in ROWS if name == r.name or name.startswith(f"{r.name}-seed"))


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
    """Returns the markdown leaderboard of one or more results files, strongest first (by
    the mean over its training seeds), then the rows without a rating.

    Each row gathers its default runs, one a training seed: from a file of default runs (or
    of runs added with ``--add-run``); else from a longer run's snapshot where the default
    run stops; else, for a recipe whose default run trained a pool member, the pool's rating
    of it. It shows how many seeds it has, their mean Elo, its spread (min-max; the standard
    deviation from three seeds), each seed's Elo, environment steps and training time; then
    the Elo after each time budget that a file ran the recipes for (``--budget``). A later
    file's run of a row and seed replaces an earlier's.
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
        lines.append(f"- Command: `{relative(result['command'])}`")
    spans = sorted(budgets)
    heads = ["Row", "Seeds", "Elo, mean of the seeds", "Spread across seeds"]
    heads += ["Each seed's Elo", "Environment steps", "Training"]
    heads += [f"Elo after {_span(b)} of training" for b in spans] + ["Command"]
    lines += ["", _table_row(heads), "|" + "---|" * len(heads)]
    commands = {
        row["row"]: row["command"] for r in results for row in r["rows"] if row.get("command")
    }
    names = sorted(titles, key=lambda n: -_mean(default.get(n) or _best(budgets, n)))
    for name in names:  # strongest first; those without a rating in the files' order
        cells = [titles[name], *_seed_cells(default.get(name, {}))]
        cells += [_brief(budgets[b].get(name, {})) for b in spans]
        command = f"`{relative(commands[name])}`" if commands.get(name) else ""
        lines.append(_table_row([*cells, command]))
    lines += _curve_table(results)
    return "\n".join(lines)


#: A row's cells by training seed ("shipped": the pool's rating of the shipped agent).
Seeds = dict[Any, dict[str, Any]]


def _columns(results: list[dict[str, Any]]) -> tuple[dict[str, Seeds], dict[float, dict], dict]:
    """Returns the cells of the rows' default runs and after each time budget, each by row
    name and training seed, and the rows' titles by row name."""
    default: dict[str, Seeds] = {}
    budgets: dict[float, dict[str, Seeds]] = {}
    titles: dict[str, str] = {}
    stand_ins: dict[str, Seeds] = {}
    for result in results:
        budget = result["settings"].get("budget")
        changed = _changed(result["settings"])
        for row in result["rows"]:
            name, seed = row["row"], row.get("train_seed")
            titles[name] = row["title"]
            also = ", ".join(c for c in (changed, row.get("changed", "")) if c)
            seconds = row.get("train_seconds") or row.get("train_elapsed_s")
            if budget is None:
                default.setdefault(name, {})[seed] = _cell(row, seconds, also)
                continue
            budgets.setdefault(budget, {}).setdefault(name, {})[seed] = _cell(row, None, also)
            stand_in = row.get("default_run") or {}
            if stand_in.get("status") != "ok" and _ended_as_default(name, budget, row):
                stand_ins.setdefault(name, {})[seed] = _cell(row, seconds, also)
            elif stand_in:
                cell = _cell(stand_in, stand_in.get("elapsed_s"), True)
                stand_ins.setdefault(name, {})[seed] = cell
    for name, cells in stand_ins.items():  # a file of default runs first
        default[name] = cells | default.get(name, {})
    pool = _pool_ratings(results[0]["variant"])
    for row in ROWS:
        rated = [c for c in default.get(row.name, {}).values() if c["rating"]]
        if row.name in titles and not rated and row.shipped in pool:
            default[row.name] = {"shipped": pool[row.shipped]}
    return default, budgets, titles


def _ended_as_default(name: str, budget: float, row: dict[str, Any]) -> bool:
    """Whether a run with a time budget ended as the recipe's default run would have: the
    recipe's own budget ended it before the recipe's iterations (its other changes are said
    in its cell, as for an added run)."""
    from damas_agents.models.config import load_config

    recipe = _row(name)
    if recipe.config is None or budget != recipe.budget or "iterations" not in row:
        return False
    return int(row["iterations"]) < load_config(ROOT / recipe.config).train.iterations


def _seed_cells(seeds: Seeds) -> list[str]:
    """Returns a row's cells of its default runs: the seeds, the mean Elo, the spread, each
    seed's Elo, the environment steps and the training time (means over the seeds)."""
    if not seeds:
        return ["0", "not run", "", "", "", ""]
    rated = {seed: cell for seed, cell in seeds.items() if cell["rating"]}
    if not rated:
        return ["0", "; ".join(cell["text"] for cell in seeds.values()), "", "", "", ""]
    elos = [_strength(cell) for cell in rated.values()]
    mean, low, high = statistics.fmean(elos), min(elos), max(elos)
    if len(elos) == 1:
        spread = "one seed: no spread"
    elif len(elos) == 2:
        spread = f"{low:.0f} to {high:.0f} (two seeds)"
    else:
        spread = f"{low:.0f} to {high:.0f}, sd {statistics.stdev(elos):.0f}"
    each = "; ".join(_seed_text(seed, cell) for seed, cell in seeds.items())
    steps = [cell["steps"] for cell in rated.values() if cell.get("steps")]
    steps_text = _count(statistics.fmean(steps)) if steps else "not recorded"
    if steps and len(steps) < len(rated):
        steps_text += f" ({len(steps)} of {len(rated)} seeds recorded)"
    seconds = [cell["seconds"] for cell in rated.values() if cell["seconds"]]
    training = _duration(statistics.fmean(seconds)) if seconds else ""
    bounds = any(cell["rating"]["elo_bound"] for cell in rated.values())
    mean_text = f"{mean:.0f}" + (" (a bound taken as an Elo)" if bounds else "")
    return [str(len(rated)), mean_text, spread, each, steps_text, training]


def _seed_text(seed: Any, cell: dict[str, Any]) -> str:
    """Returns one seed's Elo in a row's "each seed" cell."""
    if seed == "shipped":
        return f"the shipped agent, in the pool: {cell['short']}"
    return f"seed {'not recorded' if seed is None else seed}: {cell['short']}"


def _brief(seeds: Seeds) -> str:
    """Returns a time budget's cell: the Elo of its one seed, or the seeds' mean and range."""
    rated = {seed: cell for seed, cell in seeds.items() if cell["rating"]}
    if not rated:
        return "; ".join(cell["text"] for cell in seeds.values())
    if len(rated) == 1:
        ((seed, cell),) = rated.items()
        return _seed_text(seed, cell)
    elos = [_strength(cell) for cell in rated.values()]
    mean, low, high = statistics.fmean(elos), min(elos), max(elos)
    return f"{mean:.0f}, {low:.0f} to {high:.0f} over {len(elos)} seeds"


def _count(steps: float) -> str:
    """Returns a number of environment steps in short: ``2.46 M``, ``40 k``."""
    if steps >= 1e6:
        return f"{steps / 1e6:.2f} M"
    return f"{steps / 1e3:.0f} k" if steps >= 1e3 else f"{steps:.0f}"


def _curve_table(results: list[dict[str, Any]]) -> list[str]:
    """Returns the lines of the learning curves' table (none without a curve)."""
    lines: list[str] = []
    curves = [row for r in results for row in r["rows"] if row.get("curve")]
    if curves:
        heads = ["Row", "Seed", "Training minutes", "Environment steps", "Iteration"]
        lines += ["", _table_row([*heads, "Elo on the pool"]), "|---|---|---|---|---|---|"]
        for row in curves:
            seed = row.get("train_seed", "not recorded")
            for point in row["curve"]:
                minutes = f"{point['elapsed_s'] / 60:.1f}"
                steps = _count(point["env_steps"]) if point.get("env_steps") else "not recorded"
                cells = [row["title"], seed, minutes, steps, point["iteration"]]
                lines.append(_table_row([*cells, point["rating_text"]]))
    return lines


def _changed(settings: dict[str, Any]) -> str:
    """Returns what a results file changed in the rows' training, besides its length (the
    time budget, ``train.iterations``): "" if nothing."""
    overrides = [o for o in settings.get("overrides", []) if not o.startswith(_LENGTH_ONLY)]
    steps = [f"total_steps={settings['steps']}"] if settings.get("steps") else []
    return ", ".join([*overrides, *steps])


def _cell(
    row: dict[str, Any], seconds: float | None, changed: str | bool = "", snapshot: bool = False
) -> dict[str, Any]:
    """Returns a table cell's rating (or why there is none), its text in a row's seeds, its
    environment steps and training time; `changed` says how the run differed from the
    recipe, `snapshot` (or `changed` True) that the rating is of a longer run's snapshot
    where the default run stops."""
    if changed is True:
        changed, snapshot = "", True
    if row.get("status") != "ok":
        return {"text": _status_text(row), "seconds": None, "rating": None}
    text = str(row["rating_text"]) + (f" (with {changed})" if changed else "")
    short = text + (f" (iteration {row['iteration']} of a longer run)" if snapshot else "")
    cell = {"text": text, "short": short, "seconds": seconds, "rating": row["rating"]}
    return cell | {"steps": row.get("env_steps")}


def _pool_ratings(variant: str) -> dict[str, dict[str, Any]]:
    """Returns the table cells of the pool members' own ratings (the round robin's fit)."""
    from damas_agents.rating import available_pools, load_pool

    if variant not in available_pools():
        return {}
    pool = load_pool(variant)
    cells = {}
    for member in pool.members:
        low, high = member.ci
        rating = {"elo": member.elo, "elo_ci": [low, high], "elo_bound": None}
        short = f"Elo {member.elo:.0f} [{low:.0f}, {high:.0f}], {member.games} games"
        cells[member.spec] = {"text": "", "short": short, "seconds": None}
        cells[member.spec] |= {"rating": rating, "games": member.games}
    return cells


def _span(seconds: float) -> str:
    """Returns a time budget in words: ``1 h``, ``30 min``, ``5 s``."""
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"


def _best(budgets: dict[float, dict[str, Seeds]], name: str) -> Seeds | None:
    """Returns a row's cells after the longest budget it ran for, if any."""
    cells = [budgets[b][name] for b in sorted(budgets) if name in budgets[b]]
    return cells[-1] if cells else None


def _table_row(cells: list[Any]) -> str:
    """Returns one markdown table row (a "|" inside a cell escaped)."""
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def _mean(seeds: Seeds | None) -> float:
    """Returns the mean Elo of a row's rated seeds (-inf without one)."""
    elos = [_strength(cell) for cell in (seeds or {}).values() if cell["rating"]]
    return statistics.fmean(elos) if elos else -float("inf")


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
    """Draws Elo against training minutes and against environment steps, a line per recipe
    run with a curve and a point per other rated run (95% intervals as bars, a bound as a
    triangle pointing its open way), to `path` as PNG and SVG; returns the files (none
    without matplotlib or a rating)."""
    runs = {(row["row"], row.get("train_seed")): row for r in results for row in r["rows"]}
    rated = [row for row in runs.values() if row["status"] == "ok"]
    if not rated or importlib.util.find_spec("matplotlib") is None:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (by_time, by_steps) = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    palette = plt.get_cmap("tab10")
    seen: dict[str, int] = {}
    for row in rated:  # a colour a row, a line style a seed
        k = seen[row["row"]] = seen.get(row["row"], -1) + 1
        seconds = row.get("train_seconds") or row.get("train_elapsed_s")
        points = row.get("curve") or [row | {"elapsed_s": seconds}]
        several = sum(r["row"] == row["row"] for r in rated) > 1
        label = row["title"] + (f", seed {row.get('train_seed')}" if several else "")
        style = {"color": palette(ROW_NAMES.index(row["row"])), "ls": ("-", "--", ":")[k % 3]}
        ratings = [p["rating"] for p in points]
        _draw(by_time, label, [(p["elapsed_s"] or 0) / 60 for p in points], ratings, style)
        steps = [p.get("env_steps") for p in points]
        if all(steps):
            _draw(by_steps, label, steps, ratings, style)
    first = results[0]
    by_time.set_xlabel("training minutes (recipes: the trainer's clock; examples: main()'s)")
    by_time.set_ylabel(f"Elo on the {first['variant']} pool {first['pool']} (random = 0)")
    by_time.set_xlim(left=0)
    by_steps.set_xlabel("environment steps (moves played in the training games)")
    by_steps.set_xscale("log")
    for axes in (by_time, by_steps):
        axes.grid(alpha=0.3)
    by_time.legend(fontsize="small", loc="upper left", bbox_to_anchor=(2.22, 1.0))
    files = [path.with_suffix(".png"), path.with_suffix(".svg")]
    for file in files:
        figure.savefig(file, bbox_inches="tight")
    plt.close(figure)
    return files


def _draw(
    axes: Any, label: str, xs: list[float], ratings: list[dict[str, Any]], style: dict
) -> None:
    """Draws one run's ratings: a line through them, bars or bound triangles at each."""
    elos = [_strength({"status": "ok", "rating": r}) for r in ratings]
    axes.plot(xs, elos, label=label, **style)
    for x, elo, rating in zip(xs, elos, ratings, strict=True):
        if rating["elo_bound"] is None:
            low, high = rating["elo_ci"]
            axes.errorbar([x], [elo], [[elo - low], [high - elo]], fmt="o", color=style["color"])
        else:
            marker = "^" if rating["elo_bound"] == "lower" else "v"
            axes.plot([x], [elo], marker=marker, color=style["color"], fillstyle="none")


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
        "--seeds", type=int, nargs="+", metavar="S",
        help="train each row once per training seed S (default: the row's own seed)",
    )  # fmt: skip
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
    p.add_argument(
        "--add-run",
        nargs="+",
        metavar=("ROW", "RUN"),
        help="rate runs of ROW's recipe trained outside the script (damas train --out RUN) "
        "and add them to --out",
    )
    p.add_argument("--child", choices=ROW_NAMES, help=argparse.SUPPRESS)
    p.add_argument("--train-seed", type=int, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Runs the leaderboard (or one row of it, or renders saved results); returns 0."""
    args = build_parser().parse_args(argv)
    if args.render:
        return _render([json.loads(path.read_text()) for path in args.render], args.render[0])
    if args.complete:
        return _complete(args.complete, args)
    if args.add_run:
        return add_runs(args, sys.argv[1:] if argv is None else argv)
    args.runs = args.runs or ROOT / "runs" / f"leaderboard-{time.strftime('%Y%m%d-%H%M%S')}"
    args.runs.mkdir(parents=True, exist_ok=True)
    if args.child:
        row = _row(args.child)
        result = run_row(row, args)
        name = run_name(row, args.train_seed)
        write_atomically(args.runs / f"{name}.json", json.dumps(result, indent=2).encode())
        return 0
    args.out = args.out or args.runs / "results.json"
    results = _header(args, sys.argv[1:] if argv is None else argv)
    rows = [row for row in ROWS if row.name in args.rows]
    _say(f"{len(rows)} row(s), {args.parallel} at a time, in {args.runs}")
    run_rows(rows, args, results)
    results["rows"].sort(key=lambda row: ROW_NAMES.index(row["row"]))
    _write(args.out, results)
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
        run_dir = _resolved(result["agent"].removeprefix("checkpoint:")).parent.parent
        result["default_run"] = default_run(row, run_dir, _metrics(run_dir), args, result)
        _write(path, results)
    return _render([results], path)


def add_runs(args: argparse.Namespace, argv: list[str]) -> int:
    """Rates runs of a recipe trained outside the script (``--add-run ROW RUN...``), as the
    script rates its own, and adds them to ``--out`` (a new file, or one written before by
    ``--add-run``: a run of the same row and training seed replaces the earlier); prints the
    table."""
    name, *run_dirs = args.add_run
    row = next((r for r in ROWS if r.name == name and r.config), None)
    if row is None or not run_dirs or args.out is None:
        recipes = ", ".join(r.name for r in ROWS if r.config)
        raise SystemExit(f"--add-run takes a recipe's row ({recipes}), its runs and --out")
    results = json.loads(args.out.read_text()) if args.out.exists() else _header(args, argv)
    for run_dir in map(Path, run_dirs):
        result: dict[str, Any] = {"row": row.name, "title": row.title, "status": "ok"}
        changes = _config_changes(row, run_dir)
        options = ["--out", str(run_dir), "--no-progress"]
        options += ["--set", *changes] if changes else []
        result |= {"kind": "recipe", "command": shlex.join(["damas", "train", row.config or ""])}
        result["command"] += " " + shlex.join(options) + " (trained outside the script)"
        changed = [c for c in changes if not c.startswith(("train.seed=", *_LENGTH_ONLY))]
        result |= {"changed": ", ".join(changed)} if changed else {}
        rate_run(run_dir, args, result)
        same = (row.name, result["train_seed"])
        results["rows"] = [r for r in results["rows"] if (r["row"], r.get("train_seed")) != same]
        results["rows"].append(result)
        _write(args.out, results)
        _say(f"{row.name}, seed {result['train_seed']}: {result['rating_text']}")
    return _render([json.loads(args.out.read_text())], args.out)


def _config_changes(row: Row, run_dir: Path) -> list[str]:
    """Returns how a run's config differs from its recipe's, as ``--set`` overrides."""
    from damas_agents.models.config import config_to_dict, load_config

    recipe = _flat(config_to_dict(load_config(ROOT / str(row.config))))
    run = _flat(config_to_dict(_run_config(run_dir)))
    return [f"{key}={json.dumps(value)}" for key, value in run.items() if recipe.get(key) != value]


def _flat(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Returns a nested config's leaves by their dotted keys."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            flat |= _flat(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _header(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    """Returns the results file's fields before any row: machine, command, settings."""
    from damas_agents.rating import POOL_VERSION

    settings = {
        key: getattr(args, key)
        for key in ("ci", "rate_games", "seed", "workers", "threads", "steps", "budget", "curve")
    } | {"train_seeds": args.seeds}
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
