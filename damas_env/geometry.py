"""Board geometry: square numbering, directions and the ray table the kernels walk.

Squares are the playable squares, indexed 0..S-1 in PDN order (PDN number = index + 1) from
White's side. :data:`LAYOUTS`: ``"dark"`` (FMJD art. 2.4, EDA), ``"mirrored"`` (the other
dark squares: Italian rules art. 2, Spanish, Portuguese) and ``"all"`` (Turkish)::

    8x8 "dark" (indices)      directions
    .  0 .  1 .  2 .  3       0 = up-left     1 = up-right      4 = up
    4 .  5 .  6 .  7 .               \\   /                     5 = left  6 = right
    .  8 .  9 . 10 . 11                 sq                     7 = down
   12 . 13 . 14 . 15 .               /   \\
    . 16 . 17 . 18 . 19       2 = down-left   3 = down-right
   20 . 21 . 22 . 23 .
    . 24 . 25 . 26 . 27       White men move up (0, 1, 4), Black men down (2, 3, 7);
   28 . 29 . 30 . 31 .        the opposite of direction d is 3 - d (diagonals), 11 - d
                              (orthogonals).

An orthogonal step goes to the next playable square of its line: two cells away on the dark
layouts (Frisian rules art. 7). ``ray[sq, d, k]`` is the square k+1 steps from ``sq`` in
direction ``d``, or -1 off the board.

Bit sets: ``bit[sq]`` places each square in a 64-bit word so that a step in one direction is
one shift, the same everywhere (``shift[d]``): rows in pairs of ``size + 1`` bits on the dark
layouts, one a ghost square that no piece stands on (Scan's 10x10 layout), ``size`` bits
a row on "all". A 12x12 dark board needs 77 bits: ``word`` is False there, ``two_words`` True.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["Geometry", "geometry", "DIRECTIONS", "LAYOUTS", "NUM_DIRECTIONS"]

#: (row step, column step) of each direction index on the dark-square layouts: four
#: diagonals, then up, left, right and down to the next dark square of the same line.
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1), (-2, 0), (0, -2), (0, 2), (2, 0))
#: The same on the all-squares layout: orthogonal steps of one cell.
ALL_SQUARES_DIRECTIONS = DIRECTIONS[:4] + ((-1, 0), (0, -1), (0, 1), (1, 0))

#: The board layouts: which squares are played on (see the module docstring).
LAYOUTS = ("dark", "mirrored", "all")

#: Number of directions: 4 diagonals and 4 orthogonals.
NUM_DIRECTIONS = 8


class Geometry:
    """Square coordinates and rays of one board: its size and layout."""

    def __init__(self, size: int, layout: str = "dark") -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {list(LAYOUTS)}, not {layout!r}")
        self.size = size
        self.layout = layout
        #: playable squares per row (the kernels' "half" on the dark-square layouts)
        self.per_row = size if layout == "all" else size // 2
        self.squares = size * self.per_row
        self.row = np.array([s // self.per_row for s in range(self.squares)], dtype=np.int16)
        self.col = np.array([self._col(s) for s in range(self.squares)], dtype=np.int16)
        self.index = -np.ones((size, size), dtype=np.int16)
        self.index[self.row, self.col] = np.arange(self.squares, dtype=np.int16)
        self.ray = self._rays()
        self.bit = self._bits()
        self.shift = self._shifts()
        #: the squares fit one 64-bit word with a constant shift for each direction
        self.word = int(self.bit.max()) < 64 and all(k is not None for k in self.shift)
        #: not one word, but two (damas_env.wide), with a constant shift for each direction
        self.two_words = (
            not self.word and int(self.bit.max()) < 128 and all(k is not None for k in self.shift)
        )

    def _col(self, s: int) -> int:
        """Returns the column of square s (0 = left)."""
        row, i = divmod(s, self.per_row)
        if self.layout == "all":
            return i
        light_first = (row % 2 == 0) == (self.layout == "dark")
        return 2 * i + 1 if light_first else 2 * i

    def _rays(self) -> np.ndarray:
        """Returns the int16 table ray[sq, direction, step] (-1 past the edge)."""
        steps = ALL_SQUARES_DIRECTIONS if self.layout == "all" else DIRECTIONS
        ray = -np.ones((self.squares, NUM_DIRECTIONS, self.size), dtype=np.int16)
        for s in range(self.squares):
            for d, (dr, dc) in enumerate(steps):
                r, c, k = int(self.row[s]) + dr, int(self.col[s]) + dc, 0
                while 0 <= r < self.size and 0 <= c < self.size:
                    ray[s, d, k] = self.index[r, c]
                    r, c, k = r + dr, c + dc, k + 1
        return ray

    def _bits(self) -> np.ndarray:
        """Returns the int16 bit of each square (see the module docstring)."""
        row, i = self.row.astype(np.int64), np.arange(self.squares) % self.per_row
        if self.layout == "all":
            return (row * self.size + i).astype(np.int16)
        # The ghost ends a row pair where its first row starts on a light cell ("dark"), and
        # sits between its rows where that row starts on a dark cell ("mirrored").
        second = self.per_row if self.layout == "dark" else self.per_row + 1
        return ((row // 2) * (self.size + 1) + (row % 2) * second + i).astype(np.int16)

    def _shifts(self) -> tuple[int | None, ...]:
        """Returns the bit offset of one step in each direction (None: it varies)."""
        shifts: list[int | None] = []
        for d in range(NUM_DIRECTIONS):
            offsets = {
                int(self.bit[self.ray[s, d, 0]]) - int(self.bit[s])
                for s in range(self.squares)
                if self.ray[s, d, 0] >= 0
            }
            shifts.append(offsets.pop() if len(offsets) == 1 else None)
        return tuple(shifts)

    def square_at(self, row: int, col: int) -> int:
        """Returns the square index at (row, col), or -1 for a square not played on."""
        return int(self.index[row, col])


@cache
def geometry(size: int, layout: str = "dark") -> Geometry:
    """Returns the (cached) geometry of a size x size board in a layout (:data:`LAYOUTS`)."""
    return Geometry(size, layout)
