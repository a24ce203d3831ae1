"""Perft speed: damas-env against OpenSpiel and pydraughts, on the same positions in one run.

    python benchmarks/perft.py            # full run (about a minute)
    python benchmarks/perft.py --quick    # smaller depths

Prints leaves per second for each engine and the ratios the engine issue sets as targets:
English perft(10) against OpenSpiel's ``checkers`` driven from Python (counting complete
moves) and against pydraughts at a depth both finish; International perft(9) wall time on
one core. Numba compile time is measured separately, in a subprocess with an empty cache.
Peers that are not installed are skipped with a note.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from damas_env import Position

COMPILE_SNIPPET = (
    "import time; t = time.perf_counter(); from damas_env import Position; "
    "Position.start('international').perft(2); print(time.perf_counter() - t)"
)


def timed(fn: Callable[[], int]) -> tuple[int, float]:
    start = time.perf_counter()
    nodes = fn()
    return nodes, time.perf_counter() - start


def compile_seconds() -> float:
    """Returns import + first perft time with an empty numba cache (i.e. full compile)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run(
            [sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True, text=True
        )
    return float(out.stdout.strip())


def report(name: str, depth: int, nodes: int, seconds: float) -> float:
    rate = nodes / seconds
    print(
        f"  {name:<34} perft({depth:>2}) = {nodes:>12,}  {seconds:8.3f} s  {rate:>14,.0f} leaves/s"
    )
    return rate


def peer(factory: Callable[[], object]) -> object | None:
    try:
        return factory()
    except ImportError as e:
        print(f"  (skipped: {e})")
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths")
    args = parser.parse_args()
    from damas_agents.players.peers import OpenSpielCheckersPeer, PydraughtsPeer

    print(f"numba compile (empty cache, import + first call): {compile_seconds():.1f} s")
    english = Position.start("english")
    english.perft(1)  # load compiled kernels from the cache

    print("\nEnglish, start position")
    deep = 8 if args.quick else 10
    ours_deep = report("damas-env", deep, *timed(lambda: english.perft(deep)))
    os_depth = 6 if args.quick else 7
    ours_os = report("damas-env", os_depth, *timed(lambda: english.perft(os_depth)))
    spiel = peer(OpenSpielCheckersPeer)
    if spiel is not None:
        rate = report(
            "OpenSpiel checkers (Python API)", os_depth, *timed(lambda: spiel.perft(os_depth))
        )
        print(
            f"  ratio at depth {os_depth}: {ours_os / rate:,.0f}x;"
            f" damas-env perft({deep}) vs OpenSpiel: {ours_deep / rate:,.0f}x  (target >= 30x)"
        )
    pd_depth = 4 if args.quick else 5
    ours_pd = report("damas-env", pd_depth, *timed(lambda: english.perft(pd_depth)))
    draughts = peer(lambda: PydraughtsPeer("english"))
    if draughts is not None:
        rate = report("pydraughts", pd_depth, *timed(lambda: draughts.perft(pd_depth)))
        print(
            f"  ratio at depth {pd_depth}: {ours_pd / rate:,.0f}x;"
            f" damas-env perft({deep}) vs pydraughts: {ours_deep / rate:,.0f}x  (target >= 1000x)"
        )

    print("\nInternational, start position (one core)")
    intl = Position.start("international")
    depth = 7 if args.quick else 9
    nodes, seconds = timed(lambda: intl.perft(depth))
    report("damas-env", depth, nodes, seconds)
    if depth == 9:
        print(f"  perft(9) in {seconds:.2f} s  (target < 10 s)")
    draughts = peer(lambda: PydraughtsPeer("international"))
    if draughts is not None:
        ours = report("damas-env", 3, *timed(lambda: intl.perft(3)))
        rate = report("pydraughts", 3, *timed(lambda: draughts.perft(3)))
        print(f"  ratio at depth 3: {ours / rate:,.0f}x")

    print("\nOther variants, start position")
    for variant, d in (("brazilian", 9), ("russian", 9), ("canadian", 7)):
        pos = Position.start(variant)
        pos.perft(1)
        d -= 2 if args.quick else 0
        report(f"damas-env {variant}", d, *timed(lambda: pos.perft(d)))  # noqa: B023


if __name__ == "__main__":
    main()
