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
from .render import position_svg
from .rules import Ruleset, get_ruleset

__all__ = [
    "BOARD_SIZES",
    "Colour",
    "Move",
    "Position",
    "Engine",
    "IllegalMoveError",
    "rules_array",
    "MAX_PERFT_DEPTH",
    "check_perft_depth",
    "checked_board_size",
    "checked_colour",
    "checked_move",
    "board_codes",
]


def rules_array(rules: Ruleset) -> np.ndarray:
    """Returns the int64 array of switches the kernels read (layout in kernels.R_*)."""
    r = np.zeros(K.R_LEN, dtype=np.int64)
    r[K.R_SIZE] = rules.board_size
    r[K.R_SQUARES] = rules.squares
    r[K.R_MEN_BACK] = rules.men_capture_backward
    r[K.R_FLYING] = rules.flying_kings
    r[K.R_MAJORITY] = rules.capture_precedence == "most_pieces"
    promo = ("ends_move", "pass_through", "crown_and_continue")
    r[K.R_PROMO] = promo.index(rules.promotion_in_capture)
    r[K.R_TURKISH] = rules.turkish_strike
    r[K.R_GIVEAWAY] = rules.giveaway
    r[K.R_REPETITION] = rules.repetition_count
    r[K.R_NO_PROGRESS] = rules.no_progress_plies
    r[K.R_PROGRESS] = rules.progress == "capture_or_promotion"
    r[K.R_PLY_LIMIT] = rules.ply_limit
    r[K.R_LIMIT_MATERIAL] = rules.ply_limit_result == "material"
    r[K.R_LANDING] = ("any", "immediate", "right_behind").index(rules.king_landing)
    r[K.R_ENDGAME] = K.ENDGAME_FMJD if rules.fmjd_endgame else 0
    if rules.frisian_endgame:
        r[K.R_ENDGAME] = K.ENDGAME_FRISIAN
    r[K.R_ROW] = rules.squares_per_row
    slots = ray_slots(rules)
    moves, captures = _LINES[rules.move_directions], _LINES[rules.capture_directions]
    r[K.R_MOVE_LO], r[K.R_MOVE_HI] = _slot_range(slots, moves)
    r[K.R_CAP_LO], r[K.R_CAP_HI] = _slot_range(slots, captures)
    r[K.R_MAN_DIRS] = sum(
        1 << (8 * side + slot)
        for side, allowed in enumerate(_MAN_LINES)
        for slot, d in enumerate(slots)
        if d in allowed
    )
    r[K.R_RANKED] = rules.capture_precedence == "most_pieces" or bool(rules.capture_tiebreaks)
    weights = {"man": 100, "man_and_a_half": 150, "almost_two_men": 199}  # hundredths
    r[K.R_KING_WEIGHT] = weights[rules.king_capture_weight]
    codes = {"with_king": K.TB_WITH_KING, "most_kings": K.TB_MOST_KINGS}
    codes["earliest_king"] = K.TB_EARLIEST_KING
    for i, tiebreak in enumerate(rules.capture_tiebreaks):
        r[K.R_TIEBREAK + i] = codes[tiebreak]
    r[K.R_MEN_TAKE_KINGS] = rules.men_capture_kings
    r[K.R_REVERSE] = rules.capture_may_reverse
    r[K.R_FIRST_KING] = rules.first_king_wins
    r[K.R_KING_LIMIT] = rules.king_move_limit
    r[K.R_DIRS] = rules.directions
    return r


#: The absolute directions (damas_env.geometry) of each kind of line.
_LINES = {
    "diagonal": (0, 1, 2, 3),
    "orthogonal": (4, 5, 6, 7),
    "diagonal_and_orthogonal": (0, 1, 2, 3, 4, 5, 6, 7),
}
#: The directions a man of White, of Black may go where it may not go back: forward, or
#: sideways along its row.
_MAN_LINES = ((0, 1, 4, 5, 6), (2, 3, 5, 6, 7))


def ray_slots(rules: Ruleset) -> tuple[int, ...]:
    """Returns the absolute directions of the kernels' ray table, slot by slot.

    The kernels walk only the lines a ruleset uses, so that their loops have a constant
    length of four wherever four directions suffice: the diagonals (most variants), the
    orthogonals (Turkish, in the order up, left, right, down: the opposite of slot d is
    3 - d in both), or all eight where moves and captures use different lines (Frisian).
    """
    used = set(_LINES[rules.move_directions]) | set(_LINES[rules.capture_directions])
    if used == set(_LINES["diagonal"]):
        return _LINES["diagonal"]
    if used == set(_LINES["orthogonal"]):
        return _LINES["orthogonal"]
    return _LINES["diagonal_and_orthogonal"]


def _slot_range(slots: tuple[int, ...], lines: tuple[int, ...]) -> tuple[int, int]:
    """Returns the slots [lo, hi) of `lines` in a ray table of `slots` (a block of four)."""
    first = slots.index(lines[0])
    return first, first + len(lines)


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

#: The counters of a position without a history: no king has moved (no king move limit).
_NO_COUNTERS = np.zeros(K.G_LEN, dtype=np.int64)


class Engine:
    """The compiled kernels bound to one ruleset: tables, rule array and scratch buffers.

    One Engine per ruleset is shared (see :meth:`for_rules`); it is not thread-safe.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.geometry: Geometry = geometry(rules.board_size, rules.board_layout)
        self.ray = np.ascontiguousarray(self.geometry.ray[:, list(ray_slots(rules)), :])
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

    def generate(
        self, board: np.ndarray, side: int, merge: bool = True, counters: np.ndarray | None = None
    ) -> int:
        """Fills self.moves with the legal moves; returns how many. The board is not touched.

        With a game's `counters` (kernels.G_* layout) the king move limit applies too
        (:func:`damas_env.kernels.game_moves`). The move list grows (up to MAX_LIST_ROWS)
        when a position has more moves or capture routes than it holds; past that an
        OverflowError says so.
        """
        if counters is None:
            counters = _NO_COUNTERS
        while True:
            n = int(
                K.game_moves(
                    _kernel_board(board),
                    int(side),
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

    def legal_moves(
        self, board: np.ndarray, side: int, merge: bool = True, counters: np.ndarray | None = None
    ) -> list[Move]:
        """Returns the legal moves as Move values (every route if not merge); a game's
        `counters` add the king move limit."""
        n = self.generate(board, side, merge, counters)
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
                K.perft(board, side, depth, self.ray, self.rule_array, buffers, self.workspace)
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
    them with (the king move limit's ``tired_king`` is :class:`~damas_env.game.Game`'s)."""
    e, board, side, ws = engine, engine.start_board(), 0, engine.workspace
    buffers = np.zeros((1, 1, K.MOVE_WIDTH), dtype=np.int16)
    return [
        (K.game_moves, (board, side, _NO_COUNTERS, e.ray, e.rule_array, e.moves, True, ws)),
        (K.generate_moves, (board, side, e.ray, e.rule_array, e.moves, True, ws)),
        (K.apply_move, (board, e.moves, 0)),
        (K.perft, (board, side, 0, e.ray, e.rule_array, buffers, ws)),
        (K.hash_position, (board, side, e.zobrist, e.side_key)),
        (K.tired_king, (board, side, _NO_COUNTERS, e.rule_array)),
    ]


#: The rules kernels, loaded (or compiled, on a first run) with the first engine of a process.
RULES_KERNELS = K.EntryPoints(_rules_calls)


class Position:
    """A position as a value: ruleset, pieces on the squares and the colour to move.

    Positions are immutable: :meth:`play` returns a new one. For long sequences with undo
    and draw rules use :class:`damas_env.game.Game`.
    """

    __slots__ = ("rules", "_board", "turn")

    def __init__(self, rules: Ruleset | str, board: Iterable[int], turn: Colour | int) -> None:
        self.rules = get_ruleset(rules)
        arr = board_codes(board, self.rules.squares)
        half = self.rules.squares_per_row
        for colour, row, code in (("white", arr[:half], 1), ("black", arr[-half:], -1)):
            if (row == code).any():
                first = int(np.flatnonzero(row == code)[0]) + (0 if code == 1 else arr.size - half)
                raise ValueError(
                    f"a {colour} man on square {first + 1} stands on its crowning row "
                    "(it would be a king)"
                )
        arr.setflags(write=False)
        self._board = arr
        self.turn = checked_colour("turn", turn)

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
        """Returns every legal move, duplicate capture routes merged."""
        return self.engine.legal_moves(self._board.copy(), int(self.turn))

    def capture_routes(self) -> list[Move]:
        """Returns every legal move with each capture route listed separately."""
        return self.engine.legal_moves(self._board.copy(), int(self.turn), merge=False)

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
        K.apply_move(board, row, 0)
        return Position(self.rules, board, self.turn.opponent)

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

    def perft(self, depth: int) -> int:
        """Returns the number of leaves of the legal move tree depth plies deep.

        Ctrl-C stops a long count (KeyboardInterrupt); the position is unchanged.

        Raises:
            TypeError: depth is not an int.
            ValueError: depth is negative or above MAX_PERFT_DEPTH (30).
        """
        return self.engine.perft(self._board, int(self.turn), depth)

    def fen(self) -> str:
        """Returns the PDN FEN string of the position."""
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
            and bool(np.array_equal(self._board, other._board))
        )

    def __hash__(self) -> int:
        return hash((self.rules, self.turn, self._board.tobytes()))

    def __repr__(self) -> str:
        return f"Position({self.rules.name!r}, {self.fen()!r})"

    def __str__(self) -> str:
        return board_text(self._board, self.engine.geometry)

    def _repr_svg_(self) -> str:
        """Returns the board as SVG, so a notebook draws the position by itself."""
        return position_svg(self)
