"""Renderers: text board, RGB pixels, SVG structure and the pygame window's mouse play."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from damas_env import Position, get_ruleset
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


def empty(board_size: int) -> np.ndarray:
    return np.zeros(board_size * board_size // 2, dtype=np.int8)


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


def post(pygame: Any, kind: str, sq: int, flip: bool = False) -> None:
    """Posts a left-button mouse event at the centre of a square."""
    pos = square_centre(sq, 8, PX, flip)
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
