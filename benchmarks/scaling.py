"""Self-play throughput of the single-process trainer and of 1, 2 and 4 Ray workers.

    python benchmarks/scaling.py                               # quickstart, 3 timed iterations
    python benchmarks/scaling.py --config configs/ppo_english.yaml --workers 1 2 4 8
    python benchmarks/scaling.py --address auto                # on a Ray cluster

For each setting it runs one warm-up iteration (workers start, kernels load) and then
``--iterations`` timed ones, and prints positions/s (self-play positions the learner
received per second of wall-clock time), games/s, and the share of an iteration the learner
spends learning (the rest is waiting for self-play and moving weights and games).

Each worker plays ``env.num_envs`` games, so N workers produce about N times the positions
per iteration; the learner's updates per iteration stay the same. Throughput grows with
workers until one of these binds: the cores (a worker is a process with its own network
evaluations: on a 2-core machine more than 2 workers only share the same cores), the
learner (its updates run after the workers' self-play, not during it), and the weight
broadcast and game transfer (small here: a few hundred KB of weights per iteration).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from damas_agents.models.config import apply_overrides, load_config  # noqa: E402
from damas_agents.training.trainer import make_trainer  # noqa: E402


def measure(config, iterations: int) -> dict[str, float]:
    """Returns positions/s, games/s and the learner's share for one setting."""
    trainer = make_trainer(config)
    if config.distributed.backend == "ray":
        from damas_agents.training.distributed import RaySelfPlay

        workers = RaySelfPlay(trainer, config)
        step, close = workers.step, workers.close
    else:
        step, close = trainer.step, (lambda: None)
    try:
        step()  # warm-up
        positions = games = learn = 0.0
        started = time.perf_counter()
        for _ in range(iterations):
            t0 = time.perf_counter()
            metrics = step()
            seconds = time.perf_counter() - t0
            positions += metrics["positions"]
            games += metrics.get("games", 0.0)
            play = metrics.get("alphazero/self_play_s")
            if play is not None:
                learn += max(0.0, seconds - play)
        wall = time.perf_counter() - started
    finally:
        close()
    return {
        "positions_per_s": positions / wall,
        "games_per_s": games / wall,
        "learner_share": learn / wall,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=str(ROOT / "configs" / "quickstart.yaml"))
    p.add_argument("--set", dest="overrides", nargs="+", default=[], metavar="KEY=VALUE")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--address", default="", help="Ray cluster address ('' = local Ray)")
    args = p.parse_args()
    base = apply_overrides(load_config(args.config), ["eval.every=0", *args.overrides])
    rows = [("single process", measure(base, args.iterations))]
    for n in args.workers:
        config = apply_overrides(
            base,
            [
                "distributed.backend=ray",
                f"distributed.workers={n}",
                f"distributed.address={args.address}",
            ],
        )
        rows.append((f"ray, {n} worker{'s' if n > 1 else ''}", measure(config, args.iterations)))
    print(f"{base.name} ({base.algorithm}), {base.env.num_envs} games per worker")
    print(f"{'setting':<18} {'positions/s':>12} {'games/s':>9} {'learner':>8}  vs single")
    single = rows[0][1]["positions_per_s"]
    for name, r in rows:
        share = f"{r['learner_share']:7.0%}" if r["learner_share"] else "      -"
        print(
            f"{name:<18} {r['positions_per_s']:12.0f} {r['games_per_s']:9.2f} {share:>8}"
            f"  {r['positions_per_s'] / single:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
