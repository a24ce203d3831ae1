"""Renderers: a text board, an RGB image, an SVG picture and a pygame window.

All four draw a board array on the board's geometry (``Engine.geometry``, or a size for the
dark squares) with :class:`Highlights` (last move, capture in progress, selection and
targets). :func:`square_at_pixel` and its inverse :func:`square_centre` hold the geometry of
drawing; ``flip=True`` turns the board 180 degrees, Black's side at the bottom. Only numpy
is imported here; pygame is imported when a :class:`PygameBoard` is made.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache
from types import ModuleType
from typing import Any, Protocol
from xml.sax.saxutils import escape

import numpy as np

from .geometry import Geometry, geometry
from .moves import board_geometry
from .notation import square_to_pdn
from .rules import Ruleset

__all__ = [
    "Highlights",
    "ansi",
    "rgb_array",
    "svg",
    "position_svg",
    "position_html",
    "board_html",
    "PygameBoard",
    "square_at_pixel",
    "square_centre",
    "UNDO",
    "NEW_GAME",
    "FLIP",
    "COLOURS",
    "PIECE_COLOURS",
]

RGB = tuple[int, int, int]
#: A board argument: a size (its dark squares) or the Geometry of any layout.
BoardLike = int | Geometry
ColourLike = Sequence[float] | np.ndarray

#: Board and marker colours of the RGB, SVG and pygame renderers.
COLOURS: dict[str, RGB] = {
    "light": (238, 221, 187),
    "dark": (150, 106, 72),
    "last_move": (196, 160, 62),
    "selected": (104, 148, 78),
    "captured": (186, 84, 70),
    "crown": (232, 186, 40),
    "moving": (40, 170, 255),
    "target": (92, 214, 120),
    "cross": (214, 24, 24),
    "number": (226, 206, 176),
    "grid": (96, 64, 40),
    "status": (40, 40, 40),
    "status_text": (235, 235, 235),
}

#: Piece colours by colour name; an unknown name takes the colour of its side's default.
PIECE_COLOURS: dict[str, RGB] = {
    "white": (246, 242, 230),
    "black": (36, 36, 38),
    "red": (196, 36, 36),
    "light": (246, 242, 230),
    "dark": (36, 36, 38),
}

#: Returned by :meth:`PygameBoard.wait_for_hop` for the undo key ``u``.
UNDO = -1
#: Returned by :meth:`PygameBoard.wait_for_hop` for the flip key ``f``.
FLIP = -2
#: Returned by :meth:`PygameBoard.wait_for_hop` for the new-game key ``n``.
NEW_GAME = -3
#: The longest wait_for_hop waits for one event, in milliseconds: between two waits Python
#: runs its signal handlers, so Ctrl-C ends a game that waits for the mouse.
EVENT_WAIT_MS = 100


@dataclass(frozen=True)
class Highlights:
    """Marks drawn over a board: last move, capture in progress, selection and targets."""

    last_move: tuple[int, ...] = ()
    """Squares of the last move (or of the move in progress): origin, then landings."""

    captured: tuple[int, ...] = ()
    """Squares of pieces taken in the move in progress, still on the board."""

    moving: int | None = None
    """Square of the piece in the middle of a capture."""

    selected: int | None = None
    """Square of the piece the user picked."""

    targets: tuple[int, ...] = ()
    """Legal landing squares of the selected piece."""

    last_capture: bool | None = None
    """Whether last_move took pieces (PDN ``x``); None infers it from the path: several
    hops, marked captured pieces, or a hop longer than one step. Set it for a flying
    king's long step, which inference would call a capture."""


# --- Geometry of drawing --------------------------------------------------------------------


@cache
def _cells(board_size: int, layout: str, flip: bool) -> tuple[np.ndarray, np.ndarray]:
    """Returns (screen row, screen column) of every square, as read-only int arrays."""
    geo = geometry(board_size, layout)
    rows, cols = geo.row.astype(np.intp), geo.col.astype(np.intp)
    if flip:
        rows, cols = board_size - 1 - rows, board_size - 1 - cols
    rows.setflags(write=False)
    cols.setflags(write=False)
    return rows, cols


def square_centre(
    sq: int, board_size: BoardLike, square_px: int, flip: bool = False
) -> tuple[int, int]:
    """Returns the pixel (x, y) at the centre of a square.

    `board_size` is a size (the dark squares) or the Geometry of any layout.
    """
    geo = board_geometry(board_size)
    rows, cols = _cells(geo.size, geo.layout, flip)
    half = square_px // 2
    return int(cols[sq]) * square_px + half, int(rows[sq]) * square_px + half


def square_at_pixel(
    x: float, y: float, board_size: BoardLike, square_px: int, flip: bool = False
) -> int:
    """Returns the square under pixel (x, y), or -1 on a light square or off the board.

    `board_size` is a size (the dark squares) or the Geometry of any layout.
    """
    geo = board_geometry(board_size)
    col, row = int(x // square_px), int(y // square_px)
    if not (0 <= row < geo.size and 0 <= col < geo.size):
        return -1
    if flip:
        row, col = geo.size - 1 - row, geo.size - 1 - col
    return geo.square_at(row, col)


# --- Text -----------------------------------------------------------------------------------


def ansi(
    board: np.ndarray,
    board_size: BoardLike,
    highlights: Highlights = Highlights(),
    flip: bool = False,
    colour_names: tuple[str, str] = ("white", "black"),
    turn: int | None = None,
) -> str:
    """Returns a text board with coordinates, PDN numbers per row and a status line.

    `board_size` is a size (the dark squares) or the Geometry of any layout. Men are the
    first letters of the colour names (``w``/``b``), kings the capitals; a piece taken in
    the move in progress is ``x`` (``X`` a king), a target square ``*``, an empty playable
    square ``.``. Squares of the last move are in brackets ``[ ]``, the moving or selected
    piece in parentheses ``( )``.
    """
    geo = board_geometry(board_size)
    symbols = _symbols(colour_names)
    order = range(geo.size - 1, -1, -1) if flip else range(geo.size)
    width = len(str(geo.size))
    files = " " * (width + 1) + "".join(f" {chr(ord('a') + c)} " for c in order)
    lines = [files.rstrip()]
    for row in order:
        cells = "".join(
            _text_cell(board, geo.square_at(row, col), highlights, symbols) for col in order
        )
        lines.append(f"{geo.size - row:>{width}} {cells}  {_row_numbers(row, geo, flip)}")
    lines.append(files.rstrip())
    status = _status(highlights, colour_names, turn, geo)
    return "\n".join(lines + ([status] if status else []))


def _symbols(colour_names: tuple[str, str]) -> dict[int, str]:
    """Returns the piece letter of each code: first letters of the names, or w/b if equal."""
    w, b = (name[:1].lower() for name in colour_names)
    if not (w and b) or w == b or "x" in (w, b):
        w, b = "w", "b"
    return {1: w, 2: w.upper(), -1: b, -2: b.upper()}


def _text_cell(board: np.ndarray, sq: int, hl: Highlights, symbols: dict[int, str]) -> str:
    """Returns the three characters of one square: marker, symbol, marker."""
    if sq < 0:
        return "   "
    code = int(board[sq])
    if sq in hl.captured:
        symbol = "X" if abs(code) == 2 else "x"
    elif code:
        symbol = symbols[code]
    else:
        symbol = "*" if sq in hl.targets else "."
    if sq in (hl.moving, hl.selected):
        return f"({symbol})"
    return f"[{symbol}]" if sq in hl.last_move else f" {symbol} "


def _row_numbers(row: int, geo: Geometry, flip: bool) -> str:
    """Returns the PDN numbers of a row's ends as read left to right, e.g. ``1-4``."""
    per_row = geo.per_row
    first, last = square_to_pdn(row * per_row), square_to_pdn(row * per_row + per_row - 1)
    if flip:
        first, last = last, first
    return f"{first}-{last}".rjust(2 * len(str(geo.squares)) + 1)


def _status(hl: Highlights, names: tuple[str, str], turn: int | None, geo: Geometry) -> str:
    """Returns the status line: colour to move, then the last move or capture in progress."""
    parts = [] if turn is None else [f"{names[int(turn)]} to move"]
    if hl.last_move:
        label = "capture in progress" if hl.moving is not None else "last move"
        parts.append(f"{label} {_path_text(hl, geo)}")
    return "; ".join(parts)


def _path_text(hl: Highlights, geo: Geometry) -> str:
    """Returns the PDN text of the last-move path: ``32-28`` or ``28x19x10``."""
    capture = hl.last_capture
    if capture is None:
        hops = zip(hl.last_move[:-1], hl.last_move[1:], strict=True)
        long_hop = any(b not in geo.ray[a, :, 0] for a, b in hops)  # past the next square
        capture = len(hl.last_move) > 2 or bool(hl.captured) or long_hop
    return ("x" if capture else "-").join(str(square_to_pdn(s)) for s in hl.last_move)


# --- RGB image ------------------------------------------------------------------------------

# Tile layout of one bank: index 0 is the light square; a dark square's tile is
#   1 + (((code + 2) * 4 + background) * 2 + moving) * 2 + target
# with background 0 plain, 1 last move, 2 selected, 3 captured.
_BACKGROUNDS = ("dark", "last_move", "selected", "captured")
_TILES = 1 + 5 * len(_BACKGROUNDS) * 2 * 2
_PLAIN = 1 + 2 * 4 * 2 * 2  # an empty dark square, no marks

# Radii as fractions of the square side.
_PIECE_R, _BODY_R, _RING_R = 0.40, 0.355, 0.48
_CROWN_R, _CROWN_W, _JEWEL_R = 0.24, 0.065, 0.09
_TARGET_R, _CROSS_W, _CROSS_R = 0.14, 0.07, 0.30
# A square's number (SVG) sits in the top left corner, outside the piece's disc (radius
# _PIECE_R): two digits of a sans-serif font (0.64 em wide each, 0.75 em high at most) end
# 0.41 of a square from its centre.
_NUMBER_SIZE, _NUMBER_INSET, _CAP = 0.18, 0.03, 0.75
_SUPERSAMPLE = 4


@cache
def _subpixels(square_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Returns (u, v), the sample offsets from the square's centre in square units.

    Each has shape (px, px, 16): 4x4 samples per pixel, for anti-aliased coverage.
    """
    n = _SUPERSAMPLE
    t = (np.arange(square_px * n) + 0.5) / (square_px * n) - 0.5
    v, u = np.meshgrid(t, t, indexing="ij")

    def per_pixel(a: np.ndarray) -> np.ndarray:
        return (
            a.reshape(square_px, n, square_px, n)
            .transpose(0, 2, 1, 3)
            .reshape(square_px, square_px, n * n)
        )

    return per_pixel(u), per_pixel(v)


@cache
def _disc(square_px: int, outer: float, inner: float = 0.0) -> np.ndarray:
    """Returns the coverage (0..1, shape (px, px, 1)) of a ring between two radii."""
    u, v = _subpixels(square_px)
    r = np.hypot(u, v)
    return ((r < outer) & (r >= inner)).mean(axis=-1, keepdims=True)


@cache
def _cross(square_px: int) -> np.ndarray:
    """Returns the coverage of the X drawn over a captured piece."""
    u, v = _subpixels(square_px)
    bars = (np.abs(u - v) < _CROSS_W) | (np.abs(u + v) < _CROSS_W)
    return (bars & (np.hypot(u, v) < _CROSS_R)).mean(axis=-1, keepdims=True)


def _paint(tile: np.ndarray, coverage: np.ndarray, colour: ColourLike) -> None:
    """Blends a colour into a float tile where coverage is positive."""
    tile += coverage * (np.asarray(colour, dtype=np.float32) - tile)


def _piece_colours(colour_names: tuple[str, str]) -> tuple[RGB, RGB]:
    """Returns the RGB of (White's side, Black's side) for their colour names."""
    defaults = (PIECE_COLOURS["white"], PIECE_COLOURS["black"])
    return (
        PIECE_COLOURS.get(colour_names[0].lower(), defaults[0]),
        PIECE_COLOURS.get(colour_names[1].lower(), defaults[1]),
    )


def _dark_tile(
    square_px: int, code: int, background: int, overlays: tuple[bool, bool], pieces: tuple[RGB, RGB]
) -> np.ndarray:
    """Returns one dark-square tile (float) with its piece, background and overlays."""
    moving, target = overlays
    tile = np.empty((square_px, square_px, 3), dtype=np.float32)
    tile[:] = COLOURS[_BACKGROUNDS[background]]
    if target:
        _paint(tile, _disc(square_px, _TARGET_R), COLOURS["target"])
    if moving:
        _paint(tile, _disc(square_px, _RING_R, _PIECE_R), COLOURS["moving"])
    if code:
        _paint_piece(tile, code, pieces[0 if code > 0 else 1], captured=background == 3)
    return tile


def _rim(body: np.ndarray) -> np.ndarray:
    """Returns the rim shade of a piece colour: darker for a light piece, lighter for a dark."""
    return 0.6 * body if body.mean() > 96 else body + 0.35 * (255 - body)


def _paint_piece(tile: np.ndarray, code: int, colour: RGB, captured: bool) -> None:
    """Paints a man (a disc with a rim) or a king (a crown ring and jewel) on a tile."""
    px = tile.shape[0]
    body = np.asarray(colour, dtype=np.float32)
    if captured:  # a taken piece fades into its square until the move ends
        body = 0.5 * (body + np.asarray(COLOURS["captured"], dtype=np.float32))
    _paint(tile, _disc(px, _PIECE_R), _rim(body))
    _paint(tile, _disc(px, _BODY_R), body)
    if abs(code) == 2:
        _paint(tile, _disc(px, _CROWN_R, _CROWN_R - _CROWN_W), COLOURS["crown"])
        _paint(tile, _disc(px, _JEWEL_R), COLOURS["crown"])
    if captured:
        _paint(tile, _cross(px), COLOURS["cross"])


@cache
def _tile_bank(square_px: int, pieces: tuple[RGB, RGB]) -> np.ndarray:
    """Returns every tile of one size and piece colours, shape (_TILES, px, px, 3) uint8."""
    bank = np.empty((_TILES, square_px, square_px, 3), dtype=np.uint8)
    bank[0] = COLOURS["light"]
    for code in range(-2, 3):
        for background in range(len(_BACKGROUNDS)):
            for overlays in ((False, False), (False, True), (True, False), (True, True)):
                index = 1 + (((code + 2) * 4 + background) * 2 + overlays[0]) * 2 + overlays[1]
                tile = _dark_tile(square_px, code, background, overlays, pieces)
                bank[index] = np.clip(np.rint(tile), 0, 255)
    bank.setflags(write=False)
    return bank


def _backgrounds(squares: int, hl: Highlights) -> np.ndarray:
    """Returns each square's background: 0 plain, 1 last move, 2 selected, 3 captured."""
    background = np.zeros(squares, dtype=np.intp)
    background[list(hl.last_move)] = 1
    if hl.selected is not None:
        background[hl.selected] = 2
    background[list(hl.captured)] = 3
    return background


def _tile_indices(board: np.ndarray, hl: Highlights) -> np.ndarray:
    """Returns the bank index of each square's tile (see the layout above)."""
    background = _backgrounds(board.shape[0], hl)
    moving = np.zeros(board.shape[0], dtype=np.intp)
    if hl.moving is not None:
        moving[hl.moving] = 1
    target = np.zeros(board.shape[0], dtype=np.intp)
    target[list(hl.targets)] = 1
    return 1 + (((board.astype(np.intp) + 2) * 4 + background) * 2 + moving) * 2 + target


def rgb_array(
    board: np.ndarray,
    board_size: BoardLike,
    highlights: Highlights = Highlights(),
    flip: bool = False,
    square_px: int = 48,
    colour_names: tuple[str, str] = ("white", "black"),
) -> np.ndarray:
    """Returns the board as an RGB image, shape (N * square_px, N * square_px, 3) uint8.

    `board_size` is a size (the dark squares) or the Geometry of any layout. Men are discs
    with a rim, kings carry a gold crown ring and jewel; last-move squares are tinted,
    captured pieces faded on a red square with an X, the moving piece ringed in blue, the
    selected square green and targets dotted.
    """
    geo = board_geometry(board_size)
    pieces = _piece_colours(colour_names)
    bank = _tile_bank(square_px, pieces)
    image = _empty_image(geo.size, geo.layout, square_px, pieces).copy()
    indices = _tile_indices(np.asarray(board), highlights)
    rows, cols = _cells(geo.size, geo.layout, flip)
    for sq in np.flatnonzero(indices != _PLAIN):  # paste only squares with something on
        y, x = rows[sq] * square_px, cols[sq] * square_px
        image[y : y + square_px, x : x + square_px] = bank[indices[sq]]
    if _has_lines(geo):
        _draw_grid(image, square_px)
    return image


@cache
def _empty_image(
    board_size: int, layout: str, square_px: int, pieces: tuple[RGB, RGB]
) -> np.ndarray:
    """Returns the read-only image of the empty board (the same either way up)."""
    grid = np.where(geometry(board_size, layout).index >= 0, _PLAIN, 0)
    side = board_size * square_px
    image = _tile_bank(square_px, pieces)[grid].transpose(0, 2, 1, 3, 4).reshape(side, side, 3)
    image.setflags(write=False)
    return image


def _has_lines(geo: Geometry) -> bool:
    """Returns whether lines part the squares: every square is played on (the all-squares
    layout), so no light square lies between two of them."""
    return geo.squares == geo.size * geo.size


def _draw_grid(image: np.ndarray, square_px: int) -> None:
    """Draws a line round every square (see :func:`_has_lines`); both edges of each square,
    so the image is the same turned round."""
    colour = COLOURS["grid"]
    for edge in range(max(1, square_px // 32)):
        for offset in (edge, square_px - 1 - edge):
            image[offset::square_px] = colour
            image[:, offset::square_px] = colour


# --- SVG ------------------------------------------------------------------------------------


def _hex(colour: ColourLike) -> str:
    """Returns the #rrggbb form of an RGB colour."""
    return "#" + "".join(f"{int(round(c)):02x}" for c in colour)


def svg(
    board: np.ndarray,
    board_size: BoardLike,
    highlights: Highlights = Highlights(),
    flip: bool = False,
    square_px: int = 40,
    colour_names: tuple[str, str] = ("white", "black"),
) -> str:
    """Returns a self-contained SVG picture of the board, PDN numbers in the playable squares.

    `board_size` is a size (the dark squares) or the Geometry of any layout. Pieces are
    ``<circle class="piece white man">`` (``king``, ``captured`` as they apply) and
    playable squares ``<rect class="square">``, so a test or a stylesheet can find them.
    """
    geo = board_geometry(board_size)
    side = geo.size * square_px
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" '
        f'viewBox="0 0 {side} {side}">',
        f'<rect width="{side}" height="{side}" fill="{_hex(COLOURS["light"])}"/>',
    ]
    board = np.asarray(board)
    backgrounds = _backgrounds(board.shape[0], highlights)
    for sq in range(board.shape[0]):
        background = int(backgrounds[sq])
        parts += _svg_square(
            sq, int(board[sq]), background, highlights, geo, flip, square_px, colour_names
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _svg_square(
    sq: int,
    code: int,
    background: int,
    hl: Highlights,
    geo: Geometry,
    flip: bool,
    px: int,
    names: tuple[str, str],
) -> list[str]:
    """Returns the SVG elements of one playable square: fill, marks, piece and number."""
    x, y = square_centre(sq, geo, px, flip)
    x0, y0 = x - px // 2, y - px // 2
    fill = _hex(COLOURS[_BACKGROUNDS[background]])
    lines = ""
    if _has_lines(geo):
        lines = f' stroke="{_hex(COLOURS["grid"])}" stroke-width="{max(1, px // 32) * 2}"'
    out = [
        f'<rect class="square" x="{x0}" y="{y0}" width="{px}" height="{px}" fill="{fill}"{lines}/>'
    ]
    if sq in hl.targets:
        out.append(
            _circle(x, y, _TARGET_R * px, 'class="target"', f'fill="{_hex(COLOURS["target"])}"')
        )
    if sq == hl.moving:
        stroke = f'fill="none" stroke="{_hex(COLOURS["moving"])}" stroke-width="{0.07 * px:.1f}"'
        out.append(_circle(x, y, 0.44 * px, 'class="moving"', stroke))
    if code:
        out += _svg_piece(x, y, code, px, names, captured=background == 3)
    return out + [_svg_number(sq, x0, y0, px)]


def _svg_number(sq: int, x0: int, y0: int, px: int) -> str:
    """Returns a square's PDN number, in the corner its piece leaves free (drawn last, over
    the moving piece's ring)."""
    inset, size = _NUMBER_INSET * px, _NUMBER_SIZE * px
    return (
        f'<text class="number" x="{x0 + inset:.1f}" y="{y0 + inset + _CAP * size:.1f}" '
        f'font-size="{size:.1f}" font-family="sans-serif" '
        f'fill="{_hex(COLOURS["number"])}">{square_to_pdn(sq)}</text>'
    )


def _circle(x: float, y: float, r: float, *attributes: str) -> str:
    """Returns an SVG circle element with extra attributes."""
    return f'<circle cx="{x}" cy="{y}" r="{r:.1f}" {" ".join(attributes)}/>'


def _svg_piece(
    x: int, y: int, code: int, px: int, names: tuple[str, str], captured: bool
) -> list[str]:
    """Returns the SVG elements of a piece: the disc, a king's crown, a capture's X."""
    side = 0 if code > 0 else 1
    body = np.asarray(_piece_colours(names)[side], dtype=np.float32)
    kind = "king" if abs(code) == 2 else "man"
    name = escape(names[side]).replace(" ", "-")
    classes = f'class="piece {name} {kind}{" captured" if captured else ""}"'
    style = f'fill="{_hex(body)}" stroke="{_hex(_rim(body))}" stroke-width="{0.045 * px:.1f}"'
    opacity = ' opacity="0.55"' if captured else ""
    out = [_circle(x, y, (_PIECE_R - 0.0225) * px, classes, style + opacity)]
    if kind == "king":
        crown = f'fill="none" stroke="{_hex(COLOURS["crown"])}" stroke-width="{_CROWN_W * px:.1f}"'
        out.append(_circle(x, y, (_CROWN_R - _CROWN_W / 2) * px, 'class="crown"', crown))
        out.append(
            _circle(x, y, _JEWEL_R * px, 'class="crown"', f'fill="{_hex(COLOURS["crown"])}"')
        )
    if captured:
        d = _CROSS_R * px * 0.7
        stroke = f'stroke="{_hex(COLOURS["cross"])}" stroke-width="{2 * _CROSS_W * px:.1f}"'
        out.append(
            f'<path class="cross" d="M{x - d:.1f},{y - d:.1f}L{x + d:.1f},{y + d:.1f}'
            f'M{x - d:.1f},{y + d:.1f}L{x + d:.1f},{y - d:.1f}" {stroke}/>'
        )
    return out


class Drawable(Protocol):
    """What :func:`position_svg` reads of a position (a :class:`damas_env.Position` is one).

    The engine imports this module (``Position._repr_svg_``), so this module names no engine
    type: imports run one way.
    """

    @property
    def board(self) -> np.ndarray: ...

    @property
    def rules(self) -> Ruleset: ...


def position_svg(
    position: Drawable, highlights: Highlights = Highlights(), flip: bool = False
) -> str:
    """Returns the SVG picture of a Position, in its ruleset's colours (for ``_repr_svg_``)."""
    rules = position.rules
    geo = geometry(rules.board_size, rules.board_layout)  # as Engine.for_rules(rules).geometry
    return svg(position.board, geo, highlights, flip, colour_names=rules.colour_names)


def board_html(picture: str, caption: str) -> str:
    """Returns a board picture (SVG text) over an escaped one-line caption, as an HTML
    figure: what a notebook shows for ``_repr_html_``."""
    return (
        '<figure class="damas-board" style="display:inline-block;margin:0">'
        f"{picture}"
        f'<figcaption style="font-family:sans-serif;font-size:12px">{escape(caption)}'
        "</figcaption></figure>"
    )


def position_html(position: Any) -> str:
    """Returns a Position as an HTML figure: its board and a caption with the ruleset, the
    colour to move and the FEN (for ``Position._repr_html_``)."""
    rules = position.rules
    mover = rules.colour_names[int(position.turn)]
    return board_html(position_svg(position), f"{rules.name}: {mover} to move, {position.fen()}")


# --- Pygame window --------------------------------------------------------------------------


def _import_pygame() -> ModuleType:
    """Returns the pygame module, or raises an ImportError that says how to install it."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on stdout
    try:
        import pygame
    except ImportError as e:
        raise ImportError("the human render mode needs pygame: pip install pygame") from e
    return pygame


class _Wait(Enum):
    """The result of an event that does not end wait_for_hop."""

    WAIT = 0


@dataclass
class _Pick:
    """The interaction state of wait_for_hop: the picked square and a drag in progress."""

    square: int | None = None
    dragging: bool = False
    pointer: tuple[int, int] = (0, 0)


class PygameBoard:
    """A pygame window that shows boards and lets a person play hops by mouse.

    Drag a piece onto a target square, or click the piece and then the target. Keys:
    ``u`` undo (returns :data:`UNDO`), ``n`` new game (:data:`NEW_GAME`), ``f`` flip
    (returns :data:`FLIP`), Escape or the
    right button drops the selection. Each playable square shows its PDN number in its top
    left corner. Works headless with ``SDL_VIDEODRIVER=dummy``.
    """

    def __init__(
        self,
        board_size: BoardLike,
        square_px: int = 64,
        caption: str = "damas",
        colour_names: tuple[str, str] = ("white", "black"),
    ) -> None:
        """Opens the window for a board: a size (the dark squares) or the Geometry of any
        layout (``Engine.geometry``)."""
        self.geometry = board_geometry(board_size)
        self.pygame: Any = _import_pygame()
        self.board_size = self.geometry.size
        self.square_px = square_px
        self.colour_names = colour_names
        self.status_px = max(20, square_px // 2)
        self.pygame.display.init()
        self.pygame.font.init()
        side = self.board_size * square_px
        self.screen = self.pygame.display.set_mode((side, side + self.status_px))
        self.pygame.display.set_caption(caption)
        self.font = self.pygame.font.Font(None, int(self.status_px * 0.8))
        number_font = self.pygame.font.Font(None, max(8, int(square_px * 0.3)))
        self.numbers = [
            number_font.render(str(square_to_pdn(sq)), True, COLOURS["number"])
            for sq in range(self.geometry.squares)
        ]

    def draw(
        self,
        board: np.ndarray,
        highlights: Highlights = Highlights(),
        flip: bool = False,
        status: str = "",
    ) -> None:
        """Draws a board and a status bar under it, and shows them.

        Pumps the event queue (without taking events from it) so that the window stays
        responsive while agents play; closing it is seen by the next wait_for_hop.
        """
        self._draw(board, highlights, flip, status)
        self.pygame.display.flip()
        self.pygame.event.pump()

    def _draw(self, board: np.ndarray, hl: Highlights, flip: bool, status: str) -> None:
        """Blits the board image and the status bar without flipping the display."""
        image = rgb_array(board, self.geometry, hl, flip, self.square_px, self.colour_names)
        surface = self.pygame.surfarray.make_surface(image.swapaxes(0, 1))
        self.screen.blit(surface, (0, 0))
        self._draw_numbers(flip)
        side = self.board_size * self.square_px
        self.screen.fill(COLOURS["status"], (0, side, side, self.status_px))
        text = self.font.render(status, True, COLOURS["status_text"])
        self.screen.blit(text, (6, side + (self.status_px - text.get_height()) // 2))

    def _draw_numbers(self, flip: bool) -> None:
        """Writes each playable square's PDN number in its top left corner (as the SVG does)."""
        half, inset = self.square_px // 2, max(1, self.square_px // 32)
        for sq, number in enumerate(self.numbers):
            x, y = square_centre(sq, self.geometry, self.square_px, flip)
            self.screen.blit(number, (x - half + 2 * inset, y - half + inset))

    def _draw_dragged(self, code: int, pointer: tuple[int, int]) -> None:
        """Draws the dragged piece under the mouse pointer."""
        draw, px = self.pygame.draw, self.square_px
        body = _piece_colours(self.colour_names)[0 if code > 0 else 1]
        draw.circle(self.screen, COLOURS["moving"], pointer, int(_PIECE_R * px))
        draw.circle(self.screen, body, pointer, int(_BODY_R * px))
        if abs(code) == 2:
            draw.circle(
                self.screen,
                COLOURS["crown"],
                pointer,
                int(_CROWN_R * px),
                max(1, int(_CROWN_W * px)),
            )
            draw.circle(self.screen, COLOURS["crown"], pointer, int(_JEWEL_R * px))

    def wait_for_hop(
        self,
        board: np.ndarray,
        hops: Mapping[tuple[int, int], int],
        highlights: Highlights = Highlights(),
        flip: bool = False,
        status: str = "",
    ) -> int | None:
        """Runs the event loop until the user plays one of the hops; returns its value.

        ``hops`` maps (from square, to square) of each legal next hop to the value to
        return (an action). Returns :data:`UNDO` for ``u``, :data:`NEW_GAME` for ``n``,
        :data:`FLIP` for ``f`` (the
        caller flips and calls again), None when the window is closed. Illegal drops
        are ignored: the piece goes back and the loop goes on. Each wait for an event ends
        after :data:`EVENT_WAIT_MS`, so that Ctrl-C (KeyboardInterrupt) is not held up until
        the next event.
        """
        pick = _Pick()
        self._show(board, hops, highlights, flip, status, pick)
        while True:
            event = self.pygame.event.wait(EVENT_WAIT_MS)
            if event.type == self.pygame.NOEVENT:  # the wait timed out: nothing to redraw
                continue
            result = self._handle(event, hops, flip, pick)
            if result is not _Wait.WAIT:
                return result
            self._show(board, hops, highlights, flip, status, pick)

    def _show(
        self,
        board: np.ndarray,
        hops: Mapping[tuple[int, int], int],
        hl: Highlights,
        flip: bool,
        status: str,
        pick: _Pick,
    ) -> None:
        """Draws the board with the picked piece's targets, and the piece being dragged."""
        if pick.square is not None:
            targets = tuple(b for a, b in hops if a == pick.square)
            hl = replace(hl, selected=pick.square, targets=targets)
        shown = np.array(board, copy=True)
        if pick.dragging and pick.square is not None:
            shown[pick.square] = 0
        self._draw(shown, hl, flip, status)
        if pick.dragging and pick.square is not None:
            self._draw_dragged(int(board[pick.square]), pick.pointer)
        self.pygame.display.flip()

    def _handle(
        self, event: Any, hops: Mapping[tuple[int, int], int], flip: bool, pick: _Pick
    ) -> int | None | _Wait:
        """Updates the pick for one event; returns a result, or _Wait.WAIT to keep waiting."""
        pg = self.pygame
        if event.type == pg.QUIT:
            return None
        if event.type == pg.KEYDOWN:
            return self._key(event.key, pick)
        if event.type == pg.MOUSEMOTION:
            pick.pointer = tuple(event.pos)
        elif event.type == pg.MOUSEBUTTONDOWN and event.button == 1:
            return self._press(self._square(event.pos, flip), tuple(event.pos), hops, pick)
        elif event.type == pg.MOUSEBUTTONDOWN and event.button == 3:
            pick.square, pick.dragging = None, False
        elif event.type == pg.MOUSEBUTTONUP and event.button == 1 and pick.dragging:
            return self._release(self._square(event.pos, flip), hops, pick)
        return _Wait.WAIT

    def _key(self, key: int, pick: _Pick) -> int | None | _Wait:
        """Returns UNDO, NEW_GAME or FLIP for their keys; Escape drops the selection."""
        pg = self.pygame
        if key == pg.K_u:
            return UNDO
        if key == pg.K_n:
            return NEW_GAME
        if key == pg.K_f:
            return FLIP
        if key == pg.K_ESCAPE:
            pick.square, pick.dragging = None, False
        return _Wait.WAIT

    def _press(
        self, sq: int, pointer: tuple[int, int], hops: Mapping[tuple[int, int], int], pick: _Pick
    ) -> int | None | _Wait:
        """Handles a left press: a target of the picked piece plays; a piece with hops is picked."""
        if pick.square is not None and (pick.square, sq) in hops:
            return hops[(pick.square, sq)]
        pick.square = sq if any(a == sq for a, _ in hops) else None
        pick.dragging, pick.pointer = pick.square is not None, pointer
        return _Wait.WAIT

    def _release(
        self, sq: int, hops: Mapping[tuple[int, int], int], pick: _Pick
    ) -> int | None | _Wait:
        """Handles a left release after a press on a piece: a drop on a target plays."""
        pick.dragging = False
        if pick.square is not None and (pick.square, sq) in hops:
            return hops[(pick.square, sq)]
        if sq != pick.square:  # an illegal drop: the piece goes back, the selection too
            pick.square = None
        return _Wait.WAIT

    def _square(self, pos: tuple[int, int], flip: bool) -> int:
        """Returns the square under a mouse position (-1 off the playable squares)."""
        return square_at_pixel(pos[0], pos[1], self.geometry, self.square_px, flip)

    def close(self) -> None:
        """Closes the window."""
        self.pygame.display.quit()
