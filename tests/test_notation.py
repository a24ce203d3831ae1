"""Notation: FEN, move strings and PDN games, and their errors."""

import random

import numpy as np
import pytest

from damas_env import IllegalMoveError, NotationError, Position
from damas_env.game import Game
from damas_env.notation import format_fen, format_move, parse_fen, read_pdn, write_pdn


def test_fen_ranges_kings_and_round_trip() -> None:
    board, turn = parse_fen("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29", 8)
    assert turn == 1
    assert board[17] == 1 and board[9] == 2 and board[11] == -1 and board[21] == -2
    assert format_fen(board, turn) == "B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29".replace(
        "W18,24,27,28,K10,K15", "WK10,K15,18,24,27,28"
    ).replace("B12,16,20,K22,K25,K29", "B12,16,20,K22,K25,K29")
    assert parse_fen(format_fen(board, turn), 8)[0].tolist() == board.tolist()


def test_fen_accepts_section_order_case_and_trailing_period() -> None:
    a, _ = parse_fen("w:b1-3:w30-32.", 8)
    b, _ = parse_fen("W:W30,31,32:B1,2,3", 8)
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("X:W1:B2", "expected 'W:W<white pieces>"),
        ("W:W1:B1", "square 1 is given twice"),
        ("W:W51:B1", "square 51 is not on the board"),
        ("W:W5-3:B1", "runs backwards"),
        ("W:Wa:B1", "'a' is not a square"),
        ("W:W1:W2", "must start with W or B once"),
        ("W:W1", "expected"),
    ],
)
def test_bad_fens(fen: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_fen(fen, 10)


def test_from_fen_needs_the_ruleset() -> None:
    # An English FEN (squares 1-32) is also a legal International one, on other squares.
    english_fen = "W:W22:B18"
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'rules'"):
        Position.from_fen(english_fen)  # type: ignore[call-arg]
    english = Position.from_fen(english_fen, "english")
    international = Position.from_fen(english_fen, rules="international")
    assert english.fen() == international.fen() == english_fen
    assert [format_move(m) for m in english.legal_moves()] == ["22x15"]
    assert [format_move(m) for m in international.legal_moves()] == ["22x13"]


def test_move_strings_and_full_path_when_ambiguous() -> None:
    # English king on 20 with black men on 8, 15, 16, 23, 24: two captures go from 20 to 4
    # taking different men, and one goes round back to 20.
    pos = Position.from_fen("W:WK20:B8,15,16,23,24", "english")
    legal = pos.legal_moves()
    names = {format_move(m, legal) for m in legal}
    assert names == {"20x11x4", "20x27x18x11x4", "20x11x18x27x20"}
    # Either route round the loop names the same (merged) move.
    assert pos.find_move("20x27x18x11x20") == pos.find_move("20x11x18x27x20")
    assert len(pos.capture_routes()) == 4 and len(legal) == 3
    with pytest.raises(IllegalMoveError, match="'20x4' is ambiguous"):
        pos.play("20x4")


def test_parse_move_errors_name_the_problem() -> None:
    pos = Position.start("english")
    with pytest.raises(NotationError, match="bad move 'hello'"):
        pos.play("hello")
    with pytest.raises(NotationError, match="square 33 is not on the board"):
        pos.play("33-29")
    with pytest.raises(IllegalMoveError, match="'22-18' is not legal.*legal moves: 9-13"):
        pos.play("22-18")
    assert pos == Position.start("english")


def test_pdn_read_write_round_trip() -> None:
    text = """[Event "Test"]
[GameType "21"]
[Result "*"]

1. 11-15 {a comment} 23-19 2. 8-11 (2. 9-14 22-17) 22-17 $1
3. 9-13 17x10 *
"""
    games = read_pdn(text)
    assert len(games) == 1
    assert games[0].moves == ["11-15", "23-19", "8-11", "22-17", "9-13", "17x10"]
    assert games[0].tags["Event"] == "Test"
    again = read_pdn(write_pdn(games[0]))[0]
    assert again.moves == games[0].moves and again.tags == games[0].tags


def test_pdn_errors_give_line_numbers() -> None:
    with pytest.raises(NotationError, match="PDN line 1: bad tag"):
        read_pdn('[Event "x]\n1. 11-15 *')
    with pytest.raises(NotationError, match="PDN line 3: unexpected 'Nf3'"):
        read_pdn('[Event "x"]\n\n1. 11-15 Nf3 *')


@pytest.mark.parametrize("variant", ["english", "international", "russian"])
def test_game_pdn_round_trip_reaches_same_position(variant: str) -> None:
    rng = random.Random(7)
    game = Game(variant)
    for _ in range(60):
        legal = game.legal_moves()
        if not legal:
            break
        game.push(rng.choice(legal))
    text = game.to_pdn(Event="unit test")
    again = Game.from_pdn(text)
    assert again.position == game.position and again.moves == game.moves
    assert "x" in " ".join(read_pdn(text)[0].moves)  # the line has captures in it


def test_pdn_illegal_move_names_its_number() -> None:
    with pytest.raises(IllegalMoveError, match=r"PDN move 2: move '11-15' is not legal"):
        Game.from_pdn('[GameType "21"]\n1. 11-15 11-15 *')


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("W:W1:B13", "white man on square 1 stands on its crowning row"),
        ("B:W13:B31", "black man on square 31 stands on its crowning row"),
    ],
)
def test_men_on_their_crowning_row_are_refused(fen: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Position.from_fen(fen, "english")
    assert Position.from_fen(fen.replace("W1", "WK1").replace("B31", "BK31"), "english")
