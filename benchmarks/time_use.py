"""How much of its time a time-limited alpha-beta agent uses per move, in arena games.

    python benchmarks/time_use.py                    # 2 ms, 10 ms, 100 ms and 1 s a move
    python benchmarks/time_use.py --times 0.002 0.01 --games 4
    python benchmarks/time_use.py --busy             # a second process spinning on our core

For each time T and each variant, ``alphabeta:time=T`` plays a short match
(:func:`damas_agents.arena.play_match`, seeded openings, colours swapped) against the
variant's ``pretrained:<variant>,time=T``, so both sides are measured. A row per agent:

- ``moves``: moves timed (``unforced``: those with more than one legal move);
- ``mean`` and ``max``: the arena's thinking time per move (the agent's whole answer, not
  only its search), as a fraction of T;
- ``unforced``: the mean fraction over the moves with a choice (a forced move is answered
  at once, so the mean over all moves is lower);
- ``>1.1``: the share of moves that took more than 1.1 T;
- ``depth``: the mean depth of the searches of unforced moves (an iteration cut short
  counts one less).

The figures depend on the machine's load: run it on a quiet machine, or with ``--busy`` to
see a spinning process on the same core (both pinned to one core) take half of it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.synchronize
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from damas_agents.arena import play_match
from damas_agents.players.classic import AlphaBetaAgent, SearchResult
from damas_agents.players.make import make_agent
from damas_env import Position

# (seconds a move, games, plies a game): short matches, fewer plies for longer moves
PLAN = {0.002: (4, 80), 0.01: (4, 60), 0.1: (2, 30), 1.0: (1, 8)}
VARIANTS = ("english", "international")


@dataclass
class Record:
    """One agent's searches: per move its seconds, depth, and whether it was forced."""

    seconds: list[float] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    forced: list[bool] = field(default_factory=list)

    def unforced(self) -> tuple[list[float], list[int]]:
        """Returns the seconds and depths of the searches with a choice of moves."""
        keep = [i for i, f in enumerate(self.forced) if not f]
        return [self.seconds[i] for i in keep], [self.depths[i] for i in keep]


def recording(spec: str, record: Record) -> Callable[..., Any]:
    """Returns an arena factory of the agent of `spec` that logs its searches in `record`
    (the arena's warm-up search too; :func:`measure` drops it)."""

    def build(seed: int | None = None) -> AlphaBetaAgent:
        agent = make_agent(spec, seed=seed)
        assert isinstance(agent, AlphaBetaAgent)
        search = agent.search

        def logged(position: Position) -> SearchResult:
            start = time.perf_counter()
            result = search(position)
            record.seconds.append(time.perf_counter() - start)
            record.depths.append(result.depth)
            record.forced.append(len(position.legal_moves()) == 1)
            return result

        agent.search = logged  # type: ignore[method-assign]
        agent.name = spec
        return agent

    return build


def measure(variant: str, seconds: float, games: int, plies: int, seed: int) -> list[str]:
    """Plays one match at `seconds` a move; returns a row per agent."""
    specs = (f"alphabeta:time={seconds:g}", f"pretrained:{variant},time={seconds:g}")
    records = (Record(), Record())
    result = play_match(
        recording(specs[0], records[0]),
        recording(specs[1], records[1]),
        variant=variant,
        games=games,
        seed=seed,
        max_plies=plies,
        progress=False,
    )
    rows = []
    for spec, record, times in zip(specs, records, result.move_times(), strict=True):
        for column in (record.seconds, record.depths, record.forced):
            del column[0]  # the arena's warm-up search
        used, depths = record.unforced()
        share = sum(used) / len(used) / seconds if used else 0.0
        over = sum(s > 1.1 * seconds for s in used) / max(len(used), 1)
        outside = (times.seconds - sum(record.seconds)) / max(times.moves, 1)
        rows.append(
            f"{spec:36s} {times.moves:5d} {len(used):8d} {times.mean / seconds:5.2f} "
            f"{times.longest / seconds:5.2f} {share:8.2f} {over:5.2f} "
            f"{sum(depths) / max(len(depths), 1):5.1f} {outside * 1e6:7.0f}"
        )
    return rows


def spin(stop: multiprocessing.synchronize.Event, cpu: int) -> None:
    """Keeps one core busy until `stop` is set."""
    os.sched_setaffinity(0, {cpu})
    while not stop.is_set():
        for _ in range(100_000):
            pass


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=float, nargs="+", default=sorted(PLAN))
    parser.add_argument("--games", type=int, help="games a match (default: by time)")
    parser.add_argument("--plies", type=int, help="plies a game (default: by time)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--busy", action="store_true", help="a spinning process on our core")
    args = parser.parse_args(argv)
    stop, spinner = multiprocessing.Event(), None
    if args.busy:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        spinner = multiprocessing.Process(target=spin, args=(stop, cpu), daemon=True)
        spinner.start()
    print(
        f"{'agent':36s} {'moves':>5s} {'unforced':>8s} {'mean':>5s} {'max':>5s} "
        f"{'unforced':>8s} {'>1.1':>5s} {'depth':>5s} {'outside':>7s}"
    )
    try:
        for seconds in args.times:
            games, plies = PLAN.get(seconds, (2, 40))
            for variant in args.variants:
                for row in measure(
                    variant, seconds, args.games or games, args.plies or plies, args.seed
                ):
                    print(row, flush=True)
    finally:
        stop.set()
        if spinner is not None:
            spinner.join()


if __name__ == "__main__":
    main()
