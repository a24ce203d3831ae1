"""How much of its time a time-limited alpha-beta agent uses per move, in arena games.

    python benchmarks/time_use.py                    # 2 ms, 10 ms, 100 ms and 1 s a move
    python benchmarks/time_use.py --times 0.002 0.01 --games 4
    python benchmarks/time_use.py --busy             # a second process spinning on our core
    python benchmarks/time_use.py --cpu-clock        # as if the machine were quiet

For each time T and each variant, ``alphabeta:time=T`` plays a short match
(:func:`damas_agents.arena.play_match`, seeded openings, colours swapped) against the
variant's ``pretrained:<variant>,time=T``, so both sides are measured. A row per agent, times
as fractions of T:

- ``moves``: moves played (the opening's excepted); ``unforced``: those with a choice;
- ``mean``, ``max``: the arena's thinking time per move, the agent's whole answer (a forced
  move is answered at once, so the mean over all moves is lower);
- ``unforced``, ``umax``: the search's own time per unforced move, mean and longest;
- ``>1.1``: the share of unforced moves whose search took more than 1.1 T;
- ``depth``: the mean depth of those searches (complete iterations);
- ``outside``: the microseconds per move of the answer outside the search (the
  observation, the agent's bookkeeping).

The figures depend on the machine's load. ``--busy`` pins this process to one core with a
second process spinning there, which takes half of it. ``--cpu-clock`` gives every search the
thread's processor time as its clock and measures in it, as on a machine with a core to
spare: what the time management does, whatever the load (``mean``, ``max`` and ``outside``
are then the search's own).
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.synchronize
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from damas_agents.arena import play_match
from damas_agents.players import classic
from damas_agents.players.classic import AlphaBetaAgent, SearchResult
from damas_agents.players.make import make_agent
from damas_agents.search.alphabeta import Searcher
from damas_env import Position

# seconds a move: (games, plies a game, opening included); fewer plies for longer moves
PLAN = {0.002: (4, 80), 0.01: (4, 60), 0.1: (2, 30), 1.0: (1, 16)}
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


def recording(spec: str, record: Record, timer: Callable[[], float]) -> Callable[..., Any]:
    """Returns an arena factory of the agent of `spec` that logs its searches in `record`,
    timed by `timer` (the arena's warm-up search too; :func:`measure` drops it)."""

    def build(seed: int | None = None) -> AlphaBetaAgent:
        agent = make_agent(spec, seed=seed)
        assert isinstance(agent, AlphaBetaAgent)
        search = agent.search

        def logged(position: Position) -> SearchResult:
            start = timer()
            result = search(position)
            record.seconds.append(timer() - start)
            record.depths.append(result.depth)
            record.forced.append(len(position.legal_moves()) == 1)
            return result

        agent.search = logged  # type: ignore[method-assign]
        agent.name = spec
        return agent

    return build


def measure(
    variant: str, seconds: float, games: int, plies: int, seed: int, cpu: bool
) -> list[str]:
    """Plays one match at `seconds` a move; returns a row per agent."""
    specs = (f"alphabeta:time={seconds:g}", f"pretrained:{variant},time={seconds:g}")
    records = (Record(), Record())
    timer = time.thread_time if cpu else time.perf_counter
    result = play_match(
        recording(specs[0], records[0], timer),
        recording(specs[1], records[1], timer),
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
        if cpu:
            mean, longest = statistics.fmean(record.seconds), max(record.seconds)
            outside = "-"
        else:
            mean, longest = times.mean, times.longest
            outside = f"{(times.seconds - sum(record.seconds)) / times.moves * 1e6:.0f}"
        over = sum(s > 1.1 * seconds for s in used) / len(used)
        rows.append(
            f"{spec:36s} {times.moves:5d} {len(used):8d} {mean / seconds:5.2f} "
            f"{longest / seconds:5.2f} {statistics.fmean(used) / seconds:8.2f} "
            f"{max(used) / seconds:5.2f} {over:5.2f} {statistics.fmean(depths):5.1f} "
            f"{outside:>7s}"
        )
    return rows


def spin(stop: multiprocessing.synchronize.Event, cpu: int) -> None:
    """Keeps one core busy until `stop` is set."""
    os.sched_setaffinity(0, {cpu})
    while not stop.is_set():
        for _ in range(100_000):
            pass


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--times", type=float, nargs="+", default=sorted(PLAN))
    parser.add_argument("--games", type=int, help="games a match (default: by time)")
    parser.add_argument("--plies", type=int, help="plies a game (default: by time)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--busy", action="store_true", help="a spinning process on our core")
    parser.add_argument("--cpu-clock", action="store_true", help="time in processor time")
    args = parser.parse_args(argv)
    if args.cpu_clock:  # every searcher the agents build from now on
        classic.Searcher = partial(Searcher, clock=time.thread_time)  # type: ignore[misc]
    stop, spinner = multiprocessing.Event(), None
    if args.busy:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        spinner = multiprocessing.Process(target=spin, args=(stop, cpu), daemon=True)
        spinner.start()
    head = ("agent", "moves", "unforced", "mean", "max", "unforced", "umax", ">1.1", "depth")
    print(
        f"{head[0]:36s} {head[1]:>5s} {head[2]:>8s} {head[3]:>5s} {head[4]:>5s} "
        f"{head[5]:>8s} {head[6]:>5s} {head[7]:>5s} {head[8]:>5s} {'outside':>7s}"
    )
    try:
        for seconds in args.times:
            games, plies = PLAN.get(seconds, (2, 40))
            games, plies = args.games or games, args.plies or plies
            for variant in args.variants:
                for row in measure(variant, seconds, games, plies, args.seed, args.cpu_clock):
                    print(row, flush=True)
    finally:
        stop.set()
        if spinner is not None:
            spinner.join()


if __name__ == "__main__":
    main()
