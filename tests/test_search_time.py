"""Time limits of the alpha-beta search: each searcher measures its own speed, recovers from a
slow search, uses its time and keeps within it.

A searcher turns seconds into node budgets with its speed estimate. The tests drive it with a
fake clock that advances with the search's work (a node takes a microsecond, a machine of a
million nodes per second), so they assert depths and simulated seconds exactly, whatever the
machine's load: no wall-clock limits.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from damas_agents.search.alphabeta import (
    FIRST_NODES,
    MATE_BOUND,
    S_NODES,
    NodeRate,
    Searcher,
    SearchResult,
    _cut_short,
)
from damas_env import Position

SPEED = 1_000_000.0  # the fake clock's nodes per second
SECONDS = 0.01  # the time limit of a move


class WorkClock:
    """A fake clock that advances with the search's work: a microsecond per node the watched
    searcher visits, two per reading (the Python between calls), a one-off `stall` added to
    the next compiled call and `pauses[k]` to the k-th reading (the process descheduled, say).
    """

    NODE = 1 / SPEED
    READ = 2e-6

    def __init__(self) -> None:
        self.now, self.stall, self.seen, self.reads = 0.0, 0.0, 0, 0
        self.pauses: dict[int, float] = {}
        self.stats: np.ndarray | None = None

    def watch(self, searcher: Searcher) -> Searcher:
        self.stats = searcher.tables.stats
        self.reads = 0
        return searcher

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.READ + self.pauses.pop(self.reads, 0.0)
        if self.stats is not None:
            nodes = int(self.stats[S_NODES])
            if nodes < self.seen:  # a new call started from zero
                self.seen = 0
            if nodes > self.seen:
                self.now += (nodes - self.seen) * self.NODE + self.stall
                self.seen, self.stall = nodes, 0.0
        return self.now


def unforced_positions(count: int, seed: int) -> list[Position]:
    """Returns English positions of a seeded random game that have more than one legal move."""
    rng = np.random.default_rng(seed)
    positions: list[Position] = []
    position = Position.start("english")
    while len(positions) < count:
        moves = position.legal_moves()
        if not moves:
            position = Position.start("english")
            continue
        if len(moves) > 1:
            positions.append(position)
        position = position.play(moves[int(rng.integers(len(moves)))])
    return positions


def timed_searcher() -> tuple[Searcher, WorkClock]:
    clock = WorkClock()
    return clock.watch(Searcher(Position.start("english").rules, 16, clock=clock)), clock


def timed_searches(positions: list[Position], stall: float = 0.0) -> list[SearchResult]:
    """Returns the searches of the positions in turn by one searcher, with SECONDS each; the
    first search's first call takes `stall` seconds longer."""
    searcher, clock = timed_searcher()
    clock.stall = stall
    return [searcher.search(position, seconds=SECONDS) for position in positions]


POSITIONS = unforced_positions(12, seed=3)


@pytest.fixture(scope="module")
def steady() -> list[SearchResult]:
    """The searches of POSITIONS on a machine without delays."""
    return timed_searches(POSITIONS)


# --- The speed estimate -----------------------------------------------------------------------


def test_speed_estimate_recovers_from_one_slow_call() -> None:
    rate = NodeRate(SPEED)
    rate.update(10_000, 1.0)  # a call of 10 ms that the process waited a second for
    assert SPEED / 5 < rate.value < SPEED / 2  # a hundred times slower moves it four times
    for _ in range(6):
        rate.update(5_000, 5_000 / SPEED)
    assert SPEED / 1.25 < rate.value <= SPEED


def test_speed_estimate_stays_within_its_floor_and_ceiling() -> None:
    rate = NodeRate(SPEED)
    for _ in range(100):
        rate.update(10_000, 1e6)
    assert rate.value == pytest.approx(NodeRate.FLOOR)
    for _ in range(100):
        rate.update(10**9, 1e-9)
    assert rate.value == pytest.approx(NodeRate.CEILING)
    assert NodeRate(0.0).value == NodeRate.FLOOR and NodeRate(math.inf).value == NodeRate.CEILING
    with pytest.raises(ValueError, match="not nan"):
        NodeRate(math.nan)


@pytest.mark.parametrize("seconds", [0.0, -1.0, math.nan, math.inf])
def test_speed_estimate_ignores_a_call_without_a_duration(seconds: float) -> None:
    rate = NodeRate(SPEED)
    rate.update(1_000, seconds)
    rate.update(0, 0.001)
    assert rate.value == SPEED


def test_calls_of_a_few_nodes_hardly_move_the_estimate() -> None:
    rate = NodeRate(SPEED)
    rate.update(20, 1e-4)  # mostly the call's own overhead: 200,000 nodes per second
    assert rate.value > 0.97 * SPEED


# --- Searches after a slow one ------------------------------------------------------------------


def test_steady_searches_use_most_of_their_time_and_never_more(
    steady: list[SearchResult],
) -> None:
    for result in steady:
        assert result.seconds <= SECONDS
        assert result.seconds >= 0.6 * SECONDS or abs(result.score) > MATE_BOUND
        assert result.depth >= 5


@pytest.mark.parametrize("stall", [0.07, 1.0])
def test_one_slow_search_does_not_shorten_the_searches_after_it(
    steady: list[SearchResult], stall: float
) -> None:
    stalled = timed_searches(POSITIONS, stall)
    assert stalled[0].seconds > stall
    for slow, normal in zip(stalled[1:], steady[1:], strict=True):
        assert slow.depth >= normal.depth - 1
        assert slow.seconds <= SECONDS
    assert sum(r.depth for r in stalled[1:]) >= sum(r.depth for r in steady[1:]) - 2


def test_the_estimate_recovers_after_a_slow_search() -> None:
    searcher, clock = timed_searcher()
    clock.stall = 1.0
    searcher.search(POSITIONS[0], seconds=SECONDS)
    assert searcher.rate.value < SPEED / 4
    for position in POSITIONS[1:4]:
        searcher.search(position, seconds=SECONDS)
    assert searcher.rate.value > SPEED / 1.5


def test_an_underestimated_speed_still_uses_the_time(steady: list[SearchResult]) -> None:
    searcher, _ = timed_searcher()
    for position, normal in zip(POSITIONS, steady, strict=True):
        searcher.rate = NodeRate(NodeRate.FLOOR)  # a hundred times too slow
        result = searcher.search(position, seconds=SECONDS)
        assert result.depth >= normal.depth - 1
        assert result.seconds <= SECONDS
        assert result.seconds >= 0.6 * SECONDS or abs(result.score) > MATE_BOUND


def test_a_search_that_starts_late_still_searches_depth_one() -> None:
    searcher, clock = timed_searcher()
    clock.pauses[2] = 2 * SECONDS  # between the search's start and its first call
    result = searcher.search(POSITIONS[0], seconds=SECONDS)
    assert result.depth >= 1 and result.nodes <= 1 + FIRST_NODES
    assert result.move == Searcher(POSITIONS[0].rules, 16).search(POSITIONS[0], depth=1).move


def test_a_clock_that_stands_still_ends_the_search() -> None:
    searcher = Searcher(POSITIONS[0].rules, 16, clock=lambda: 0.0)
    for position in POSITIONS[:3]:
        assert searcher.search(position, seconds=SECONDS).move in position.legal_moves()


def test_searchers_measure_their_own_speed() -> None:
    (a, clock_a), (b, _) = timed_searcher(), timed_searcher()
    assert a.rate is not b.rate
    before = b.rate.value
    clock_a.stall = 1.0
    a.search(POSITIONS[0], seconds=SECONDS)
    assert a.rate.value < before
    assert b.rate.value == before
    fresh, _ = timed_searcher()
    position = POSITIONS[1]
    assert b.search(position, seconds=SECONDS) == fresh.search(position, seconds=SECONDS)


# --- A cut-short iteration ----------------------------------------------------------------------


def test_a_cut_short_iteration_gives_only_a_better_move_than_the_first() -> None:
    scores = np.array([10, 35, 30, 35, 40], dtype=np.int64)
    order = np.array([2, 0, 1, 3, 4], dtype=np.int64)  # move 2 was the previous best
    assert _cut_short(3, order[:1], scores) is None  # only the previous best searched
    assert _cut_short(3, order[:2], scores) is None  # nothing better than it yet
    better = _cut_short(3, order[:4], scores)
    assert better is not None and not better.complete
    assert (better.score, better.ties) == (35, [1, 3])
    first = _cut_short(1, order[:2], scores)  # the first iteration: its best so far
    assert first is not None and (first.score, first.ties) == (30, [2])
    assert _cut_short(1, order[:0], scores) is None


# --- Nothing loads in a timed move --------------------------------------------------------------

_LOADS = """
from numba.core.registry import CPUDispatcher
from damas_agents.search import alphabeta, nnue
from damas_env import Position
from damas_env import kernels as K

def builds():
    return {(m.__name__, n): len(f.signatures) for m in (alphabeta, nnue, K)
            for n, f in vars(m).items() if isinstance(f, CPUDispatcher)}

rules = Position.start("english").rules
plain = alphabeta.Searcher(rules, 12)
weights = nnue.pst_weights(alphabeta.piece_square_table(rules), alphabeta.TEMPO, 8, 4)
learned = alphabeta.Searcher(rules, 12, weights=weights)
position = Position.from_fen("W:W21,22,31:B3,11", "english")
before = builds()
for searcher in (plain, learned):
    searcher.search(position, depth=4)
    searcher.search(position, seconds=0.05)
print(sorted(k for k, v in builds().items() if v != before.get(k, 0)))
"""


def test_a_searcher_loads_its_compiled_code_before_its_first_move() -> None:
    # A fresh process: this one may have loaded everything already.
    out = subprocess.run(
        [sys.executable, "-c", _LOADS], capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
