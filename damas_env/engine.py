"""The Pythonic engine API: moves and positions as values over the compiled kernels.

    >>> from damas_env import Position
    >>> pos = Position.start("english")
    >>> len(pos.legal_moves())
    7
    >>> pos.perft(4)
    1469

Squares here are 0-based indices (:mod:`damas_env.geometry`); PDN numbers (1-based) appear
only in :mod:`damas_env.notation`. ``Move`` and ``Colour`` (from :mod:`damas_env.moves`) are
importable from here too.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import numpy as np

from . import kernels as K
from .checks import checked_int, shown
from .compiled_rules import R_WORD, WORD_TWO, ray_table, rules_array
from .geometry import Geometry, geometry
from .moves import (
    BOARD_SIZES,
    Colour,
    IllegalMoveError,
    Move,
    board_codes,
    checked_board_size,
    checked_colour,
    checked_move,
    move_from_row,
    move_to_row,
)
from .notation import NotationError, board_text, format_fen, format_move, parse_fen, parse_move
from .render import position_html, position_svg
from .rules import Ruleset, get_ruleset

__all__ = [
    "BOARD_SIZES",
    "Colour",
    "Move",
    "Position",
    "Engine",
    "IllegalMoveError",
    "KingRuns",
    "NO_RUNS",
    "MAX_PERFT_DEPTH",
    "check_perft_depth",
    "checked_board_size",
    "checked_colour",
    "checked_move",
    "board_codes",
]


#: Deepest perft the API counts. Real positions hold more leaves than any machine can count
#: long before this (international perft(11) is 1.7e9); endgames with few pieces stay
#: countable deeper. The bound keeps a typo such as ``--depth 20000`` from allocating
#: gigabytes of move lists.
MAX_PERFT_DEPTH = 30

#: Seconds a compiled perft call aims to take before Python regains control (and can honour
#: Ctrl-C); a call may take a few times more where the tree suddenly widens.
PERFT_CALL_SECONDS = 0.05


def check_perft_depth(depth: object) -> int:
    """Returns a perft depth as an int, checked to lie in 0..MAX_PERFT_DEPTH.

    Raises:
        TypeError: depth is not an int.
        ValueError: depth is negative or above MAX_PERFT_DEPTH.
    """
    try:
        return checked_int("perft depth", depth, 0, MAX_PERFT_DEPTH)
    except ValueError:
        raise ValueError(
            f"perft depth must be between 0 and {MAX_PERFT_DEPTH}, not {shown(depth)}"
        ) from None


#: Largest move list the Python API grows to. Merged moves stay far below the kernels'
#: default (K.MAX_MOVES); capture routes of many flying kings can run into thousands.
MAX_LIST_ROWS = 1 << 18


class Engine:
    """The compiled kernels bound to one ruleset: tables, rule array and scratch buffers.

    One Engine per ruleset is shared (see :meth:`for_rules`); it is not thread-safe.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.geometry: Geometry = geometry(rules.board_size, rules.board_layout)
        self.ray = ray_table(rules)
        self.rule_array = rules_array(rules)
        self.zobrist, self.side_key = K.zobrist_table(rules.squares)
        self.moves = K.new_move_buffer()
        self.workspace = K.new_workspace(rules.board_size)
        self._perft_buffers: np.ndarray | None = None
        self._perft_chunk = 4  # plies per compiled perft call; adapts (see _perft_walk)
        RULES_KERNELS.load(self)

    @staticmethod
    @cache
    def for_rules(rules: Ruleset) -> Engine:
        """Returns the shared engine of a ruleset."""
        return Engine(rules)

    def start_board(self) -> np.ndarray:
        """Returns the start position's board: men on the first rows of each side."""
        board = np.zeros(self.rules.squares, dtype=np.int8)
        per_row = self.geometry.per_row
        rows, back = self.rules.rows_per_side, self.rules.empty_back_rows
        board[back * per_row : (back + rows) * per_row] = -1
        end = self.rules.squares - back * per_row
        board[end - rows * per_row : end] = 1
        return board

    def generate(self, position: Position, merge: bool = True) -> int:
        """Fills self.moves with the legal moves of a position; returns how many.

        The position's king runs apply the king move limit. The move list grows (up to
        MAX_LIST_ROWS) when a position has more moves or capture routes than it holds; past
        that an OverflowError says so.

        Raises:
            ValueError: the position is played under other rules than this engine's.
        """
        if position.rules is not self.rules and position.rules != self.rules:
            raise ValueError(
                f"a {position.rules.name!r} position given to the {self.rules.name!r} engine"
            )
        board, side, counters = position.board, int(position.turn), position._counters
        while True:
            n = int(
                K.game_moves(
                    _kernel_board(board),
                    side,
                    counters,
                    self.ray,
                    self.rule_array,
                    self.moves,
                    merge,
                    self.workspace,
                )
            )
            if n <= self.moves.shape[0]:
                return n
            what = "moves" if merge else "capture routes"
            self.moves = K.grown_move_buffer(self.moves, n, MAX_LIST_ROWS, what)

    def legal_moves(self, position: Position, merge: bool = True) -> list[Move]:
        """Returns the legal moves of a position as Move values (every route if not merge)."""
        n = self.generate(position, merge)
        return [move_from_row(self.moves[i]) for i in range(n)]

    def perft(self, board: np.ndarray, side: int, depth: int) -> int:
        """Returns the leaf count of the legal move tree, duplicates merged.

        The tree is walked in Python down to subtrees that take about PERFT_CALL_SECONDS
        each in one compiled call, so Ctrl-C (KeyboardInterrupt) stops a deep count within
        moments. The move lists (one per ply) grow, and the count restarts, if a
        position has more moves than they hold.

        Raises:
            TypeError: depth is not an int.
            ValueError: depth is negative or above MAX_PERFT_DEPTH.
        """
        depth = check_perft_depth(depth)
        PERFT_KERNELS.load(self, key=_perft_kernel(self))
        buffers = self._perft_buffers
        if buffers is None or buffers.shape[0] <= depth:
            rows = K.MAX_MOVES if buffers is None else buffers.shape[1]
            buffers = np.zeros((depth + 1, rows, K.MOVE_WIDTH), dtype=np.int16)
        while True:
            self._perft_buffers = buffers
            self._perft_chunk = 4  # learnt afresh for each tree
            count = self._perft_walk(_kernel_board(board), int(side), depth, buffers)
            if count >= 0:
                return count
            buffers = K.grown_move_buffer(buffers, 0, MAX_LIST_ROWS)

    def _perft_walk(self, board: np.ndarray, side: int, depth: int, buffers: np.ndarray) -> int:
        """Returns the perft count below a node, or -1 if a move list overflowed.

        Subtrees up to ``self._perft_chunk`` plies deep are one compiled call; above that,
        each move is tried in Python. The chunk depth adapts so that a call takes about
        PERFT_CALL_SECONDS: one ply deeper after a quick call, one shallower after a slow one.
        """
        if depth <= self._perft_chunk:
            start = time.perf_counter()
            count = int(
                _perft_kernel(self)(
                    board, side, depth, self.ray, self.rule_array, buffers, self.workspace
                )
            )
            if depth == self._perft_chunk:
                self._adapt_perft_chunk(time.perf_counter() - start)
            return count
        mv = buffers[depth]
        n = int(K.generate_moves(board, side, self.ray, self.rule_array, mv, True, self.workspace))
        if n > mv.shape[0]:
            return -1
        total = 0
        for i in range(n):
            child = board.copy()  # not undo_move: one kernel fewer to compile, at a few nodes
            K.apply_move(child, mv, i)
            below = self._perft_walk(child, 1 - side, depth - 1, buffers)
            if below < 0:
                return -1
            total += below
        return total

    def _adapt_perft_chunk(self, seconds: float) -> None:
        """Deepens the compiled perft chunk after a quick call, shallows it after a slow one."""
        if seconds < PERFT_CALL_SECONDS / 16:  # a ply multiplies the time by the branching
            self._perft_chunk += 1
        elif seconds > 4 * PERFT_CALL_SECONDS and self._perft_chunk > 2:
            self._perft_chunk -= 1

    def hash(self, board: np.ndarray, side: int) -> int:
        """Returns the Zobrist hash of a position."""
        return int(K.hash_position(_kernel_board(board), int(side), self.zobrist, self.side_key))


def _kernel_board(board: np.ndarray) -> np.ndarray:
    """Returns a board as the kernels are always given one: a writable, contiguous int8 copy
    (a Position's own board is read-only, and numba compiles a kernel again for each array
    type it is called with: see :data:`RULES_KERNELS`)."""
    return np.array(board, dtype=np.int8)


def _rules_calls(engine: Engine) -> list[tuple[Any, tuple[Any, ...]]]:
    """Returns the rules kernels the Python layer calls, with arguments of the types it calls
    them with (``after_move`` and ``tired_king``: a position's king runs)."""
    e, board, side, ws = engine, engine.start_board(), 0, engine.workspace
    counters = np.zeros(K.G_LEN, dtype=np.int64)
    return [
        (K.game_moves, (board, side, counters, e.ray, e.rule_array, e.moves, True, ws)),
        (K.generate_moves, (board, side, e.ray, e.rule_array, e.moves, True, ws)),
        (K.apply_move, (board, e.moves, 0)),
        (K.hash_position, (board, side, e.zobrist, e.side_key)),
        (K.tired_king, (board, side, counters, e.rule_array)),
        (K.after_move, (counters, board, e.moves, 0)),
    ]


#: The rules kernels, loaded (or compiled, on a first run) with the first engine of a process.
RULES_KERNELS = K.EntryPoints(_rules_calls)


def _perft_kernel(engine: Engine) -> Any:
    """Returns the perft kernel of an engine's board: K.perft_two_words on two words
    (12x12), which the other boards never compile, else K.perft."""
    return K.perft_two_words if engine.rule_array[R_WORD] == WORD_TWO else K.perft


def _perft_calls(engine: Engine) -> list[tuple[Any, tuple[Any, ...]]]:
    """Returns perft's kernel with arguments of the types Engine.perft calls it with."""
    e = engine
    buffers = np.zeros((1, 1, K.MOVE_WIDTH), dtype=np.int16)
    board = e.start_board()
    return [(_perft_kernel(e), (board, 0, 0, e.ray, e.rule_array, buffers, e.workspace))]


#: perft's kernels (its counting on bit sets), loaded with the first perft of a process: an
#: env, a game or a search never compiles them.
PERFT_KERNELS = K.EntryPoints(_perft_calls)


#: A position's king runs (see :class:`Position`): White's, then Black's.
KingRuns = tuple[tuple[int, int], tuple[int, int]]

#: The king runs of a position without a history: no king has moved.
NO_RUNS: KingRuns = ((0, 0), (0, 0))

#: The game counters (kernels.G_* layout) of every position without king runs; the kernels
#: only read them.
_NO_RUN_COUNTERS = np.zeros(K.G_LEN, dtype=np.int64)


class Position:
    """A position as a value: ruleset, pieces on the squares, the colour to move, and the
    king runs of the game that led to it.

    The king runs are the history one rule needs: under a king move limit
    (``Ruleset.king_move_limit``, Frisian art. 10) a king may not make more non-capturing
    moves in a row while its side has men. Each colour's run is (the square of the king
    that made its last non-capturing moves, how many in a row); (0, 0) is none. They are
    kept only where the rules have the limit (elsewhere they are always NO_RUNS), and
    :meth:`legal_moves` applies them: a position taken from a game
    (:attr:`damas_env.game.Game.position`, the env's ``position``) allows exactly the
    game's moves.

    Positions are immutable: :meth:`play` returns a new one (its king runs carried on). For
    long sequences with undo and draw rules use :class:`damas_env.game.Game`.

    Raises:
        TypeError, ValueError: a bad board (a man on its crowning row), colour or king runs
            (a square off the board, a negative count).
    """

    __slots__ = ("rules", "_board", "turn", "king_runs", "_counters")

    def __init__(
        self,
        rules: Ruleset | str,
        board: Iterable[int],
        turn: Colour | int,
        king_runs: KingRuns = NO_RUNS,
    ) -> None:
        self.rules = get_ruleset(rules)
        self._set(board_codes(board, self.rules.squares), turn, king_runs)

    def _set(self, board: np.ndarray, turn: Colour | int, king_runs: KingRuns) -> None:
        """Takes a new int8 board of valid codes (made read-only), the colour and king runs,
        checking the men's rows, the colour and the runs."""
        half = self.rules.squares_per_row
        for colour, row, code in (("white", board[:half], 1), ("black", board[-half:], -1)):
            if (row == code).any():
                first = int(np.flatnonzero(row == code)[0])
                first += 0 if code == 1 else board.size - half
                raise ValueError(
                    f"a {colour} man on square {first + 1} stands on its crowning row "
                    "(it would be a king)"
                )
        board.setflags(write=False)
        self._board = board
        self.turn = checked_colour("turn", turn)
        self.king_runs = checked_king_runs(king_runs, self.rules)
        self._counters = (
            _NO_RUN_COUNTERS if self.king_runs == NO_RUNS else king_run_counters(self.king_runs)
        )

    @classmethod
    def of_game(
        cls, rules: Ruleset, board: np.ndarray, turn: Colour | int, counters: np.ndarray
    ) -> Position:
        """Returns the position of a game in progress: a game's int8 board (as
        :class:`~damas_env.game.Game` and the envs hold it), the colour to move, and the king
        runs read from the game's counters (kernels.G_* layout: ``Game.counters``).

        Quicker than the constructor, for a position per ply: the board's codes are checked
        by range only.

        Raises:
            TypeError: board is not an int8 array.
            ValueError: board has the wrong length or a code outside -2..2, or as the
                constructor.
        """
        if not isinstance(board, np.ndarray) or board.dtype != np.int8:
            raise TypeError(f"board must be an int8 array, not {shown(board)}")
        if board.shape != (rules.squares,) or board.min() < -2 or board.max() > 2:
            raise ValueError(f"board must hold {rules.squares} codes in -2..2: {shown(board)}")
        position = cls.__new__(cls)
        position.rules = rules
        runs = _runs_of(counters) if rules.king_move_limit else NO_RUNS
        position._set(board.copy(), turn, runs)
        return position

    @classmethod
    def start(cls, rules: Ruleset | str = "international") -> Position:
        """Returns the start position of a ruleset (or ruleset name)."""
        rules = get_ruleset(rules)
        first = Colour.WHITE if rules.first_player == "white" else Colour.BLACK
        return cls(rules, Engine.for_rules(rules).start_board(), first)

    @classmethod
    def from_fen(cls, fen: str, rules: Ruleset | str) -> Position:
        """Returns the position a PDN FEN string describes (see damas_env.notation).

        The ruleset has no default: a FEN names squares, not the board or the rules, so it
        cannot be inferred (an English FEN, squares 1-32, is also a legal International or
        Brazilian one). Pass it: ``Position.from_fen("W:W21:B5", "english")``.

        Raises:
            TypeError: fen is not a str.
            NotationError: the FEN is malformed (an empty string included), or describes
                an impossible position (a man on its crowning row).
        """
        rules = get_ruleset(rules)
        board, turn = parse_fen(fen, Engine.for_rules(rules).geometry)
        try:
            return cls(rules, board, turn)
        except ValueError as e:
            raise NotationError(f"bad FEN {shown(fen)}: {e}") from None

    @property
    def board(self) -> np.ndarray:
        """Returns the read-only int8 board (0 empty, +-1 men, +-2 kings; + is White)."""
        return self._board

    @property
    def engine(self) -> Engine:
        """Returns the compiled engine of this position's ruleset."""
        return Engine.for_rules(self.rules)

    def legal_moves(self) -> list[Move]:
        """Returns every legal move (the king move limit applied), duplicate capture routes
        merged."""
        return self.engine.legal_moves(self)

    def capture_routes(self) -> list[Move]:
        """Returns every legal move with each capture route listed separately."""
        return self.engine.legal_moves(self, merge=False)

    def play(self, move: Move | str) -> Position:
        """Returns the position after a legal move (a Move or a PDN move string).

        Raises:
            TypeError: move is neither a Move nor a str, or a Move field has the wrong type.
            ValueError: a Move is malformed (an empty path, a negative square).
            NotationError: the string is not a move.
            IllegalMoveError: the move is not legal here; the message lists the legal moves.
        """
        legal = self.find_move(move)
        board = self._board.copy()
        row = np.zeros((1, K.MOVE_WIDTH), dtype=np.int16)
        move_to_row(legal, board, row[0])
        runs = self.king_runs
        if self.rules.king_move_limit:
            counters = self._counters.copy()
            K.after_move(counters, board, row, 0)
            runs = _runs_of(counters)
        K.apply_move(board, row, 0)
        return Position(self.rules, board, self.turn.opponent, runs)

    def find_move(self, move: Move | str) -> Move:
        """Returns the legal move matching a Move (any route) or a PDN move string.

        Raises:
            TypeError: move is neither a Move nor a str, or a Move field has the wrong type.
            ValueError: a Move is malformed (an empty path, a negative square).
            NotationError: the string is not a move.
            IllegalMoveError: no legal move matches.
        """
        if not isinstance(move, (Move, str)):
            raise TypeError(
                "move must be a Move or a PDN move string (squares joined by '-' or 'x', such "
                f"as '11-15' or '11x18'), not {type(move).__name__} {shown(move)}"
            )
        try:
            return self._find(move)
        except IllegalMoveError as e:
            refused = e
        tired = self._tired_king()
        if tired < 0:
            raise refused
        try:  # a step the pieces alone allow, refused by the king move limit: say so
            step = Position(self.rules, self._board, self.turn)._find(move)
        except IllegalMoveError:
            raise refused from None
        raise IllegalMoveError(
            f"{format_move(step, [step])} is not legal in this game: the king on {tired + 1} "
            f"has made {self.rules.king_move_limit} non-capturing moves in a row while its "
            "side has men (king_move_limit); move another piece"
        )

    def _find(self, move: Move | str) -> Move:
        """Returns the legal move matching a Move or a PDN move string (see find_move)."""
        legal = self.legal_moves()
        if isinstance(move, str):  # any capture route names its (merged) move
            key = parse_move(move, self.capture_routes(), self.engine.geometry).key
            return next(m for m in legal if m.key == key)
        checked_move(move)  # at the API boundary: generated moves are never checked
        for m in legal:
            if m == move:
                return m
        names = ", ".join(format_move(m, legal) for m in legal) or "none"
        raise IllegalMoveError(
            f"illegal move {format_move(move, [move])} for {self.turn.name.lower()}; "
            f"legal moves: {names}"
        )

    def _tired_king(self) -> int:
        """Returns the square of the king the king move limit stops now, or -1."""
        if not self.rules.king_move_limit:
            return -1
        engine = self.engine
        board = _kernel_board(self._board)
        return int(K.tired_king(board, int(self.turn), self._counters, engine.rule_array))

    def perft(self, depth: int) -> int:
        """Returns the number of leaves of the legal move tree depth plies deep.

        The tree is the pieces' moves: the king move limit, which needs a game's history, is
        not applied (nor are the draw rules).

        Ctrl-C stops a long count (KeyboardInterrupt); the position is unchanged.

        Raises:
            TypeError: depth is not an int.
            ValueError: depth is negative or above MAX_PERFT_DEPTH (30).
        """
        return self.engine.perft(self._board, int(self.turn), depth)

    def fen(self) -> str:
        """Returns the PDN FEN string of the position (pieces and colour; no king runs)."""
        return format_fen(self._board, self.turn)

    def hash(self) -> int:
        """Returns the Zobrist hash of the position (pieces and colour to move)."""
        return self.engine.hash(self._board, int(self.turn))

    def pieces(self, colour: Colour) -> Iterator[tuple[int, bool]]:
        """Yields (square, is_king) for each piece of a colour."""
        sign = 1 if colour == Colour.WHITE else -1
        for sq, code in enumerate(self._board):
            if code * sign > 0:
                yield sq, abs(int(code)) == 2

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.rules == other.rules
            and self.turn == other.turn
            and self.king_runs == other.king_runs
            and bool(np.array_equal(self._board, other._board))
        )

    def __hash__(self) -> int:
        return hash((self.rules, self.turn, self.king_runs, self._board.tobytes()))

    def __repr__(self) -> str:
        runs = "" if self.king_runs == NO_RUNS else f", king_runs={self.king_runs}"
        return f"Position({self.rules.name!r}, {self.fen()!r}{runs})"

    def __str__(self) -> str:
        return board_text(self._board, self.engine.geometry)

    def _repr_svg_(self) -> str:
        """Returns the board as SVG, so a notebook draws the position by itself."""
        return position_svg(self)

    def _repr_html_(self) -> str:
        """Returns the board as HTML (Jupyter shows it inline)."""
        return position_html(self)


def checked_king_runs(runs: object, rules: Ruleset) -> KingRuns:
    """Returns king runs checked, as kept: NO_RUNS where the rules have no king move limit,
    (0, 0) for a run of no moves.

    Raises:
        TypeError: runs is not two (square, count) pairs of ints.
        ValueError: a square is off the board or a count negative.
    """
    if runs is NO_RUNS:
        return NO_RUNS
    pairs = runs if isinstance(runs, (tuple, list)) else ()
    if len(pairs) != 2 or not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
        raise TypeError(f"king_runs must be two (square, count) pairs, not {shown(runs)}")
    kept = []
    for colour, (square, count) in zip(("white", "black"), pairs, strict=True):
        square = checked_int(f"{colour}'s king run square", square, 0, rules.squares - 1)
        count = checked_int(f"{colour}'s king run count", count, 0, 2**31 - 1)
        kept.append((square, count) if count else (0, 0))
    return (kept[0], kept[1]) if rules.king_move_limit else NO_RUNS


def _runs_of(counters: np.ndarray) -> KingRuns:
    """Returns the king runs a game's counters (kernels.G_* layout) hold."""
    white, black = (
        (int(counters[K.G_RUN_SQ + 2 * side]), int(counters[K.G_RUN + 2 * side]))
        for side in (K.WHITE, K.BLACK)
    )
    return (white, black)


def king_run_counters(runs: KingRuns) -> np.ndarray:
    """Returns game counters (kernels.G_* layout) holding king runs, and zeros elsewhere."""
    counters = np.zeros(K.G_LEN, dtype=np.int64)
    for side, (square, count) in zip((K.WHITE, K.BLACK), runs, strict=True):
        counters[K.G_RUN_SQ + 2 * side], counters[K.G_RUN + 2 * side] = square, count
    return counters
