"""The values the engine trades in: colours, moves, boards, and their argument checks.

It sits below everything that reads or shows a position, so imports run one way::

    kernels, rules, geometry, checks  ->  moves  ->  notation  ->  render  ->  engine

A move's own PDN string (``str(move)``) is written here; :mod:`damas_env.notation` does the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from . import kernels as K
from .checks import checked_bool, checked_int, shown
from .geometry import Geometry, geometry

__all__ = [
    "BOARD_SIZES",
    "Colour",
    "IllegalMoveError",
    "Move",
    "board_codes",
    "checked_board_size",
    "board_geometry",
    "checked_colour",
    "checked_move",
    "move_from_row",
    "move_text",
    "move_to_row",
]

#: The board sizes a ruleset may have (8x8, 10x10, 12x12).
BOARD_SIZES = (8, 10, 12)


def checked_board_size(board_size: object) -> int:
    """Returns a board size argument as an int, checked before any table is sized from it.

    Raises:
        TypeError: board_size is not an int.
        ValueError: board_size is not 8, 10 or 12.
    """
    size = checked_int("board_size", board_size, 0)
    if size not in BOARD_SIZES:
        raise ValueError(f"board_size must be 8, 10 or 12, not {size}")
    return size


def board_geometry(board: int | Geometry) -> Geometry:
    """Returns the geometry a board argument names: a Geometry as it is (any layout, see
    :mod:`damas_env.geometry`), or a board size for its dark squares.

    Raises:
        TypeError: board is neither a Geometry nor an int.
        ValueError: the size is not 8, 10 or 12.
    """
    if isinstance(board, Geometry):
        return board
    return geometry(checked_board_size(board))


class Colour(IntEnum):
    """A side: White starts on the bottom rows (high square numbers), Black on the top."""

    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Colour:
        """Returns the other colour."""
        return Colour(1 - self)


def checked_colour(name: str, value: object) -> Colour:
    """Returns a colour argument (a Colour, or the int 0 or 1) as a Colour.

    Raises:
        TypeError: value is not an int (a bool or a float is refused, not guessed).
        ValueError: value is not 0 or 1.
    """
    return Colour(checked_int(name, value, 0, 1))


class IllegalMoveError(ValueError):
    """Raised for a move that is not legal here; names it and lists the legal moves."""


@dataclass(frozen=True)
class Move:
    """A complete move: origin, landing squares in order, captured squares in capture order.

    Two capture routes with the same origin, destination and captured set are the same move:
    they compare equal and hash alike (``key``), whatever their path.
    """

    origin: int
    path: tuple[int, ...]
    captures: tuple[int, ...] = ()
    crowns: bool = False

    @property
    def destination(self) -> int:
        """Returns the square the moving piece ends on."""
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        """Returns True if the move takes pieces."""
        return bool(self.captures)

    @property
    def key(self) -> tuple[int, int, frozenset[int]]:
        """Returns (origin, destination, captured set): what identifies a move.

        A malformed Move (built by hand with an empty path, say) still has a key, so that it
        compares and hashes; the API refuses it with :func:`checked_move`.
        """
        try:
            return self.origin, self.path[-1], frozenset(self.captures)
        except (IndexError, TypeError):
            return self.origin, -1, frozenset()

    @property
    def squares(self) -> tuple[int, ...]:
        """Returns the origin followed by every landing square."""
        return (self.origin, *self.path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        """Returns the PDN string of the move (full path only for a round trip).

        Raises:
            TypeError: a field has the wrong type.
            ValueError: the move is malformed (an empty path, a negative square).
        """
        return move_text(checked_move(self))


def move_text(move: Move, full_path: bool = False) -> str:
    """Returns the PDN string of a well-formed move: ``32-28``, ``28x19`` or ``28x19x10``.

    A capture is written with every landing square if ``full_path``, and always for a king's
    capture that returns to its own square (``20x20`` would say nothing). PDN numbers are the
    0-based squares plus one (FMJD art. 2.6).
    """
    if not move.captures:
        return f"{move.origin + 1}-{move.destination + 1}"
    circular = move.origin == move.destination
    squares = move.squares if full_path or circular else (move.origin, move.destination)
    return "x".join(str(s + 1) for s in squares)


def checked_move(move: object) -> Move:
    """Returns a Move argument whose fields have the types a move has.

    Squares are not checked against a board here: a square off the board is simply not a
    legal move (IllegalMoveError where legality is asked).

    Raises:
        TypeError: move is not a Move, or a field has the wrong type (the message names it).
        ValueError: a square is negative, or the path is empty.
    """
    if not isinstance(move, Move):
        raise TypeError(f"move must be a Move, not {type(move).__name__} {shown(move)}")
    checked_int("move.origin", move.origin, 0)
    for name in ("path", "captures"):
        squares = getattr(move, name)
        if not isinstance(squares, tuple):
            raise TypeError(f"move.{name} must be a tuple of ints, not {shown(squares)}")
        for i, square in enumerate(squares):
            checked_int(f"move.{name}[{i}]", square, 0)
    if not move.path:
        raise ValueError("move.path must hold at least one landing square, not ()")
    checked_bool("move.crowns", move.crowns)
    return move


def board_codes(board: Iterable[int], squares: int) -> np.ndarray:
    """Returns a board's piece codes as a new int8 array, checked.

    Raises:
        TypeError: board is not a sequence of integers.
        ValueError: it has the wrong length or a code other than 0, +-1, +-2.
    """
    if isinstance(board, (str, bytes)):
        raise TypeError(f"board must be a sequence of ints, not {type(board).__name__}")
    try:
        values = np.array(board if isinstance(board, np.ndarray) else list(board))
    except TypeError:
        raise TypeError(f"board must be a sequence of ints, not {type(board).__name__}") from None
    if values.shape != (squares,):
        raise ValueError(f"board must have {squares} squares, not shape {values.shape}")
    if values.dtype.kind not in "iu":
        raise TypeError(f"board codes must be ints, not {values.dtype}")
    if not np.isin(values, (-2, -1, 0, 1, 2)).all():
        raise ValueError("board codes must be 0, +-1 (men) or +-2 (kings)")
    return values.astype(np.int8)


def move_from_row(row: np.ndarray) -> Move:
    """Returns the Move stored in one row of a kernel move list."""
    ncap = int(row[K.M_NCAP])
    npath = max(ncap, 1)
    return Move(
        origin=int(row[K.M_FROM]),
        path=tuple(int(s) for s in row[K.M_PATH : K.M_PATH + npath]),
        captures=tuple(int(s) for s in row[K.M_CAPS : K.M_CAPS + ncap]),
        crowns=bool(row[K.M_CROWN]),
    )


def move_to_row(move: Move, board: np.ndarray, row: np.ndarray) -> None:
    """Writes a Move into a kernel move-list row (piece codes read from board)."""
    row[:] = 0
    row[K.M_FROM] = move.origin
    row[K.M_TO] = move.destination
    row[K.M_NCAP] = len(move.captures)
    row[K.M_CROWN] = move.crowns
    row[K.M_PATH : K.M_PATH + len(move.path)] = move.path
    for k, sq in enumerate(move.captures):
        row[K.M_CAPS + k] = sq
        row[K.M_CODES + k] = board[sq]
