"""MCTS speed: simulations/s of ``MCTSAgent`` (UCT with random rollouts) from start positions.

    python benchmarks/mcts_speed.py                      # English and International, 3 repeats
    python benchmarks/mcts_speed.py --repeat 10          # steadier figures
    python benchmarks/mcts_speed.py --against old_mcts:MCTSAgent   # side by side with another

Each case runs ``MCTSAgent(sims, seed=0, rollout_plies=...).search(position)`` from the start
position, timed after one warm-up search (numba's cache load and first calls not counted) in
CPU seconds of this process; the best of ``--repeat`` searches counts, the agents taking turns,
so that load from other processes on this shared machine is mostly filtered out. Cases: full
rollouts (``rollout_plies=200``, what ``mcts:sims=N`` plays) and the tree walk alone
(``rollout_plies=0``: each leaf scored by material at once).

``--against module:Class`` times another agent with the same constructor and a
``search(position)`` method in the same way, row by row (e.g. a copy of an earlier
implementation kept outside the package).

Measured on the 2-core development machine (shared, loaded by other processes; one core per
search), the UCT tree of Python nodes (the earlier ``agents/mcts.py``, a copy timed with
``--against``) against the compiled search (:class:`damas_agents.players.tree.MCTSAgent`), best
of 10::

    variant         rollouts   sims/s Python tree -> compiled
    english         full             14,937 ->  24,486
    english         none             40,738 -> 295,942
    international   full              8,748 ->  11,698
    international   none             40,150 -> 229,668

(The rollouts cost the same in both, one compiled call each; figures vary by a third from
run to run with the machine's load.)
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any

from damas_agents.players.tree import MCTSAgent
from damas_env import Position


def sims_per_second(
    classes: list[Any], position: Position, sims: int, plies: int, repeat: int
) -> list[float]:
    """Returns the best simulations/s of `repeat` searches of a fresh agent of each class,
    the agents taking turns (so that they share the machine's load alike)."""
    agents = [cls(sims=sims, seed=0, rollout_plies=plies) for cls in classes]
    for agent in agents:
        agent.search(position)  # warm-up: load the compiled kernels
    best = [0.0] * len(agents)
    for _ in range(repeat):
        for i, agent in enumerate(agents):
            start = time.process_time()
            agent.search(position)
            best[i] = max(best[i], sims / (time.process_time() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sims", type=int, default=2000, help="simulations per search")
    parser.add_argument("--repeat", type=int, default=3, help="timed searches per case")
    parser.add_argument("--against", help="module:Class of another agent to time as well")
    args = parser.parse_args()
    agents: dict[str, Any] = {"MCTSAgent": MCTSAgent}
    if args.against:
        module, name = args.against.split(":")
        agents[args.against] = getattr(importlib.import_module(module), name)
    print(f"{args.sims} simulations per search, best of {args.repeat}")
    print(f"{'variant':15} {'rollouts':9} " + " ".join(f"{n:>22}" for n in agents))
    for variant in ("english", "international"):
        position = Position.start(variant)
        for plies, label in ((200, "full"), (0, "none")):
            rates = sims_per_second(list(agents.values()), position, args.sims, plies, args.repeat)
            cells = " ".join(f"{rate:>22,.0f}" for rate in rates)
            print(f"{variant:15} {label:9} {cells}", flush=True)


if __name__ == "__main__":
    main()
