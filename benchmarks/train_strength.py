"""Strength of a trained agent over wall-clock time: the learning curve in the arena.

    python benchmarks/train_strength.py                                  # AlphaZero, 1 hour
    python benchmarks/train_strength.py --config configs/ppo_english.yaml --budget 3600
    python benchmarks/train_strength.py --budget 300 --games 40 --points 2   # a quick look
    python benchmarks/train_strength.py --eval-only runs/strength-...       # evaluate again

It trains the config for ``--budget`` seconds of wall-clock time on this machine (no
evaluation during training, so the budget is all self-play and learning), then picks the
network snapshots nearest to ``--points`` evenly spaced times and plays each ``--games``
arena games against every opponent (half with each colour, the arena's openings), with the
raw policy and, for AlphaZero, with ``--sims`` PUCT simulations per hop. It prints the
curve (score with its 95% interval and Elo per opponent, over time) and the throughput
(self-play games/s and positions/s, network evaluations/s, learner updates), and writes
everything to ``RUN_DIR/strength.json``.

Targets of issue 6 (English): after an hour the AlphaZero agent beats alphabeta:depth=2
and scores at least 50% against alphabeta:depth=4; PPO beats greedy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.arena import play_match  # noqa: E402
from agents.training.config import apply_overrides, load_config  # noqa: E402
from agents.training.train import run_training  # noqa: E402

OPPONENTS = [
    "random",
    "greedy",
    "alphabeta:depth=1",
    "alphabeta:depth=2",
    "alphabeta:depth=3",
    "alphabeta:depth=4",
]


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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=str(ROOT / "configs" / "alphazero_english.yaml"))
    p.add_argument("--set", dest="overrides", nargs="+", default=[], metavar="KEY=VALUE")
    p.add_argument("--budget", type=float, default=3600.0, help="training seconds")
    p.add_argument("--points", type=int, default=4, help="snapshots on the curve")
    p.add_argument("--games", type=int, default=200, help="arena games per opponent")
    p.add_argument("--opponents", nargs="+", default=OPPONENTS)
    p.add_argument("--sims", type=int, nargs="+", default=[0, 64], help="eval simulations")
    p.add_argument(
        "--search-all",
        action="store_true",
        help="evaluate with search at every point, not only the last (slow)",
    )
    p.add_argument("--workers", type=int, default=2, help="arena processes")
    p.add_argument("--out", help="run directory (default runs/strength-<config>-<time>)")
    p.add_argument("--eval-only", help="evaluate an existing run directory, no training")
    args = p.parse_args()

    if args.eval_only:
        run_dir = Path(args.eval_only)
        config = load_config(run_dir / "config.yaml")
    else:
        config = load_config(args.config)
        config = apply_overrides(
            config, ["eval.every=0", "train.checkpoint_every=5", *args.overrides]
        )
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.out or ROOT / "runs" / f"strength-{config.name}-{stamp}")
        print(f"training {config.name} for {args.budget:.0f} s in {run_dir}", flush=True)
        run_training(config, run_dir=run_dir, progress=False, time_budget=args.budget)

    metrics = _metrics(run_dir)
    throughput = _throughput(metrics)
    snapshots = _snapshots(run_dir, metrics, args.points)
    variant = config.env.ruleset()
    sims = [s for s in args.sims if s == 0 or config.algorithm == "alphazero"]
    curve = []
    for k, snap in enumerate(snapshots):
        last = k == len(snapshots) - 1
        for s in sims:
            if s and not last and not args.search_all:
                continue  # searching agents are slow to evaluate: only the final network
            spec = f"checkpoint:{snap['path']}" + (f",sims={s}" if s else "")
            for opponent in args.opponents:
                t0 = time.perf_counter()
                match = play_match(
                    spec, opponent, variant, games=args.games, seed=1, workers=args.workers,
                    progress=False,
                )  # fmt: skip
                st = match.stats
                row = {
                    "iteration": snap["iteration"],
                    "minutes": snap["elapsed_s"] / 60,
                    "sims": s,
                    "opponent": opponent,
                    "wins": st.wins,
                    "draws": st.draws,
                    "losses": st.losses,
                    "score": st.score,
                    "score_ci": list(st.score_ci),
                    "elo": st.elo,
                    "elo_ci": list(st.elo_ci),
                    "eval_seconds": time.perf_counter() - t0,
                }
                curve.append(row)
                print(
                    f"{row['minutes']:6.1f} min  iter {snap['iteration']:5d}  sims {s:3d}  "
                    f"vs {opponent:<20} +{st.wins:<3d} ={st.draws:<3d} -{st.losses:<3d} "
                    f"score {st.score:.3f} [{st.score_ci[0]:.3f}, {st.score_ci[1]:.3f}]  "
                    f"Elo {st.elo:+5.0f} [{st.elo_ci[0]:+.0f}, {st.elo_ci[1]:+.0f}]",
                    flush=True,
                )
    print("\nthroughput:")
    for key, value in throughput.items():
        print(f"  {key:<28} {value:,.2f}")
    result = {"config": config.name, "run_dir": str(run_dir), "throughput": throughput}
    result["curve"] = curve
    (run_dir / "strength.json").write_text(json.dumps(result, indent=2))
    print(f"\nwritten: {run_dir / 'strength.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
