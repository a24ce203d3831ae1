"""Self-play throughput of training configs, side by side in one process: positions learned
from per second.

    python benchmarks/selfplay_throughput.py                      # nnue_english vs quickstart
    python benchmarks/selfplay_throughput.py configs/nnue_international.yaml --seconds 60
    python benchmarks/selfplay_throughput.py configs/quickstart.yaml configs/ppo_english.yaml
    python benchmarks/selfplay_throughput.py configs/nnue_english.yaml --against c837ec5

With ``--against REV`` each config runs in this checkout and in another git revision (its code
unpacked as ``benchmarks/search_speed.py`` does), each in a process of its own, taking turns
for ``--rounds`` rounds; the best round of each counts, and the ratio is new over old.

For each config it builds the trainer, runs one iteration to warm up (compiling, worker
processes), then runs whole iterations (self-play and learning, as ``damas train`` does,
without evaluation or checkpoints) for at least ``--seconds`` of wall-clock time, and prints:

- positions/s: the new positions the learner got from self-play (the ``positions`` metric:
  searched hops for AlphaZero, env steps for PPO, quiet positions with a search score for
  nnue), per wall-clock second of whole iterations;
- games/s, and samples/s: positions in the learner's minibatches per second (replay reuse);
- the ratio of positions/s to the first config's (the baseline, quickstart by default).

The configs run one after the other in this process, so they see the same machine; run it
on a quiet machine for the figures the README quotes (a busy core halves them).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
if "DAMAS_BENCH_CHILD" not in os.environ:  # a child of --against imports its own revision
    sys.path.insert(0, str(ROOT))

try:
    from damas_agents.models.config import Config, apply_overrides, load_config
except ImportError:  # an older revision's layout, in the child of --against
    from damas_agents.training.config import (  # type: ignore[no-redef]
        Config,
        apply_overrides,
        load_config,
    )
from damas_agents.training.trainer import make_trainer  # noqa: E402

DEFAULT = [ROOT / "configs" / "quickstart.yaml", ROOT / "configs" / "nnue_english.yaml"]


def measure(config: Config, seconds: float) -> dict[str, float]:
    """Returns the throughput of whole iterations of a config's trainer."""
    import torch

    if config.train.torch_threads:
        torch.set_num_threads(config.train.torch_threads)
    trainer = make_trainer(config)
    try:
        trainer.step()  # warm-up: compiling, worker processes, a first replay
        positions = games = samples = 0.0
        iterations = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            metrics = trainer.step()
            positions += metrics.get("positions", 0.0)
            games += metrics.get("games", 0.0)
            if "loss/total" in metrics or "loss/value" in metrics:
                samples += config.train.batch_size * config.train.updates_per_iteration
            iterations += 1
        elapsed = time.perf_counter() - start
    finally:
        close = getattr(trainer, "close", None)
        if close is not None:
            close()
    return {
        "positions_per_s": positions / elapsed,
        "games_per_s": games / elapsed,
        "samples_per_s": samples / elapsed,
        "iterations": float(iterations),
        "seconds": elapsed,
    }


# The child of --against: measures one config in the revision on its PYTHONPATH.
CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from selfplay_throughput import apply_overrides, load_config, measure
config = apply_overrides(load_config(sys.argv[2]), json.loads(sys.argv[4]))
print(json.dumps(measure(config, float(sys.argv[3]))))
"""


def measure_in(tree: Path, config: Path, seconds: float, overrides: list[str]) -> dict:
    """Runs :func:`measure` in a process importing the packages of `tree`."""
    import json
    import subprocess

    from search_speed import python_path

    env = dict(os.environ, PYTHONPATH=python_path(tree), DAMAS_BENCH_CHILD="1")
    args = [str(Path(__file__).parent), str(config), str(seconds), json.dumps(overrides)]
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        env=env,
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def against(
    revision: str, paths: list[Path], seconds: float, overrides: list[str], rounds: int
) -> None:
    """Prints each config's positions/s here and at `revision`, and the ratio."""
    from search_speed import unpack

    old_tree = unpack(revision)
    print(f"{'config':28} {'old positions/s':>16} {'new positions/s':>16} {'ratio':>7}")
    for path in paths:
        best = {"old": 0.0, "new": 0.0}
        for _ in range(rounds):
            for name, tree in (("old", old_tree), ("new", ROOT)):
                config = path if name == "new" else old_tree / path.relative_to(ROOT)
                r = measure_in(tree, config, seconds, overrides)
                best[name] = max(best[name], r["positions_per_s"])
        print(
            f"{path.stem:28} {best['old']:16.0f} {best['new']:16.0f} "
            f"{best['new'] / best['old']:6.2f}x",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", type=Path, help="configs; the first is the baseline")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time per config")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="overrides applied to every config")  # fmt: skip
    parser.add_argument("--against", metavar="REV", help="compare with another git revision")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --against")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.configs] or DEFAULT
    if args.against:
        against(args.against, paths, args.seconds, ["eval.every=0", *args.set], args.rounds)
        return 0
    base = None
    print(f"{'config':28} {'positions/s':>12} {'games/s':>9} {'samples/s':>10} {'ratio':>7}")
    for path in paths:
        config = apply_overrides(load_config(path), ["eval.every=0", *args.set])
        r = measure(config, args.seconds)
        base = base or r["positions_per_s"]
        print(
            f"{path.stem:28} {r['positions_per_s']:12.0f} {r['games_per_s']:9.2f} "
            f"{r['samples_per_s']:10.0f} {r['positions_per_s'] / base:6.1f}x",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
