"""Opponents nobody here wrote, so that strength is anchored outside the project.

    openspiel-mcts:sims=N   English         pip install 'damas-env[openspiel]'
    dame:depth=N            International   pip install 'damas-env[dame]' (dame-rs)
    hub:PATH                the engine's    any engine speaking Hub protocol version 2

A missing package or program raises an ImportError saying what to install. An engine only
proposes moves, and a proposal that is not legal here is an error.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import re
import shlex
import shutil
import subprocess
import threading
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, BinaryIO

import numpy as np

from damas_agents.players.base import MoveAgent, Observation
from damas_agents.players.peers import (
    OpenSpielCheckersPeer,
    PeerMove,
    openspiel_decode,
    require_engine,
)
from damas_agents.search.alphabeta import Halt
from damas_agents.specs import KINDS, check_option
from damas_env import Colour, Move, Position
from damas_env.checks import shown
from damas_env.encoding import action_layout
from damas_env.notation import parse_move
from damas_env.rules import Ruleset, get_ruleset
from damas_env.turn import HOP_ILLEGAL, Turn

__all__ = [
    "OpenSpielMCTSAgent",
    "DameAgent",
    "EngineError",
    "HubAgent",
    "HubError",
    "HubWarning",
]

#: The switches that decide which moves are legal; the draw rules may differ.
_MOVE_SWITCHES = (
    "board_size",
    "rows_per_side",
    "first_player",
    "men_capture_backward",
    "flying_kings",
    "capture_precedence",
    "promotion_in_capture",
    "king_landing",
    "turkish_strike",
    "giveaway",
)


class EngineError(RuntimeError):
    """Raised when an external engine fails while playing: it dies, falls silent, or proposes
    a move that is not legal here. The command lines report it in one line (exit status 2)."""


def _check_rules(rules: Ruleset, engine_rules: str, user: str) -> None:
    """Raises ValueError unless a ruleset moves like the named one the engine plays."""
    reference = get_ruleset(engine_rules)
    differ = [f for f in _MOVE_SWITCHES if getattr(rules, f) != getattr(reference, f)]
    if differ:
        raise ValueError(
            f"{user} plays {engine_rules} rules only; ruleset {rules.name!r} differs in {differ}"
        )


def _legal_move(position: Position, key: PeerMove, engine: str) -> Move:
    """Returns our legal move with a PDN (origin, destination, captured set), else raises."""
    origin, destination, captured = key
    for move in position.legal_moves():
        if move.key == (origin - 1, destination - 1, frozenset(c - 1 for c in captured)):
            return move
    raise EngineError(
        f"{engine} proposed {origin}-{destination} taking {sorted(captured)}, which is not "
        f"legal in {position.fen()} under {position.rules.name} rules"
    )


# --- OpenSpiel ------------------------------------------------------------------------------

_SYNC_PLIES = 4  # moves searched to link a new position to the last one seen (ballots: 3-4)


class _Checkers(OpenSpielCheckersPeer):
    """The OpenSpiel checkers peer, with its state open to the agent's search."""

    @property
    def state(self) -> Any:
        """Returns OpenSpiel's state (do not apply actions to it; clone it)."""
        return self._state


class OpenSpielMCTSAgent:
    """OpenSpiel's ``MCTSBot`` with random rollouts on its ``checkers`` (English) game.

    OpenSpiel cannot load a position, so the agent keeps an OpenSpiel game in step with
    ours by replaying complete moves from the English start position. ``act`` receives
    only the position, so the agent links each new position to the last one it saw by
    searching up to four moves of our engine for the sequence that leads there (its own
    move and the reply; or a three-move ballot at the start of a game). A game that began
    elsewhere must be given through :meth:`set_history` (the moves from the start
    position); otherwise ``act`` raises ValueError.

    OpenSpiel ends a game as a draw after 40 plies without a capture; our English rules go
    on (the 40-move rule is 80 plies without a capture or man move). Once OpenSpiel thinks
    the game is over while ours goes on, the agent plays uniformly random legal hops (from
    its own seeded stream) for the rest of that game; ``in_step`` tells which mode it is in.

    Args:
        sims: MCTS simulations per hop.
        seed: seed of the bot's and the fallback's random streams (``reset`` restarts them).
        uct_c: the UCT exploration constant (OpenSpiel's examples use 2).
    """

    def __init__(self, sims: int = 1000, seed: int | None = None, uct_c: float = 2.0) -> None:
        user = "OpenSpielMCTSAgent"
        self._pyspiel = require_engine("pyspiel", user, "open_spiel")
        self._mcts = require_engine("open_spiel.python.algorithms.mcts", user, "open_spiel")
        self.sims, self.seed, self.uct_c = sims, seed, uct_c
        self.name = f"openspiel-mcts:sims={sims}"
        self._game = self._pyspiel.load_game("checkers")
        self._turns: dict[Ruleset, Turn] = {}
        self.reset()

    def reseed(self, seed: int | None) -> None:
        """Restarts the random streams from `seed` (and from it at every reset)."""
        self.seed = seed
        self.reset()

    def reset(self) -> None:
        """Forgets the game and restarts the random streams from the seed."""
        state = np.random.RandomState(self.seed)
        evaluator = self._mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=state)
        self._bot = self._mcts.MCTSBot(
            self._game, self.uct_c, self.sims, evaluator, solve=True, random_state=state
        )
        self._fallback = np.random.default_rng(self.seed)
        self._peer: _Checkers | None = None
        self._seen: Position | None = None
        self.in_step = True

    def check_rules(self, rules: Ruleset) -> None:
        """Raises ValueError unless the ruleset moves like English checkers (OpenSpiel's)."""
        _check_rules(rules, "english", self.name)

    def set_history(self, moves: Sequence[Move | str], rules: Ruleset | str = "english") -> None:
        """Replays a game's moves from the English start position (a hook for the arena)."""
        self._start(rules)
        assert self._seen is not None
        for move in moves:
            self._advance(self._seen.find_move(move))

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns OpenSpiel MCTS's next hop (a random legal hop once out of step).

        Raises:
            ValueError: no position, a ruleset that does not move like English, or a
                position not reached from the moves seen (call :meth:`set_history`).
        """
        if position is None:
            raise ValueError(f"{self.name} needs the engine position: act(obs, position, hops)")
        self.check_rules(position.rules)
        self._follow(position)
        legal = self._legal_hops(position, hops)
        if self.in_step:
            action = self._search(position, hops)
            if action in legal:
                return action
            self.in_step = False  # OpenSpiel's game is over (or disagrees): play on at random
        return int(self._fallback.choice(legal))

    # --- Keeping OpenSpiel in step ----------------------------------------------------------

    def _start(self, rules: Ruleset | str) -> None:
        self._peer = _Checkers()
        self._seen = Position.start(rules)
        self.in_step = True

    def _follow(self, position: Position) -> None:
        """Brings the OpenSpiel game to a position, replaying the moves that lead there."""
        start = Position.start(position.rules)
        if self._seen is None or (self._seen != position and position == start):
            self._start(position.rules)  # a new game (reset or not)
        assert self._seen is not None
        if self._seen == position:
            return
        path = _moves_between(self._seen, position, _SYNC_PLIES)
        if path is None:
            raise ValueError(
                f"{self.name} cannot reach {position.fen()} within {_SYNC_PLIES} moves of "
                f"{self._seen.fen()}: OpenSpiel plays only from the English start position; "
                "give a game's earlier moves with set_history(moves)"
            )
        for move in path:
            self._advance(move)

    def _advance(self, move: Move) -> None:
        """Plays one of our moves in OpenSpiel too (unless OpenSpiel's game is over)."""
        assert self._peer is not None and self._seen is not None
        if self.in_step and self._peer.is_terminal():
            self.in_step = False  # OpenSpiel's 40-ply draw: our rules play on
        if self.in_step:
            self._peer.play(
                (move.origin + 1, move.destination + 1, frozenset(c + 1 for c in move.captures))
            )
        self._seen = self._seen.play(move)

    def _search(self, position: Position, hops: Sequence[int]) -> int:
        """Returns the bot's hop from the turn's start plus the hops played, as our action."""
        assert self._peer is not None
        state = self._peer.state.clone()
        layout = action_layout(8)
        for hop in hops:
            origin, target = layout.hop_squares(hop, position.turn)
            action = _os_action(state, origin + 1, target + 1)
            if action < 0:
                return -1
            state.apply_action(action)
        black_to_move = state.current_player() == 0  # OpenSpiel's first player is our Black
        if state.is_terminal() or black_to_move != (position.turn == Colour.BLACK):
            return -1
        start, end, _ = openspiel_decode(self._bot.step(state))
        return layout.hop_action(start - 1, end - 1, position.turn)

    def _legal_hops(self, position: Position, hops: Sequence[int]) -> list[int]:
        """Returns our legal hops after the hops played (computed by the turn state)."""
        if position.rules not in self._turns:
            self._turns[position.rules] = Turn(position.rules)
        turn = self._turns[position.rules]
        turn.reset(position.board, position.turn, position.king_runs)
        for hop in hops:
            if turn.play(int(hop)) == HOP_ILLEGAL:
                raise ValueError(f"{self.name}: hop {hop} is illegal in {position.fen()}")
        return turn.legal_actions()


def _os_action(state: Any, origin: int, target: int) -> int:
    """Returns OpenSpiel's legal action for a hop between two PDN squares (-1 if none)."""
    for action in state.legal_actions():
        start, end, _ = openspiel_decode(action)
        if (start, end) == (origin, target):
            return int(action)
    return -1


def _moves_between(start: Position, goal: Position, max_plies: int) -> list[Move] | None:
    """Returns the shortest move sequence from start to goal (None beyond max_plies).

    Iterative deepening over legal moves, pruned by piece counts (pieces never come back).
    """
    if start.rules != goal.rules:
        return None
    need = (int((goal.board > 0).sum()), int((goal.board < 0).sum()))

    def search(node: Position, depth: int) -> list[Move] | None:
        if node == goal:
            return []
        if depth == 0 or (node.board > 0).sum() < need[0] or (node.board < 0).sum() < need[1]:
            return None
        for move in node.legal_moves():
            rest = search(node.play(move), depth - 1)
            if rest is not None:
                return [move, *rest]
        return None

    for depth in range(max_plies + 1):
        parity_ok = (depth % 2 == 0) == (start.turn == goal.turn)
        found = search(start, depth) if parity_ok else None
        if found is not None:
            return found
    return None


# --- dame-rs --------------------------------------------------------------------------------


def _dame() -> Any:
    """Imports dame-rs (module ``dame``), telling it apart from PyPI's unrelated ``dame``."""
    dame = require_engine("dame", "DameAgent", "dame-rs")
    if not hasattr(dame, "Engine"):
        raise ImportError(
            "DameAgent needs dame-rs (pip install dame-rs); the installed 'dame' module is "
            "another package (PyPI's 'dame' is unrelated): pip uninstall dame"
        )
    return dame


class DameAgent(MoveAgent):
    """The dame-rs engine (International draughts, alpha-beta in Rust) at a fixed depth.

    dame-rs is on PyPI as ``dame-rs`` and imports as ``dame``; its ``Board`` reads our FEN
    and its ``Engine.search(board, depth=...)`` returns the best move with PDN squares and
    the captured set. The board is built from the position alone, so dame does not see the
    game's repetition history. ``reset`` clears its hash table.

    Args:
        depth: search depth in plies.
        hash_mb: transposition table size in MiB.
    """

    def __init__(self, depth: int = 6, hash_mb: int = 64) -> None:
        super().__init__()
        self._module = _dame()
        self.depth = depth
        self.name = f"dame:depth={depth}"
        self._engine = self._module.Engine(hash_mb=hash_mb)

    def reset(self) -> None:
        """Forgets the move in progress and clears dame's hash table."""
        super().reset()
        self._engine.clear()

    def check_rules(self, rules: Ruleset) -> None:
        """Raises ValueError unless the ruleset moves like International draughts (dame's)."""
        _check_rules(rules, "international", self.name)

    def choose(self, position: Position) -> Move:
        """Returns dame's best move at the agent's depth, as our legal move."""
        self.check_rules(position.rules)
        board = self._module.Board(position.fen())
        best = self._engine.search(board, depth=self.depth).best_move
        if best is None:
            raise ValueError(f"{self.name}: no move in {position.fen()} (the game is over)")
        key = (int(best.from_square), int(best.to_square), frozenset(best.captured))
        return _legal_move(position, key, "dame")


# --- Hub protocol ---------------------------------------------------------------------------
# Hub protocol version 2 (Scan 3.x, Hub 2.x; Scan's protocol.txt): lines of
# `command arg=value ...`, values quoted when they hold spaces or '='. The GUI (us) sends
#   hub | set-param name= value= | init | new-game | ping | pos pos=<side><squares>
#   | level ... | go think | stop | quit
# and the engine answers id / param / wait / ready / pong / info / done move= ponder= / error.
# A position is the side to move (W or B) then one letter per square in PDN order: w b
# (men), W B (kings), e (empty). A move is 32-28, or 28x19x23: from, to, then every
# captured square in any order.

_HUB_PIECES = {0: "e", 1: "w", 2: "W", -1: "b", -2: "B"}
_HUB_MOVE = re.compile(r"[0-9]+(?:[-x][0-9]+)+")  # ASCII: \d takes any script's digits


class HubError(EngineError):
    """Raised when a Hub engine dies, falls silent or says something we cannot use."""


def hub_position(position: Position) -> str:
    """Returns a position in Hub's format: ``W`` or ``B`` then one letter per square."""
    side = "W" if position.turn == Colour.WHITE else "B"
    return side + "".join(_HUB_PIECES[int(code)] for code in position.board)


def hub_move(move: Move) -> str:
    """Returns a move in Hub's format: ``32-28``, or ``28x19x23`` (captured squares last)."""
    if not move.captures:
        return f"{move.origin + 1}-{move.destination + 1}"
    return "x".join(str(s + 1) for s in (move.origin, move.destination, *sorted(move.captures)))


def parse_hub_move(text: str, position: Position) -> Move:
    """Returns our legal move named by a Hub move (also accepts a PDN capture path).

    Raises:
        HubError: the text is not a move, or names no single legal move here.
    """
    if len(text) > 400 or not _HUB_MOVE.fullmatch(text):  # 400: longer than any capture
        raise HubError(f"malformed Hub move {shown(text)}")
    numbers = [int(n) for n in re.split(r"[-x]", text)]
    squares = position.rules.squares
    if not all(1 <= n <= squares for n in numbers):
        raise HubError(f"Hub move {shown(text)} names a square off the board (1-{squares})")
    origin, destination, taken = numbers[0] - 1, numbers[1] - 1, {n - 1 for n in numbers[2:]}
    found = {
        m.key: m
        for m in position.legal_moves()
        if m.origin == origin and m.destination == destination
        if not taken or set(m.captures) == taken
    }
    if len(found) == 1:
        return next(iter(found.values()))
    with contextlib.suppress(ValueError):  # a PDN path (landing squares) instead
        routes = position.capture_routes()
        return position.find_move(parse_move(text, routes, position.rules.board_size))
    raise HubError(
        f"Hub move {shown(text)} is not a legal move (or is ambiguous) in {position.fen()}"
    )


def parse_hub_line(line: str) -> tuple[str, dict[str, str]]:
    """Returns (command, arguments) of a Hub line; a flag argument has the value ``""``.

    Raises:
        HubError: unbalanced quotes.
    """
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise HubError(f"malformed Hub line {shown(line)}: {exc}") from None
    if not words:
        return "", {}
    args: dict[str, str] = {}
    for word in words[1:]:
        name, _, value = word.partition("=")
        args[name] = value
    return words[0], args


def _hub_value(value: object) -> str:
    """Returns a value for a Hub line, quoted if it is empty or holds a space, '=' or '"'."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f'"{text}"' if not text or re.search(r'[\s="]', text) else text


class HubWarning(RuntimeWarning):
    """Warned when a Hub engine is sent ``stop`` before its search ended by itself (short of
    its ``depth``, or past its move time by the agent's ``timeout``): the move played comes
    from a shorter search than the one asked for. ``HubAgent.stopped`` counts such moves."""


class _SilentError(HubError):
    """An expected line did not come in time (the engine may still be thinking)."""


_STOP_GRACE = 2.0  # seconds an engine sent 'stop' has to answer with its move so far
_QUIT_GRACE = 1.0  # seconds an engine sent 'quit' has to exit before it is killed
_EXIT_GRACE = 10.0  # seconds an engine whose pipes broke has to exit (a busy machine is slow)

# What is kept of an engine's output, so that no engine can fill the memory: a Hub line is a
# few hundred bytes, and the reader waits (and the engine with it) while lines queue unread.
_MAX_LINE = 16384  # bytes of one line; a longer line on stdout is an error
_MAX_QUEUED = 256  # lines read but not yet taken
_MAX_KEPT = 1024  # 'id' and 'param' lines kept from the handshake
_STDERR_LINES, _STDERR_CHARS = 20, 300  # the end of stderr shown when an engine dies

_Line = tuple[str, dict[str, str]]


class _HubProcess:
    """A running Hub engine: its pipes, the daemon threads that read them, and its end.

    Each reader thread owns its pipe and closes it when the pipe ends; no other thread ever
    closes a stream that a thread may be blocked reading (at interpreter exit, that aborts
    Python: ``Fatal Python error: _enter_buffered_busy``). The output read is bounded: lines
    of at most ``_MAX_LINE`` bytes, at most ``_MAX_QUEUED`` waiting (the reader then waits,
    and the engine with it), the last ``_STDERR_LINES`` of stderr. A line that is too long or
    not UTF-8 ends the reading of stdout: it is the error reported, not the engine's death.
    """

    def __init__(self, argv: list[str], cwd: str | None, name: str) -> None:
        self.name = name
        try:
            self.process = subprocess.Popen(
                argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as exc:
            raise HubError(f"{name}: cannot start {shlex.join(argv)}: {exc}") from None
        self.lines: queue.Queue[str | None] = queue.Queue(maxsize=_MAX_QUEUED)
        self.stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self.fault: str | None = None
        """Why stdout stopped being read before it ended (a line too long, or not UTF-8)."""
        self._closing = threading.Event()
        readers = (
            (self._read_stdout, self.process.stdout),
            (self._read_stderr, self.process.stderr),
        )
        self.readers = [
            threading.Thread(target=read, args=(pipe,), daemon=True, name=f"{name} reader {i}")
            for i, (read, pipe) in enumerate(readers)
        ]
        for thread in self.readers:
            thread.start()

    def is_running(self) -> bool:
        """Returns whether the engine process has not exited."""
        return self.process.poll() is None

    def send(self, line: str) -> None:
        """Writes one line to the engine, or raises HubError if it has died."""
        stdin = self.process.stdin
        try:
            assert stdin is not None
            stdin.write(line.encode("utf-8", "surrogateescape") + b"\n")
            stdin.flush()
        except (OSError, ValueError):
            raise self.died(f"while sending {line!r}") from None

    def expect(
        self, command: str, timeout: float, keep: Collection[str] = ()
    ) -> tuple[dict[str, str], list[_Line]]:
        """Returns the arguments of the next `command` line and the lines read before it
        whose command is in `keep` (others are read and dropped).

        The deadline holds however many lines come: an engine that keeps talking without
        saying `command` is as silent as one that says nothing.

        Raises:
            HubError: the engine died, reported an error, sent a line that is not Hub text,
                or more than ``_MAX_KEPT`` lines to keep (_SilentError: no `command` in time).
        """
        deadline = time.monotonic() + timeout
        kept: list[_Line] = []
        dropped, last = 0, ""
        while True:
            line = self._next(deadline)
            if line is None:
                raise self.died(f"while waiting for '{command}'")
            if isinstance(line, _Timeout):
                said = (
                    f" (it sent {dropped} other lines, the last {shown(last)})" if dropped else ""
                )
                raise _SilentError(f"{self.name}: no '{command}' within {timeout:g}s{said}")
            name, args = parse_hub_line(line)
            if name == command:
                return args, kept
            if name == "error":
                raise HubError(f"{self.name} reported an error: {args.get('message', line)}")
            if name not in keep:
                dropped, last = dropped + 1, line
            elif len(kept) < _MAX_KEPT:
                kept.append((name, args))
            else:
                raise HubError(
                    f"{self.name} sent more than {_MAX_KEPT} '{name}' lines before '{command}'"
                )

    def _next(self, deadline: float) -> str | None | _Timeout:
        """Returns the next line (None: stdout has ended), or _TIMEOUT once past the deadline,
        even while lines keep coming."""
        left = deadline - time.monotonic()
        if left <= 0:
            return _TIMEOUT
        try:
            return self.lines.get(timeout=left)
        except queue.Empty:
            return _TIMEOUT

    def drain(self) -> None:
        """Drops the lines waiting from an earlier search (keeping the end-of-output mark);
        at most as many as wait now, so an engine that keeps talking cannot hold it."""
        for _ in range(self.lines.qsize()):
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put(None)  # the reader has ended: there is room, and no other writer
                return

    def died(self, when: str) -> HubError:
        """Returns the error for an engine whose pipes broke: the line that ended the reading
        of its output, else its death with its exit code and last stderr (or, if it still
        runs, that it closed its pipes)."""
        code = None
        if self.fault is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(timeout=_EXIT_GRACE)
            for thread in self.readers:
                thread.join(timeout=1.0)  # let stderr's last lines in, and a fault be seen
        if self.fault is not None:
            return HubError(f"{self.name} {self.fault}")
        shown_lines = tuple(self.stderr)  # the stderr reader may still append
        tail = "; stderr: " + " | ".join(shown_lines) if shown_lines else ""
        if code is None:
            return HubError(f"{self.name}: the engine closed its pipes {when}, yet runs{tail}")
        return HubError(f"{self.name}: the engine died {when} (exit code {code}){tail}")

    def close(self) -> None:
        """Asks the engine to quit, kills it if it has not exited within a second, then gives
        the reader threads a second to see their pipes end (and close them). A pipe
        that a child of the engine keeps open is left to its daemon thread, never closed
        under it."""
        self._closing.set()  # a reader waiting for room in the queue gives up
        stdin = self.process.stdin
        with contextlib.suppress(OSError, ValueError):
            if stdin is not None and self.is_running():
                stdin.write(b"quit\n")
                stdin.flush()
        with contextlib.suppress(OSError, ValueError):
            if stdin is not None:
                stdin.close()  # only the agent's thread writes: closing it here is safe
        try:
            self.process.wait(timeout=_QUIT_GRACE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        deadline = time.monotonic() + _QUIT_GRACE
        for thread in self.readers:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    # --- The reader threads -----------------------------------------------------------------

    def _read_stdout(self, stream: BinaryIO) -> None:
        """Queues stdout's lines as text until it ends (then None), or until a line that is
        too long or not UTF-8 (recorded as the fault, then None); closes the pipe."""
        with contextlib.suppress(OSError, ValueError), stream:
            try:
                for line, whole in _lines(stream, _MAX_LINE):
                    if not self._put(_hub_text(line, whole)):
                        return  # closed: nobody reads on
            except _NotHubTextError as exc:
                self.fault = str(exc)
        self._put(None)

    def _read_stderr(self, stream: BinaryIO) -> None:
        """Keeps the start of stderr's last lines, for error messages; closes the pipe."""
        with contextlib.suppress(OSError, ValueError), stream:
            for line, _ in _lines(stream, _MAX_LINE):
                self.stderr.append(line[:_STDERR_CHARS].decode("utf-8", "replace"))

    def _put(self, line: str | None) -> bool:
        """Queues a line, waiting for room until the engine is closed (then returns False)."""
        while not self._closing.is_set():
            with contextlib.suppress(queue.Full):
                self.lines.put(line, timeout=0.1)
                return True
        return False


def _stop_quietly(engine: _HubProcess) -> None:
    """Sends ``stop`` to a searching engine (from a halting thread); a dead engine is the
    searching thread's to report."""
    with contextlib.suppress(HubError):
        engine.send("stop")


class _Timeout:
    """The mark of a deadline passed (a type of its own, so that mypy tells it from a line)."""


_TIMEOUT = _Timeout()


def _lines(stream: BinaryIO, limit: int) -> Iterator[tuple[bytes, bool]]:
    """Yields a binary stream's lines without their ends, each with whether it is whole: a
    line longer than `limit` bytes yields its first `limit` bytes (False), then its rest is
    read and dropped, never held."""
    while chunk := stream.readline(limit + 1):
        if len(chunk) <= limit or chunk.endswith(b"\n"):
            yield chunk.rstrip(b"\r\n"), True
            continue
        yield chunk[:limit], False
        while chunk and not chunk.endswith(b"\n"):
            chunk = stream.readline(limit + 1)


class _NotHubTextError(Exception):
    """An engine's line is too long, or not UTF-8 (not a ValueError: the reader suppresses
    those, which a closed pipe raises)."""


def _hub_text(line: bytes, whole: bool) -> str:
    """Returns an engine's line as text.

    Raises:
        _NotHubTextError: the line was cut at ``_MAX_LINE`` bytes, or is not UTF-8.
    """
    if not whole:
        raise _NotHubTextError(f"sent a line longer than {_MAX_LINE} bytes: {shown(line)}")
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _NotHubTextError(
            f"sent a line that is not UTF-8 text ({exc.reason} at byte {exc.start}): {shown(line)}"
        ) from None


def _hub_option(agent: str, options: dict[str, Any], key: str, default: float | None) -> Any:
    """Pops a numeric option of a Hub agent, checked against the bounds its spec has."""
    if key not in options:
        return default
    return check_option(f"{agent} option {key}", options.pop(key), KINDS["hub"].options[key])


_UNSENDABLE = re.compile(r'["\x00-\x1f\x7f]')  # a quote or a control character (line breaks)


def _check_param(agent: str, name: str, value: object) -> None:
    """Raises ValueError unless an engine parameter fits on one Hub line."""
    if not name or _UNSENDABLE.search(name) or _UNSENDABLE.search(_hub_value(value).strip('"')):
        raise ValueError(
            f"{agent}: engine parameter {shown(name)}={shown(value)} cannot be sent on a Hub "
            "line (it needs a name, and no quote, line break or other control character)"
        )


def _engine_args(agent: str, args: object) -> list[str]:
    """Returns a Hub engine's command-line arguments, split like a shell's words."""
    try:
        return shlex.split(str(args))
    except ValueError as exc:
        raise ValueError(f"{agent}: cannot split args={shown(args)}: {exc}") from None


def _engine_dir(cwd: object) -> str | None:
    """Returns a Hub engine's working directory as an absolute path (None: ours).

    Raises:
        NotADirectoryError: it is not an existing directory.
    """
    if cwd is None:
        return None
    path = os.path.abspath(str(cwd))
    if not os.path.isdir(path):
        raise NotADirectoryError(
            f"Hub engine directory cwd={shown(str(cwd))} is not an existing directory"
        )
    return path


def _find_engine(path: str, cwd: str | None) -> str:
    """Returns a Hub engine's executable as an absolute path: a name on PATH, else a path
    from `cwd` (the current directory when None).

    Raises:
        FileNotFoundError: no such program, saying what a Hub engine is.
    """
    found = shutil.which(path) if os.sep not in path else None
    local = os.path.join(cwd or os.curdir, path)
    if found is None and os.path.isfile(local):
        found = local
    if found is None:
        where = f" (looked on PATH and in {cwd})" if cwd else ""
        raise FileNotFoundError(
            f"Hub engine {path!r} not found{where}: give the path of an engine that speaks the "
            "Hub protocol, e.g. Scan ('scan' built from its source) or dame-rs "
            "(pip install dame-rs provides 'dame')"
        )
    return os.path.abspath(found)


class HubAgent(MoveAgent):
    """Any engine speaking the Hub protocol (version 2) over a subprocess's stdin/stdout.

    The engine is started when the agent is built (``[path, *args]`` in ``cwd``; Scan and
    dame-rs both take ``hub`` as their argument) and the handshake is completed then
    (``hub`` ... ``wait``, its parameters, ``init`` ... ``ready``), so a wrong path or
    directory, an engine that crashes at start or fails the handshake is an error before
    the first game. It is asked for one complete move per turn with ``pos``, ``level`` and
    ``go think``, and sees the position only (no ``moves=`` history). Every reply is waited
    for with a timeout; an engine that dies, falls silent or answers with a move that is not
    legal here raises :class:`HubError` with what it said.

    :meth:`reset` tells the engine a new game starts (``new-game``) and waits until it has
    done with it (``ping`` ... ``pong``), so that neither its start nor its preparing for a
    game is counted in the first move's thinking time.

    The search is bounded in time even at a fixed depth. After ``time + timeout`` seconds
    (``timeout`` alone with ``depth``) the engine is sent ``stop`` and has two seconds to
    answer; its move so far is played, but the cut is reported: a :class:`HubWarning` (once
    per process and agent spec) and ``stopped``, the count of such moves. For a search that
    always reaches its depth, give a ``timeout`` longer than any move can take.

    :meth:`close` (or ``with``) quits the engine; an agent left open is closed when it is
    collected, or at interpreter exit.

    Args:
        path: the engine's executable: a name on PATH, or a path (from ``cwd`` if given).
        **options: ``depth`` (``level depth=``, 1 to 64) or ``time`` (seconds,
            ``level move-time=``; 1 if neither is given); ``timeout``: seconds to wait for a
            move beyond the move time before sending ``stop`` (default 10); ``init_timeout``:
            seconds to wait for ``wait`` and ``ready`` at start-up, and for ``pong`` after
            ``new-game`` (default 60); every number of seconds is from 0.001 to 3600 (the
            bounds of :mod:`damas_agents.specs`); ``cwd``: the directory to start
            the engine in, where it finds its data (it must exist; default ours);
            ``args``: command-line arguments (default ``"hub"``; split like a shell's words
            but never run by a shell); anything else is an engine parameter sent as
            ``set-param`` (e.g. ``variant="normal"``).

    Raises:
        FileNotFoundError: no such engine. NotADirectoryError: ``cwd`` is not a directory.
        ValueError: a number out of its bounds, or a parameter that cannot be sent on one
            Hub line.
        HubError: the engine cannot start, dies, stays silent or reports an error during
            the handshake.
    """

    def __init__(self, path: str, **options: Any) -> None:
        super().__init__()
        options = dict(options)
        self.cwd = _engine_dir(options.pop("cwd", None))
        self.path = _find_engine(str(path), self.cwd)
        self.name = f"hub:{os.path.basename(path)}"
        self.args = _engine_args(self.name, options.pop("args", "hub"))
        depth = _hub_option(self.name, options, "depth", None)
        self.depth = None if depth is None else int(depth)
        self.move_time = _hub_option(self.name, options, "time", 1.0 if depth is None else 0.0)
        self.timeout = _hub_option(self.name, options, "timeout", 10.0)
        self.init_timeout = _hub_option(self.name, options, "init_timeout", 60.0)
        for name, value in options.items():
            _check_param(self.name, name, value)
        self.params = options
        self.engine_id: dict[str, str] = {}
        self.engine_params: dict[str, dict[str, str]] = {}
        self.stopped = 0
        """Moves whose search was cut by ``stop`` (see :class:`HubWarning`)."""
        self._engine: _HubProcess | None = None
        self._finalizer: Callable[[], Any] | None = None
        self.start()

    # --- Agent ------------------------------------------------------------------------------

    def reset(self) -> None:
        """Forgets the move in progress; tells the engine a new game starts, and waits until
        it is ready for it (``ping`` ... ``pong``), lines left over read and dropped. After
        :meth:`close`, a new engine is started here, not in the first move.

        Raises:
            HubError: the engine has exited, cannot start, dies, reports an error or does not
                answer ``pong`` within ``init_timeout`` seconds.
        """
        super().reset()
        engine = self._started()
        engine.send("new-game")
        engine.send("ping")
        try:
            engine.expect("pong", self.init_timeout)
        except _SilentError as exc:
            raise HubError(
                f"{exc} after 'new-game' and 'ping' (a Hub engine answers 'pong')"
            ) from None

    def choose(self, position: Position) -> Move:
        """Returns the engine's move for a position, as our legal move."""
        engine = self._started()
        engine.drain()
        engine.send(f"pos pos={hub_position(position)}")
        if self.depth is not None:
            engine.send(f"level depth={self.depth}")
        else:
            engine.send(f"level move-time={self.move_time}")
        engine.send("go think")
        args = self._done(engine)
        if "move" not in args:
            raise HubError(f"{self.name}: 'done' without a move: {args}")
        try:
            return parse_hub_move(args["move"], position)
        except HubError as exc:
            raise HubError(f"{self.name}: {exc}") from None

    def _done(self, engine: _HubProcess) -> dict[str, str]:
        """Returns the arguments of the engine's ``done``; a search past its time is sent
        ``stop``, given two seconds, and reported. A set
        :class:`~damas_agents.search.alphabeta.Halt` sends ``stop`` at once."""
        limit = self.move_time + self.timeout
        halt = Halt.current()
        try:
            if halt is None:
                return engine.expect("done", limit)[0]
            with halt.watch(functools.partial(_stop_quietly, engine)):
                return engine.expect("done", limit)[0]
        except _SilentError:
            engine.send("stop")
        try:
            args = engine.expect("done", _STOP_GRACE)[0]
        except _SilentError:
            raise HubError(
                f"{self.name}: no 'done' within {limit:g}s, nor {_STOP_GRACE:g}s after 'stop'"
            ) from None
        self._report_stop()
        return args

    def _report_stop(self) -> None:
        """Counts and warns of a move whose search was cut by ``stop``."""
        self.stopped += 1
        if self.depth is not None:
            cut = f"did not reach depth {self.depth} within its timeout of {self.timeout:g}s"
        else:
            cut = (
                f"did not answer within its move time of {self.move_time:g}s and its timeout "
                f"of {self.timeout:g}s"
            )
        warnings.warn(
            f"{self.name} {cut}: it was sent 'stop' and its move comes from a shorter search "
            "(the agent's 'stopped' counts such moves; a larger timeout= waits longer)",
            HubWarning,
            stacklevel=3,
        )

    # --- Process ----------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the engine and completes the handshake, unless it runs (the agent's
        constructor does it; after :meth:`close`, it starts a new engine).

        Raises:
            HubError: the engine has exited, cannot start, dies, stays silent or reports
                an error during the handshake (it is then closed).
        """
        self._started()

    def _started(self) -> _HubProcess:
        if self._engine is not None:
            if self._engine.is_running():
                return self._engine
            code = self._engine.process.returncode
            raise HubError(f"{self.name}: the engine has exited (exit code {code})")
        engine = _HubProcess([self.path, *self.args], self.cwd, self.name)
        self._engine, self._finalizer = engine, weakref.finalize(self, engine.close)
        try:
            self._handshake(engine)
        except BaseException:
            self.close()
            raise
        return engine

    def _handshake(self, engine: _HubProcess) -> None:
        """Runs Hub's start-up: ``hub`` ... ``wait``, the parameters, ``init`` ... ``ready``."""
        engine.send("hub")
        _, before = engine.expect("wait", self.init_timeout, keep=("id", "param"))
        for command, args in before:
            if command == "id":
                self.engine_id.update(args)
            elif command == "param" and "name" in args:
                self.engine_params[args["name"]] = args
        for name, value in self.params.items():
            engine.send(f"set-param name={_hub_value(name)} value={_hub_value(value)}")
        engine.send("init")
        engine.expect("ready", self.init_timeout)

    def close(self) -> None:
        """Asks the engine to quit, and ends it if it does not within a second."""
        finalizer, self._engine, self._finalizer = self._finalizer, None, None
        if finalizer is not None:
            finalizer()  # weakref.finalize: runs engine.close once, never again at exit

    def __enter__(self) -> HubAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
