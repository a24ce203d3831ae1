"""The rules of the rest of the family, each on a position worked out by hand.

Frisian, Italian, Spanish and Portuguese, Czech, Turkish, Thai and Breakthrough: each test
draws its position, derives the legal moves from the rulebook sentence it cites (the articles
``damas_env/rules.py`` cites for the switch) and checks the EXACT set the engine lists; where
a contrast makes the point clearer, the same position under the rule switched off is checked
too. The expected moves were worked out on the diagram before the engine was asked.

Moves are written with every landing square (``33x22x11``), PDN numbers being the 0-based
squares plus one. Diagrams: ``w``/``b`` men, ``W``/``B`` kings, ``.`` an empty playable square;
White moves up the board. Neighbours of square n (up-left, up-right / down-left, down-right)::

    10x10 (Frisian):   rows 1-5, 11-15, ...: up n-5, n-4; down n+5, n+6
                       rows 6-10, 16-20, ...: up n-6, n-5; down n+4, n+5
                       orthogonal (Frisian captures): up n-10, down n+10, left n-1, right n+1
     8x8 dark (Czech, Thai): rows 1-4, 9-12, ...: up n-4, n-3; rows 5-8, 13-16, ...: up n-5, n-4
     8x8 mirrored (Italian, Spanish, Portuguese): the top-left square is played on:
                       rows 1-4, 9-12, ...: up n-5, n-4; rows 5-8, 13-16, ...: up n-4, n-3
     8x8 all squares (Turkish): up n-8, down n+8, left n-1, right n+1 (1-64, top row 1-8)
"""

from __future__ import annotations

import pytest

from damas_env import Colour, IllegalMoveError, Position, Ruleset, get_ruleset
from damas_env.engine import NO_RUNS
from damas_env.game import Game, Outcome, Reason
from damas_env.geometry import geometry
from damas_env.moves import move_text


def legal(fen: str, rules: Ruleset | str) -> set[str]:
    """Returns the legal moves of a position, each written with every landing square."""
    return {move_text(m, full_path=True) for m in Position.from_fen(fen, rules).legal_moves()}


def game_after(rules: Ruleset | str, fen: str, moves: list[str]) -> Game:
    """Returns a game from `fen` with `moves` played, checking it goes on before each."""
    game = Game(rules, fen)
    for move in moves:
        assert game.outcome() is None, f"game over before {move} at ply {game.ply}"
        game.push(move)
    return game


# =============================================================================================
# Frisian (Official Rules for Frisian Draughts, 2011)
# =============================================================================================
# Art. 11: the shot of the highest value must be made; a king is worth less than two men and
# more than one. The ruleset reads it as Lidraughts, py-draughts and dctl do, a king worth
# 1.99 men (``king_capture_weight="almost_two_men"``); at equal value a shot with a king
# before one with a man. pydraughts reads it as 1.5 men, and at equal value the most kings
# (``PYDRAUGHTS_READING``); the two part from three kings against five men on
# (test_frisian_readings_part_from_three_kings_against_five_men).
PYDRAUGHTS_READING = get_ruleset(
    "frisian", king_capture_weight="man_and_a_half", capture_tiebreaks=("most_kings", "with_king")
)


def test_frisian_a_king_is_worth_more_than_one_man() -> None:
    """33x22 takes a man (value 1), 46x37 a king (value 1.99): only 46x37. Under a count of
    pieces (International) both take one and both are legal."""
    # W:W33,46:B28,K41
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   b   .   .     26-30
    #     .   .   w   .   .   31-35
    #   .   .   .   .   .     36-40
    #     B   .   .   .   .   41-45
    #   w   .   .   .   .     46-50
    assert legal("W:W33,46:B28,K41", "frisian") == {"46x37"}
    assert legal("W:W33,46:B28,K41", "international") == {"33x22", "46x37"}


def test_frisian_two_men_are_worth_more_than_a_king() -> None:
    """33x22x11 takes two men (value 2), 46x37 a king (value 1.99): only 33x22x11."""
    # W:W33,46:B17,28,K41: as above with a black man on 17, behind 28 on the same diagonal.
    assert legal("W:W33,46:B17,28,K41", "frisian") == {"33x22x11"}


def test_frisian_two_kings_beat_three_men() -> None:
    """48x39x30x19 takes three men (value 3), 36x27x18 two kings (value 2 x 1.99 = 3.98):
    36x27x18. pydraughts' reading gets there through a tie (2 x 1.5 = 3, then the most
    kings); counting pieces would choose the three men."""
    # W:W36,48:B24,34,43,K22,K31
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   B   .   b   .   21-25
    #   .   .   .   .   .     26-30
    #     B   .   .   b   .   31-35
    #   w   .   .   .   .     36-40
    #     .   .   b   .   .   41-45
    #   .   .   w   .   .     46-50
    fen = "W:W36,48:B24,34,43,K22,K31"
    assert legal(fen, "frisian") == {"36x27x18"}
    assert legal(fen, PYDRAUGHTS_READING) == {"36x27x18"}
    assert legal(fen, "international") == {"48x39x30x19"}


def test_frisian_most_kings_comes_before_capturing_with_a_king() -> None:
    """The king on 45 takes three men, up the edge and along the top row (45x25x5x1: value 3;
    from 1 the king on 21 cannot be taken, 31 stands behind it); the man on 37 takes two kings
    (37x26x17: value 3.98, so the man captures). Under pydraughts' reading the values tie
    (3 and 3): the most kings decide before the king's own priority, so again the man; with
    the priorities swapped, the king."""
    # W:W37,K45:B2,15,35,K21,K31
    #     .   b   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   b   11-15
    #   .   .   .   .   .     16-20
    #     B   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     B   .   .   .   b   31-35
    #   .   w   .   .   .     36-40
    #     .   .   .   .   W   41-45
    #   .   .   .   .   .     46-50
    fen = "W:W37,K45:B2,15,35,K21,K31"
    assert legal(fen, "frisian") == {"37x26x17"}
    assert legal(fen, PYDRAUGHTS_READING) == {"37x26x17"}
    with_king_first = PYDRAUGHTS_READING.replace(capture_tiebreaks=("with_king", "most_kings"))
    assert legal(fen, with_king_first) == {"45x25x5x1"}


def test_frisian_readings_part_from_three_kings_against_five_men() -> None:
    """The king on 45 can take three kings and two men (value 3 x 1.99 + 2 = 7.97) or seven
    men (value 7). Read as 1.99 men a king, the kings and men; read as 1.5 (pydraughts),
    3 x 1.5 + 2 = 6.5 < 7, the seven men. Found by a random search over placements."""
    fen = "W:WK45:BK1,5,7,11,12,19,22-24,26,36,K41,K42,K47"
    ours = Position.from_fen(fen, "frisian").legal_moves()
    assert {
        (
            sum(abs(int(Position.from_fen(fen, "frisian").board[c])) == 2 for c in m.captures),
            len(m.captures),
        )
        for m in ours
    } == {(3, 5)}
    theirs = Position.from_fen(fen, PYDRAUGHTS_READING).legal_moves()
    assert {len(m.captures) for m in theirs} == {7} and all(
        abs(int(Position.from_fen(fen, "frisian").board[c])) == 1
        for m in theirs
        for c in m.captures
    )


def test_frisian_at_equal_value_the_king_captures() -> None:
    """The king on 46 takes the king on 47 along the bottom row (46x48: the man on 49 stops
    it there), the man on 32 takes the king on 27 (32x21): equal value, as many kings, so the
    king must capture."""
    # W:W32,49,K46:BK27,K47
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   B   .   .   .     26-30
    #     .   w   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   B   .   w   .     46-50
    fen = "W:W32,49,K46:BK27,K47"
    assert legal(fen, "frisian") == {"46x48"}
    assert legal(fen, get_ruleset("frisian").replace(capture_tiebreaks=())) == {
        "46x48",
        "32x21",
    }


# Art. 10: a king may make at most three non-capturing moves in a row while its side has men;
# then it may only capture, until another piece has moved. The rule lapses with only kings.
# W:W35,K46:BK6 (White's king shuttles 46-41-46, Black's king 6-1-6):
#     .   .   .   .   .    1-5
#   B   .   .   .   .      6-10
#     .   .   .   .   .   11-15
#   .   .   .   .   .     16-20
#     .   .   .   .   .   21-25
#   .   .   .   .   .     26-30
#     .   .   .   .   w   31-35
#   .   .   .   .   .     36-40
#     .   .   .   .   .   41-45
#   W   .   .   .   .     46-50
KING_AND_MAN = "W:W35,K46:BK6"
KING_41_STEPS = {"41-36", "41-46", "41-47", "41-37", "41-32", "41-28", "41-23", "41-19", "41-14"}


def test_frisian_king_may_not_make_a_fourth_move_in_a_row() -> None:
    """After 46-41, 41-46, 46-41 the king on 41 may not move again: only the man moves."""
    two = game_after("frisian", KING_AND_MAN, ["46-41", "6-1", "41-46", "1-6"])
    assert {str(m) for m in two.legal_moves()} >= {"46-41", "35-30"}  # a third move is allowed
    three = game_after("frisian", KING_AND_MAN, ["46-41", "6-1", "41-46", "1-6", "46-41", "6-1"])
    assert {str(m) for m in three.legal_moves()} == {"35-30"}


def test_frisian_position_carries_the_king_runs_and_plays_them_on() -> None:
    """A position holds each side's king run (square, moves in a row): played on from the
    start, or given, it allows the game's moves; the pieces alone allow the king a fourth."""
    moves = ["46-41", "6-1", "41-46", "1-6", "46-41", "6-1"]
    position = Position.from_fen(KING_AND_MAN, "frisian")
    for move in moves:
        position = position.play(move)
    game = game_after("frisian", KING_AND_MAN, moves)
    assert position == game.position and position.king_runs == ((40, 3), (0, 3))
    assert {str(m) for m in position.legal_moves()} == {"35-30"}
    given = Position("frisian", position.board, position.turn, ((40, 3), (0, 3)))
    assert given == position and hash(given) == hash(position)
    pieces_only = Position("frisian", position.board, position.turn)
    assert pieces_only != position and "41-46" in {str(m) for m in pieces_only.legal_moves()}
    assert position.play("35-30").king_runs == ((0, 0), (0, 3))  # a man moved: White's ends
    with pytest.raises(IllegalMoveError, match="king_move_limit"):
        position.play("41-46")
    with pytest.raises(IllegalMoveError, match="legal moves: 35-30"):
        position.play("41-40")  # not a move of the pieces either: the usual message


def test_king_runs_are_checked_and_kept_only_under_a_king_move_limit() -> None:
    board = Position.from_fen(KING_AND_MAN, "frisian").board
    with pytest.raises(ValueError, match="square"):
        Position("frisian", board, Colour.WHITE, ((50, 1), (0, 0)))
    with pytest.raises(ValueError, match="count"):
        Position("frisian", board, Colour.WHITE, ((45, -1), (0, 0)))
    with pytest.raises(TypeError, match="pairs"):
        Position("frisian", board, Colour.WHITE, (45, 1))  # type: ignore[arg-type]
    assert Position("frisian", board, Colour.WHITE, ((45, 0), (0, 0))).king_runs == NO_RUNS
    assert Position("international", board, Colour.WHITE, ((45, 3), (5, 1))).king_runs == NO_RUNS


def test_frisian_tired_king_may_still_capture() -> None:
    """Black's king steps to 11, on the king's file: 41 takes it orthogonally (31, 21 empty,
    11 taken, 1 free). A capture frees the king, and capturing is compulsory."""
    game = game_after("frisian", KING_AND_MAN, ["46-41", "6-1", "41-46", "1-6", "46-41", "6-11"])
    assert {str(m) for m in game.legal_moves()} == {"41x1"}


def test_frisian_king_move_limit_lapses_with_only_kings() -> None:
    """White has only its king: after three moves it may move a fourth time, along every
    diagonal from 41 (up to 10, the black man on 5 ends that diagonal)."""
    # W:WK46:B5,K6: as above without White's man, with a black man on 5.
    game = game_after("frisian", "W:WK46:B5,K6", ["46-41", "6-1", "41-46", "1-6", "46-41", "6-1"])
    assert {str(m) for m in game.legal_moves()} == KING_41_STEPS | {"41-10"}


def test_frisian_moving_another_piece_resets_the_king_move_limit() -> None:
    """46-41, 41-46, then the man 35-30, then 46-41, 41-46: two moves in a row since the man
    moved, so the king may move a third time, and not a fourth."""
    moves = ["46-41", "6-1", "41-46", "1-6", "35-30", "6-1", "46-41", "1-6", "41-46", "6-1"]
    game = game_after("frisian", KING_AND_MAN, moves)
    king = {"46-41", "46-37", "46-32", "46-28", "46-23", "46-19", "46-14", "46-10", "46-5"}
    assert {str(m) for m in game.legal_moves()} == king | {"30-24", "30-25"}
    game.push("46-41")
    game.push("1-6")
    assert {str(m) for m in game.legal_moves()} == {"30-24", "30-25"}


# Art. 13: two kings against one king are drawn after 7 moves each, one king against one king
# after 2 moves each, counted from the last capture or promotion.


def test_frisian_two_kings_against_one_drawn_after_seven_moves_each() -> None:
    """White's king on 46 goes round 46-41-37-46 (the one on 50 stays) and Black's goes 6-1-6,
    out of each other's reach and with no position a third time: the game goes on after 13
    plies and is drawn after the 14th."""
    # W:WK46,K50:BK6: the diagram above without the man on 35, with a white king on 50.
    white = ["46-41", "41-37", "37-46"] * 2 + ["46-41"]
    black = ["6-1", "1-6"] * 3 + ["6-1"]
    plies = [m for pair in zip(white, black, strict=True) for m in pair]
    game = game_after("frisian", "W:WK46,K50:BK6", plies[:13])
    assert game.outcome() is None
    game.push(plies[13])
    assert game.outcome() == Outcome(None, Reason.ENDGAME_RULE)


def test_frisian_one_king_against_one_drawn_after_two_moves_each() -> None:
    """One king each: drawn after 2 moves each (4 plies), not after 3 plies."""
    game = game_after("frisian", "W:WK46:BK6", ["46-41", "6-1", "41-37"])
    assert game.outcome() is None
    game.push("1-6")
    assert game.outcome() == Outcome(None, Reason.ENDGAME_RULE)


# =============================================================================================
# Italian (Federazione Italiana Dama, Regolamento tecnico)
# =============================================================================================
# Art. 6: captures are compulsory; among them (6.2) the most pieces; (6.3) then with a king
# rather than a man; (6.4) then the most kings; (6.5) then the one meeting a king first.
# Art. 5: men capture forward only and (5.4) may not capture kings; kings step one square.


def test_italian_start_position_on_the_turned_board() -> None:
    """Art. 2: the board is turned so that the single corner is on the right: the top-left
    square is played on (PDN 1), White's bottom-left square is not, its bottom-right is (32).
    From 21-24 (columns b, d, f, h) White's men step to 17-20, four men, seven moves; on the
    dark-square board (Czech) the same squares are columns a, c, e, g."""
    mirrored, dark = geometry(8, "mirrored"), geometry(8, "dark")
    assert (mirrored.square_at(0, 0), mirrored.square_at(7, 0), mirrored.square_at(7, 7)) == (
        0,
        -1,
        31,
    )
    assert (dark.square_at(0, 0), dark.square_at(7, 0)) == (-1, 28)
    turned = {"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"}
    for variant in ("italian", "spanish", "portuguese"):
        start = Position.start(variant)
        assert start.fen() == "W:W21-32:B1-12"
        assert {str(m) for m in start.legal_moves()} == turned
    assert {str(m) for m in Position.start("czech").legal_moves()} == {
        "21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20",
    }  # fmt: skip


def test_italian_most_pieces() -> None:
    """Art. 6.2: 30x21x14 takes two men, 32x23 one: only 30x21x14."""
    # W:W30,32:B18,26,28
    #   .   .   .   .      1-4
    #     .   .   .   .    5-8
    #   .   .   .   .      9-12
    #     .   .   .   .   13-16
    #   .   b   .   .     17-20
    #     .   .   .   .   21-24
    #   .   b   .   b     25-28
    #     .   w   .   w   29-32
    assert legal("W:W30,32:B18,26,28", "italian") == {"30x21x14"}


def test_italian_with_a_king() -> None:
    """Art. 6.3: the king 27x20 and the man 29x22 each take one man: the king must."""
    # W:W29,K27:B23,26
    #   .   .   .   .      1-4
    #     .   .   .   .    5-8
    #   .   .   .   .      9-12
    #     .   .   .   .   13-16
    #   .   .   .   .     17-20
    #     .   .   b   .   21-24
    #   .   b   W   .     25-28
    #     w   .   .   .   29-32
    assert legal("W:W29,K27:B23,26", "italian") == {"27x20"}
    assert legal("W:W29,K27:B23,26", get_ruleset("italian").replace(capture_tiebreaks=())) == {
        "27x20",
        "29x22",
    }


def test_italian_most_kings() -> None:
    """Art. 6.4: the king takes three pieces either way: 27x18x9x2 over 22 (king), 13, 5, or
    27x20x11x4 over 23, 15 (king), 7 (king). Two kings beat one, although the first shot
    meets its king sooner (art. 6.5 comes after 6.4)."""
    # W:WK27:B5,13,23,K7,K15,K22
    #   .   .   .   .      1-4
    #     b   .   B   .    5-8
    #   .   .   .   .      9-12
    #     b   .   B   .   13-16
    #   .   .   .   .     17-20
    #     .   B   b   .   21-24
    #   .   .   W   .     25-28
    #     .   .   .   .   29-32
    assert legal("W:WK27:B5,13,23,K7,K15,K22", "italian") == {"27x20x11x4"}


def test_italian_earliest_king() -> None:
    """Art. 6.5: 27x18x9 takes the king on 22 then the man on 13, 27x20x11 the man on 23 then
    the king on 15: as many pieces and kings, by the same king; the king met first decides."""
    # W:WK27:B13,23,K15,K22: the position above without 5 and 7.
    assert legal("W:WK27:B13,23,K15,K22", "italian") == {"27x18x9"}


def test_italian_earliest_king_compares_the_kings_in_order() -> None:
    """Art. 6.5 as the FID's examples read it (Alioto Domenico's position, in dctl's tests;
    Ed Gilbert's perft of "italian gilbert 3" in tests/data/perft.yaml needs the same reading):
    30x21x14x5 takes king 26, king 18, man 10; 30x23x16x7 takes king 27, man 20, king 12.
    Three pieces, two kings, by the king, the first king met at once in both: the second king,
    met sooner in 30x21x14x5, decides."""
    # W:WK30:B10,20,K12,K18,K26,K27
    #   .   .   .   .      1-4
    #     .   .   .   .    5-8
    #   .   b   .   B      9-12
    #     .   .   .   .   13-16
    #   .   B   .   b     17-20
    #     .   .   .   .   21-24
    #   .   B   B   .     25-28
    #     .   W   .   .   29-32
    assert legal("W:WK30:B10,20,K12,K18,K26,K27", "italian") == {"30x21x14x5"}


def test_italian_men_do_not_capture_kings() -> None:
    """Art. 5.4 ("la pedina non può prendere la dama"): the man on 30 may not take the king on
    26 although 21 is free; it steps to 27. A man on 26 it must take."""
    # W:W30:BK26   (rows 1-24 empty)
    #   .   B   .   .     25-28
    #     .   w   .   .   29-32
    assert legal("W:W30:BK26", "italian") == {"30-27"}
    assert legal("W:W30:B26", "italian") == {"30x21"}


# =============================================================================================
# Spanish and Portuguese (quantity, then quality)
# =============================================================================================
# The shot taking the most pieces is compulsory; among equal ones, the one taking the most
# kings. Nothing else: a king has no priority over a man. Men capture forward only.


@pytest.mark.parametrize("variant", ["spanish", "portuguese"])
def test_spanish_quantity_before_quality(variant: str) -> None:
    """30x21x14 takes two men, 32x23 one king: two pieces beat one king."""
    # W:W30,32:B18,26,K28   (rows 1-16 empty)
    #   .   b   .   .     17-20
    #     .   .   .   .   21-24
    #   .   b   .   B     25-28
    #     .   w   .   w   29-32
    assert legal("W:W30,32:B18,26,K28", variant) == {"30x21x14"}


@pytest.mark.parametrize("variant", ["spanish", "portuguese"])
def test_spanish_quality_among_equal_quantities(variant: str) -> None:
    """30x21 takes a man, 32x23 a king: one piece each, so the king."""
    # W:W30,32:B26,K28: the position above without 18.
    assert legal("W:W30,32:B26,K28", variant) == {"32x23"}


@pytest.mark.parametrize("variant", ["spanish", "portuguese"])
def test_spanish_no_priority_for_the_king(variant: str) -> None:
    """The flying king on 29 takes 22 and may stop on 19, 15, 12 or 8; the man 32x23 takes 28:
    one man each, no king taken, and the capturing king has no priority: all five."""
    # W:W32,K29:B22,28   (rows 1-20 empty)
    #     .   b   .   .   21-24
    #   .   .   .   b     25-28
    #     W   .   .   w   29-32
    assert legal("W:W32,K29:B22,28", variant) == {"29x19", "29x15", "29x12", "29x8", "32x23"}


# =============================================================================================
# Czech (Česká federace dámy: no majority rule, but a king that can capture must)
# =============================================================================================


def test_czech_king_captures_first() -> None:
    """The man on 32 could take two men (32x23x16), the king on 29 takes one (29x22: the man
    on 18 stops it right behind 25). A king that can capture must: only 29x22."""
    # W:W18,32,K29:B19,25,27
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   w   b   .   17-20
    #   .   .   .   .     21-24
    #     b   .   b   .   25-28
    #   W   .   .   w     29-32
    assert legal("W:W18,32,K29:B19,25,27", "czech") == {"29x22"}


def test_czech_men_choose_freely() -> None:
    """No king can capture: the men choose freely between two men (32x23x16) and one (30x21)."""
    # W:W18,30,32:B19,25,27: the man on 30 in place of the king on 29.
    assert legal("W:W18,30,32:B19,25,27", "czech") == {"32x23x16", "30x21"}


# =============================================================================================
# Turkish (Dama): all 64 squares, orthogonal moves and captures
# =============================================================================================


def test_turkish_men_move_forward_or_sideways_never_back() -> None:
    """Men step one square forward or sideways, never back or diagonally: 36 goes to 28, 35 or
    37 (not 44, 27, 29); Black's man on 1 goes down to 9 or right to 2."""
    # W:W36:B1
    #   b . . . . . . .    1-8
    #   . . . . . . . .    9-16
    #   . . . . . . . .   17-24
    #   . . . . . . . .   25-32
    #   . . . w . . . .   33-40
    #   . . . . . . . .   41-48  (rows 49-64 empty)
    assert legal("W:W36:B1", "turkish") == {"36-28", "36-35", "36-37"}
    assert legal("B:W36:B1", "turkish") == {"1-9", "1-2"}


def test_turkish_most_pieces() -> None:
    """The man on 50 takes 42 and 26 going up (50x34x18), the man on 55 takes 47 (55x39): the
    shot taking the most pieces is compulsory."""
    # W:W50,55:B26,42,47   (rows 1-16 and 57-64 empty)
    #   . . . . . . . .   17-24
    #   . b . . . . . .   25-32
    #   . . . . . . . .   33-40
    #   . b . . . . b .   41-48
    #   . w . . . . w .   49-56
    assert legal("W:W50,55:B26,42,47", "turkish") == {"50x34x18"}


def test_turkish_pieces_are_removed_one_by_one() -> None:
    """ "Pieces are removed immediately after being jumped." The king on 33 takes 35 (landing
    on 37), 29 going up (to 21), 20 going left (to 19), then goes down the c-file through 35's
    square, now empty, and takes 51 (to 59): four pieces. With the pieces left on the board
    until the move ends (FMJD's strike), 35 blocks the c-file and the shot stops at three."""
    # W:WK33:B20,29,35,51
    #   . . . . . . . .    1-8
    #   . . . . . . . .    9-16
    #   . . . b . . . .   17-24
    #   . . . . b . . .   25-32
    #   W . b . . . . .   33-40
    #   . . . . . . . .   41-48
    #   . . b . . . . .   49-56
    #   . . . . . . . .   57-64
    fen = "W:WK33:B20,29,35,51"
    assert legal(fen, "turkish") == {"33x37x21x19x59"}
    strike = get_ruleset("turkish").replace(turkish_strike=True)
    assert legal(fen, strike) == {"33x37x21x19", "33x37x21x18", "33x37x21x17"}


def test_turkish_capture_may_not_turn_back() -> None:
    """ "Within a multi-capture, turning 180 degrees between two captures is not allowed."
    The king on 36 takes 38 (to 39 or 40) or 34 (to 33); coming back along row 5 for the other
    piece would be a turn of 180 degrees, so each shot takes one piece."""
    # W:WK36:B34,38   (every other row empty)
    #   . b . W . b . .   33-40
    assert legal("W:WK36:B34,38", "turkish") == {"36x39", "36x40", "36x33"}
    reverse = get_ruleset("turkish").replace(capture_may_reverse=True)
    moves = Position.from_fen("W:WK36:B34,38", reverse).legal_moves()
    assert moves and all(len(m.captures) == 2 for m in moves)


# =============================================================================================
# Thai (Mak-hot): kings land right behind, captured pieces go at once
# =============================================================================================


def test_thai_king_lands_right_behind() -> None:
    """The flying king on 29 crosses 25 and 22 and takes 18: it stops on 15, right behind the
    piece, not on 11, 8 or 4 as an International king may (Brazilian: International rules
    on this board)."""
    # W:WK29:B18   (rows 1-16 empty)
    #     .   b   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   W   .   .   .     29-32
    assert legal("W:WK29:B18", "thai") == {"29x15"}
    assert legal("W:WK29:B18", "brazilian") == {"29x15", "29x11", "29x8", "29x4"}


def test_thai_taken_pieces_go_at_once() -> None:
    """ "Removal of the captured piece is immediate." The king on 18 takes 15 (to 11, right
    behind), then comes back down the same diagonal through 15's square, now empty, and its own,
    to take 25 (to 29); or the other way round. With the pieces left until the move ends, the
    taken piece blocks the way back and each shot takes one."""
    # W:WK18:B15,25   (rows 1-8 empty)
    #     .   .   .   .    9-12
    #   .   .   b   .     13-16
    #     .   W   .   .   17-20
    #   .   .   .   .     21-24
    #     b   .   .   .   25-28
    #   .   .   .   .     29-32
    assert legal("W:WK18:B15,25", "thai") == {"18x11x29", "18x29x11"}
    strike = get_ruleset("thai").replace(turkish_strike=True)
    assert legal("W:WK18:B15,25", strike) == {"18x11", "18x29"}


# =============================================================================================
# Breakthrough (Lidraughts): International rules, and the first king wins
# =============================================================================================


@pytest.mark.parametrize(
    ("fen", "move", "winner"),
    [("W:W7:B44", "7-1", Colour.WHITE), ("B:W7:B44", "44-50", Colour.BLACK)],
)
def test_breakthrough_first_king_wins(fen: str, move: str, winner: Colour) -> None:
    """The man crowning on the last row wins at once; under International rules the game
    goes on."""
    # W:W7:B44   (rows 1-5 and 11-40 empty)
    #   .   w   .   .   .      6-10
    #     .   .   .   b   .   41-45
    #   .   .   .   .   .     46-50
    game = game_after("breakthrough", fen, [move])
    assert game.outcome() == Outcome(winner, Reason.FIRST_KING)
    assert game.legal_moves() == []
    assert game_after("international", fen, [move]).outcome() is None
