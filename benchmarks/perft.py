"""Perft speed: damas-env against OpenSpiel and pydraughts, on the same positions in one run.

    python benchmarks/perft.py            # full run (about a minute and a half)
    python benchmarks/perft.py --quick    # smaller depths
    python benchmarks/perft.py --family   # only the family against International

Prints leaves per second for each engine and the ratios the engine issue sets as targets:
English perft(10) against OpenSpiel's ``checkers`` driven from Python (counting complete
moves) and against pydraughts at a depth both finish; International perft(9) wall time on
one core; and each of the rest of the family (Frisian to Thai) against International's
leaves per second, target within 2x. Numba compile time is measured separately, in a
subprocess with an empty cache. Peers that are not installed are skipped with a note.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial

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


#: The rest of the family: (variant, perft depth, --quick depth), each a few million leaves.
FAMILY = (
    ("frisian", 8, 7),
    ("frysk", 7, 6),
    ("italian", 9, 8),
    ("turkish", 7, 6),
    ("breakthrough", 8, 7),
    ("spanish", 9, 8),
    ("portuguese", 9, 8),
    ("czech", 9, 8),
    ("thai", 8, 7),
)
#: International's depths for the comparison (full, --quick).
FAMILY_REFERENCE = (8, 7)


def paired(repeats: int, first: Callable[[], int], second: Callable[[], int]) -> list:
    """Times two counts in turn `repeats` times; returns (count, fastest seconds) of each.

    Other work on the machine only ever slows a run, and running the two in turn lets it slow
    both sides of their ratio alike.
    """
    runs = [(timed(first), timed(second)) for _ in range(repeats)]
    return [(runs[0][i][0], min(run[i][1] for run in runs)) for i in (0, 1)]


def family(quick: bool) -> None:
    """Prints each family variant's leaves per second from its start position and its ratio to
    International's, timed in turn with it (target: each ratio at least 0.5, within 2x).

    Quick runs last a tenth of a second, where a busy machine's noise is larger: they take the
    best of more runs.
    """
    repeats = 5 if quick else 3
    print(f"\nThe rest of the family, start positions, best of {repeats} each")
    intl = Position.start("international")
    intl.perft(2)  # load compiled kernels from the cache
    depth = FAMILY_REFERENCE[1 if quick else 0]
    for variant, full, short in FAMILY:
        pos = Position.start(variant)
        pos.perft(2)
        d = short if quick else full
        (ref_nodes, ref_seconds), (nodes, seconds) = paired(
            repeats, partial(intl.perft, depth), partial(pos.perft, d)
        )
        reference = ref_nodes / ref_seconds
        rate = report(variant, d, nodes, seconds)
        verdict = "ok" if rate >= reference / 2 else "MORE THAN 2x SLOWER"
        print(
            f"  {'':<34} {rate / reference:5.2f}x International's {reference:,.0f} leaves/s"
            f" (perft({depth}))  {verdict}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths")
    parser.add_argument(
        "--family", action="store_true", help="only the family against International"
    )
    args = parser.parse_args()
    if args.family:
        family(args.quick)
        return
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

    family(args.quick)


if __name__ == "__main__":
    main()
