"""Strength of a trained agent over wall-clock time: the learning curve against a graded ladder.

    python benchmarks/train_strength.py                                  # AlphaZero, 1 hour
    python benchmarks/train_strength.py --config configs/ppo_english.yaml --budget 3600
    python benchmarks/train_strength.py --budget 300 --games 40 --points 2   # a quick look
    python benchmarks/train_strength.py --eval-only runs/strength-...       # evaluate again
    python benchmarks/train_strength.py --snapshot runs/x/checkpoints/latest.pt \\
        --opponents random,greedy,alphabeta:depth=4 --agent 'checkpoint:{path},sims=64'

It trains the config for ``--budget`` seconds of wall-clock time on this machine (no
evaluation during training, so the budget is all self-play and learning), then picks the
network snapshots nearest to ``--points`` evenly spaced times (``--eval-only RUN_DIR``: those
of a finished run; ``--snapshot PATH``: one checkpoint file, no run directory) and plays
each ``--games`` arena games against every opponent (:func:`damas_agents.arena.play_match`: half
with each colour, the arena's openings). The opponents are a graded ladder chosen by the
board's size, or ``--opponents``:

- every board: ``random``, ``greedy``, ``alphabeta:depth=1`` to ``depth=8``;
- 8x8: ``openspiel-mcts:sims=100`` and ``sims=1000`` (OpenSpiel's MCTSBot, English rules);
- 10x10: ``dame:depth=2`` to ``depth=6`` (dame-rs, International rules).

An opponent that cannot be built here (its engine is not installed, or it plays other
rules) is skipped with a note. ``--agent`` says how a snapshot plays: a spec with ``{path}``
for the snapshot's file (default ``checkpoint:{path}``, the raw policy), or a suffix of it
(``,sims=64``); give it more than once to compare ways of playing. The whole ladder at 200
games per opponent takes hours: its deep searches think for seconds a move.

As each match ends it prints one line: the training seconds at the snapshot, the opponent,
W/D/L, the score with its 95% interval, the Elo difference with its interval
(:func:`damas_agents.arena.score_stats`) and the mean seconds per move of the snapshot and of the
opponent (the time rule of issue 14: the agent may think no longer than its opponent). Then
the run's throughput (self-play games/s and positions/s, network evaluations/s). Everything
goes to ``RUN_DIR/strength.json`` (``--snapshot``: ``runs/strength-<file>-<time>.json``), or
to ``--json PATH``, rewritten after every match.

Targets of issue 14 (English, one hour on 2 CPU cores): at least 0.60 against
alphabeta:depth=4 and 0.50 against alphabeta:depth=6 over 200 games, thinking no longer per
move than the opponent.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from damas_agents.arena import play_match  # noqa: E402
from damas_agents.files import write_atomically  # noqa: E402
from damas_agents.players.make import make_agent  # noqa: E402
from damas_agents.specs import parse_spec  # noqa: E402
from damas_env import Ruleset  # noqa: E402

ALPHABETA_DEPTHS = range(1, 9)
OPENSPIEL_SIMS = (100, 1000)  # 8x8: about alphabeta:depth=1 and depth=3 (README ladder)
DAME_DEPTHS = range(2, 7)  # 10x10
DEFAULT_AGENT = "checkpoint:{path}"


def ladder(rules: Ruleset) -> list[str]:
    """Returns the graded opponents for a ruleset's board, weakest first."""
    specs = ["random", "greedy", *(f"alphabeta:depth={d}" for d in ALPHABETA_DEPTHS)]
    if rules.board_size == 8:
        specs += [f"openspiel-mcts:sims={n}" for n in OPENSPIEL_SIMS]
    if rules.board_size == 10:
        specs += [f"dame:depth={d}" for d in DAME_DEPTHS]
    return specs


def split_specs(values: list[str]) -> list[str]:
    """Returns the specs in comma or space separated arguments.

    An ``option=value`` item belongs to the spec before it, so
    ``random,alphabeta:depth=2,time=0.5`` is two specs.
    """
    specs: list[str] = []
    for item in (i for value in values for i in re.split(r"[,\s]+", value) if i):
        key, eq, _ = item.partition("=")
        if eq and ":" not in key and specs:
            specs[-1] += f",{item}"
        else:
            specs.append(item)
    return specs


def playable(specs: list[str], rules: Ruleset) -> tuple[list[str], dict[str, str]]:
    """Returns the opponents that can play `rules` here, and why the others cannot.

    Raises:
        ValueError: a spec is malformed (a typo is an error, not a skip).
    """
    kept, skipped = [], {}
    for spec in specs:
        parse_spec(spec)
        try:
            make_agent(spec, seed=0, rules=rules)
        except (ImportError, ValueError, OSError) as error:
            skipped[spec] = str(error).splitlines()[0]
            print(f"  ({spec} skipped: {skipped[spec]})", flush=True)
        else:
            kept.append(spec)
    return kept, skipped


def agent_spec(template: str, path: str) -> str:
    """Returns how a snapshot plays: the template with its path (a suffix extends the default).

    Raises:
        ValueError: the template has no ``{path}`` and is not a suffix starting with ",".
    """
    if template.startswith(","):
        template = DEFAULT_AGENT + template
    if "{path}" not in template:
        raise ValueError(f"--agent {template!r} needs {{path}} or a ',option=value' suffix")
    return template.replace("{path}", path)


# --- Snapshots and throughput ---------------------------------------------------------------


def _metrics(run_dir: Path) -> list[dict[str, float]]:
    path = run_dir / "metrics.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _snapshots(run_dir: Path, metrics: list[dict[str, float]], points: int) -> list[dict]:
    """Returns the snapshots nearest to `points` evenly spaced times of the run."""
    files = {int(p.stem.split("_")[1]): p for p in (run_dir / "checkpoints").glob("iter_*.pt")}
    elapsed = {int(m["iteration"]): m["elapsed_s"] for m in metrics}
    available = sorted(i for i in files if i in elapsed)
    if not available:
        raise SystemExit(f"no snapshots with metrics in {run_dir}/checkpoints")
    end = elapsed[available[-1]]
    chosen: list[int] = []
    for k in range(1, points + 1):
        target = end * k / points
        best = min(available, key=lambda i: abs(elapsed[i] - target))
        if best not in chosen:
            chosen.append(best)
    return [{"iteration": i, "elapsed_s": elapsed[i], "path": str(files[i])} for i in chosen]


def _snapshot_file(path: str) -> tuple[dict[str, Any], Ruleset]:
    """Returns one checkpoint file as a snapshot (its iteration and training seconds, where
    its history has them) and the ruleset it plays."""
    from damas_agents.models.checkpoint import read_checkpoint

    data = read_checkpoint(path)
    history = data.get("history") or [{}]
    snap = {"iteration": data["iteration"], "elapsed_s": history[-1].get("elapsed_s")}
    return {**snap, "path": path}, data["config_obj"].env.ruleset()


def _throughput(metrics: list[dict[str, float]]) -> dict[str, float]:
    """Returns the run's totals and mean rates."""
    seconds = sum(m.get("seconds", 0.0) for m in metrics)
    games = sum(m.get("games", 0.0) for m in metrics)
    positions = sum(m.get("positions", 0.0) for m in metrics)
    key = "alphazero/evaluations_per_s"
    evals = [m[key] for m in metrics if key in m]
    play = sum(m.get("alphazero/self_play_s", 0.0) for m in metrics)
    out = {
        "iterations": float(len(metrics)),
        "train_seconds": seconds,
        "games": games,
        "positions": positions,
        "games_per_s": games / max(seconds, 1e-9),
        "positions_per_s": positions / max(seconds, 1e-9),
    }
    if evals:
        out["network_evaluations_per_s"] = sum(evals) / len(evals)
        out["self_play_share"] = play / max(seconds, 1e-9)
    return out


# --- Matches --------------------------------------------------------------------------------


def evaluate(
    snap: dict[str, Any], template: str, opponent: str, rules: Ruleset, args: argparse.Namespace
) -> dict[str, Any]:
    """Plays a snapshot against one opponent; returns the curve's row for it."""
    started = time.perf_counter()
    match = play_match(
        agent_spec(template, snap["path"]), opponent, rules, games=args.games, seed=args.seed,
        workers=args.workers, progress=False,
    )  # fmt: skip
    st = match.stats
    mine, theirs = match.move_times()
    return {
        "iteration": snap["iteration"],
        "elapsed_s": snap["elapsed_s"],
        "agent": template,
        "opponent": opponent,
        "games": st.games,
        "wins": st.wins,
        "draws": st.draws,
        "losses": st.losses,
        "score": st.score,
        "score_ci": list(st.score_ci),
        "elo": st.elo,
        "elo_ci": list(st.elo_ci),
        "elo_bound": st.elo_bound,
        "elo_text": st.elo_text(),
        "seconds_per_move": {"agent": mine.to_dict(), "opponent": theirs.to_dict()},
        "average_plies": match.average_plies,
        "eval_seconds": time.perf_counter() - started,
    }


def line(row: dict[str, Any], agent_width: int = 0) -> str:
    """Returns one row of the curve as a line of text (the agent's template too if a width
    is given)."""
    elapsed = "-" if row["elapsed_s"] is None else f"{row['elapsed_s']:.0f}"
    times = row["seconds_per_move"]
    low, high = row["score_ci"]
    return (
        f"{elapsed:>6} s  iter {row['iteration']:5d}  "
        + (f"{row['agent']:<{agent_width}}  " if agent_width else "")
        + f"vs {row['opponent']:<24} +{row['wins']:<3d} ={row['draws']:<3d} -{row['losses']:<3d}"
        f" score {row['score']:.3f} [{low:.3f}, {high:.3f}]"
        f"  {row['elo_text']}"
        f"  s/move {times['agent']['mean']:.3g} vs {times['opponent']['mean']:.3g}"
    )


# --- Command line ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """Returns the benchmark's argument parser."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--config", default=str(ROOT / "configs" / "alphazero_english.yaml"))
    p.add_argument("--set", dest="overrides", nargs="+", default=[], metavar="KEY=VALUE")
    p.add_argument("--budget", type=float, default=3600.0, help="training seconds")
    p.add_argument("--out", help="run directory (default runs/strength-<config>-<time>)")
    p.add_argument("--eval-only", metavar="RUN_DIR", help="evaluate a run directory, no training")
    p.add_argument("--snapshot", metavar="PATH", help="evaluate one checkpoint file, no training")
    p.add_argument("--points", type=int, default=4, help="snapshots on the curve (default 4)")
    p.add_argument(
        "--opponents",
        nargs="+",
        metavar="SPEC",
        help="opponent specs, comma or space separated (default: the ladder for the board)",
    )
    p.add_argument("--games", type=int, default=200, help="games per opponent (default 200)")
    p.add_argument(
        "--agent",
        action="append",
        metavar="TEMPLATE",
        help=f"how a snapshot plays: a spec with {{path}}, or a ',option=value' suffix "
        f"(default {DEFAULT_AGENT}; repeat to compare)",
    )
    p.add_argument("--workers", type=int, default=2, help="arena processes (default 2)")
    p.add_argument("--seed", type=int, default=1, help="arena seed (default 1)")
    p.add_argument("--json", metavar="PATH", help="write the results here")
    return p


def _train_or_read(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict], Ruleset]:
    """Returns the run's description, its snapshots and ruleset (training first if asked)."""
    from damas_agents.models.config import apply_overrides, load_config

    stamp = time.strftime("%Y%m%d-%H%M%S")
    if args.snapshot:
        snap, rules = _snapshot_file(args.snapshot)
        json_path = args.json or ROOT / "runs" / f"strength-{Path(args.snapshot).stem}-{stamp}.json"
        return {"snapshot": args.snapshot, "json": str(json_path)}, [snap], rules
    if args.eval_only:
        run_dir = Path(args.eval_only)
        config = load_config(run_dir / "config.yaml")
    else:
        from damas_agents.training.train import run_training

        config = load_config(args.config)
        config = apply_overrides(
            config, ["eval.every=0", "train.checkpoint_every=5", *args.overrides]
        )
        run_dir = Path(args.out or ROOT / "runs" / f"strength-{config.name}-{stamp}")
        print(f"training {config.name} for {args.budget:.0f} s in {run_dir}", flush=True)
        run_training(config, run_dir=run_dir, progress=False, time_budget=args.budget)
    metrics = _metrics(run_dir)
    run = {"config": config.name, "run_dir": str(run_dir), "throughput": _throughput(metrics)}
    run["json"] = str(args.json or run_dir / "strength.json")
    return run, _snapshots(run_dir, metrics, args.points), config.env.ruleset()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.snapshot and args.eval_only:
        raise SystemExit("give --snapshot or --eval-only, not both")
    try:  # a typo fails now, not after training
        templates = [agent_spec(t, "{path}") for t in args.agent or [DEFAULT_AGENT]]
        for template in templates:
            parse_spec(agent_spec(template, "x.pt"))
        run, snapshots, rules = _train_or_read(args)
        games = f"{args.games} games per opponent"
        print(f"{rules.name}: {len(snapshots)} snapshot(s), {games}", flush=True)
        opponents, skipped = playable(split_specs(args.opponents or ladder(rules)), rules)
    except ValueError as error:
        raise SystemExit(f"train_strength: error: {error}") from None
    json_path = Path(run.pop("json"))
    result = {**run, "variant": rules.name, "games": args.games, "seed": args.seed}
    result |= {"agents": templates, "opponents": opponents, "skipped": skipped, "curve": []}
    for snap in snapshots:
        for template in templates:
            make_agent(agent_spec(template, snap["path"]), rules=rules)  # fails before games
            for opponent in opponents:
                row = evaluate(snap, template, opponent, rules, args)
                result["curve"].append(row)
                width = max(map(len, templates)) if len(templates) > 1 else 0
                print(line(row, width), flush=True)
                write_atomically(json_path, json.dumps(result, indent=2).encode())
    if "throughput" in run:
        print("\nthroughput:")
        for key, value in run["throughput"].items():
            print(f"  {key:<28} {value:,.2f}")
    write_atomically(json_path, json.dumps(result, indent=2).encode())
    print(f"\nwritten: {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
