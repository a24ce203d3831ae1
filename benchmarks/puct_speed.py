"""PUCT search speed: simulations/s of BatchedPUCT on 64 English games, and the evaluator's share.

    python benchmarks/puct_speed.py                # 3 searches per case (about 30 s)
    python benchmarks/puct_speed.py --repeat 10    # steadier figures
    python benchmarks/puct_speed.py --games 16     # a smaller batch

Each case runs ``BatchedPUCT(evaluator, simulations, batch_leaves=8, seed=0).search(turns,
add_noise=True)`` over the same 64 English positions (the start and random openings of up to
12 plies), timed after one warm-up search (numba's cache load and first calls not counted);
the best of ``--repeat`` searches counts, so that load from other processes on this shared
machine is mostly filtered out. A *simulation* is one leaf walked in one game (terminal leaves
included), so a search counts ``games * simulations``.

Cases: ``UniformEvaluator`` (no model: the cost of the tree alone) at 32 and 128 simulations,
and a small ``DraughtsNet`` (channels 32, blocks 2, CPU, one torch thread per core given) behind
``damas_agents.players.learned.NetworkEvaluator`` at 32 simulations. Every evaluator is wrapped in a
timer, so each row prints sims/s, the share of the search spent inside ``evaluate`` and the
tree's own time per simulation (search time less evaluator time, over the simulations).

Measured on the 2-core development machine (shared; one torch thread), before and after the
tree moved into compiled code (agents/damas_agents/players/tree.py)::

    evaluator         sims   sims/s before -> after   in eval      tree us/sim
    uniform             32      9,775 -> 125,365     5% -> 42%     97.6 -> 4.6
    uniform            128     11,636 -> 136,021     4% -> 38%     82.9 -> 4.6
    DraughtsNet 32x2    32      5,177 ->   8,764    62% -> 96%     72.9 -> 4.8

(With ``UniformEvaluator`` the evaluator's share is numpy building uniform priors.)
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from damas_agents.players.tree import BatchedPUCT, Evaluator, UniformEvaluator
from damas_env import Position
from damas_env import kernels as K
from damas_env.turn import Turn


class Timed:
    """An evaluator that adds the time spent inside another's ``evaluate`` to ``seconds``."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[Any, Any]:
        """Times the inner evaluator's call."""
        start = time.perf_counter()
        out = self.inner.evaluate(observations, masks)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return out


def positions(games: int, seed: int = 0) -> list[Turn]:
    """Returns English turn states: the start, then random openings of up to 12 plies."""
    rng = np.random.default_rng(seed)
    start = Position.start("english")
    turns = []
    while len(turns) < games:
        turn = Turn(start.rules)
        turn.reset(start.board, start.turn)
        plies = 0 if not turns else int(rng.integers(1, 13))
        while turn.ply < plies and turn.result == K.ONGOING:
            turn.play(int(rng.choice(turn.legal_actions())))
        if turn.result == K.ONGOING:
            turns.append(turn)
    return turns


def measure(
    name: str, evaluator: Evaluator, turns: list[Turn], simulations: int, repeat: int
) -> None:
    """Prints the best of `repeat` timed searches of one case."""
    timed = Timed(evaluator)
    search = BatchedPUCT(timed, simulations, batch_leaves=8, seed=0)
    search.search(turns, add_noise=True)  # warm-up
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        timed.seconds = 0.0
        start = time.perf_counter()
        search.search(turns, add_noise=True)
        elapsed = time.perf_counter() - start
        best = min(best, (elapsed, timed.seconds))
    elapsed, inside = best
    sims = len(turns) * simulations
    tree_us = 1e6 * (elapsed - inside) / sims
    print(
        f"{name:<22} {simulations:>5} {sims / elapsed:>10,.0f} {100 * inside / elapsed:>9.0f}%"
        f" {tree_us:>9.1f}"
    )


def main() -> None:
    """Runs the cases and prints one row each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--no-network", action="store_true", help="skip the DraughtsNet case")
    args = parser.parse_args()
    turns = positions(args.games)
    print(f"{args.games} English games, batch_leaves 8, best of {args.repeat}")
    print(f"{'evaluator':<22} {'sims':>5} {'sims/s':>10} {'in eval':>10} {'tree us/sim':>9}")
    for simulations in (32, 128):
        measure("uniform", UniformEvaluator(), turns, simulations, args.repeat)
    if not args.no_network:
        import torch

        from damas_agents.models.config import NetworkConfig
        from damas_agents.models.network import DraughtsNet
        from damas_agents.players.learned import NetworkEvaluator

        torch.set_num_threads(args.threads)
        torch.manual_seed(0)
        config = NetworkConfig(channels=32, blocks=2, device="cpu")
        net = DraughtsNet(config, 8).eval()
        measure("DraughtsNet 32x2", NetworkEvaluator(net), turns, 32, args.repeat)


if __name__ == "__main__":
    main()
