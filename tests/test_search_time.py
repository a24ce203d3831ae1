"""Time limits of the alpha-beta search: each searcher measures its own speed, recovers from a
slow search, predicts what its next iteration costs, uses its time and keeps within it.

A searcher turns seconds into node budgets with its speed estimate. The tests drive it with a
fake clock that advances with the search's work (a node takes a microsecond, a machine of a
million nodes per second; on a busy machine the clock runs faster than the processor time),
and some with a scripted search in place of the compiled one (each iteration's nodes and root
move scores given), so they assert depths and simulated seconds exactly, whatever the
machine's load: no wall-clock limits.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest

from damas_agents.search import alphabeta
from damas_agents.search.alphabeta import (
    ABORT_BUDGET,
    ABORT_NONE,
    EBF_RANGE,
    EBF_START,
    FIRST_MOVE_SHARE,
    FIRST_NODES,
    INF,
    MATE_BOUND,
    S_ABORT,
    S_NODES,
    NodeRate,
    Searcher,
    SearchResult,
    _cut_short,
    _Limits,
    _next_iteration_nodes,
    _reserve,
)
from damas_env import Position
from damas_env.moves import move_from_row

SPEED = 1_000_000.0  # the fake clock's nodes per second
SECONDS = 0.01  # the time limit of a move


class WorkClock:
    """A fake clock that advances with the search's work: a microsecond of processor time per
    node the watched searcher visits, two per reading of either clock (the Python between
    calls). The clock itself (a call) runs 1/`share` times faster than the processor time
    (:meth:`cpu`): other processes take turns on the core. A one-off `stall` is added to the
    next compiled call and `pauses[k]` to the k-th reading of the clock; `stall_cpu` says
    whether a stall is processor time too (a slow call) or not (a wait for the processor).
    """

    NODE = 1 / SPEED
    READ = 2e-6

    def __init__(self, share: float = 1.0, stall_cpu: bool = True) -> None:
        self.now, self.work, self.stall, self.seen, self.reads = 0.0, 0.0, 0.0, 0, 0
        self.share, self.stall_cpu = share, stall_cpu
        self.pauses: dict[int, float] = {}
        self.stats: np.ndarray | None = None

    def watch(self, searcher: Searcher) -> Searcher:
        self.stats = searcher.tables.stats
        self.reads = 0
        return searcher

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.pauses.pop(self.reads, 0.0)
        self._advance()
        return self.now

    def cpu(self) -> float:
        """Returns the processor time spent so far."""
        self._advance()
        return self.work

    def _advance(self) -> None:
        work = self.READ
        if self.stats is not None:
            nodes = int(self.stats[S_NODES])
            if nodes < self.seen:  # a new call started from zero
                self.seen = 0
            if nodes > self.seen:
                work += (nodes - self.seen) * self.NODE
                self.now += self.stall
                self.work += self.stall if self.stall_cpu else 0.0
                self.seen, self.stall = nodes, 0.0
        self.work += work
        self.now += work / self.share


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


def timed_searcher(clock: WorkClock | None = None) -> tuple[Searcher, WorkClock]:
    """Returns an English searcher on a work clock (its processor time too, if given one)."""
    if clock is None:
        clock = WorkClock()
        searcher = Searcher(Position.start("english").rules, 16, clock=clock)
    else:
        searcher = Searcher(Position.start("english").rules, 16, clock=clock, cpu_clock=clock.cpu)
    return clock.watch(searcher), clock


def timed_searches(
    positions: list[Position],
    stall: float = 0.0,
    clock: WorkClock | None = None,
    seconds: float = SECONDS,
) -> list[SearchResult]:
    """Returns the searches of the positions in turn by one searcher, with `seconds` each; the
    first search's first call takes `stall` seconds longer."""
    searcher, clock = timed_searcher(clock)
    clock.stall = stall
    return [searcher.search(position, seconds=seconds) for position in positions]


POSITIONS = unforced_positions(12, seed=3)
SETTLED = 6  # searches after which a searcher has measured its share of a busy core


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


def test_processor_time_sets_the_speed_and_the_clock_sets_the_share() -> None:
    rate = NodeRate(SPEED)
    for _ in range(30):  # calls of 20 ms that got half of the processor
        rate.update(10_000, 0.02, 0.01)
    assert rate.speed == pytest.approx(SPEED)  # 10,000 nodes in 10 ms of processor time
    assert rate.share == pytest.approx(0.5, rel=1e-3)
    assert rate.value == pytest.approx(SPEED / 2, rel=1e-3)
    before = rate.value
    rate.update(10_000, 0.02, math.nan)  # no processor time measured: ignored
    assert rate.value == before


def test_one_long_wait_for_the_processor_moves_the_share_a_bounded_step() -> None:
    rate = NodeRate(SPEED)
    rate.update(10_000, 10.0, 0.01)  # 10 ms of work that waited 10 s for the processor
    assert rate.speed == pytest.approx(SPEED)
    floor = NodeRate.SHARE_FLOOR**NodeRate.WEIGHT
    assert rate.share == pytest.approx(floor)  # a thousand times slower: counted as SHARE_FLOOR
    for _ in range(10):  # 100 ms of calls that had the processor
        rate.update(10_000, 0.01, 0.01)
    assert rate.share > 0.95


def test_short_calls_hardly_move_the_share() -> None:
    # A call shorter than a time slice either ran whole or waited out another process's
    # slice: one such call says little about the share.
    rate = NodeRate(SPEED)
    rate.update(200, 0.001, 0.0002)  # 0.2 ms of work that waited out a 0.8 ms slice
    assert rate.share > 0.95
    assert rate.share == pytest.approx(0.2 ** (NodeRate.WEIGHT * 0.001 / NodeRate.SHARE_SECONDS))


def test_the_share_is_at_most_one() -> None:
    rate = NodeRate(SPEED)
    rate.update(10_000, 0.01, 0.02)  # more processor time than clock time (clocks differ)
    assert rate.share == 1.0


# --- Predicting the next iteration --------------------------------------------------------------


def test_the_next_iteration_is_predicted_from_the_last_ones() -> None:
    assert _next_iteration_nodes([]) == FIRST_NODES
    assert _next_iteration_nodes([40]) == 40 * EBF_START
    assert _next_iteration_nodes([40, 100]) == pytest.approx(250)  # grew 2.5 times
    # odd and even depths alternate: the geometric mean of the last two growths
    assert _next_iteration_nodes([7, 40, 100, 400]) == pytest.approx(400 * 10**0.5)
    assert _next_iteration_nodes([100, 100, 90]) == pytest.approx(90 * EBF_RANGE[0])
    assert _next_iteration_nodes([10, 1000, 100_000]) == pytest.approx(100_000 * EBF_RANGE[1])
    assert _next_iteration_nodes([0, 0]) == pytest.approx(EBF_RANGE[0])  # no zero division


def test_an_iteration_starts_only_if_its_first_move_is_likely_to_fit() -> None:
    now = [0.0]
    searcher = Searcher(Position.start("english").rules, 8, clock=lambda: now[0])
    searcher.rate = NodeRate(SPEED)
    limits = _Limits(None, 1.0, 0.0, deadline=1.0, iterations=[1_000, 3_000])
    first_move = FIRST_MOVE_SHARE * 9_000 / SPEED  # of an iteration of about 9,000 nodes
    now[0] = 1.0 - 1.05 * first_move
    assert searcher._worth_starting(limits)
    now[0] = 1.0 - 0.95 * first_move
    assert not searcher._worth_starting(limits)
    now[0] = 1.0
    limits.iterations = [1]
    assert not searcher._worth_starting(limits)  # no time left
    assert Searcher._worth_starting(searcher, _Limits(1_000, None, 0.0, iterations=[10**9]))


def test_a_search_leaves_a_reserve_for_its_answer() -> None:
    assert _reserve(1.0) == pytest.approx(alphabeta.RESERVE_SHARE + alphabeta.RESERVE_SECONDS)
    assert _reserve(0.0002) == pytest.approx(0.0001)  # at most half of the time


# --- Searches after a slow one ------------------------------------------------------------------


def test_steady_searches_use_most_of_their_time_and_never_more(
    steady: list[SearchResult],
) -> None:
    for result in steady:
        assert result.seconds <= SECONDS
        assert result.seconds >= 0.6 * SECONDS or abs(result.score) > MATE_BOUND
        assert result.depth >= 5
    assert sum(r.seconds for r in steady) >= 0.8 * SECONDS * len(steady)


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


# --- Scripted searches -------------------------------------------------------------------------


class ScriptedSearch:
    """Stands in for the compiled :func:`deepen`, with its contract: iteration d costs
    `cost(d)` nodes, FIRST_COST of them on its first root move and the rest evenly on the
    others, and root move i scores `score(d, i)`; the budget cuts an iteration short between
    root moves; a complete iteration sorts `order` best first. Records the depths started."""

    FIRST_COST = 0.4

    def __init__(self, cost: Callable[[int], int], score: Callable[[int, int], int]) -> None:
        self.cost, self.score = cost, score
        self.started: list[int] = []

    def __call__(
        self, board, side, h, first, last, root, order, scores, nodes, t
    ) -> tuple[int, int, int, int, int]:
        stats = t.stats
        spent, reached, best, ties, completed = 0, first - 1, -INF, 0, 0
        for depth in range(first, last + 1):
            stats[S_ABORT] = ABORT_NONE
            if spent >= nodes:
                stats[S_ABORT] = ABORT_BUDGET
                break
            self.started.append(depth)
            scores[order] = -INF - 1
            total, n = self.cost(depth), len(order)
            costs = [total] if n == 1 else [int(self.FIRST_COST * total)]
            costs += [int((1 - self.FIRST_COST) * total / (n - 1))] * (n - 1)
            used, done = 0, 0
            for k in range(n):
                if spent + used + costs[k] > nodes:
                    used = nodes - spent
                    stats[S_ABORT] = ABORT_BUDGET
                    break
                used += costs[k]
                scores[order[k]] = self.score(depth, int(order[k]))
                done += 1
            stats[S_NODES] = used
            spent += used
            if stats[S_ABORT] != ABORT_NONE:
                completed = done
                break
            order[:] = sorted(order, key=lambda i: -scores[i])
            reached, best = depth, int(scores[order[0]])
            ties = int(np.sum(scores[order] == best))
        return reached, best, ties, completed, spent


def scripted_search(
    monkeypatch: pytest.MonkeyPatch, script: ScriptedSearch, seconds: float = SECONDS
) -> tuple[SearchResult, np.ndarray]:
    """Returns a search of the English start position (7 moves) run by a script, and the
    position's root moves."""
    searcher, _ = timed_searcher()
    monkeypatch.setattr(alphabeta, "deepen", script)
    position = Position.start("english")
    root, _ = searcher._root_moves(position)
    return searcher.search(position, seconds=seconds), root


def plain_scores(depth: int, move: int) -> int:
    return 100 - move  # move 0 best, then 1, 2, ...


def test_an_iteration_runs_to_the_deadline_and_its_better_move_is_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Iterations grow 3 times: 1 to 5 take 3.6 ms of the 10, the 6th is predicted to take
    # 7.3 ms. It starts, and is cut short at the deadline after its second root move, which
    # scores better at depth 6 than the previous best.
    def score(depth: int, move: int) -> int:
        return 150 if (depth, move) == (6, 1) else plain_scores(depth, move)

    script = ScriptedSearch(lambda d: 10 * 3**d, score)
    result, root = scripted_search(monkeypatch, script)
    assert script.started == [1, 2, 3, 4, 5, 6]
    assert result.depth == 5  # complete iterations
    assert (result.move, result.score) == (move_from_row(root[1]), 150)
    assert SECONDS - 2 * _reserve(SECONDS) < result.seconds <= SECONDS


def test_a_cut_short_iteration_scores_the_previous_best_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def score(depth: int, move: int) -> int:  # the 6th iteration finds move 0 worse ...
        if depth == 6:
            return {0: 20, 6: 150}.get(move, 10)  # ... and the best move it never reaches
        return plain_scores(depth, move)

    script = ScriptedSearch(lambda d: 10 * 3**d, score)
    result, root = scripted_search(monkeypatch, script)
    assert script.started == [1, 2, 3, 4, 5, 6]
    assert (result.move, result.score, result.depth) == (move_from_row(root[0]), 20, 5)


def test_an_iteration_too_long_to_use_is_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    # Iterations grow 8 times: 1 to 3 take 5.8 ms; the 4th would take about 41 ms, and not
    # even its first root move fits in the 3.7 ms left: the search ends.
    script = ScriptedSearch(lambda d: 10 * 8**d, plain_scores)
    result, root = scripted_search(monkeypatch, script)
    assert script.started == [1, 2, 3]
    assert (result.move, result.depth) == (move_from_row(root[0]), 3)
    assert result.seconds < 0.65 * SECONDS


def test_an_iteration_whose_first_move_may_fit_is_started(monkeypatch: pytest.MonkeyPatch) -> None:
    # Iterations grow 4 times: 1 to 4 take 3.4 ms; the 5th is predicted to take about 10 ms,
    # more than the 6.1 ms left, but its first root move fits: it starts, and the search uses
    # its time.
    script = ScriptedSearch(lambda d: 10 * 4**d, plain_scores)
    result, _ = scripted_search(monkeypatch, script)
    assert script.started == [1, 2, 3, 4, 5]
    assert result.depth == 4
    assert SECONDS - 2 * _reserve(SECONDS) < result.seconds <= SECONDS


def test_a_call_cut_short_by_an_underestimated_speed_runs_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The speed is estimated a hundred times too low, and the first call, slowed down, does
    # not correct it: the next calls' budgets run out early, and they run again.
    script = ScriptedSearch(lambda d: 10 * 3**d, plain_scores)
    searcher, clock = timed_searcher()
    monkeypatch.setattr(alphabeta, "deepen", script)
    searcher.rate = NodeRate(NodeRate.FLOOR)
    searcher.tables.stats[S_NODES] = 0  # no count left over: the stall falls in the first call
    clock.stall = 0.003
    result = searcher.search(Position.start("english"), seconds=SECONDS)
    assert len(script.started) > len(set(script.started))  # some iterations ran again
    assert result.depth >= 4
    assert 0.85 * SECONDS < result.seconds <= SECONDS


# --- A busy machine ------------------------------------------------------------------------------


def test_searches_sharing_a_core_use_their_time_and_keep_within_it(
    steady: list[SearchResult],
) -> None:
    # Another process takes half of the core: the clock runs twice as fast as the work. Once
    # the searcher has measured its share (over the first searches), its searches reach the
    # depths of a quiet searcher given half the time, within the time.
    busy = timed_searches(POSITIONS * 2, clock=WorkClock(share=0.5))[SETTLED:]
    halved = timed_searches(POSITIONS * 2, seconds=SECONDS / 2)[SETTLED:]
    for result, quiet in zip(busy, halved, strict=True):
        assert result.seconds <= SECONDS
        assert result.depth >= quiet.depth - 1
    assert sum(r.seconds for r in busy) >= 0.8 * SECONDS * len(busy)
    assert sum(r.depth for r in busy) >= sum(r.depth for r in halved) - 2


def test_one_long_wait_for_the_processor_does_not_shorten_the_searches_after_it(
    steady: list[SearchResult],
) -> None:
    clock = WorkClock(stall_cpu=False)  # the first call waits a second for the processor
    waited = timed_searches(POSITIONS, stall=1.0, clock=clock)
    assert waited[0].seconds > 1.0
    for result, normal in zip(waited[1:], steady[1:], strict=True):
        assert result.depth >= normal.depth - 1
        assert result.seconds <= SECONDS


# --- A cut-short iteration ----------------------------------------------------------------------


def test_a_cut_short_iteration_counts_once_it_has_searched_the_previous_best() -> None:
    scores = np.array([10, 35, 30, 35, 40], dtype=np.int64)
    order = np.array([2, 0, 1, 3, 4], dtype=np.int64)  # move 2 was the previous best

    def found(completed: int) -> tuple[int, list[int]]:
        partial = _cut_short(3, order[:completed], scores)
        assert partial is not None and not partial.complete and partial.depth == 3
        return partial.score, partial.ties

    assert _cut_short(3, order[:0], scores) is None  # not even the previous best searched
    assert found(1) == (30, [2])  # the previous best again, scored at this depth
    assert found(2) == (30, [2])  # nothing better yet
    assert found(4) == (35, [1, 3])  # two better moves, tied
    scores[0] = 30  # a move as good as the previous best: both are the best so far
    assert found(2) == (30, [2, 0])


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
