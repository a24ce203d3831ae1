"""``damas hub`` during a search: ``ping``, ``stop`` and ``quit`` are answered while the agent
thinks (the compiled searches run without Python's global lock), and ``stop`` ends the
search with its move so far (:class:`~damas_agents.search.alphabeta.Halt`).

The timeouts are generous (the machine may be busy): what is tested is that an answer comes
at all, where before it never did.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from damas_agents.players.external import parse_hub_line, parse_hub_move
from damas_agents.players.make import make_agent
from damas_agents.players.tree import BatchedPUCT, RolloutEvaluator, UniformEvaluator
from damas_agents.search.alphabeta import Halt, Searcher
from damas_env import Position
from damas_env.turn import Turn

ANSWER_SECONDS = 60.0  # an answer the server owes at once, on a shared machine


class Served:
    """``damas hub`` as a subprocess, its stdout read by a thread into a queue."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "damas_agents.command", "hub", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def start(self) -> None:
        """Starts the Hub session: ``init`` answered up to ``ready`` (a first run compiles)."""
        self.send("hub", "init")
        for command in ("id", "param", "wait", "ready"):
            self.expect(command, timeout=600)

    def expect(self, command: str, timeout: float = ANSWER_SECONDS) -> dict[str, str]:
        """Returns the arguments of the next line, which must be `command`."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no {command!r} within {timeout:g}s") from None
        assert line is not None, f"the server ended (exit code {self.process.wait()})"
        name, args = parse_hub_line(line)
        assert name == command, line
        return args

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture
def served() -> Iterator[Any]:
    started: list[Served] = []

    def start(*args: str) -> Served:
        started.append(Served(*args))
        return started[-1]

    yield start
    for server in started:
        server.kill()


def test_stop_ends_a_depth_only_search_with_its_move_and_quit_exits(served: Any) -> None:
    """A search with no end in sight (depth only) answers ping, then stop with a legal move;
    the server then searches again and quit ends it during that search."""
    hub = served("--variant", "english", "alphabeta")
    hub.start()
    hub.send("pos start", "level depth=1000000000", "go think")
    time.sleep(1.0)  # the search is running
    hub.send("ping")
    hub.expect("pong")
    hub.send("stop")
    parse_hub_move(hub.expect("done")["move"], Position.start("english"))
    hub.send("pos start", "level depth=1000000000", "go think", "ping")
    hub.expect("pong")
    hub.send("quit")
    assert hub.process.wait(timeout=ANSWER_SECONDS) == 0


def test_a_rollout_search_answers_ping_and_quit(served: Any) -> None:
    """mcts plays its simulations in compiled calls (seconds, here): ping is answered
    during them, and quit exits before its move is written."""
    hub = served("--variant", "english", "mcts:sims=100000")
    hub.start()
    hub.send("pos start", "go think")
    time.sleep(0.5)
    hub.send("ping")
    hub.expect("pong")
    hub.send("quit")
    assert hub.process.wait(timeout=ANSWER_SECONDS) == 0
    assert hub.lines.get(timeout=ANSWER_SECONDS) is None  # the output ends: no move


def test_a_halt_ends_a_rollout_search_between_slices() -> None:
    """mcts walks in slices of compiled calls: a halt set a moment into a search of 100,000
    simulations (seconds) ends it with fewer."""
    start = Position.start("english")
    agent = make_agent("mcts:sims=100000", seed=0)
    agent.act({}, start)  # loads the compiled code
    halt = Halt()
    thread, out = _search_in_thread(lambda: agent.search(start), halt)
    time.sleep(0.3)
    halt.set()
    thread.join(ANSWER_SECONDS)
    assert not thread.is_alive()
    visits = out["result"].visits
    assert 0 < visits.sum() < 100_000


def test_stop_ends_a_rollout_search_with_a_legal_move(served: Any) -> None:
    """The server's path for the halt above: stop during mcts answers done with a legal move
    and the server reads on."""
    hub = served("--variant", "english", "mcts:sims=100000")
    hub.start()
    hub.send("pos start", "go think")
    time.sleep(0.5)
    hub.send("stop")
    parse_hub_move(hub.expect("done")["move"], Position.start("english"))
    hub.send("quit")
    assert hub.process.wait(timeout=ANSWER_SECONDS) == 0


def test_slices_of_walks_change_no_search() -> None:
    """The walks of a round are the same however the compiled calls slice them: two games
    of rollouts (one stream for both) give the same visits in slices of 7 and of 256."""
    start = Position.start("english")
    turns = [Turn(start.rules) for _ in range(2)]
    for turn in turns:
        turn.reset(start.board, start.turn, start.king_runs)
    turns[1].play(turns[1].legal_actions()[0])
    visits = []
    for slice_walks in (7, 256):
        search = BatchedPUCT(RolloutEvaluator(), simulations=300, seed=5, selection="uct")
        search.SLICE_WALKS = slice_walks
        search.search(turns, add_noise=False)
        visits.append(np.concatenate([root.visits for root in search.roots]))
    assert visits[0].sum() == 600 and np.array_equal(visits[0], visits[1])


def test_a_rollout_search_lets_other_threads_run() -> None:
    """The rounds of mcts's compiled search release Python's lock: the thread reading the
    input runs meanwhile, rather than once the search is over."""
    start = Position.start("english")
    agent = make_agent("mcts:sims=100000", seed=0)
    agent.act({}, start)  # loads the compiled code
    thread = threading.Thread(target=agent.act, args=({}, start), daemon=True)
    thread.start()
    turns = 0
    while thread.is_alive():
        time.sleep(0.01)
        turns += 1
    assert turns >= 50  # the search takes seconds; holding the lock, about one turn


def _search_in_thread(run: Any, halt: Halt) -> tuple[threading.Thread, dict[str, Any]]:
    """Starts run() under `halt` in a thread; returns it and where its result goes."""
    out: dict[str, Any] = {}

    def target() -> None:
        with halt.applied():
            out["result"] = run()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, out


def test_a_halt_ends_a_search_with_its_best_move_so_far() -> None:
    position = Position.start("international")
    searcher = Searcher(position.rules)
    halt = Halt()
    thread, out = _search_in_thread(lambda: searcher.search(position, depth=64), halt)
    time.sleep(1.0)
    assert thread.is_alive()
    halt.set()
    thread.join(ANSWER_SECONDS)
    assert not thread.is_alive()
    result = out["result"]
    assert result.move in position.legal_moves() and 1 <= result.depth < 64


def test_a_search_under_a_set_halt_plays_the_first_legal_move() -> None:
    position = Position.start("english")
    halt = Halt()
    halt.set()
    with halt.applied():
        result = Searcher(position.rules).search(position, depth=64)
    assert result.depth == 0 and result.move == position.legal_moves()[0]
    again = Searcher(position.rules).search(position, depth=2)  # no halt applied here
    assert again.depth == 2


def test_a_halt_ends_a_tree_search_after_its_round() -> None:
    start = Position.start("english")
    turn = Turn(start.rules)
    turn.reset(start.board, start.turn, start.king_runs)
    search = BatchedPUCT(UniformEvaluator(), simulations=10_000, batch_leaves=8, seed=0)
    halt = Halt()
    halt.set()
    with halt.applied():
        search.search([turn], add_noise=False)
    assert 0 < search.roots[0].visits.sum() <= 8
    search.search([turn], add_noise=False)
    assert search.roots[0].visits.sum() == 10_000


def test_a_halt_sends_stop_to_a_hub_engine() -> None:
    """Our Hub client, halted, sends stop to its engine (our server in a depth-only search)
    and plays the engine's move so far."""
    args = "-m damas_agents.command hub --variant english alphabeta"
    agent = make_agent(
        f"hub:{sys.executable},args={args},depth=64,timeout=3600,init_timeout=600",
        rules=Position.start("english").rules,
    )
    try:
        position = Position.start("english")
        halt = Halt()
        thread, out = _search_in_thread(lambda: agent.choose(position), halt)
        time.sleep(2.0)
        assert thread.is_alive()
        halt.set()
        thread.join(ANSWER_SECONDS)
        assert not thread.is_alive() and out["result"] in position.legal_moves()
    finally:
        agent.close()
