"""Board geometry: square numbering, directions and the ray table the kernels walk.

Squares are the dark squares, indexed 0..S-1 in PDN order (PDN number = index + 1),
seen from White's side: left to right, top to bottom. The top-left corner is light,
so each player has a dark square in the bottom-left corner (FMJD art. 2.4; seed 000)::

    8x8 (indices)             directions
    .  0 .  1 .  2 .  3       0 = up-left     1 = up-right
    4 .  5 .  6 .  7 .               \\   /
    .  8 .  9 . 10 . 11                 sq
   12 . 13 . 14 . 15 .               /   \\
    . 16 . 17 . 18 . 19       2 = down-left   3 = down-right
   20 . 21 . 22 . 23 .
    . 24 . 25 . 26 . 27       White men move up (0, 1), Black men down (2, 3);
   28 . 29 . 30 . 31 .        the opposite of direction d is 3 - d.

``ray[sq, d, k]`` is the square k+1 steps from ``sq`` in direction ``d``, or -1 off the
board; the last column is always -1, a sentinel that ends every walk. Tables are built
once per board size and cached.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["Geometry", "geometry", "DIRECTIONS"]

#: (row step, column step) of each direction index.
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


class Geometry:
    """Square coordinates and rays of one board size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.half = size // 2
        self.squares = size * size // 2
        self.row = np.array([s // self.half for s in range(self.squares)], dtype=np.int16)
        self.col = np.array([self._col(s) for s in range(self.squares)], dtype=np.int16)
        self.index = -np.ones((size, size), dtype=np.int16)
        self.index[self.row, self.col] = np.arange(self.squares, dtype=np.int16)
        self.ray = self._rays()

    def _col(self, s: int) -> int:
        """Returns the column of square s (0 = left), dark squares only."""
        row, i = divmod(s, self.half)
        return 2 * i + 1 if row % 2 == 0 else 2 * i

    def _rays(self) -> np.ndarray:
        """Returns the int16 table ray[sq, direction, step] (-1 past the edge)."""
        ray = -np.ones((self.squares, 4, self.size), dtype=np.int16)  # last step: always -1
        for s in range(self.squares):
            for d, (dr, dc) in enumerate(DIRECTIONS):
                r, c, k = int(self.row[s]) + dr, int(self.col[s]) + dc, 0
                while 0 <= r < self.size and 0 <= c < self.size:
                    ray[s, d, k] = self.index[r, c]
                    r, c, k = r + dr, c + dc, k + 1
        return ray

    def square_at(self, row: int, col: int) -> int:
        """Returns the square index at (row, col), or -1 for a light square."""
        return int(self.index[row, col])


@cache
def geometry(size: int) -> Geometry:
    """Returns the (cached) geometry of a size x size board."""
    return Geometry(size)
