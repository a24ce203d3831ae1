"""Old against new in one process: the AEC env turn, the batch env step and perft of another
git revision beside this checkout's.

    python benchmarks/compare_revisions.py dbf52a6            # the revision to compare with
    python benchmarks/compare_revisions.py dbf52a6 --aec-only --rounds 15
    python benchmarks/compare_revisions.py 90cafaf --perft    # English, International, ...
    python benchmarks/compare_revisions.py c89646e --perft --variants frisian=6 thai
    python benchmarks/compare_revisions.py c89646e --perft --family --keep /tmp/rev

On a shared machine the speed of one process differs from the next by more than the 5% a
refactor may cost, so separate runs cannot tell. Here the other revision's ``damas_env`` is
unpacked (``git archive``) into a temporary folder as the package ``damas_rev`` and imported
beside ``damas_env``; the two take turns, round by round, and the least CPU time of each
counts. Both must import alike: the revision needs the same dependencies as this checkout.
Perft counts the same tree on both sides (``Position.start(variant).perft(depth)``, the
same call in every revision) and checks that the counts agree. ``--keep DIR`` unpacks the
revision into DIR once and reuses it, with the numba cache it left there.
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

#: The perft depths (a tenth of a second or so each) of the variants that every revision has,
#: and of the rest of the family (``--family``).
PERFT_DEPTHS = {"english": 9, "international": 7, "russian": 8, "brazilian": 8}
FAMILY_DEPTHS = {
    "frisian": 7,
    "frysk": 7,
    "italian": 8,
    "turkish": 6,
    "breakthrough": 7,
    "spanish": 8,
    "portuguese": 8,
    "czech": 8,
    "pool": 8,
    "thai": 7,
    "canadian": 6,
}


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


def perft_runner(engine: ModuleType, variant: str, depth: int) -> tuple[Runner, int]:
    """Returns a loop of perft counts from the variant's start position, and the count."""
    position = engine.Position.start(variant)
    count = position.perft(depth)

    def run(n: int) -> None:
        for _ in range(n):
            position.perft(depth)

    return run, count


def perft_cases(old: ModuleType, new: ModuleType, depths: dict[str, int]) -> list[tuple]:
    """Returns the perft cases (name, old runner, new runner, calls a round).

    Raises:
        SystemExit: the two revisions count different trees.
    """
    cases = []
    for variant, depth in depths.items():
        old_run, old_count = perft_runner(old, variant, depth)
        new_run, new_count = perft_runner(new, variant, depth)
        if old_count != new_count:
            raise SystemExit(f"{variant} perft({depth}): old {old_count}, new {new_count}")
        cases.append((f"perft({depth}) {variant}, {new_count:,} leaves", old_run, new_run, 1))
    return cases


def perft_depths(variants: list[str], family: bool) -> dict[str, int]:
    """Returns the variants to count and their depths: VARIANT or VARIANT=DEPTH each."""
    if not variants:
        return dict(FAMILY_DEPTHS if family else PERFT_DEPTHS)
    known = PERFT_DEPTHS | FAMILY_DEPTHS
    depths = {}
    for item in variants:
        name, _, depth = item.partition("=")
        depths[name] = int(depth) if depth else known.get(name, 6)
    return depths


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
    parser.add_argument("--perft", action="store_true", help="perft instead of the envs")
    parser.add_argument(
        "--family", action="store_true", help="with --perft: the rest of the family"
    )
    parser.add_argument(
        "--variants", nargs="+", default=[], help="with --perft: VARIANT or VARIANT=DEPTH each"
    )
    parser.add_argument("--keep", help="unpack the revision here once and reuse it (and its cache)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        if not (folder / "damas_rev").is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            unpack(args.revision, folder)
        sys.path.insert(0, str(folder))
        compare(args)


def compare(args: argparse.Namespace) -> None:
    """Times the cases the arguments ask for, old and new in turn, and prints the ratios."""
    import damas_rev  # type: ignore[import-not-found]
    import damas_rev.draughts_v0 as old_v0  # type: ignore[import-not-found]
    import damas_rev.vector as old_vector  # type: ignore[import-not-found]

    import damas_env
    from damas_env import draughts_v0, vector

    print(
        f"{args.revision} (old) against this checkout (new); CPU time, best of "
        f"{args.rounds} alternating rounds; load {os.getloadavg()[0]:.2f}"
    )
    cases: list[tuple[str, Any, Any, int]] = []
    if args.perft:
        cases = perft_cases(damas_rev, damas_env, perft_depths(args.variants, args.family))
    else:
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
        print(f"  {name:44s} old {t_old * 1e6:11.2f} us   new {t_new * 1e6:11.2f} us   "
              f"new/old {t_new / t_old:.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
