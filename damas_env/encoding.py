"""Encoding: the hop action layout and the observation planes shared by every environment.

An action is one *hop* (a step, or the taking of one piece), in the agent's view::

    action = (origin * D + direction) * (N - 1) + (distance - 1)

    origin     0..S-1  the square the piece leaves
    direction  0..D-1  0 up-left, 1 up-right, 2 down-left, 3 down-right; with orthogonal
                       lines (D = 8: Frisian, Frysk!, Turkish) also 4 up, 5 left, 6 right, 7 down
    distance   1..N-1  playable squares travelled along the line (a man's capture hop is 2)

A is 896 on 8x8 (English, Russian, Italian...), 1,800 on 10x10 (International), 3,600 for
Frisian and Frysk!, 3,168 on 12x12 (Canadian) and 3,584 for Turkish (all 64 squares). Every
agent sees its own men moving up: Black's view turns the board 180 degrees (square s is
``S - 1 - s``, direction d is ``3 - d``, or ``11 - d`` for the orthogonals).

Observations are channels-first planes over the N x N board, in the agent's view::

    0-3   own men, own kings, opponent men, opponent kings
    4     the piece in the middle of a capture, on its current square
    5     pieces already taken in the capture in progress (still on the board)
    6     no-progress count / the ruleset's limit (constant; 0 if no limit)
    7     repetitions of the position: (count - 1) / (limit - 1) (constant; 0 if off)
    8, 9  with a king move limit only (Frisian, :func:`planes_for`): the own, then the
          opponent's king that made the last non-capturing moves, moves in a row / limit
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from functools import cache

import numpy as np

from .checks import checked_int, shown
from .engine import Colour, Move, Position, checked_board_size, checked_colour, checked_move
from .geometry import geometry
from .rules import Ruleset

__all__ = [
    "Plane",
    "PLANES",
    "PLANE_NAMES",
    "KING_RUN_PLANE_NAMES",
    "planes_for",
    "plane_names",
    "ActionLayout",
    "action_layout",
    "move_to_actions",
    "actions_to_move",
    "other_view",
]


class Plane(IntEnum):
    """The observation planes' indices (the table above); PLANE_NAMES are their names."""

    OWN_MEN = 0
    OWN_KINGS = 1
    OPPONENT_MEN = 2
    OPPONENT_KINGS = 3
    MOVING_PIECE = 4
    TAKEN_THIS_MOVE = 5
    NO_PROGRESS = 6
    REPETITION = 7
    OWN_KING_RUN = 8  # with a king move limit only
    OPPONENT_KING_RUN = 9


PLANES = int(Plane.OWN_KING_RUN)  # every ruleset's planes: those before the king-run planes
PLANE_NAMES = tuple(p.name.lower() for p in Plane)[:PLANES]
#: The planes of rulesets with a king move limit (planes 8 and 9, after PLANE_NAMES).
KING_RUN_PLANE_NAMES = tuple(p.name.lower() for p in Plane)[PLANES:]


def planes_for(rules: Ruleset) -> int:
    """Returns the number of observation planes of a ruleset: PLANES, plus the two king-run
    planes where a king move limit applies."""
    return PLANES + (len(KING_RUN_PLANE_NAMES) if rules.king_move_limit else 0)


def plane_names(rules: Ruleset) -> tuple[str, ...]:
    """Returns the names of a ruleset's observation planes, in order."""
    return PLANE_NAMES + (KING_RUN_PLANE_NAMES if rules.king_move_limit else ())


class ActionLayout:
    """The hop action tables of one board (absolute frame = White's view)."""

    def __init__(self, size: int, layout: str = "dark", directions: int = 4) -> None:
        """Builds the tables of a size x size board in a layout, with 4 or 8 directions.

        Raises:
            TypeError: size is not an int.
            ValueError: size is not 8, 10 or 12, the layout unknown, or directions not 4 or 8.
        """
        size = checked_board_size(size)
        if directions not in (4, 8):
            raise ValueError(f"directions must be 4 or 8, not {shown(directions)}")
        geo = geometry(size, layout)
        self.size = size
        self.layout = layout
        self.directions = directions
        self.squares = geo.squares
        self.distances = size - 1
        self.num_actions = geo.squares * directions * self.distances
        self.action_of = -np.ones((geo.squares, geo.squares), dtype=np.int32)
        self.target_of = -np.ones(self.num_actions, dtype=np.int16)
        for sq in range(geo.squares):
            for d in range(directions):
                for k in range(self.distances):
                    to = int(geo.ray[sq, d, k])
                    if to >= 0:
                        a = self.encode(sq, d, k + 1)
                        self.action_of[sq, to] = a
                        self.target_of[a] = to
        # Flat cell index (row * N + col) of each square, for writing planes.
        self.row = geo.row.astype(np.int32)
        self.col = geo.col.astype(np.int32)

    def encode(self, origin: int, direction: int, distance: int) -> int:
        """Returns the action of a hop given in the agent's view."""
        return (origin * self.directions + direction) * self.distances + distance - 1

    def decode(self, action: int) -> tuple[int, int, int]:
        """Returns (origin, direction, distance) of an action, in the agent's view."""
        rest, k = divmod(int(action), self.distances)
        origin, direction = divmod(rest, self.directions)
        return origin, direction, k + 1

    def hop_action(self, origin: int, target: int, colour: Colour) -> int:
        """Returns the action of a hop between two absolute squares for an agent's colour."""
        if colour == Colour.BLACK:
            origin, target = self.squares - 1 - origin, self.squares - 1 - target
        return int(self.action_of[origin, target])

    def hop_squares(self, action: int, colour: Colour) -> tuple[int, int]:
        """Returns the absolute (origin, target) squares of an action; target -1 if off-board."""
        origin = int(action) // (self.directions * self.distances)
        target = int(self.target_of[int(action)])
        if colour == Colour.BLACK:
            origin = self.squares - 1 - origin
            target = -1 if target < 0 else self.squares - 1 - target
        return origin, target


def action_layout(size: int | Ruleset) -> ActionLayout:
    """Returns the (cached) action layout of a ruleset's board, or of a size x size board of
    dark squares with the four diagonal directions.

    Raises:
        TypeError: size is neither an int nor a Ruleset.
        ValueError: size is not 8, 10 or 12 (checked before anything is cached or built).
    """
    if isinstance(size, Ruleset):
        return _cached_layout(size.board_size, size.board_layout, size.directions)
    return _cached_layout(checked_board_size(size), "dark", 4)


@cache
def _cached_layout(size: int, layout: str, directions: int) -> ActionLayout:
    return ActionLayout(size, layout, directions)


def _other_side(plane: Plane) -> Plane:
    """Returns the plane that shows the same pieces from the other player's side."""
    for mine, theirs in (("OWN_", "OPPONENT_"), ("OPPONENT_", "OWN_")):
        if plane.name.startswith(mine):
            return Plane[theirs + plane.name.removeprefix(mine)]
    return plane


#: Plane order of the other player's view: own and opponent planes trade places.
_OTHER_SIDE_PLANES = [int(_other_side(p)) for p in Plane]


def other_view(planes: np.ndarray) -> np.ndarray:
    """Returns observation planes (..., C, N, N) as the other player sees the same position.

    Own and opponent planes trade places (the king-run planes too, where a ruleset has them)
    and the board turns 180 degrees (square s is S - 1 - s: cell (r, c) is
    (N - 1 - r, N - 1 - c)). Exact when no capture is in progress (planes 4-5 empty), as at
    the end of a game; the counter planes are the same for both.
    """
    order = _OTHER_SIDE_PLANES[: planes.shape[-3]]
    return np.ascontiguousarray(planes[..., order, ::-1, ::-1])


def move_to_actions(move: Move, colour: Colour | int, board_size: int | Ruleset) -> list[int]:
    """Returns the hop actions that play a complete move, for the agent of `colour`.

    `board_size` is a Ruleset (its board and directions) or a size (dark squares, diagonals).

    Raises:
        TypeError: move is not a Move (or a field has the wrong type), colour is not a Colour
            or 0/1, or board_size is not an int or Ruleset.
        ValueError: board_size is not 8, 10 or 12, or the move's squares are not hops
            along the lines of that board.
    """
    layout = action_layout(board_size)
    squares = checked_move(move).squares
    side = checked_colour("colour", colour)
    if max(squares) >= layout.squares:
        raise ValueError(f"move {shown(move)} leaves the {layout.size}x{layout.size} board")
    actions = [layout.hop_action(a, b, side) for a, b in zip(squares, squares[1:], strict=False)]
    if min(actions) < 0:
        raise ValueError(f"move {shown(move)} is not a path of hops along the board's lines")
    return actions


def actions_to_move(actions: Sequence[int], position: Position) -> Move:
    """Returns the legal move of `position` that a complete list of hop actions plays.

    Raises:
        TypeError: position is not a Position, actions is not a list or tuple, or an
            action is not an int.
        ValueError: an action is outside the layout, or the actions are not one legal
            move's hops (any capture route counts).
    """
    if not isinstance(position, Position):
        raise TypeError(f"position must be a Position, not {type(position).__name__}")
    if not isinstance(actions, (list, tuple)):
        raise TypeError(f"actions must be a list of ints, not {type(actions).__name__}")
    layout = action_layout(position.rules)
    path: list[int] = []
    for i, action in enumerate(actions):
        action = checked_int(f"actions[{i}]", action, 0, layout.num_actions - 1)
        origin, target = layout.hop_squares(action, position.turn)
        if not path:
            path.append(origin)
        if origin != path[-1] or target < 0:
            raise ValueError(f"actions {shown(actions)} do not form one connected path of hops")
        path.append(target)
    for route in position.capture_routes():
        if list(route.squares) == path:
            return next(m for m in position.legal_moves() if m.key == route.key)
    raise ValueError(
        f"actions {shown(actions)} (squares {shown([s + 1 for s in path])}) "
        "are not a legal move here"
    )
