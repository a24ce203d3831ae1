"""Every rule sentence of the three seed documents, as a test on a drawn position.

The seeds are ``shared/seeds/000_*.txt`` (Portuguese, International draughts 10x10),
``002_*.txt`` (Dutch, checkers on a game website) and ``004_*.txt`` (Spanish, English draughts);
``shared/RULES.md`` says how we read them. Each test quotes its sentence (original language,
then English) and checks the EXACT set of legal moves in PDN notation and, where the sentence
is about what a move does, the exact FEN after it. The expected moves were worked out by hand
from the rules, not copied from the engine.

PDN numbering: dark squares 1..S, left to right and top to bottom as White sees the board.
White starts on the high numbers and moves up, Black on the low numbers and moves down.
Diagrams: ``w``/``b`` men, ``W``/``B`` kings, ``.`` an empty dark square; the numbers on the
right are the squares of each row::

    10x10 neighbours of n: rows 1-5, 11-15, ...: up n-5, n-4; down n+5, n+6
                           rows 6-10, 16-20, ...: up n-6, n-5; down n+4, n+5
     8x8  neighbours of n: rows 1-4, 9-12, ...:   up n-4, n-3; down n+4, n+5
                           rows 5-8, 13-16, ...:  up n-5, n-4; down n+3, n+4
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path

import pytest

from damas_env import Colour, IllegalMoveError, NotationError, Position, Ruleset, get_ruleset
from damas_env.game import Game, Outcome, Reason
from damas_env.notation import format_move

RULES_DIR = Path(__file__).resolve().parent.parent / "damas_env" / "presets"

INTERNATIONAL = get_ruleset("international")  # FMJD: a king stops on any free square beyond
SEED000 = INTERNATIONAL.replace(name="international_land_behind", king_landing="immediate")
SEED002 = get_ruleset("english").replace(
    name="website_checkers",
    colour_names=("white", "red"),
    first_player="black",
    repetition_count=0,
    no_progress_plies=80,
    progress="capture_or_promotion",
    ply_limit=200,
)
SEED004 = get_ruleset("english").replace(
    name="english_adjudicated", ply_limit=200, ply_limit_result="material"
)

#: Seed-000 rules that do not depend on where a king lands hold under both readings.
BOTH_000 = pytest.mark.parametrize("rules", [INTERNATIONAL, SEED000], ids=["fmjd", "seed000"])


# --- Helpers ---------------------------------------------------------------------------------


def pdn_moves(fen: str, rules: Ruleset) -> set[str]:
    """Returns the legal moves of a position as PDN strings (and checks none is listed twice)."""
    moves = Position.from_fen(fen, rules).legal_moves()
    names = [format_move(m, moves) for m in moves]
    assert len(names) == len(set(names)), f"a move is listed twice: {sorted(names)}"
    return set(names)


def fen_after(fen: str, move: str, rules: Ruleset) -> str:
    """Returns the FEN after playing one move (a PDN string) in a position."""
    return Position.from_fen(fen, rules).play(move).fen()


def shuttle(
    plies: int, white: list[str], black: list[str], special: dict[int, str] | None = None
) -> list[str]:
    """Returns `plies` moves, White first: each side plays its list round and round.

    ``special[p]`` replaces the move at ply p (1-based) without advancing that side's list.
    """
    special = special or {}
    out: list[str] = []
    turn = {0: 0, 1: 0}
    for ply in range(1, plies + 1):
        side = (ply - 1) % 2
        if ply in special:
            out.append(special[ply])
            continue
        cycle = white if side == 0 else black
        out.append(cycle[turn[side] % len(cycle)])
        turn[side] += 1
    return out


def play_until_over(game: Game, moves: Iterable[str]) -> None:
    """Pushes the moves, checking the game is still going before each one."""
    for move in moves:
        assert game.outcome() is None, f"game over before {move} at ply {game.ply}"
        game.push(move)


# =============================================================================================
# Seed 000 — International draughts (Portuguese)
# =============================================================================================


def test_000_start_position_and_white_moves_first() -> None:
    """ "Cada jogador coloca suas pedras nos quadrados escuros das quatro primeiras fileiras
    mais próximas dele. O jogador com as pedras mais claras faz a primeira jogada" / "cada
    jogador tenha um quadrado escuro no canto inferior do seu lado esquerdo".
    (Each player puts his men on the dark squares of the four rows nearest to him. The player
    with the lighter men moves first / each player has a dark square in his bottom-left corner.)
    """
    pos = Position.start(SEED000)
    assert pos.fen() == "W:W31-50:B1-20"
    assert pos.turn == Colour.WHITE
    assert pos.board[46 - 1] == 1 and pos.board[5 - 1] == -1  # both bottom-left corners
    moves = pos.legal_moves()
    assert {format_move(m, moves) for m in moves} == {
        "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30",
    }  # fmt: skip


@BOTH_000
def test_000_men_move_one_square_diagonally_forward_only(rules: Ruleset) -> None:
    """ "As pedras simples movem-se somente para frente em linha diagonal, uma casa de cada
    vez, para um quadrado não ocupado." (Men move only forward along a diagonal, one square at a
    time, to an unoccupied square.)"""
    # W:W33,36:B18   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   b   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   w   .   .   31-35
    #   w   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W33,36:B18", rules) == {"33-28", "33-29", "36-31"}
    # Black's men move down the board.
    assert pdn_moves("B:W33,36:B18", rules) == {"18-22", "18-23"}
    assert fen_after("W:W33,36:B18", "33-29", rules) == "B:W29,36:B18"


@BOTH_000
def test_000_men_capture_forward_and_backward(rules: Ruleset) -> None:
    """ "Para a tomada ou captura, as pedras podem ser movidas para frente e para trás"
    (To capture, men may move forward and backward.)"""
    # W:W28:B22,33   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   .   w   .   .     26-30
    #     .   .   b   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W28:B22,33", rules) == {"28x17", "28x39"}
    assert fen_after("W:W28:B22,33", "28x39", rules) == "B:W39:B22"
    assert fen_after("W:W28:B22,33", "28x17", rules) == "B:W17:B33"


@BOTH_000
def test_000_capture_is_compulsory(rules: Ruleset) -> None:
    """ "As tomadas são obrigatórias." (Captures are compulsory.) 28-23 and 45-40 would be
    ordinary moves, but a capture is on."""
    # W:W28,45:B22   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   .   w   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   w   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W28,45:B22", rules) == {"28x17"}


@BOTH_000
def test_000_a_capture_goes_on_while_it_can(rules: Ruleset) -> None:
    """ "... e pode-se continuar pulando as pedras enquanto existirem pedras adversárias entre
    casas imediatamente à frente não ocupadas." (... and the man goes on jumping while there
    are enemy pieces with empty squares right beyond them.) Stopping on 28 or 19 is illegal."""
    # W:W37:B13,23,32   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   b   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   b   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   b   .   .   .   31-35
    #   .   w   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    pos = Position.from_fen("W:W37:B13,23,32", rules)
    assert pdn_moves("W:W37:B13,23,32", rules) == {"37x8"}
    (move,) = pos.legal_moves()
    assert [s + 1 for s in move.path] == [28, 19, 8]
    assert [s + 1 for s in move.captures] == [32, 23, 13]
    assert pos.play("37x8").fen() == "B:W8:B"
    for partial in ("37x28", "37x19"):
        with pytest.raises(IllegalMoveError):
            pos.play(partial)


@BOTH_000
def test_000_nobody_jumps_own_pieces(rules: Ruleset) -> None:
    """ "As pedras nunca podem pular outras de mesma cor." / "A Dama nunca poderá pular uma
    pedra de mesma cor." (Men never jump pieces of their own colour. / A king may never jump a
    piece of its own colour.) The man on 33 cannot jump 28 to 22; the king on 46 cannot jump
    its man on 37 to reach (and take) the black man on 28."""
    # W:W28,33:B5   (White to move)
    #     .   .   .   .   b    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   w   .   .     26-30
    #     .   .   w   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W28,33:B5", rules) == {"28-22", "28-23", "33-29"}
    # W:WK46,37:B28   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   b   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   w   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46,37:B28", rules) == {"46-41", "37-31", "37-32"}


@BOTH_000
def test_000_majority_rule_two_men_beat_one_king(rules: Ruleset) -> None:
    """ "Quando existe mais de uma tomada possível, o jogador deverá escolher a seqüência de
    tomadas que resulte no maior número de capturas de pedras do adversário, caso em que as
    pedras simples e as Damas são consideradas como unidades de mesmo valor." (With several
    captures the player must take the sequence capturing the most pieces; men and kings count
    the same.) 34x14 takes two men; 32x21 takes one king."""
    # W:W32,34:B19,29,K27   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   b   .     16-20
    #     .   .   .   .   .   21-25
    #   .   B   .   b   .     26-30
    #     .   w   .   w   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W32,34:B19,29,K27", rules) == {"34x14"}
    # Without the majority rule both captures are allowed, but each is completed (not 34x23).
    assert pdn_moves("W:W32,34:B19,29,K27", rules.replace(capture_precedence="free")) == {
        "32x21",
        "34x14",
    }


@BOTH_000
def test_000_majority_rule_equal_maxima_free_choice(rules: Ruleset) -> None:
    """Rule 7 again: among sequences taking the same (largest) number the choice is free, and a
    king counts no more than a man: 32x12 (king 27 and man 17) and 34x14 (men 29 and 19)."""
    # W:W32,34:B17,19,29,K27   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   b   .   b   .     16-20
    #     .   .   .   .   .   21-25
    #   .   B   .   b   .     26-30
    #     .   w   .   w   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W32,34:B17,19,29,K27", rules) == {"32x12", "34x14"}


@BOTH_000
def test_000_man_passing_the_far_row_in_a_capture_goes_on_and_stays_a_man(
    rules: Ruleset,
) -> None:
    """ "Contudo, se esta pedra alcançar a última fileira do adversário em decorrência de uma
    tomada, mas for ainda possível mover para trás para capturar uma outra pedra ou uma Dama do
    adversário deverá fazê-lo (tomada obrigatória) e, desta forma, não se transformará em Dama."
    (But if the man reaches the far row during a capture and can still capture backwards, it
    must, and so does not become a king.) 13x2 over 8 reaches the far row; it must go on over 7
    to 11 and ends there as a man."""
    # W:W13:B7,8   (White to move)
    #     .   .   .   .   .    1-5
    #   .   b   b   .   .      6-10
    #     .   .   w   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W13:B7,8", rules) == {"13x11"}
    assert fen_after("W:W13:B7,8", "13x11", rules) == "B:W11:B"
    (move,) = Position.from_fen("W:W13:B7,8", rules).legal_moves()
    assert not move.crowns
    # Other readings of the same sentence, as switches: English crowning ends the move;
    # Russian crowning makes it a king at once, which flies on over 7 to 11 (or 16 under FMJD
    # landing; the seed's king rests right behind the piece).
    ends = rules.replace(promotion_in_capture="ends_move")
    assert pdn_moves("W:W13:B7,8", ends) == {"13x2"}
    assert fen_after("W:W13:B7,8", "13x2", ends) == "B:WK2:B7"
    crown = rules.replace(promotion_in_capture="crown_and_continue")
    landings = {"13x11", "13x16"} if rules.king_landing == "any" else {"13x11"}
    assert pdn_moves("W:W13:B7,8", crown) == landings
    assert fen_after("W:W13:B7,8", "13x11", crown) == "B:WK11:B"


@BOTH_000
def test_000_promotion_on_the_far_row(rules: Ruleset) -> None:
    """ "A pedra que alcançar a última fileira do lado do adversário é coroada transformando-se
    em Dama" (A man reaching the opponent's last row is crowned a king.)"""
    # W:W7:B45   (White to move)
    #     .   .   .   .   .    1-5
    #   .   w   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   b   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W7:B45", rules) == {"7-1", "7-2"}
    assert fen_after("W:W7:B45", "7-1", rules) == "B:WK1:B45"
    # Black is crowned on 46-50.
    assert fen_after("B:W7:B45", "45-50", rules) == "W:W7:BK50"


@BOTH_000
def test_000_promotion_only_where_the_capture_ends_and_it_ends_the_turn(rules: Ruleset) -> None:
    """ "Quando uma pedra alcança a última fileira do adversário só se transformará em Dama se
    a tomada ou a série de tomadas resultar na pedra parar nesta última fileira do adversário.
    Quando uma pedra se transforma em Dama a vez de jogar passa para o outro jogador" (A man on
    the far row becomes a king only if the capture ends there. When a man becomes a king the
    turn passes to the opponent.) 13x2 ends on 2 (as a man it cannot take 11): it is crowned and
    stops, although as a king it could take 11 along 2-7-11-16."""
    # W:W13:B8,11   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   b   .   .      6-10
    #     b   .   w   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W13:B8,11", rules) == {"13x2"}
    assert fen_after("W:W13:B8,11", "13x2", rules) == "B:WK2:B11"
    # 14x3 (over 9) reaches the far row, goes back over 8 to 12, then ends over 7 on 1: the
    # capture ends on the far row, so it is crowned.
    # W:W14:B7,8,9   (White to move)
    #     .   .   .   .   .    1-5
    #   .   b   b   b   .      6-10
    #     .   .   .   w   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:W14:B7,8,9", rules) == {"14x1"}
    assert fen_after("W:W14:B7,8,9", "14x1", rules) == "B:WK1:B"


@BOTH_000
def test_000_flying_king_moves_any_distance(rules: Ruleset) -> None:
    """ "A Dama pode mover-se para frente e para trás, em diagonal, através de qualquer número
    de casas não ocupadas." (A king moves forward and backward along a diagonal over any number
    of empty squares.) The king on 28 stops before its own man on 41 and before 10 (black, with
    5 occupied behind it, so no capture)."""
    # W:WK28,41:B5,10   (White to move)
    #     .   .   .   .   b    1-5
    #   .   .   .   .   b      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   W   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     w   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("W:WK28,41:B5,10", rules) == {
        "28-22", "28-17", "28-11", "28-6",   # up-left
        "28-23", "28-19", "28-14",           # up-right, up to black's 10
        "28-32", "28-37",                    # down-left, up to White's 41
        "28-33", "28-39", "28-44", "28-50",  # down-right
        "41-36", "41-37",
    }  # fmt: skip
    assert fen_after("W:WK28,41:B5,10", "28-50", rules) == "B:W41,K50:B5,10"


def test_000_flying_king_captures_at_a_distance_fmjd_landing() -> None:
    """ "A Dama captura uma pedra adversária a qualquer distância em linha diagonal, para frente
    ou para trás." (A king captures an enemy piece at any distance along a diagonal.) FMJD 4.4
    (the `international` ruleset): it may stop on any free square beyond the piece."""
    # W:WK46:B28   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   b   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46:B28", INTERNATIONAL) == {"46x23", "46x19", "46x14", "46x10", "46x5"}
    assert fen_after("W:WK46:B28", "46x14", INTERNATIONAL) == "B:WK14:B"


def test_000_flying_king_captures_at_a_distance_seed_landing() -> None:
    """ "A dama que está capturando repousará na casa livre imediatamente próxima à da pedra
    capturada no lance (exceto quando ocorre a situação descrita na regra 7)" (The capturing
    king rests on the free square right beyond the captured piece, except in the situation of
    rule 7.) Seed 000 literally (`king_landing="immediate"`): only 23."""
    # W:WK46:B28   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   b   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46:B28", SEED000) == {"46x23"}
    assert fen_after("W:WK46:B28", "46x23", SEED000) == "B:WK23:B"


def test_000_king_lands_farther_when_rule_7_needs_it() -> None:
    """The exception of the same sentence: only from 19 can the king go on and take 13, and rule
    7 (most pieces) requires it, so under the seed it lands on 19, then right behind 13 on 8.
    FMJD lets it stop on 8 or 2 after the last piece."""
    # W:WK46:B13,28   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   b   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   b   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46:B13,28", INTERNATIONAL) == {"46x8", "46x2"}
    assert pdn_moves("W:WK46:B13,28", SEED000) == {"46x8"}
    assert fen_after("W:WK46:B13,28", "46x8", SEED000) == "B:WK8:B"


def test_000_seed_landing_stays_immediate_when_it_can_go_on_from_there() -> None:
    """Seed 000 (same sentence), RULES.md: "it lands farther only where that is needed to go on
    capturing" (rules.py: "unless only a farther square lets the capture go on"). After taking
    37 the king can go on from 32 (taking 27) or from 28 (taking 22): two pieces either way, so
    rule 7 does not apply and it must rest on 32, then right behind 27 on 21. 46x17 (via 28)
    needs a landing farther than necessary. FMJD allows every landing: 21, 16, 17, 11, 6."""
    # W:WK46:B22,27,37   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   b   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   b   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46:B22,27,37", INTERNATIONAL) == {
        "46x21", "46x16", "46x17", "46x11", "46x6",
    }  # fmt: skip
    assert pdn_moves("W:WK46:B22,27,37", SEED000) == {"46x21"}


def test_000_king_goes_on_along_the_same_diagonal() -> None:
    """ "... e continuará as tomadas, se possível, na mesma linha diagonal ..." (... and goes on
    capturing, if possible, along the same diagonal ...) 37 then 23, both on the 46-5 line."""
    # W:WK46:B23,37   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   b   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   b   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46:B23,37", INTERNATIONAL) == {"46x19", "46x14", "46x10", "46x5"}
    assert pdn_moves("W:WK46:B23,37", SEED000) == {"46x19"}
    assert fen_after("W:WK46:B23,37", "46x10", INTERNATIONAL) == "B:WK10:B"


def test_000_king_goes_on_at_a_right_angle() -> None:
    """ "... ou movendo-se em angulo reto para outra linha diagonal." (... or turning at a right
    angle onto another diagonal.) After 37 it must land on 28 and turn up-left over 22."""
    # W:WK46:B22,37   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   b   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    assert pdn_moves("W:WK46:B22,37", INTERNATIONAL) == {"46x17", "46x11", "46x6"}
    assert pdn_moves("W:WK46:B22,37", SEED000) == {"46x17"}
    assert fen_after("W:WK46:B22,37", "46x6", INTERNATIONAL) == "B:WK6:B"


@BOTH_000
def test_000_no_piece_is_taken_twice(rules: Ruleset) -> None:
    """ "Uma pedra ou uma Dama não pode ser capturada mais de uma vez." (A man or king cannot be
    captured more than once.) The man on 27 goes round the four men (22, 23, 33, 32, either way
    round) back to 27; it cannot jump 22 a second time, so the move ends there with 4 pieces."""
    # W:W27:B22,23,32,33   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   b   .   .   21-25
    #   .   w   .   .   .     26-30
    #     .   b   b   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    pos = Position.from_fen("W:W27:B22,23,32,33", rules)
    (move,) = pos.legal_moves()  # the two routes round are one move (same pieces taken)
    assert (move.origin + 1, move.destination + 1) == (27, 27)
    assert sorted(s + 1 for s in move.captures) == [22, 23, 32, 33]
    assert sorted(tuple(s + 1 for s in r.path) for r in pos.capture_routes()) == [
        (18, 29, 38, 27),
        (38, 29, 18, 27),
    ]
    for name in ("27x27", "27x18x29x38x27", "27x38x29x18x27"):
        assert pos.play(name).fen() == "B:W27:B"


def test_000_turkish_strike_taken_pieces_stay_until_the_move_ends() -> None:
    """ "As pedras capturadas não serão removidas do Tabuleiro até que a jogada esteja
    completada." (Captured pieces are not removed from the board until the move is complete.)
    The king takes 39 (landing on 28), 23 (landing on 19) and 24 (landing on 30 or 35). From 30
    the way to 43 runs over 39, which is still on the board: it blocks. If pieces were removed
    as they were jumped (`turkish_strike=False`), 30 x 43 to 48 would make it four pieces."""
    # W:WK50:B23,24,39,43   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   b   b   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   b   .     36-40
    #     .   .   b   .   .   41-45
    #   .   .   .   .   W     46-50
    assert pdn_moves("W:WK50:B23,24,39,43", INTERNATIONAL) == {"50x30", "50x35"}
    assert fen_after("W:WK50:B23,24,39,43", "50x30", INTERNATIONAL) == "B:WK30:B43"
    removed = INTERNATIONAL.replace(turkish_strike=False)
    assert pdn_moves("W:WK50:B23,24,39,43", removed) == {"50x48"}
    assert fen_after("W:WK50:B23,24,39,43", "50x48", removed) == "B:WK48:B"


@BOTH_000
def test_000_player_without_pieces_loses(rules: Ruleset) -> None:
    """ "O objetivo do jogo é inviabilizar a jogada do adversário quando é a vez dele jogar. Isto
    pode ser conseguido ou capturando todas a pedras do adversário ..." (The aim is to leave the
    opponent without a move on his turn, by capturing all his pieces ...)"""
    # W:W28:B22   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   .   w   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    game = Game(rules, fen="W:W28:B22")
    assert game.outcome() is None
    game.push("28x17")
    assert game.outcome() == Outcome(Colour.WHITE, Reason.NO_LEGAL_MOVE)
    assert game.legal_moves() == []


@BOTH_000
def test_000_player_with_all_pieces_blocked_loses(rules: Ruleset) -> None:
    """ "... ou bloqueando as pedras remanescentes até que nenhuma possa ser movida." (... or by
    blocking his remaining pieces so that none can move.) Black's man on 35 can neither step to
    40 nor jump it (44 is occupied)."""
    # B:W40,44:B35   (Black to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   b   31-35
    #   .   .   .   .   w     36-40
    #     .   .   .   w   .   41-45
    #   .   .   .   .   .     46-50
    assert pdn_moves("B:W40,44:B35", rules) == set()
    assert Game(rules, fen="B:W40,44:B35").outcome() == Outcome(Colour.WHITE, Reason.NO_LEGAL_MOVE)


@BOTH_000
def test_000_illegal_move_is_refused_and_nothing_changes(rules: Ruleset) -> None:
    """ "A jogada errada pode ser desfeita." (A wrong move may be taken back.) RULES.md: an
    illegal action is refused with a clear error (naming the legal moves) and nothing changes."""
    # W:W28,45:B22   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   .   w   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   w   41-45
    #   .   .   .   .   .     46-50
    fen = "W:W28,45:B22"
    pos = Position.from_fen(fen, rules)
    for wrong in ("45-40", "28-23", "28-33", "28x39", "22-27"):
        with pytest.raises(IllegalMoveError, match="28x17"):
            pos.play(wrong)
    assert pos.fen() == fen
    with pytest.raises(NotationError):
        pos.play("28 to 17")
    game = Game(rules, fen=fen)
    with pytest.raises(IllegalMoveError):
        game.push("45-40")
    assert (game.ply, game.position.fen(), game.outcome()) == (0, fen, None)
    game.push("28x17")
    assert game.position.fen() == "B:W17,45:B"


@BOTH_000
def test_000_undo_restores_the_exact_position(rules: Ruleset) -> None:
    """Same sentence: the engine takes moves back. Two promotions (13x2 takes 8; 45-50), then
    Game.pop twice gives back the position, the turn and the legal moves."""
    # W:W13:B8,45   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   b   .   .      6-10
    #     .   .   w   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   b   41-45
    #   .   .   .   .   .     46-50
    game = Game(rules, fen="W:W13:B8,45")
    start = game.position
    game.push("13x2")
    game.push("45-50")
    assert game.position.fen() == "W:WK2:BK50"
    assert format_move(game.pop()) == "45-50"
    assert game.position.fen() == "B:WK2:B45"
    assert format_move(game.pop()) == "13x2"
    assert game.position == start and game.position.fen() == "W:W13:B8,45"
    assert game.ply == 0 and game.repetitions() == 1
    assert {format_move(m) for m in game.legal_moves()} == {"13x2"}


def test_000_draw_by_threefold_repetition() -> None:
    """ "Se nenhum dos jogadores conseguir isto, ocorre empate do jogo." (If neither player
    achieves this, the game is drawn.) RULES.md / FMJD 6.1: the same position with the same
    player to move a third time is a draw. The start recurs at plies 4 and 8."""
    # W:WK41,K46:BK5,K10   (White to move)
    #     .   .   .   .   B    1-5
    #   .   .   .   .   B      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     W   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    for rules in (INTERNATIONAL, SEED000):
        game = Game(rules, fen="W:WK41,K46:BK5,K10")
        play_until_over(game, shuttle(8, ["41-36", "36-41"], ["10-15", "15-10"]))
        assert game.repetitions() == 3
        assert game.outcome() == Outcome(None, Reason.REPETITION)
        game.pop()
        assert game.outcome() is None


def test_000_draw_by_25_king_moves_without_capture() -> None:
    """RULES.md / FMJD 6.3: 25 moves each with only kings moving and no capture is a draw (50
    plies). White's king cycles 36-41-47 (3 squares), Black's 3-8-12-17-21 (5 squares): no
    position occurs three times in 50 plies and 2 kings v 2 kings has no endgame limit."""
    # W:WK36,K46:BK1,K3   (White to move)
    #     B   .   B   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   W   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    white = ["36-41", "41-47", "47-36"]
    black = ["3-8", "8-12", "12-17", "17-21", "21-3"]
    for rules in (INTERNATIONAL, SEED000):
        game = Game(rules, fen="W:WK36,K46:BK1,K3")
        play_until_over(game, shuttle(50, white, black))
        assert game.outcome() == Outcome(None, Reason.NO_PROGRESS)
        assert game.repetitions() <= 2


def test_000_draw_by_16_move_endgame_rule() -> None:
    """RULES.md / FMJD 6.4: three kings against a lone king are drawn after 16 moves each (32
    plies)."""
    # W:WK36,K46,K48:BK3   (White to move)
    #     .   .   B   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   W   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   W   .   .     46-50
    white = ["36-41", "41-47", "47-36"]
    black = ["3-8", "8-12", "12-17", "17-21", "21-3"]
    for rules in (INTERNATIONAL, SEED000):
        game = Game(rules, fen="W:WK36,K46,K48:BK3")
        play_until_over(game, shuttle(32, white, black))
        assert game.outcome() == Outcome(None, Reason.ENDGAME_RULE)


def test_000_draw_by_5_move_endgame_rule_counted_from_the_capture() -> None:
    """RULES.md / FMJD 6.5: two kings against a lone king are drawn after 5 moves each. The
    count starts when the material arises: 46x10 (taking 14) at ply 1, draw after ply 11."""
    # W:WK36,K46:BK3,14   (White to move)
    #     .   .   B   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   b   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   W   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    for rules in (INTERNATIONAL, SEED000):
        game = Game(rules, fen="W:WK36,K46:BK3,14")
        game.push("46x10")
        moves = shuttle(10, ["3-8", "8-12", "12-17", "17-21", "21-3"], ["36-41", "41-47", "47-36"])
        play_until_over(game, moves)  # Black's moves first: shuttle's "white" list is Black's
        assert game.ply == 11
        assert game.outcome() == Outcome(None, Reason.ENDGAME_RULE)


# =============================================================================================
# Seed 002 — Checkers on a game website (Dutch)
# =============================================================================================


def test_002_red_starts_and_one_move_per_turn() -> None:
    """ "De rode speler begint het spel, waarna het de beurt is aan de tegenstander. Elke speler
    heeft slechts 1 zet per beurt. Er kan geen beurt worden overgeslagen." (The red player
    starts, then it is the opponent's turn. Each player has only 1 move per turn. No turn can be
    skipped.) Red plays the side on squares 1-12 (Black's side in PDN)."""
    assert SEED002.colour_names == ("white", "red")
    pos = Position.start(SEED002)
    assert pos.fen() == "B:W21-32:B1-12" and pos.turn == Colour.BLACK
    moves = pos.legal_moves()
    assert {format_move(m, moves) for m in moves} == {
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16",
    }  # fmt: skip
    after = pos.play("11-15")
    assert after.fen() == "W:W21-32:B1-10,12,15" and after.turn == Colour.WHITE


def test_002_a_move_is_one_diagonal_step() -> None:
    """ "Een zet is het diagonaal (schuin) verplaatsen van 1 checker naar een ander speelvak."
    (A move is moving 1 checker diagonally to another square.) Men step forward only."""
    # W:W22,30:B10   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   b   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   w   .   .     21-24
    #     .   .   .   .   25-28
    #   .   w   .   .     29-32
    assert pdn_moves("W:W22,30:B10", SEED002) == {"22-17", "22-18", "30-25", "30-26"}
    assert pdn_moves("B:W22,30:B10", SEED002) == {"10-14", "10-15"}


def test_002_capture_is_compulsory() -> None:
    """ "Als je een checker van je tegenstander kunt slaan (veroveren), dan ben je verplicht dit
    te doen. ... Als wilt slaan dan moet het speelvak achter de checker van je tegenstander leeg
    zijn." (If you can capture an opponent's checker you must. The square behind it must be
    empty.) The man on 1 may not step to 5 or 6."""
    # B:W14:B1,10   (Black to move)
    #     b   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   b   .   .    9-12
    #   .   w   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W14:B1,10", SEED002) == {"10x17"}
    assert fen_after("B:W14:B1,10", "10x17", SEED002) == "W:W:B1,17"


def test_002_multi_jumps_must_be_completed() -> None:
    """ "Wanneer er, na het slaan van een checker, nog een kans is om nog 1 of meer andere
    checkers van je tegenstander te slaan, dan moeten deze checkers ook worden geslagen."
    (When after a capture you can capture more checkers, they must be captured too.)"""
    # B:W14,22:B10   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   b   .   .    9-12
    #   .   w   .   .     13-16
    #     .   .   .   .   17-20
    #   .   w   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W14,22:B10", SEED002) == {"10x26"}
    assert fen_after("B:W14,22:B10", "10x26", SEED002) == "W:W:B26"
    with pytest.raises(IllegalMoveError):
        Position.from_fen("B:W14,22:B10", SEED002).play("10x17")


def test_002_free_choice_of_capture() -> None:
    """ "Wanneer je meerdere mogelijkheden hebt om te slaan, dan mag je kiezen welke checker(s)
    je slaat. Het maakt hierbij niet uit of het "meerdere slagen" zijn of niet." (With several
    ways to capture you may choose which checker(s) to take, whether it is a multiple capture or
    not.) The single 12x19 is allowed beside the double 10x26."""
    # B:W14,16,22:B10,12   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   b   .   b    9-12
    #   .   w   .   w     13-16
    #     .   .   .   .   17-20
    #   .   w   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W14,16,22:B10,12", SEED002) == {"10x26", "12x19"}
    assert fen_after("B:W14,16,22:B10,12", "12x19", SEED002) == "W:W14,22:B10,19"


def test_002_checker_on_the_last_row_becomes_a_king() -> None:
    """ "Wanneer je er in slaagt om een checker op de laatste rij van het speelbord te krijgen,
    dan wordt deze een Koning." (A checker reaching the last row becomes a king.)"""
    # B:W20:B26   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   w   17-20
    #   .   .   .   .     21-24
    #     .   b   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W20:B26", SEED002) == {"26-30", "26-31"}
    assert fen_after("B:W20:B26", "26-31", SEED002) == "W:W20:BK31"
    # W:W6:B26   (White to move)
    #     .   .   .   .    1-4
    #   .   w   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   b   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("W:W6:B26", SEED002) == {"6-1", "6-2"}
    assert fen_after("W:W6:B26", "6-2", SEED002) == "B:WK2:B26"


def test_002_king_moves_one_square_in_every_direction() -> None:
    """ "Een Koning kan in elke diagonale richting bewegen en checkers van de tegenstander slaan."
    (A king can move in every diagonal direction and capture.) One square at a time (RULES.md:
    as in English checkers): the king on 23 cannot reach, nor take, the man on 14."""
    # B:W30:BK18   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   B   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   w   .   .     29-32
    assert pdn_moves("B:W30:BK18", SEED002) == {"18-14", "18-15", "18-22", "18-23"}
    # B:W14:BK23   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   w   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   B   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W14:BK23", SEED002) == {"23-18", "23-19", "23-26", "23-27"}


def test_002_king_captures_in_every_direction() -> None:
    """Same sentence: the king on 18 may take 14 (towards its own side) or 23."""
    # B:W14,23:BK18   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   w   .   .     13-16
    #     .   B   .   .   17-20
    #   .   .   w   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W14,23:BK18", SEED002) == {"18x9", "18x27"}
    assert fen_after("B:W14,23:BK18", "18x9", SEED002) == "W:W23:BK9"


def test_002_player_who_cannot_move_loses() -> None:
    """ "Het spel wordt verloren door de speler die geen correcte zet meer kan maken." (The game
    is lost by the player who can no longer make a correct move.) White's man on 29 is blocked
    (25 taken, 22 behind it taken); then a position where White's last man is captured."""
    # W:W29:B22,25   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   b   .   .     21-24
    #     b   .   .   .   25-28
    #   w   .   .   .     29-32
    assert pdn_moves("W:W29:B22,25", SEED002) == set()
    assert Game(SEED002, fen="W:W29:B22,25").outcome() == Outcome(
        Colour.BLACK, Reason.NO_LEGAL_MOVE
    )
    game = Game(SEED002, fen="B:W14:B10")
    game.push("10x17")
    assert game.outcome() == Outcome(Colour.BLACK, Reason.NO_LEGAL_MOVE)


def test_002_draw_after_40_move_pairs_without_capture_or_promotion() -> None:
    """ "The game is drawn when there is no capture or promotion to king for 40 pairs of
    consecutive moves." Kings shuffle (29-25, 4-8; the seed has no repetition rule) and White's
    man steps 27-23 at ply 41: a man move is not a capture or a promotion, so the draw still
    comes after ply 80. Under the English count (a man move resets it) it would not."""
    # W:WK29,27:BK4   (White to move)
    #     .   .   .   B    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   w   .   25-28
    #   W   .   .   .     29-32
    moves = shuttle(80, ["29-25", "25-29"], ["4-8", "8-4"], special={41: "27-23"})
    game = Game(SEED002, fen="W:WK29,27:BK4")
    play_until_over(game, moves)
    assert game.outcome() == Outcome(None, Reason.NO_PROGRESS)
    english_count = Game(SEED002.replace(progress="capture_or_man_move"), fen="W:WK29,27:BK4")
    play_until_over(english_count, moves)
    assert english_count.outcome() is None


def test_002_automatic_draw_after_200_moves() -> None:
    """ "The game is drawn automatically if there is no winner after 200 moves (100 each)."
    Promotions at plies 61 (5-1) and 121 (6-2) keep the 80-ply count from running out; the
    game stops after ply 200."""
    # W:WK29,5,6:BK4   (White to move)
    #     .   .   .   B    1-4
    #   w   w   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   W   .   .   .     29-32
    moves = shuttle(200, ["29-25", "25-29"], ["4-8", "8-4"], special={61: "5-1", 121: "6-2"})
    game = Game(SEED002, fen="W:WK29,5,6:BK4")
    play_until_over(game, moves)
    assert game.position.fen() == "W:WK1,K2,K29:BK4"
    assert game.outcome() == Outcome(None, Reason.PLY_LIMIT)
    with pytest.raises(IllegalMoveError):
        game.push("29-25")


# =============================================================================================
# Seed 004 — English draughts (Spanish)
# =============================================================================================


def test_004_black_moves_first() -> None:
    """ "Las negras tienen el primer movimiento." / "Cada jugador comienza con 12 piezas en las
    tres filas más cercanas a su propio lado. ... El color más oscuro mueve primero." (Black has
    the first move. Each player starts with 12 pieces on the three rows nearest to him. The
    darker colour moves first.)"""
    pos = Position.start(SEED004)
    assert pos.fen() == "B:W21-32:B1-12" and pos.turn == Colour.BLACK
    moves = pos.legal_moves()
    assert {format_move(m, moves) for m in moves} == {
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16",
    }  # fmt: skip


def test_004_men_move_only_forward() -> None:
    """ "todas las piezas individuales (las piezas iniciales) sólo pueden moverse en diagonal
    hacia delante. No pueden moverse hacia atrás." (Single pieces move only diagonally forward;
    they cannot move backward.)"""
    # W:W23:B26   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   w   .     21-24
    #     .   b   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("W:W23:B26", SEED004) == {"23-18", "23-19"}
    assert pdn_moves("B:W23:B26", SEED004) == {"26-30", "26-31"}


def test_004_men_capture_only_forward() -> None:
    """Same sentence, and "Si la pieza de un jugador, la pieza del otro jugador y una casilla
    vacía están alineadas, entonces el primer jugador debe «saltar»" (if a piece, an enemy piece
    and an empty square are in line, the player must jump). RULES.md: men capture only forward.
    Black's man on 14 has White's 10 behind it with 7 empty: it cannot take it."""
    # B:W10:B14   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   w   .   .    9-12
    #   .   b   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W10:B14", SEED004) == {"14-17", "14-18"}
    # B:W10,18:B14   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   w   .   .    9-12
    #   .   b   .   .     13-16
    #     .   w   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W10,18:B14", SEED004) == {"14x23"}
    # Men capturing backwards too (Brazilian, Russian, Pool) would add 14x7.
    assert pdn_moves("B:W10,18:B14", SEED004.replace(men_capture_backward=True)) == {
        "14x7",
        "14x23",
    }
    # W:W23:B26   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   w   .     21-24
    #     .   b   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("W:W23:B26", SEED004.replace(men_capture_backward=True)) == {"23x30"}


def test_004_capture_compulsory_with_free_choice() -> None:
    """ "Si puedes tomar una pieza, entonces debes tomar una pieza." / "A veces, un jugador puede
    tener la opción o elegir qué pieza del adversario debe saltar. En tales casos, puede elegir
    cuál saltar." (If you can take a piece you must. Sometimes a player may choose which enemy
    piece to jump; he may choose.) The man on 1 may not step while 10 can take."""
    # B:W14,15:B1,10   (Black to move)
    #     b   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   b   .   .    9-12
    #   .   w   w   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W14,15:B1,10", SEED004) == {"10x17", "10x19"}
    assert fen_after("B:W14,15:B1,10", "10x19", SEED004) == "W:W14:B1,19"


def test_004_multiple_jumps() -> None:
    """ "Un jugador también puede utilizar una pieza para realizar varios saltos en un mismo
    turno, siempre que cada salto siga conduciendo inmediatamente al siguiente y en línea recta."
    (A piece may make several jumps in one turn, each jump leading straight on to the next.)
    Each jump is a straight diagonal jump; the direction may change between jumps (EDA, as
    RULES.md reads it): 30x23x16x7 takes 26, 19 and 11, and must take all three."""
    # W:W30:B4,11,19,26   (White to move)
    #     .   .   .   b    1-4
    #   .   .   .   .      5-8
    #     .   .   b   .    9-12
    #   .   .   .   .     13-16
    #     .   .   b   .   17-20
    #   .   .   .   .     21-24
    #     .   b   .   .   25-28
    #   .   w   .   .     29-32
    pos = Position.from_fen("W:W30:B4,11,19,26", SEED004)
    assert pdn_moves("W:W30:B4,11,19,26", SEED004) == {"30x7"}
    assert pos.play("30x23x16x7").fen() == "B:W7:B4"
    for partial in ("30x23", "30x16"):
        with pytest.raises(IllegalMoveError):
            pos.play(partial)


def test_004_crowning_ends_the_move() -> None:
    """ "Si la pieza de un jugador se mueve a la fila de piezas dobles del lado del otro jugador,
    se convierte en una pieza doble. ... Una pieza doble no puede salir de la fila de piezas
    dobles hasta el siguiente turno." (A piece reaching the other side's king row becomes a
    double piece. A double piece cannot leave the king row until the next turn.) 22x31 crowns
    on 31; as a king it could take 27 (to 24), but the move ends."""
    # B:W26,27:B22   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   b   .   .     21-24
    #     .   w   w   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("B:W26,27:B22", SEED004) == {"22x31"}
    assert fen_after("B:W26,27:B22", "22x31", SEED004) == "W:W27:BK31"
    (move,) = Position.from_fen("B:W26,27:B22", SEED004).legal_moves()
    assert move.crowns
    # The switch that lets a crowned man go on (Russian) would take both.
    crown = SEED004.replace(promotion_in_capture="crown_and_continue")
    assert pdn_moves("B:W26,27:B22", crown) == {"22x24"}
    assert fen_after("B:W26,27:B22", "22x24", crown) == "W:W:BK24"


def test_004_kings_move_one_square_forward_or_backward() -> None:
    """ "[Una pieza doble] puede moverse hacia delante y hacia atrás." (A double piece can move
    forward and backward.) One square (EDA; RULES.md)."""
    # W:WK18:B1   (White to move)
    #     b   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   W   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("W:WK18:B1", SEED004) == {"18-14", "18-15", "18-22", "18-23"}


def test_004_kings_capture_forward_or_backward() -> None:
    """Same sentence, for captures: White's king on 18 takes 15 (forward) or 22 (backward)."""
    # W:WK18:B15,22   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   b   .     13-16
    #     .   W   .   .   17-20
    #   .   b   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    assert pdn_moves("W:WK18:B15,22", SEED004) == {"18x11", "18x25"}
    assert fen_after("W:WK18:B15,22", "18x25", SEED004) == "B:WK25:B15"


def test_004_losing_all_pieces_loses() -> None:
    """ "El primer jugador que pierda todas sus piezas pierde la partida." (The first player to
    lose all his pieces loses.)"""
    # B:W18:B14   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   b   .   .     13-16
    #     .   w   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   .   .   .   .     29-32
    game = Game(SEED004, fen="B:W18:B14")
    assert game.outcome() is None
    game.push("14x23")
    assert game.outcome() == Outcome(Colour.BLACK, Reason.NO_LEGAL_MOVE)


def test_004_player_who_cannot_move_loses() -> None:
    """ "Si un jugador se coloca en una posición en la que no puede moverse, pierde." (A player
    left in a position where he cannot move loses.) White's man on 32: 27 and 28 are taken, 23
    is behind 27 and nothing is behind 28."""
    # W:W32:B23,27,28   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   b   .     21-24
    #     .   .   b   b   25-28
    #   .   .   .   w     29-32
    assert pdn_moves("W:W32:B23,27,28", SEED004) == set()
    game = Game(SEED004, fen="W:W32:B23,27,28")
    assert game.outcome() == Outcome(Colour.BLACK, Reason.NO_LEGAL_MOVE)


@pytest.mark.parametrize(
    ("fen", "winner"),
    [
        # 3 pieces (1 king) against 2 (2 kings): more pieces wins, whatever the kings.
        ("W:WK29,31,32:BK1,K4", Colour.WHITE),
        # 2 pieces each; Black has 2 kings to White's 1: more kings wins.
        ("W:WK29,31:BK1,K4", Colour.BLACK),
        # 2 pieces and 1 king each: a draw.
        ("W:WK29,31:B2,K4", None),
    ],
    ids=["more-pieces", "more-kings", "equal"],
)
def test_004_material_adjudication_at_the_ply_limit(fen: str, winner: Colour | None) -> None:
    """ "Si los jugadores tienen la misma cantidad de piezas, el jugador con más piezas dobles
    gana. Si los jugadores tienen el mismo número de piezas y el mismo número de piezas dobles,
    la partida es un empate." (With equal pieces the player with more double pieces wins; with
    equal pieces and kings it is a draw.) RULES.md: an adjudication of a game stopped at a move
    limit, more pieces winning first. Limit set to 4 plies; kings shuffle 29-25, 4-8."""
    # W:WK29,31,32:BK1,K4   (White to move)
    #     B   .   .   B    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   W   .   w   w     29-32
    # W:WK29,31:BK1,K4   (White to move)
    #     B   .   .   B    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   W   .   w   .     29-32
    # W:WK29,31:B2,K4   (White to move)
    #     .   b   .   B    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   .     21-24
    #     .   .   .   .   25-28
    #   W   .   w   .     29-32
    rules = SEED004.replace(ply_limit=4)
    moves = shuttle(4, ["29-25", "25-29"], ["4-8", "8-4"])
    game = Game(rules, fen=fen)
    play_until_over(game, moves)
    assert game.outcome() == Outcome(winner, Reason.ADJUDICATION)
    plain = Game(rules.replace(ply_limit_result="draw"), fen=fen)
    play_until_over(plain, moves)
    assert plain.outcome() == Outcome(None, Reason.PLY_LIMIT)


# =============================================================================================
# Presets in damas_env/presets equal the rulesets built above
# =============================================================================================


def _switches(rules: Ruleset, *skip: str) -> dict[str, object]:
    return {f.name: getattr(rules, f.name) for f in fields(rules) if f.name not in {"name", *skip}}


@pytest.mark.parametrize(
    ("preset", "built"),
    [
        ("international_land_behind", SEED000),
        ("website_checkers", SEED002),
        ("english_adjudicated", SEED004),
    ],
)
def test_preset_matches_the_seed_reading(preset: str, built: Ruleset) -> None:
    """The YAML preset of each seed has exactly the switches these tests were written for."""
    if not (RULES_DIR / f"{preset}.yaml").exists():
        pytest.skip(f"damas_env/presets/{preset}.yaml not written yet")
    assert _switches(get_ruleset(preset)) == _switches(built)


# =============================================================================================
# Beyond the seeds: other named rulesets (RULES.md "Beyond the seeds")
# =============================================================================================


def test_russian_man_crowned_mid_capture_goes_on_as_a_flying_king() -> None:
    """RULES.md: "Russian (flying kings, free choice of capture, a man crowned in the middle of a
    capture goes on capturing as a king)". 11x2 (over 7) crowns on 2; the new king flies on
    over 6 to 9 or 13. Free choice: 28x19 (one piece) is allowed too. Under Brazilian rules
    (pass-through, majority) the man goes on as a man, 2x9 over 6, and stays a man."""
    # W:W11,28:B6,7,24   (White to move)
    #     .   .   .   .    1-4
    #   .   b   b   .      5-8
    #     .   .   w   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   .   b     21-24
    #     .   .   .   w   25-28
    #   .   .   .   .     29-32
    fen = "W:W11,28:B6,7,24"
    russian = get_ruleset("russian")
    assert pdn_moves(fen, russian) == {"11x9", "11x13", "28x19"}
    assert fen_after(fen, "11x13", russian) == "B:WK13,28:B24"
    assert all(m.crowns for m in Position.from_fen(fen, russian).legal_moves() if m.origin == 10)
    assert pdn_moves(fen, get_ruleset("brazilian")) == {"11x9"}
    assert fen_after(fen, "11x9", get_ruleset("brazilian")) == "B:W9,28:B24"
    assert pdn_moves(fen, get_ruleset("pool")) == {"11x9", "28x19"}


@pytest.mark.parametrize("name", ["english_giveaway", "international_giveaway"])
def test_giveaway_player_who_cannot_move_wins(name: str) -> None:
    """RULES.md: a losing ("giveaway") form of each variant: who cannot move on his turn wins."""
    rules = get_ruleset(name)
    fen = "B:W18:B14" if rules.board_size == 8 else "W:W28:B22"
    game = Game(rules, fen=fen)
    game.push("14x23" if rules.board_size == 8 else "28x17")
    stuck = game.position.turn  # has no piece left, so cannot move...
    assert game.outcome() == Outcome(stuck, Reason.NO_LEGAL_MOVE)  # ...and wins
    # W:W29:B22,25   (White to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   b   .   .     21-24
    #     b   .   .   .   25-28
    #   w   .   .   .     29-32
    blocked = Game(get_ruleset("english_giveaway"), fen="W:W29:B22,25")
    assert blocked.outcome() == Outcome(Colour.WHITE, Reason.NO_LEGAL_MOVE)


def test_canadian_start_position() -> None:
    """RULES.md: Canadian draughts, 12x12 with 30 men each (five rows). White's front row is
    43-48: 43 on the edge has one step, the others two: perft(1) = 11."""
    pos = Position.start("canadian")
    assert pos.fen() == "W:W43-72:B1-30"
    assert sum(1 for _ in pos.pieces(Colour.WHITE)) == sum(1 for _ in pos.pieces(Colour.BLACK))
    assert sum(1 for _ in pos.pieces(Colour.WHITE)) == 30
    moves = pos.legal_moves()
    assert {format_move(m, moves) for m in moves} == {
        "43-37", "44-37", "44-38", "45-38", "45-39", "46-39",
        "46-40", "47-40", "47-41", "48-41", "48-42",
    }  # fmt: skip
    assert pos.perft(1) == 11
