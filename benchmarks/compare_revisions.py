"""Old against new in one process: the AEC env turn and the batch env step of another git
revision beside this checkout's.

    python benchmarks/compare_revisions.py dbf52a6            # the revision to compare with
    python benchmarks/compare_revisions.py dbf52a6 --aec-only --rounds 15

On a shared machine the speed of one process differs from the next by more than the 5% a
refactor may cost, so separate runs cannot tell. Here the other revision's ``damas_env`` is
unpacked (``git archive``) into a temporary folder as the package ``damas_rev`` and imported
beside ``damas_env``; the two take turns, round by round, and the least CPU time of each
counts. Both must import alike: the revision needs the same dependencies as this checkout.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
Runner = Callable[[int], None]


def unpack(revision: str, into: Path) -> None:
    """Writes the revision's damas_env into `into`/damas_rev."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "damas_env"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "damas_env").rename(into / "damas_rev")


def aec_runner(v0: ModuleType, variant: str) -> Runner:
    """Returns a loop of AEC turns (observe, then a random legal hop), seeded."""
    env = v0.raw_env(variant)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(n: int) -> None:
        for _ in range(n):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.reset(seed=int(rng.integers(1 << 30)))
                continue
            mask = env.observe(agent)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))

    run(500)
    return run


def batch_runner(vector: ModuleType, variant: str, games: int) -> Runner:
    """Returns a loop of batch steps with random legal actions, one thread."""
    env = vector.DraughtsBatchEnv(games, variant=variant, seed=0, num_threads=1)

    def run(n: int) -> None:
        for _ in range(n):
            env.step(env.random_actions())

    run(10)
    return run


def best_times(old: Runner, new: Runner, n: int, rounds: int) -> tuple[float, float]:
    """Returns the least CPU seconds per call of each, the two taking turns."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, run in enumerate((old, new)):
            start = time.process_time()
            run(n)
            best[i] = min(best[i], (time.process_time() - start) / n)
    return best[0], best[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the git revision to compare with (e.g. a commit)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds (default 15)")
    parser.add_argument("--aec-only", action="store_true", help="only the AEC env turns")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory() as folder:
        unpack(args.revision, Path(folder))
        sys.path.insert(0, folder)
        import damas_rev.draughts_v0 as old_v0  # type: ignore[import-not-found]
        import damas_rev.vector as old_vector  # type: ignore[import-not-found]

        from damas_env import draughts_v0, vector

        print(
            f"{args.revision} (old) against this checkout (new); CPU time, best of "
            f"{args.rounds} alternating rounds; load {os.getloadavg()[0]:.2f}"
        )
        cases: list[tuple[str, Any, Any, int]] = []
        for variant in ("english", "international"):
            cases.append(
                (
                    f"AEC turn, {variant}",
                    aec_runner(old_v0, variant),
                    aec_runner(draughts_v0, variant),
                    3000,
                )
            )
            if not args.aec_only:
                cases.append((f"batch step, 1024 games, 1 thread, {variant}",
                              batch_runner(old_vector, variant, 1024),
                              batch_runner(vector, variant, 1024), 40))  # fmt: skip
        for name, old, new, n in cases:
            t_old, t_new = best_times(old, new, n, args.rounds)
            print(f"  {name:44s} old {t_old * 1e6:9.2f} us   new {t_new * 1e6:9.2f} us   "
                  f"new/old {t_new / t_old:.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
