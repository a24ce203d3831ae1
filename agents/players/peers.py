"""Adapters to independent draughts engines: oracles for the differential tests and benchmarks,
and the OpenSpiel board behind the `openspiel-mcts` agent.

Two peers are provided:

* :class:`PydraughtsPeer` wraps `pydraughts <https://pypi.org/project/pydraughts/>`_ for
  International (10x10), English, Brazilian and Russian draughts, from any position.
* :class:`OpenSpielCheckersPeer` wraps OpenSpiel's ``checkers`` game (English checkers), from the
  initial position only.

Both speak the conventions of ``damas_env``:

* Squares are PDN square numbers (1-based). The board is seen with White at the bottom and the
  dark squares are numbered left to right, top to bottom; square 1 is on the top row, second
  column, so the bottom-left corner (46 on 10x10, 29 on 8x8) is dark. White starts on the high
  numbers, Black on the low numbers.
* A complete move is ``(origin, destination, frozenset(captured squares))``. Capture routes that
  share all three fields are merged into one move.
* Positions are PDN FEN strings such as ``W:W31-50:B1-20`` or ``B:W18,24,K27:B12,16``.

Neither engine is imported at module import time, so this module can be imported without them.
FEN strings are read and written by :mod:`damas_env.notation`, the one home for notation.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

import numpy as np

from damas_env.engine import Colour
from damas_env.notation import format_fen, parse_fen

PeerMove = tuple[int, int, frozenset[int]]
"""A complete move: origin square, destination square, and the set of captured squares."""

_PYDRAUGHTS_VARIANTS: dict[str, str] = {
    "international": "standard",
    "english": "english",
    "brazilian": "brazilian",
    "russian": "russian",
}
"""Maps our variant names to pydraughts' variant names."""

_BOARD_SIZE: dict[str, int] = {
    "international": 10,
    "english": 8,
    "brazilian": 8,
    "russian": 8,
}
"""Board size of each variant."""

_OS_SIZE = 8
"""OpenSpiel's checkers board size (rows and columns)."""

_OS_ROW_STEP = (-1, -1, 1, 1)
"""Row offset of OpenSpiel's four directions (up-left, up-right, down-right, down-left)."""

_OS_COL_STEP = (-1, 1, 1, -1)
"""Column offset of OpenSpiel's four directions (up-left, up-right, down-right, down-left)."""


def _key(move: PeerMove) -> PeerMove:
    """Returns a move with plain int squares (callers may pass numpy integers)."""
    origin, destination, captured = move
    return int(origin), int(destination), frozenset(int(sq) for sq in captured)


def _require(module: str, package: str, user: str) -> ModuleType:
    """Imports an optional engine, naming the pip package to install if it is missing.

    Raises:
        ImportError: the package is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"{user} needs the {package} package: pip install {package}") from exc


# ---------------------------------------------------------------------------------------------
# PDN FEN helpers
# ---------------------------------------------------------------------------------------------


_ALGEBRAIC = re.compile(r"([a-h])([1-8])(?!\d)")


def _algebraic_to_pdn(fen: str) -> str:
    """Rewrites the algebraic squares (``c3``) of an 8x8 FEN as PDN numbers.

    pydraughts writes Russian and Brazilian FENs with algebraic squares, a1 at White's
    bottom-left; PDN numbers run from the top-left: a1 is 29 and h8 is 4.
    """

    def number(m: re.Match[str]) -> str:
        column, row_from_top = ord(m[1]) - ord("a"), 8 - int(m[2])
        return str(row_from_top * 4 + column // 2 + 1)

    return _ALGEBRAIC.sub(number, fen)


def _pieces(fen: str, board_size: int) -> tuple[str, dict[int, bool], dict[int, bool]]:
    """Returns (side, white, black) of a PDN FEN: each colour maps PDN squares to is-king."""
    board, turn = parse_fen(fen, board_size)
    white = {sq + 1: code == 2 for sq, code in enumerate(board) if code > 0}
    black = {sq + 1: code == -2 for sq, code in enumerate(board) if code < 0}
    return ("W" if turn == Colour.WHITE else "B"), white, black


def _fen(side: str, white: dict[int, bool], black: dict[int, bool], board_size: int) -> str:
    """Returns the PDN FEN (damas_env.notation's form) of pieces given as PDN-square maps."""
    board = np.zeros(board_size * board_size // 2, dtype=np.int8)
    for pieces, sign in ((white, 1), (black, -1)):
        for square, king in pieces.items():
            board[square - 1] = sign * (2 if king else 1)
    return format_fen(board, Colour.WHITE if side == "W" else Colour.BLACK)


def _flip_rows_8x8(square: int) -> int:
    """Mirrors a square number of an 8x8 board top to bottom (an involution).

    pydraughts numbers Russian and Brazilian squares from a1 upwards (a1=1, c1=2, ..., h8=32);
    flipping the rows turns that numbering into PDN numbering and back.

    Args:
        square: Square number in one numbering.

    Returns:
        The same square in the other numbering.
    """
    row, index = divmod(square - 1, 4)
    return (7 - row) * 4 + index + 1


# ---------------------------------------------------------------------------------------------
# pydraughts
# ---------------------------------------------------------------------------------------------


class PydraughtsPeer:
    """Wraps a pydraughts board and exposes it in PDN numbering with complete, merged moves.

    pydraughts (0.6.x) speaks PDN numbering for International and English draughts, but numbers
    Russian and Brazilian squares from a1 (a1=1, ..., h8=32) and writes their FENs algebraically;
    the peer converts both ways. In English draughts Black (on 1-12) moves first; in the other
    variants White moves first.

    pydraughts can list one capture several times (once per route, sometimes with identical PDN
    strings); :meth:`moves` and :meth:`perft` merge routes with the same origin, destination and
    captured set.

    Attributes:
        variant: One of ``"international"``, ``"english"``, ``"brazilian"``, ``"russian"``.
    """

    def __init__(self, variant: str, fen: str | None = None) -> None:
        """Creates the peer at the start position of the variant or at a PDN FEN position.

        Args:
            variant: ``"international"``, ``"english"``, ``"brazilian"`` or ``"russian"``.
            fen: PDN FEN of the position, or ``None`` for the variant's start position.

        Raises:
            ValueError: Unknown variant or malformed FEN.
            ImportError: pydraughts is not installed.
        """
        if variant not in _PYDRAUGHTS_VARIANTS:
            raise ValueError(
                f"unknown variant {variant!r}; expected one of {sorted(_PYDRAUGHTS_VARIANTS)}"
            )
        self._draughts = _require("draughts", "pydraughts", "PydraughtsPeer")
        self.variant = variant
        self._board_size = _BOARD_SIZE[variant]
        self._pd_variant = _PYDRAUGHTS_VARIANTS[variant]
        self._flip = variant in ("brazilian", "russian")
        if fen is None:
            self._board = self._draughts.Board(self._pd_variant)
        else:
            side, white, black = _pieces(fen, self._board_size)
            self._board = self._draughts.Board(
                self._pd_variant, self._to_pd_fen(side, white, black)
            )

    # -- numbering ----------------------------------------------------------------------------

    def _pd_to_pdn(self, square: int) -> int:
        """Converts a pydraughts square number of this variant to a PDN square number."""
        return _flip_rows_8x8(square) if self._flip else square

    def _to_pd_fen(self, side: str, white: dict[int, bool], black: dict[int, bool]) -> str:
        """Builds the FEN string that pydraughts expects for this variant.

        Args:
            side: ``"W"`` or ``"B"``.
            white: White's pieces, PDN square to king flag.
            black: Black's pieces, PDN square to king flag.

        Returns:
            A FEN in pydraughts' numbering of the variant (the inverse of :meth:`_pd_to_pdn`).
        """

        def pieces(squares: dict[int, bool]) -> str:
            out = []
            for square, king in squares.items():
                number = _flip_rows_8x8(square) if self._flip else square
                out.append(f"K{number}" if king else str(number))
            return ",".join(out)

        return f"{side}:W{pieces(white)}:B{pieces(black)}"

    def _move_key(self, pd_move: Any) -> PeerMove:
        """Converts a pydraughts ``Move`` to a complete move in PDN numbering."""
        steps = pd_move.board_move
        captured = frozenset(self._pd_to_pdn(sq) for sq in (pd_move.captures or ()) if sq)
        return (self._pd_to_pdn(steps[0][0]), self._pd_to_pdn(steps[-1][1]), captured)

    def _legal(self, board: Any) -> dict[PeerMove, Any]:
        """Lists one pydraughts move per complete move of ``board``, merging duplicate routes."""
        unique: dict[PeerMove, Any] = {}
        for pd_move in board.legal_moves():
            unique.setdefault(self._move_key(pd_move), pd_move)
        return unique

    # -- public API ---------------------------------------------------------------------------

    def moves(self) -> set[PeerMove]:
        """Returns the legal complete moves of the current position.

        Returns:
            The set of ``(origin, destination, frozenset(captured))`` in PDN numbering. Routes with
            the same origin, destination and captured set appear once.
        """
        return set(self._legal(self._board))

    def play(self, move: PeerMove) -> None:
        """Plays a legal complete move, picking one of pydraughts' routes that match it.

        Args:
            move: ``(origin, destination, frozenset(captured))`` in PDN numbering.

        Raises:
            ValueError: The move is not legal in the current position.
        """
        pd_move = self._legal(self._board).get(_key(move))
        if pd_move is None:
            raise ValueError(f"illegal move {move!r} in position {self.fen()}")
        self._board.push(pd_move)

    def fen(self) -> str:
        """Returns the current position as a PDN FEN string.

        Returns:
            The FEN with the side to move first, squares in increasing order and no ranges.
        """
        return format_fen(*parse_fen(_algebraic_to_pdn(self._board.fen), self._board_size))

    def perft(self, depth: int) -> int:
        """Counts the leaves of the legal move tree, merging duplicate routes at every node.

        The count matches published perft tables. The current position is left unchanged.

        Args:
            depth: Number of plies (complete moves) to search; 0 counts the position itself.

        Returns:
            The number of move sequences of length ``depth``.
        """
        if depth < 0:
            raise ValueError("depth must be non-negative")
        if depth == 0:
            return 1
        return self._perft(self._board.copy(), depth)

    def _perft(self, board: Any, depth: int) -> int:
        """Counts perft leaves below ``board``, pushing and popping moves on it."""
        unique = self._legal(board)
        if depth == 1:
            return len(unique)
        total = 0
        for pd_move in unique.values():
            board.push(pd_move)
            total += self._perft(board, depth - 1)
            board.pop()
        return total


# ---------------------------------------------------------------------------------------------
# OpenSpiel
# ---------------------------------------------------------------------------------------------


def _os_square_to_pdn(row: int, column: int) -> int:
    """Converts an OpenSpiel checkers cell to a PDN square number.

    OpenSpiel draws player 0 (the first mover, our Black) at the bottom; row 0 is its top row and
    dark cells have ``row + column`` odd. PDN puts Black at the top, so the board is turned by 180
    degrees: OpenSpiel's a1 (row 7, column 0) is PDN square 4 and its h8 (row 0, column 7) is 29.

    Args:
        row: OpenSpiel row, 0 at the top of its diagram.
        column: OpenSpiel column, 0 for file a.

    Returns:
        The PDN square number (1-32).
    """
    row_from_top = _OS_SIZE - 1 - row
    column_from_left = _OS_SIZE - 1 - column
    return row_from_top * 4 + column_from_left // 2 + 1


def openspiel_decode(action: int) -> tuple[int, int, int | None]:
    """Decodes one OpenSpiel checkers action (one step or one hop).

    OpenSpiel ranks actions in the mixed base ``(row, column, direction, move_type)`` =
    ``(8, 8, 4, 2)``; directions are up-left, up-right, down-right, down-left and move type 1 is a
    capture hop over the adjacent cell.

    Args:
        action: The OpenSpiel action id.

    Returns:
        ``(from_square, to_square, captured_square_or_None)`` in PDN numbering.
    """
    rest, move_type = divmod(action, 2)
    rest, direction = divmod(rest, 4)
    row, column = divmod(rest, _OS_SIZE)
    reach = move_type + 1
    end_row = row + _OS_ROW_STEP[direction] * reach
    end_column = column + _OS_COL_STEP[direction] * reach
    captured = None
    if move_type == 1:
        captured = _os_square_to_pdn((row + end_row) // 2, (column + end_column) // 2)
    return _os_square_to_pdn(row, column), _os_square_to_pdn(end_row, end_column), captured


class OpenSpielCheckersPeer:
    """Wraps OpenSpiel's English checkers and exposes complete moves in PDN numbering.

    OpenSpiel's player 0 (which it calls White, ``o``) moves first from the bottom of its diagram;
    it is Black on squares 1-12 in PDN terms, and player 1 is White on 21-32. OpenSpiel plays each
    hop of a multi-capture as a separate action by the same player; the peer expands hop sequences
    on cloned states into complete moves (OpenSpiel's ``undo_action`` is not used: it does not
    restore the multi-jump or no-capture counters). OpenSpiel also ends the game as a draw after 40
    plies without a capture, at which point :meth:`moves` is empty and :meth:`is_terminal` is true.

    The peer starts from the initial position only: OpenSpiel's checkers has a custom-board
    setter in C++, but the Python bindings do not expose it.
    """

    def __init__(self) -> None:
        """Creates the peer at the initial position of English checkers.

        Raises:
            ImportError: OpenSpiel is not installed.
        """
        pyspiel = _require("pyspiel", "open_spiel", "OpenSpielCheckersPeer")
        self._game = pyspiel.load_game("checkers")
        self._state = self._game.new_initial_state()
        self._side = "B"

    @staticmethod
    def _expand(state: Any) -> dict[PeerMove, tuple[tuple[int, ...], Any]]:
        """Lists the complete moves of ``state`` with their hop actions and resulting states.

        Args:
            state: An OpenSpiel checkers state at the start of a turn.

        Returns:
            Maps each complete move to ``(actions, state_after)``; of several routes with the same
            origin, destination and captured set only the first is kept.
        """
        found: dict[PeerMove, tuple[tuple[int, ...], Any]] = {}
        if state.is_terminal():
            return found
        player = state.current_player()
        stack: list[tuple[Any, int | None, tuple[int, ...], tuple[int, ...]]] = [
            (state, None, (), ())
        ]
        while stack:
            node, origin, captured, actions = stack.pop()
            for action in node.legal_actions():
                start, end, taken = openspiel_decode(action)
                child = node.clone()
                child.apply_action(action)
                first = start if origin is None else origin
                taken_so_far = captured if taken is None else (*captured, taken)
                hops = (*actions, action)
                if taken is not None and child.current_player() == player:
                    stack.append((child, first, taken_so_far, hops))
                else:
                    found.setdefault((first, end, frozenset(taken_so_far)), (hops, child))
        return found

    def moves(self) -> set[PeerMove]:
        """Returns the legal complete moves of the current position.

        Returns:
            The set of ``(origin, destination, frozenset(captured))`` in PDN numbering; empty
            when the game is over.
        """
        return set(self._expand(self._state))

    def play(self, move: PeerMove) -> None:
        """Plays a legal complete move by applying all of its hops.

        Args:
            move: ``(origin, destination, frozenset(captured))`` in PDN numbering.

        Raises:
            ValueError: The move is not legal in the current position.
        """
        entry = self._expand(self._state).get(_key(move))
        if entry is None:
            raise ValueError(f"illegal move {move!r} in position {self.fen()}")
        for action in entry[0]:
            self._state.apply_action(action)
        self._side = "W" if self._side == "B" else "B"

    def is_terminal(self) -> bool:
        """Returns whether OpenSpiel considers the game over (no legal move, or its 40-ply draw).

        Returns:
            ``True`` when the game has ended.
        """
        return bool(self._state.is_terminal())

    def fen(self) -> str:
        """Returns the current position as a PDN FEN string, read from OpenSpiel's board.

        Returns:
            The FEN with the side to move first, squares in increasing order and no ranges.
        """
        # Non-egocentric observation planes: player 0 men, player 0 kings, player 1 men,
        # player 1 kings, empty; each plane is 8x8 in OpenSpiel's row/column order.
        tensor = self._state.observation_tensor(0)
        cells = _OS_SIZE * _OS_SIZE
        black: dict[int, bool] = {}
        white: dict[int, bool] = {}
        for plane, (pieces, king) in enumerate(
            ((black, False), (black, True), (white, False), (white, True))
        ):
            for cell in range(cells):
                if tensor[plane * cells + cell]:
                    pieces[_os_square_to_pdn(*divmod(cell, _OS_SIZE))] = king
        return _fen(self._side, white, black, _OS_SIZE)

    def perft(self, depth: int) -> int:
        """Counts the leaves of the complete-move tree, merging duplicate routes at every node.

        A node is counted only where the player to move changes, so the hops of a multi-capture
        form one move. The current position is left unchanged.

        Args:
            depth: Number of complete moves to search; 0 counts the position itself.

        Returns:
            The number of move sequences of length ``depth``.
        """
        if depth < 0:
            raise ValueError("depth must be non-negative")
        return self._perft(self._state, depth)

    def _perft(self, state: Any, depth: int) -> int:
        """Counts perft leaves below ``state`` without modifying it."""
        if depth == 0:
            return 1
        children = self._expand(state)
        if depth == 1:
            return len(children)
        return sum(self._perft(child, depth - 1) for _, child in children.values())
