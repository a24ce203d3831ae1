"""Evaluation speed inside alpha-beta: nodes/s of the learned evaluation against the classical.

    python benchmarks/eval_speed.py                    # English depth 11, International depth 9
    python benchmarks/eval_speed.py --repeat 10        # steadier figures
    python benchmarks/eval_speed.py --depth 8 --variants english

Each row searches one position to the same depth with ``alphabeta:depth=N`` (the
piece-square table) and ``pretrained:VARIANT,depth=N`` (the shipped network), in one process,
the two agents taking turns, after one warm-up search each (numba's cache load and first calls
not counted). A search's speed is its nodes (``SearchResult.nodes``) over the CPU seconds of
this process it took; the best of ``--repeat`` searches counts, so that load from other
processes on a shared machine is mostly filtered out. The two trees differ (the evaluations
differ), so nodes/s, not time, is what compares. Positions: the start position and positions
after a few seeded random opening moves (``--positions``).

The ratio column is learned / classical: 1.00 means the network costs nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from damas_agents.players.make import make_agent
from damas_env import Position

DEPTHS = {"english": 11, "international": 9}


def positions(variant: str, count: int, seed: int = 0) -> list[Position]:
    """Returns the start position and `count - 1` positions after 4 to 12 random plies."""
    rng = np.random.default_rng(seed)
    out = [Position.start(variant)]
    while len(out) < count:
        p = Position.start(variant)
        for _ in range(int(rng.integers(4, 13))):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(moves[int(rng.integers(len(moves)))])
        if p.legal_moves():
            out.append(p)
    return out


def nodes_per_second(
    specs: list[str], variant: str, position: Position, repeat: int
) -> list[float]:
    """Returns the best nodes/s of `repeat` searches of each agent, the agents taking turns."""
    agents = [make_agent(spec, seed=0, rules=variant) for spec in specs]
    for agent in agents:
        agent.search(position)  # warm-up: load the compiled kernels
    best = [0.0] * len(agents)
    for _ in range(repeat):
        for i, agent in enumerate(agents):
            start = time.process_time()
            result = agent.search(position)
            seconds = time.process_time() - start
            if seconds > 0:
                best[i] = max(best[i], result.nodes / seconds)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(DEPTHS), choices=list(DEPTHS))
    parser.add_argument("--depth", type=int, help="one depth for every variant")
    parser.add_argument("--positions", type=int, default=3, help="positions per variant")
    parser.add_argument("--repeat", type=int, default=5, help="timed searches per agent")
    args = parser.parse_args()
    print(f"nodes/s, best of {args.repeat} searches (CPU time of this process)")
    print(f"{'variant':14} {'pos':>3} {'depth':>5} {'classical':>12} {'learned':>12} {'ratio':>6}")
    for variant in args.variants:
        depth = args.depth or DEPTHS[variant]
        specs = [f"alphabeta:depth={depth}", f"pretrained:{variant},depth={depth}"]
        ratios = []
        for k, position in enumerate(positions(variant, args.positions)):
            classical, learned = nodes_per_second(specs, variant, position, args.repeat)
            ratios.append(learned / classical)
            print(
                f"{variant:14} {k:>3} {depth:>5} {classical:>12,.0f} {learned:>12,.0f} "
                f"{learned / classical:>6.2f}",
                flush=True,
            )
        print(f"{variant:14} geometric mean of the ratios: {np.exp(np.mean(np.log(ratios))):.2f}")


if __name__ == "__main__":
    main()
