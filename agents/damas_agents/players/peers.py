"""Adapters to independent draughts engines: oracles for the differential tests and benchmarks,
and the OpenSpiel board behind the ``openspiel-mcts`` agent.

:class:`PydraughtsPeer` (pydraughts: International, English, Brazilian, Russian, Frisian,
Frysk!, Italian, Turkish, Breakthrough and Antidraughts, from any position) and
:class:`OpenSpielCheckersPeer` (OpenSpiel's English ``checkers``, from the start) speak PDN
square numbers, FEN strings and moves as ``(origin, destination, frozenset(captured))``.
Neither engine is imported until a peer is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from damas_agents.extras import MissingExtraError, require_module
from damas_env.engine import Colour
from damas_env.geometry import Geometry, geometry
from damas_env.notation import format_fen, parse_fen
from damas_env.rules import get_ruleset

PeerMove = tuple[int, int, frozenset[int]]
"""A complete move: origin square, destination square, and the set of captured squares."""


@dataclass(frozen=True)
class _PdVariant:
    """How pydraughts names one of our variants and numbers its squares."""

    name: str
    """pydraughts' name of the variant."""

    top_left_dark: bool = False
    """pydraughts plays the dark squares with a dark top-left corner (Italian: its
    ``bottom_left_square_isnt_playable``); otherwise the top-left corner is light."""

    all_squares: bool = False
    """pydraughts plays all 64 squares (Turkish: its ``half_of_the_squares_are_playable`` off)."""

    from_bottom: bool = False
    """pydraughts numbers the rows from White's side (a1 = 1), as it does for Russian, Brazilian
    and Turkish; otherwise from the top, as PDN does."""


_PYDRAUGHTS_VARIANTS: dict[str, _PdVariant] = {
    "international": _PdVariant("standard"),
    # pydraughts turns the English board and swaps the colours, so its numbers are PDN's.
    "english": _PdVariant("english"),
    "brazilian": _PdVariant("brazilian", from_bottom=True),
    "russian": _PdVariant("russian", from_bottom=True),
    "frisian": _PdVariant("frisian"),
    "frysk": _PdVariant("frysk!"),
    "italian": _PdVariant("italian", top_left_dark=True),
    "turkish": _PdVariant("turkish", all_squares=True, from_bottom=True),
    "breakthrough": _PdVariant("breakthrough"),
    "international_giveaway": _PdVariant("antidraughts"),
}
"""Maps our variant names to pydraughts' names and square numbering."""

PYDRAUGHTS_VARIANTS: tuple[str, ...] = tuple(_PYDRAUGHTS_VARIANTS)
"""Our names of the variants :class:`PydraughtsPeer` plays."""

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


def require_engine(module: str, user: str, package: str) -> ModuleType:
    """Imports an optional engine's module, or raises MissingExtraError naming both the extra
    of damas-env and the engine's own package that install it.

    Args:
        module: the import name (``"pyspiel"``).
        user: what needs it, as the message's subject.
        package: the engine's package on PyPI (``"open_spiel"``).
    """
    try:
        return require_module(module, user)
    except MissingExtraError as exc:
        raise MissingExtraError(f"{exc} (or: pip install {package})", name=module) from exc


# ---------------------------------------------------------------------------------------------
# PDN FEN helpers
# ---------------------------------------------------------------------------------------------


def _pieces(fen: str, board: int | Geometry) -> tuple[str, dict[int, bool], dict[int, bool]]:
    """Returns (side, white, black) of a PDN FEN: each colour maps PDN squares to is-king."""
    squares, turn = parse_fen(fen, board)
    white = {sq + 1: code == 2 for sq, code in enumerate(squares) if code > 0}
    black = {sq + 1: code == -2 for sq, code in enumerate(squares) if code < 0}
    return ("W" if turn == Colour.WHITE else "B"), white, black


def _fen(side: str, white: dict[int, bool], black: dict[int, bool], squares: int) -> str:
    """Returns the PDN FEN (damas_env.notation's form) of pieces given as PDN-square maps.

    Args:
        side: ``"W"`` or ``"B"``.
        white: White's pieces, PDN square to king flag.
        black: Black's pieces, PDN square to king flag.
        squares: Playable squares of the board (32 on 8x8, 50 on 10x10, 64 for Turkish).
    """
    board = np.zeros(squares, dtype=np.int8)
    for pieces, sign in ((white, 1), (black, -1)):
        for square, king in pieces.items():
            board[square - 1] = sign * (2 if king else 1)
    return format_fen(board, Colour.WHITE if side == "W" else Colour.BLACK)


# ---------------------------------------------------------------------------------------------
# pydraughts
# ---------------------------------------------------------------------------------------------


def _pd_coordinates(number: int, size: int, pd: _PdVariant) -> tuple[int, int]:
    """Returns the (row, column) of a pydraughts square, row 0 at the top as White sees it.

    pydraughts numbers its playable squares row by row, left to right (its ``position_layout``),
    from the top or, for ``from_bottom`` variants, from White's side (its ``_rotate_move``
    turns the rows over and keeps each square's place in its row). On the dark-square boards a
    row's first square is light on rows 0, 2, ... from the top and dark on the others, the other
    way round when the top-left corner is dark (pydraughts' ``Game.__repr__``).

    Args:
        number: pydraughts' square number (1-based).
        size: Rows (and columns) of the board.
        pd: How pydraughts plays the variant.
    """
    per_row = size if pd.all_squares else size // 2
    row, place = divmod(number - 1, per_row)
    if pd.from_bottom:
        row = size - 1 - row
    if pd.all_squares:
        return row, place
    light_first = (row % 2 == 0) != pd.top_left_dark
    return row, 2 * place + int(light_first)


@cache
def _numbering(variant: str) -> tuple[Geometry, dict[int, int]]:
    """Returns our board of a variant and the map from pydraughts' square numbers to our PDN
    numbers, matched by board coordinates.

    Raises:
        ValueError: pydraughts plays a square that is not on our board (the layouts differ).
    """
    rules = get_ruleset(variant)
    ours = geometry(rules.board_size, rules.board_layout)
    pd = _PYDRAUGHTS_VARIANTS[variant]
    to_ours = {}
    for number in range(1, ours.squares + 1):
        square = ours.square_at(*_pd_coordinates(number, rules.board_size, pd))
        if square < 0:
            raise ValueError(f"pydraughts' {variant} square {number} is not on our board")
        to_ours[number] = square + 1
    return ours, to_ours


_ALGEBRAIC = re.compile(r"([a-z])([0-9]+)")


class PydraughtsPeer:
    """Wraps a pydraughts board and exposes it in PDN numbering with complete, merged moves.

    pydraughts (0.6.x) numbers some boards differently from us: Russian, Brazilian and Turkish
    squares from a1 upwards (a1=1, ..., h8=32 or 64), their FENs written algebraically; Italian
    plays the dark squares of the mirrored board, as we do. The peer maps its squares to ours by
    their board coordinates, both ways. In English draughts Black (on 1-12) moves first; in the
    other variants White moves first.

    pydraughts can list one capture several times (once per route, sometimes with identical PDN
    strings); :meth:`moves` and :meth:`perft` merge routes with the same origin, destination and
    captured set.

    pydraughts' board keeps the game's history: the Frisian king move limit (three
    non-capturing moves in a row with one king while its side has men) applies to the moves
    played through :meth:`play`, not to the moves before the position the peer started from.
    Its draw rules do not empty :meth:`moves`.

    Attributes:
        variant: One of :data:`PYDRAUGHTS_VARIANTS`.
    """

    def __init__(self, variant: str, fen: str | None = None) -> None:
        """Creates the peer at the start position of the variant or at a PDN FEN position.

        Args:
            variant: One of :data:`PYDRAUGHTS_VARIANTS` (our names: ``"frysk"``, not
                pydraughts' ``"frysk!"``; ``"international_giveaway"`` for Antidraughts).
            fen: PDN FEN of the position, or ``None`` for the variant's start position.

        Raises:
            ValueError: Unknown variant or malformed FEN.
            ImportError: pydraughts is not installed.
        """
        if variant not in _PYDRAUGHTS_VARIANTS:
            raise ValueError(
                f"unknown variant {variant!r}; expected one of {sorted(_PYDRAUGHTS_VARIANTS)}"
            )
        self._draughts = require_engine("draughts", "PydraughtsPeer", "pydraughts")
        self.variant = variant
        self._geometry, self._to_ours = _numbering(variant)
        self._to_pd = {ours: pd for pd, ours in self._to_ours.items()}
        self._pd_variant = _PYDRAUGHTS_VARIANTS[variant].name
        if fen is None:
            self._board = self._draughts.Board(self._pd_variant)
        else:
            side, white, black = _pieces(fen, self._geometry)
            self._board = self._draughts.Board(
                self._pd_variant, self._to_pd_fen(side, white, black)
            )

    # -- numbering ----------------------------------------------------------------------------

    def _pd_to_pdn(self, square: str | int) -> int:
        """Converts a pydraughts square (a number, or algebraic like ``c3``) to a PDN number."""
        algebraic = _ALGEBRAIC.fullmatch(str(square))
        if algebraic is None:
            return self._to_ours[int(square)]
        column, row_from_bottom = ord(algebraic[1]) - ord("a"), int(algebraic[2])
        size = self._geometry.size
        return self._geometry.square_at(size - row_from_bottom, column) + 1

    def _pd_pieces(self, section: str) -> dict[int, bool]:
        """Returns one colour's pieces of a pydraughts FEN (``W32,K18`` or ``Wc3,Ka5``) as a map
        from PDN squares to is-king."""
        items = filter(None, section[1:].split(","))
        return {self._pd_to_pdn(item.lstrip("K")): item.startswith("K") for item in items}

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
            items = ((self._to_pd[square], king) for square, king in squares.items())
            return ",".join(f"K{n}" if king else str(n) for n, king in items)

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
            The FEN in :func:`damas_env.notation.format_fen`'s form (runs of men as ranges).
        """
        side, white, black = self._board.fen.split(":")
        return _fen(side, self._pd_pieces(white), self._pd_pieces(black), self._geometry.squares)

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
        pyspiel = require_engine("pyspiel", "OpenSpielCheckersPeer", "open_spiel")
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
        return _fen(self._side, white, black, _OS_SIZE * _OS_SIZE // 2)

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
