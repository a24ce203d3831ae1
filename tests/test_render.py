"""Renderers: text board, RGB pixels, SVG structure and the pygame window's mouse play."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from damas_env import Position, draughts_v0, get_ruleset
from damas_env.geometry import LAYOUTS, Geometry, geometry
from damas_env.render import (
    COLOURS,
    FLIP,
    PIECE_COLOURS,
    UNDO,
    Highlights,
    PygameBoard,
    ansi,
    position_svg,
    rgb_array,
    square_at_pixel,
    square_centre,
    svg,
)

ENGLISH_START = """\
   a  b  c  d  e  f  g  h
8     b     b     b     b     1-4
7  b     b     b     b        5-8
6     b     b     b     b    9-12
5  .     .     .     .      13-16
4     .     .     .     .   17-20
3  w     w     w     w      21-24
2     w     w     w     w   25-28
1  w     w     w     w      29-32
   a  b  c  d  e  f  g  h
black to move"""


def empty(board_size: int | Geometry) -> np.ndarray:
    squares = board_size.squares if isinstance(board_size, Geometry) else board_size**2 // 2
    return np.zeros(squares, dtype=np.int8)


def pixel(image: np.ndarray, x: int, y: int) -> tuple[int, ...]:
    return tuple(int(c) for c in image[y, x])


# --- ansi -----------------------------------------------------------------------------------


def test_ansi_english_start_position() -> None:
    pos = Position.start("english")
    text = ansi(pos.board, 8, colour_names=pos.rules.colour_names, turn=pos.turn)
    assert text == ENGLISH_START


def test_ansi_marks_kings_captures_last_move_and_targets() -> None:
    board = empty(8)
    board[[17, 30]] = 1, 2  # white man mid-capture on 18, white king on 31
    board[[13, 1]] = -2, -1  # red king being taken on 14, red man on 2
    hl = Highlights(last_move=(21, 17), captured=(13,), moving=17, targets=(8,))
    lines = ansi(board, 8, hl, colour_names=("white", "red"), turn=0).splitlines()
    assert lines[1] == "8     .     r     .     .     1-4"  # d8 is PDN 2
    assert lines[3] == "6     *     .     .     .    9-12"
    assert lines[4] == "5  .     X     .     .      13-16"
    assert lines[5] == "4     .    (w)    .     .   17-20"
    assert lines[6] == "3  .    [.]    .     .      21-24"
    assert lines[8] == "1  .     .     W     .      29-32"
    assert lines[-1] == "white to move; capture in progress 22x18"


def test_ansi_status_writes_steps_and_captures_in_pdn() -> None:
    board = empty(8)
    step = ansi(board, 8, Highlights(last_move=(31, 27)), colour_names=("white", "red"), turn=1)
    assert step.splitlines()[-1] == "red to move; last move 32-28"
    jumps = ansi(board, 8, Highlights(last_move=(27, 18, 9)), turn=1)
    assert jumps.splitlines()[-1] == "black to move; last move 28x19x10"
    jump = ansi(board, 8, Highlights(last_move=(27, 18)), turn=1)
    assert jump.endswith("last move 28x19")
    flying = Highlights(last_move=(27, 18), last_capture=False)  # a flying king's step
    assert ansi(board, 8, flying).splitlines()[-1] == "last move 28-19"


def test_ansi_flip_turns_the_board_round() -> None:
    lines = ansi(Position.start("english").board, 8, flip=True).splitlines()
    assert lines[0] == "   h  g  f  e  d  c  b  a"
    assert lines[1] == "1     w     w     w     w   32-29"
    assert lines[8] == "8  b     b     b     b        4-1"


@pytest.mark.parametrize("board_size", [10, 12])
def test_ansi_large_boards_have_two_digit_ranks(board_size: int) -> None:
    lines = ansi(empty(board_size), board_size).splitlines()
    assert len(lines) == board_size + 2
    assert lines[1].startswith(f"{board_size} ")
    assert lines[board_size].startswith(" 1 ")
    assert lines[board_size].endswith(f"{board_size * board_size // 2}")


# --- drawing geometry -----------------------------------------------------------------------


@pytest.mark.parametrize("board_size", [8, 10, 12])
@pytest.mark.parametrize("flip", [False, True])
def test_square_at_pixel_inverts_square_centre(board_size: int, flip: bool) -> None:
    squares = board_size * board_size // 2
    for sq in range(squares):
        x, y = square_centre(sq, board_size, 30, flip)
        assert square_at_pixel(x, y, board_size, 30, flip) == sq
        assert square_at_pixel(x, y, board_size, 30, not flip) == squares - 1 - sq
    assert square_at_pixel(5, 5, board_size, 30, flip) == -1  # the top-left corner is light
    assert square_at_pixel(-1, 5, board_size, 30, flip) == -1
    assert square_at_pixel(5, board_size * 30, board_size, 30, flip) == -1


def test_square_centre_of_pdn_1_and_flip() -> None:
    assert square_centre(0, 8, 48) == (72, 24)  # row 0, column 1
    assert square_centre(0, 8, 48, flip=True) == (6 * 48 + 24, 7 * 48 + 24)


# --- rgb_array ------------------------------------------------------------------------------


@pytest.mark.parametrize(("board_size", "px"), [(8, 48), (10, 48), (12, 20)])
def test_rgb_array_shape_and_dtype(board_size: int, px: int) -> None:
    image = rgb_array(empty(board_size), board_size, square_px=px)
    assert image.shape == (board_size * px, board_size * px, 3)
    assert image.dtype == np.uint8


def test_rgb_array_square_and_piece_colours() -> None:
    board = empty(10)
    board[30] = 1
    image = rgb_array(board, 10)
    assert pixel(image, *square_centre(30, 10, 48)) == PIECE_COLOURS["white"]
    assert pixel(image, *square_centre(31, 10, 48)) == COLOURS["dark"]
    assert pixel(image, 24, 24) == COLOURS["light"]
    assert image.flags.writeable  # the caller owns the frame


def test_rgb_array_flip_moves_the_piece_to_the_rotated_square() -> None:
    board = empty(8)
    board[31] = -1  # bottom row, column 6
    flipped = rgb_array(board, 8, flip=True)
    assert pixel(flipped, 1 * 48 + 24, 0 * 48 + 24) == PIECE_COLOURS["black"]
    assert pixel(flipped, 6 * 48 + 24, 7 * 48 + 24) == COLOURS["dark"]
    assert np.array_equal(flipped, rgb_array(board, 8)[::-1, ::-1])


def test_rgb_array_king_differs_from_man_at_the_centre() -> None:
    board = empty(8)
    board[[20, 21]] = 1, 2
    image = rgb_array(board, 8)
    man, king = (pixel(image, *square_centre(sq, 8, 48)) for sq in (20, 21))
    assert man == PIECE_COLOURS["white"]
    assert king == COLOURS["crown"]


def test_rgb_array_colour_names_pick_piece_colours() -> None:
    board = empty(8)
    board[0] = -1
    image = rgb_array(board, 8, colour_names=("white", "red"))
    assert pixel(image, *square_centre(0, 8, 48)) == PIECE_COLOURS["red"]


def test_rgb_array_marks_last_move_capture_moving_piece_and_targets() -> None:
    board = empty(8)
    board[[17, 13]] = 1, -1
    hl = Highlights(last_move=(21, 17), captured=(13,), moving=17, targets=(8, 10))
    image = rgb_array(board, 8, hl)

    def corner(sq: int) -> tuple[int, ...]:
        x, y = square_centre(sq, 8, 48)
        return pixel(image, x - 22, y - 22)

    assert pixel(image, *square_centre(21, 8, 48)) == COLOURS["last_move"]  # empty origin
    assert corner(17) == COLOURS["last_move"]  # under the moving piece
    assert corner(13) == COLOURS["captured"]
    x, y = square_centre(17, 8, 48)
    assert pixel(image, x + 21, y) == COLOURS["moving"]  # the ring round the moving piece
    assert pixel(image, *square_centre(8, 8, 48)) == COLOURS["target"]
    assert pixel(image, *square_centre(9, 8, 48)) == COLOURS["dark"]


def test_rgb_array_selected_square_is_tinted() -> None:
    board = empty(8)
    board[22] = 1
    image = rgb_array(board, 8, Highlights(selected=22))
    x, y = square_centre(22, 8, 48)
    assert pixel(image, x - 22, y - 22) == COLOURS["selected"]


# --- svg ------------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def test_svg_parses_and_has_one_circle_per_piece() -> None:
    pos = Position.start("international")
    root = ET.fromstring(svg(pos.board, 10))
    pieces = [c for c in root.iter(f"{SVG}circle") if "piece" in c.get("class", "")]
    assert len(pieces) == 40
    assert sum("white" in c.get("class", "") for c in pieces) == 20
    numbers = sorted(int(t.text or 0) for t in root.iter(f"{SVG}text"))
    assert numbers == list(range(1, 51))
    assert root.get("width") == "400"


def test_svg_marks_kings_captures_moving_and_targets() -> None:
    board = empty(8)
    board[[17, 13, 30]] = 1, -1, 2
    hl = Highlights(last_move=(21, 17), captured=(13,), moving=17, targets=(8,))
    root = ET.fromstring(svg(board, 8, hl, flip=True))
    classes = [e.get("class", "") for e in root.iter() if e.get("class")]
    assert sum(c.startswith("piece") for c in classes) == 3
    assert "piece white king" in classes and "piece black man captured" in classes
    assert {"crown", "moving", "target", "cross"} <= set(classes)


def test_position_svg_uses_the_ruleset_colours() -> None:
    rules = get_ruleset("english", colour_names=("white", "red"))
    text = position_svg(Position.start(rules))
    ET.fromstring(text)
    assert 'class="piece red man"' in text
    assert "#{:02x}{:02x}{:02x}".format(*PIECE_COLOURS["red"]) in text


def test_render_module_does_not_import_pygame() -> None:
    code = "import sys, damas_env.render; assert 'pygame' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pygame_board_names_the_install_command_when_pygame_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match="pip install pygame"):
        PygameBoard(8)


# --- layouts: mirrored (Italian, Spanish, Portuguese) and all squares (Turkish) ------------

MIRRORED, ALL = geometry(8, "mirrored"), geometry(8, "all")

ITALIAN_START = """\
   a  b  c  d  e  f  g  h
8  b     b     b     b        1-4
7     b     b     b     b     5-8
6  b     b     b     b       9-12
5     .     .     .     .   13-16
4  .     .     .     .      17-20
3     w     w     w     w   21-24
2  w     w     w     w      25-28
1     w     w     w     w   29-32
   a  b  c  d  e  f  g  h
white to move"""


def test_ansi_mirrored_board_has_square_1_in_the_top_left_corner() -> None:
    pos = Position.start("italian")
    assert pos.engine.geometry is MIRRORED
    assert ansi(pos.board, MIRRORED, turn=pos.turn) == ITALIAN_START
    lines = ansi(pos.board, MIRRORED, flip=True).splitlines()
    assert lines[1] == "1  w     w     w     w      32-29"  # turned round: 32 top left


def test_ansi_turkish_board_shows_all_64_squares() -> None:
    pos = Position.start("turkish")
    lines = ansi(pos.board, pos.engine.geometry, turn=pos.turn).splitlines()
    assert lines[1] == "8  .  .  .  .  .  .  .  .     1-8"
    assert lines[2] == "7  b  b  b  b  b  b  b  b    9-16"
    assert lines[8] == "1  .  .  .  .  .  .  .  .   57-64"
    cells = "".join(line[3:27] for line in lines[1:9])
    assert cells.count(".") + cells.count("w") + cells.count("b") == 64
    flipped = ansi(pos.board, ALL, flip=True).splitlines()
    assert flipped[1].endswith("64-57") and flipped[8].endswith("8-1")


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ((41, 33), "42-34"),  # a man's step up
        ((40, 41), "41-42"),  # sideways
        ((40, 42), "41x43"),  # a capture along the row
        ((40, 42, 26), "41x43x27"),
    ],
)
def test_ansi_status_tells_turkish_steps_from_captures(path: tuple[int, ...], text: str) -> None:
    status = ansi(empty(ALL), ALL, Highlights(last_move=path)).splitlines()[-1]
    assert status == f"last move {text}"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("board_size", [8, 10])
@pytest.mark.parametrize("flip", [False, True])
def test_square_at_pixel_inverts_square_centre_on_every_layout(
    layout: str, board_size: int, flip: bool
) -> None:
    geo = geometry(board_size, layout)
    for sq in range(geo.squares):
        x, y = square_centre(sq, geo, 30, flip)
        assert square_at_pixel(x, y, geo, 30, flip) == sq
        assert square_at_pixel(x - 14, y + 14, geo, 30, flip) == sq  # near a corner
        assert square_at_pixel(x, y, geo, 30, not flip) == geo.squares - 1 - sq
    played = sum(square_at_pixel(c * 30 + 1, r * 30 + 1, geo, 30, flip) >= 0
                 for r in range(board_size) for c in range(board_size))  # fmt: skip
    assert played == geo.squares


def test_mirrored_top_left_cell_is_playable_and_dark_cells_are_its_squares() -> None:
    assert square_at_pixel(5, 5, MIRRORED, 30) == 0
    assert square_at_pixel(35, 5, MIRRORED, 30) == -1  # b8 is light
    assert square_centre(0, MIRRORED, 48) == (24, 24)
    assert square_centre(31, MIRRORED, 48) == (7 * 48 + 24, 7 * 48 + 24)  # h1
    assert square_at_pixel(5, 5, ALL, 30) == 0 and square_at_pixel(35, 5, ALL, 30) == 1


def test_rgb_array_mirrored_board_colours_the_top_left_square_dark() -> None:
    board = empty(MIRRORED)
    board[1] = -1  # c8
    image = rgb_array(board, MIRRORED)
    assert pixel(image, 24, 24) == COLOURS["dark"]  # a8: square 1, empty
    assert pixel(image, 48 + 24, 24) == COLOURS["light"]  # b8
    assert pixel(image, 2 * 48 + 24, 24) == PIECE_COLOURS["black"]
    assert np.array_equal(rgb_array(board, MIRRORED, flip=True), image[::-1, ::-1])


def test_rgb_array_turkish_board_is_all_playable_with_lines_between_squares() -> None:
    pos = Position.start("turkish")
    image = rgb_array(pos.board, ALL)
    assert image.shape == (8 * 48, 8 * 48, 3)
    centres = [pixel(image, c * 48 + 24, r * 48 + 24) for r in range(8) for c in range(8)]
    assert centres.count(COLOURS["dark"]) == 32  # the empty squares: no light square
    assert centres.count(PIECE_COLOURS["white"]) == centres.count(PIECE_COLOURS["black"]) == 16
    assert pixel(image, 48, 10) == pixel(image, 47, 10) == COLOURS["grid"]
    assert pixel(image, 3, 10) == COLOURS["dark"]
    assert np.array_equal(rgb_array(pos.board, ALL, flip=True), image[::-1, ::-1])


def svg_squares(text: str) -> list[ET.Element]:
    return [r for r in ET.fromstring(text).iter(f"{SVG}rect") if r.get("class") == "square"]


def test_svg_mirrored_board_starts_with_square_1_top_left() -> None:
    pos = Position.start("spanish")
    text = svg(pos.board, pos.engine.geometry)
    squares = svg_squares(text)
    assert len(squares) == 32 and (squares[0].get("x"), squares[0].get("y")) == ("0", "0")
    assert len([c for c in ET.fromstring(text).iter(f"{SVG}circle")]) == 24
    assert position_svg(pos) == text


def test_svg_turkish_board_has_64_numbered_squares_with_lines() -> None:
    pos = Position.start("turkish")
    root = ET.fromstring(svg(pos.board, ALL))
    assert len(svg_squares(svg(pos.board, ALL))) == 64
    assert sorted(int(t.text or 0) for t in root.iter(f"{SVG}text")) == list(range(1, 65))
    pieces = [c for c in root.iter(f"{SVG}circle") if "piece" in c.get("class", "")]
    assert len(pieces) == 32
    assert all(r.get("stroke") for r in svg_squares(svg(pos.board, ALL)))
    assert not any(r.get("stroke") for r in svg_squares(svg(empty(8), 8)))


#: A generous sans-serif digit, in ems: its advance and its height.
DIGIT_EM, CAP_EM = 0.64, 0.75


def _number_box(text: ET.Element) -> tuple[float, float, float, float]:
    """Returns the box (left, top, right, bottom) a square's number may cover."""
    x, y, size = (float(text.get(k, 0)) for k in ("x", "y", "font-size"))
    return x, y - CAP_EM * size, x + len(text.text or "") * DIGIT_EM * size, y


def _gap(box: tuple[float, float, float, float], piece: ET.Element) -> float:
    """Returns how far a box lies outside a piece's disc, its rim included (negative: over)."""
    cx, cy, r, rim = (float(piece.get(k, 0)) for k in ("cx", "cy", "r", "stroke-width"))
    dx = max(box[0] - cx, 0.0, cx - box[2])
    dy = max(box[1] - cy, 0.0, cy - box[3])
    return float(np.hypot(dx, dy)) - r - rim / 2


@pytest.mark.parametrize(
    ("variant", "px"),
    [("turkish", 40), ("turkish", 24), ("international", 32), ("spanish", 40), ("canadian", 26)],
)
def test_svg_square_numbers_are_not_under_pieces(variant: str, px: int) -> None:
    """Each square's number lies in its square and clear of every piece, on a board full of
    men and kings (the Turkish board numbers all 64 squares, and pieces stand on half)."""
    geo = Position.start(variant).engine.geometry
    board = np.resize(np.array([1, -2, -1, 2], dtype=np.int8), geo.squares)
    root = ET.fromstring(svg(board, geo, square_px=px))
    squares = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "square"]
    pieces = [c for c in root.iter(f"{SVG}circle") if "piece" in c.get("class", "")]
    for square, text in zip(squares, root.iter(f"{SVG}text"), strict=True):
        box = _number_box(text)
        x0, y0 = float(square.get("x", 0)), float(square.get("y", 0))
        assert x0 < box[0] and y0 < box[1] and box[2] < x0 + px and box[3] < y0 + px, text.text
        assert min(_gap(box, piece) for piece in pieces) > 0, text.text


@pytest.mark.parametrize("variant", ["italian", "turkish", "frisian"])
def test_the_env_draws_its_ruleset_layout(variant: str) -> None:
    start = Position.start(variant)
    geo = start.engine.geometry
    env = draughts_v0.raw_env(variant, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == ansi(start.board, geo, turn=start.turn)
    assert env._repr_svg_() == svg(start.board, geo)
    env = draughts_v0.raw_env(variant, render_mode="rgb_array")
    env.reset(seed=0)
    assert np.array_equal(env.render(), rgb_array(start.board, geo))


# --- pygame ---------------------------------------------------------------------------------

PX = 32


@pytest.fixture(scope="module")
def window() -> Iterator[PygameBoard]:
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    pytest.importorskip("pygame")
    board = PygameBoard(8, square_px=PX, caption="test")
    yield board
    board.close()


@pytest.fixture
def pygame(window: PygameBoard) -> Any:
    """Returns the pygame module with an empty event queue."""
    window.pygame.event.clear()
    return window.pygame


def post(pygame: Any, kind: str, sq: int, flip: bool = False, board: int | Geometry = 8) -> None:
    """Posts a left-button mouse event at the centre of a square."""
    pos = square_centre(sq, board, PX, flip)
    types = {"down": pygame.MOUSEBUTTONDOWN, "up": pygame.MOUSEBUTTONUP}
    if kind == "move":
        pygame.event.post(
            pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(1, 0, 0))
        )
    else:
        pygame.event.post(pygame.event.Event(types[kind], pos=pos, button=1))


def quit_later(pygame: Any) -> None:
    """Posts QUIT last, so a loop that misses the hop returns None instead of hanging."""
    pygame.event.post(pygame.event.Event(pygame.QUIT))


START = Position.start("english").board
HOPS = {(8, 12): 100, (8, 13): 101, (9, 13): 102, (9, 14): 103, (11, 15): 107}


def test_draw_shows_board_and_status(window: PygameBoard, pygame: Any) -> None:
    window.draw(START, Highlights(last_move=(22, 18)), status="black to move")
    surface = pygame.display.get_surface()
    assert surface.get_size() == (8 * PX, 8 * PX + window.status_px)
    x, y = square_centre(0, 8, PX)
    assert tuple(surface.get_at((x, y)))[:3] == PIECE_COLOURS["black"]
    assert tuple(surface.get_at((1, 8 * PX + 1)))[:3] == COLOURS["status"]


def test_drag_plays_a_legal_hop(window: PygameBoard, pygame: Any) -> None:
    post(pygame, "down", 9)
    post(pygame, "move", 13)
    post(pygame, "up", 14)
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS) == 103


def test_dragging_shows_the_targets_and_the_piece_under_the_pointer(
    window: PygameBoard,
    pygame: Any,
) -> None:
    post(pygame, "down", 9)
    post(pygame, "move", 20)
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS) is None
    surface = pygame.display.get_surface()

    def at(sq: int) -> tuple[int, ...]:
        return tuple(surface.get_at(square_centre(sq, 8, PX)))[:3]

    assert at(13) == at(14) == COLOURS["target"]
    assert at(9) == COLOURS["selected"]  # the picked piece left its square
    assert at(20) == PIECE_COLOURS["black"]  # and follows the pointer


def test_illegal_drop_is_ignored_then_a_legal_drag_plays(
    window: PygameBoard,
    pygame: Any,
) -> None:
    post(pygame, "down", 9)
    post(pygame, "up", 17)  # two rows down: not a hop
    post(pygame, "down", 10)  # a piece with no hops cannot be picked
    post(pygame, "up", 14)
    post(pygame, "down", 8)
    post(pygame, "up", 12)
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS) == 100


def test_click_then_click_plays(window: PygameBoard, pygame: Any) -> None:
    post(pygame, "down", 11)
    post(pygame, "up", 11)
    post(pygame, "down", 15)
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS, Highlights(last_move=(22, 18))) == 107


def test_flip_maps_mouse_to_the_rotated_squares(
    window: PygameBoard,
    pygame: Any,
) -> None:
    post(pygame, "down", 9, flip=True)
    post(pygame, "up", 13, flip=True)
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS, flip=True) == 102
    pygame.event.clear()
    post(pygame, "down", 31 - 9)  # the same pixels on an unflipped board
    post(pygame, "up", 31 - 13)
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS, flip=True) == 102


def test_keys_and_closing(window: PygameBoard, pygame: Any) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_u))
    assert window.wait_for_hop(START, HOPS) == UNDO
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_f))
    assert window.wait_for_hop(START, HOPS) == FLIP
    quit_later(pygame)
    assert window.wait_for_hop(START, HOPS) is None


def test_a_turkish_board_is_drawn_and_played_by_mouse(
    window: PygameBoard, pygame: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(window, "geometry", ALL)  # the same window size as 8x8 dark
    start = Position.start("turkish").board
    window.draw(start)
    surface = pygame.display.get_surface()
    assert tuple(surface.get_at(square_centre(0, ALL, PX)))[:3] == COLOURS["dark"]  # a8
    assert tuple(surface.get_at(square_centre(9, ALL, PX)))[:3] == PIECE_COLOURS["black"]  # b7
    hops = {(41, 33): 1, (41, 40): 2, (40, 32): 3}
    post(pygame, "down", 41, board=ALL)  # b3
    post(pygame, "up", 40, board=ALL)  # a3: sideways, a square no dark layout plays on
    quit_later(pygame)
    assert window.wait_for_hop(start, hops) == 2


def test_pygame_board_takes_a_geometry() -> None:
    pytest.importorskip("pygame")
    code = (
        "import os; os.environ['SDL_VIDEODRIVER'] = 'dummy'\n"
        "from damas_env.geometry import geometry\n"
        "from damas_env.render import PygameBoard\n"
        "board = PygameBoard(geometry(10, 'mirrored'), square_px=10)\n"
        "assert board.board_size == 10\n"
        "assert board.screen.get_size() == (100, 100 + board.status_px)\n"
        "assert board._square((5, 5), False) == 0 and board._square((15, 5), False) == -1\n"
        "board.close()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
