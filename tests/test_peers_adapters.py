"""Tests of the reference-engine adapters in ``damas_agents.players.peers`` (pydraughts and
OpenSpiel).

The deeper perft counts take several seconds each with pydraughts (about 1,000 leaves/s); they
carry the ``slow`` marker, which the default run deselects (``python -m pytest -m slow``).
"""

from __future__ import annotations

import random
import sys

import pytest

from damas_agents.players.peers import OpenSpielCheckersPeer, PeerMove, PydraughtsPeer
from damas_env import Position


def canonical(fen: str, variant: str) -> str:
    """Returns a FEN in damas_env.notation's canonical form (ranges, kings in order)."""
    return Position.from_fen(fen, variant).fen()


NONE: frozenset[int] = frozenset()


@pytest.fixture
def pydraughts() -> object:
    """Skips the test when pydraughts is not installed."""
    return pytest.importorskip("draughts")


@pytest.fixture
def pyspiel() -> object:
    """Skips the test when OpenSpiel is not installed."""
    return pytest.importorskip("pyspiel")


def _ordered(moves: set[PeerMove]) -> list[PeerMove]:
    """Sorts moves deterministically (frozensets have no order of their own)."""
    return sorted(moves, key=lambda move: (move[0], move[1], sorted(move[2])))


# ---------------------------------------------------------------------------------------------
# Start positions and numbering
# ---------------------------------------------------------------------------------------------

ENGLISH_START_MOVES = {
    (9, 13, NONE),
    (9, 14, NONE),
    (10, 14, NONE),
    (10, 15, NONE),
    (11, 15, NONE),
    (11, 16, NONE),
    (12, 16, NONE),
}

INTERNATIONAL_START_MOVES = {
    (31, 26, NONE),
    (31, 27, NONE),
    (32, 27, NONE),
    (32, 28, NONE),
    (33, 28, NONE),
    (33, 29, NONE),
    (34, 29, NONE),
    (34, 30, NONE),
    (35, 30, NONE),
}

EIGHT_BY_EIGHT_WHITE_START_MOVES = {
    (21, 17, NONE),
    (22, 17, NONE),
    (22, 18, NONE),
    (23, 18, NONE),
    (23, 19, NONE),
    (24, 19, NONE),
    (24, 20, NONE),
}


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_english_start_moves() -> None:
    """Checks pydraughts' English start moves: Black on 1-12 moves first."""
    assert PydraughtsPeer("english").moves() == ENGLISH_START_MOVES


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_international_start_moves() -> None:
    """Checks pydraughts' International start moves: White on 31-50 moves first."""
    assert PydraughtsPeer("international").moves() == INTERNATIONAL_START_MOVES


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize("variant", ["brazilian", "russian"])
def test_pydraughts_white_first_8x8_start_moves(variant: str) -> None:
    """Checks the Brazilian and Russian start moves in PDN numbering: White on 21-32 first."""
    assert PydraughtsPeer(variant).moves() == EIGHT_BY_EIGHT_WHITE_START_MOVES


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_italian_start_moves() -> None:
    """Checks Italian numbering: the top-left corner is dark, so 21 has two squares ahead."""
    assert PydraughtsPeer("italian").moves() == {
        (21, 17, NONE),
        (21, 18, NONE),
        (22, 18, NONE),
        (22, 19, NONE),
        (23, 19, NONE),
        (23, 20, NONE),
        (24, 20, NONE),
    }


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_turkish_start_moves() -> None:
    """Checks Turkish numbering (all 64 squares): the men on 41-48 step up a row."""
    assert PydraughtsPeer("turkish").moves() == {(sq, sq - 8, NONE) for sq in range(41, 49)}


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(
    ("variant", "fen", "expected"),
    [
        # Row 5 starts on a light square on the mirrored board: 21 is b3, with a4 and c4 ahead.
        ("italian", "W:W21:B12", {(21, 17, NONE), (21, 18, NONE)}),
        ("italian", "W:W24:B12", {(24, 20, NONE)}),
        # Turkish men step up or sideways: a2 (49) goes to a3 (41) or b2 (50).
        ("turkish", "W:W49:B8", {(49, 41, NONE), (49, 50, NONE)}),
        ("turkish", "B:W49:B8", {(8, 16, NONE), (8, 7, NONE)}),
        ("frysk", "W:W46:B5", {(46, 41, NONE)}),
    ],
)
def test_pydraughts_numbering_by_coordinates(
    variant: str, fen: str, expected: set[PeerMove]
) -> None:
    """Checks that pydraughts' squares map to ours by board coordinates, away from the start."""
    assert PydraughtsPeer(variant, fen).moves() == expected


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (
            "international",
            "W:W" + ",".join(map(str, range(31, 51))) + ":B" + ",".join(map(str, range(1, 21))),
        ),
        ("frisian", "W:W31-50:B1-20"),
        ("frysk", "W:W46-50:B1-5"),
        ("italian", "W:W21-32:B1-12"),
        ("turkish", "W:W41-56:B9-24"),
        ("breakthrough", "W:W31-50:B1-20"),
        ("international_giveaway", "W:W31-50:B1-20"),
        ("english", "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
        ("brazilian", "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
        ("russian", "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
    ],
)
def test_pydraughts_start_fen(variant: str, expected: str) -> None:
    """Checks the start FEN of each variant in PDN numbering."""
    assert PydraughtsPeer(variant).fen() == canonical(expected, variant)


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(
    ("variant", "fen", "expected"),
    [
        # Kings step one square in English checkers.
        ("english", "W:WK18:B1", {(18, 14, NONE), (18, 15, NONE), (18, 22, NONE), (18, 23, NONE)}),
        ("english", "W:W27:B23", {(27, 18, frozenset({23}))}),
        ("international", "W:W33:B28", {(33, 22, frozenset({28}))}),
        # A flying king may land on any empty square behind the captured piece.
        (
            "international",
            "W:WK28:B17,18,22,23",
            {
                (28, 19, frozenset({23})),
                (28, 14, frozenset({23})),
                (28, 10, frozenset({23})),
                (28, 5, frozenset({23})),
            },
        ),
        # Men capture backwards outside English checkers.
        ("brazilian", "W:W27:B23,K14", {(27, 9, frozenset({14, 23}))}),
    ],
)
def test_pydraughts_moves_from_fen(variant: str, fen: str, expected: set[PeerMove]) -> None:
    """Checks step, capture and flying-king moves from FEN positions."""
    assert PydraughtsPeer(variant, fen).moves() == expected


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_merges_duplicate_routes() -> None:
    """Checks that routes with equal origin, destination and captures count once."""
    # The king can take the four men clockwise or anticlockwise and come back to 26: pydraughts
    # lists both routes, the peer one move.
    peer = PydraughtsPeer("english", "W:WK26:B14,15,22,23")
    assert peer.moves() == {(26, 26, frozenset({14, 15, 22, 23}))}
    assert peer.perft(1) == 1
    russian = PydraughtsPeer("russian", "W:WK26:B14,15,22,23")
    assert russian.moves() == {
        (26, 26, frozenset({14, 15, 22, 23})),
        (26, 30, frozenset({14, 15, 22, 23})),
        (26, 31, frozenset({14, 15, 22, 23})),
    }


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        # Russian: a man crowned during a capture goes on capturing as a king.
        ("russian", {(12, 31, frozenset({8, 14, 26}))}),
        # Brazilian: the capture stops on the last row and the man is crowned.
        ("brazilian", {(12, 3, frozenset({8}))}),
        ("english", {(12, 3, frozenset({8}))}),
    ],
)
def test_pydraughts_crowning_during_capture(variant: str, expected: set[PeerMove]) -> None:
    """Checks each variant's rule for a man reaching the last row in a capture."""
    assert PydraughtsPeer(variant, "W:W12:B8,14,26").moves() == expected


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        # Free choice of capture in Russian and English draughts.
        ("russian", {(27, 9, frozenset({14, 23})), (30, 21, frozenset({25}))}),
        ("english", {(27, 9, frozenset({14, 23})), (30, 21, frozenset({25}))}),
        # Brazilian: the capture taking the most pieces is compulsory.
        ("brazilian", {(27, 9, frozenset({14, 23}))}),
    ],
)
def test_pydraughts_majority_capture_rule(variant: str, expected: set[PeerMove]) -> None:
    """Checks free capture choice (Russian, English) against the majority rule (Brazilian)."""
    assert PydraughtsPeer(variant, "W:W27,30:B14,23,25").moves() == expected


# ---------------------------------------------------------------------------------------------
# FEN round trips and play
# ---------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(
    ("variant", "fen", "expected"),
    [
        ("english", "B:W18,24,K27:B12,16", "B:W18,24,K27:B12,16"),
        ("english", "W:W31-32,K9:BK1-2,20", "W:WK9,31,32:BK1,K2,20"),
        ("international", "W:WK3,31-35:B16,K46", "W:WK3,31,32,33,34,35:B16,K46"),
        ("russian", "B:WK26,29:B14,15,K22,23", "B:WK26,29:B14,15,K22,23"),
        ("brazilian", "W:WK4,21:BK29,12", "W:WK4,21:B12,K29"),
        ("italian", "W:WK4,21:BK29,12", "W:WK4,21:B12,K29"),
        ("turkish", "B:WK1,49,K64:B8,K57", "B:WK1,49,K64:B8,K57"),
        ("frisian", "W:WK3,31-35:B16,K46", "W:WK3,31,32,33,34,35:B16,K46"),
    ],
)
def test_pydraughts_fen_round_trip(variant: str, fen: str, expected: str) -> None:
    """Checks that FENs with kings and ranges survive a trip through pydraughts."""
    peer = PydraughtsPeer(variant, fen)
    assert peer.fen() == canonical(expected, variant)
    again = PydraughtsPeer(variant, peer.fen())
    assert again.fen() == canonical(expected, variant)
    assert again.moves() == peer.moves()


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_fen_with_kings_moves() -> None:
    """Checks moves, play and FEN updates from an English position with a king."""
    peer = PydraughtsPeer("english", "B:W18,24,K27:B12,16")
    assert peer.moves() == {(16, 19, NONE), (16, 20, NONE)}
    peer.play((16, 19, NONE))
    assert peer.fen() == canonical("W:W18,24,K27:B12,19", "english")
    assert peer.moves() == {(24, 15, frozenset({19}))}
    peer.play((24, 15, frozenset({19})))
    assert peer.fen() == canonical("B:W15,18,K27:B12", "english")


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_play_and_perft_leave_state_consistent() -> None:
    """Checks that perft keeps the position and agrees with playing each move."""
    peer = PydraughtsPeer("international")
    start = peer.fen()
    assert peer.perft(2) == 81
    assert peer.fen() == start
    peer.play((32, 28, NONE))
    after = peer.fen()
    assert after.startswith("B:")
    children = []
    for move in _ordered(peer.moves()):
        child = PydraughtsPeer("international", after)
        child.play(move)
        children.append(child.perft(1))
    assert peer.perft(2) == sum(children)
    assert peer.fen() == after
    with pytest.raises(ValueError, match="illegal move"):
        peer.play((32, 28, NONE))


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_rejects_unknown_variant_and_bad_fen() -> None:
    """Checks that unknown variants and malformed FENs raise ValueError."""
    with pytest.raises(ValueError, match="unknown variant"):
        PydraughtsPeer("spanish")  # a variant of ours that pydraughts does not play
    with pytest.raises(ValueError, match="W or B to move"):
        PydraughtsPeer("english", "X:W1:B2")
    with pytest.raises(ValueError, match="not on the board"):
        PydraughtsPeer("english", "W:W33:B1")
    with pytest.raises(ValueError, match="given twice"):
        PydraughtsPeer("english", "W:W5:B5")


# ---------------------------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------------------------

PERFT_START = {
    "english": [7, 49, 302, 1469, 7361, 36768],
    "international": [9, 81, 658, 4265],
    "brazilian": [7, 49, 302, 1469, 7473],
    "russian": [7, 49, 302, 1469, 7482],
}
FAST_DEPTH = {"english": 4, "international": 3, "brazilian": 4, "russian": 4}
SLOW_DEPTH = {"english": 5, "international": 4, "brazilian": 5, "russian": 5}

PERFT_CASES = [
    pytest.param(variant, depth, PERFT_START[variant][depth - 1], id=f"{variant}-{depth}")
    for variant in PERFT_START
    for depth in range(1, FAST_DEPTH[variant] + 1)
] + [
    pytest.param(
        variant,
        depth,
        PERFT_START[variant][depth - 1],
        id=f"{variant}-{depth}",
        marks=pytest.mark.slow,
    )
    for variant, depth in SLOW_DEPTH.items()
]


@pytest.mark.usefixtures("pydraughts")
@pytest.mark.parametrize(("variant", "depth", "expected"), PERFT_CASES)
def test_pydraughts_perft_start(variant: str, depth: int, expected: int) -> None:
    """Checks pydraughts' perft from the start against published counts."""
    assert PydraughtsPeer(variant).perft(depth) == expected


@pytest.mark.usefixtures("pydraughts")
def test_pydraughts_perft_international_position() -> None:
    """Checks pydraughts' perft from a published International test position."""
    peer = PydraughtsPeer(
        "international", "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"
    )
    assert [peer.perft(depth) for depth in (0, 1, 2, 3)] == [1, 6, 12, 30]


@pytest.mark.usefixtures("pyspiel")
def test_openspiel_start_position() -> None:
    """Checks OpenSpiel's start moves and FEN in PDN terms (Black on 1-12 first)."""
    peer = OpenSpielCheckersPeer()
    assert peer.moves() == ENGLISH_START_MOVES
    assert peer.fen() == "B:W21-32:B1-12"
    assert not peer.is_terminal()


@pytest.mark.usefixtures("pyspiel")
def test_openspiel_perft_start() -> None:
    """Checks OpenSpiel's complete-move perft against the published English counts."""
    peer = OpenSpielCheckersPeer()
    assert [peer.perft(depth) for depth in range(7)] == [1, *PERFT_START["english"]]
    assert peer.moves() == ENGLISH_START_MOVES


@pytest.mark.usefixtures("pyspiel")
def test_openspiel_play_and_illegal_move() -> None:
    """Checks that OpenSpiel plays a move, updates the FEN and rejects illegal moves."""
    peer = OpenSpielCheckersPeer()
    peer.play((11, 15, NONE))
    assert peer.fen() == "W:W21-32:B1-10,12,15"
    assert (23, 19, NONE) in peer.moves()
    with pytest.raises(ValueError, match="illegal move"):
        peer.play((11, 15, NONE))


# ---------------------------------------------------------------------------------------------
# Differential: OpenSpiel against pydraughts
# ---------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("pydraughts", "pyspiel")
@pytest.mark.parametrize("seed", range(5))
def test_openspiel_and_pydraughts_agree_on_random_english_games(seed: int) -> None:
    """Checks that both engines give the same moves and FENs along a random game."""
    rng = random.Random(seed)
    reference = PydraughtsPeer("english")
    other = OpenSpielCheckersPeer()
    for ply in range(40):
        if other.is_terminal():
            # Either a real end of game, or OpenSpiel's 40-ply no-capture draw.
            break
        moves = reference.moves()
        assert other.moves() == moves, f"seed {seed} ply {ply} at {reference.fen()}"
        assert other.fen() == reference.fen(), f"seed {seed} ply {ply}"
        if not moves:
            break
        move = rng.choice(_ordered(moves))
        reference.play(move)
        other.play(move)
    assert other.fen() == reference.fen()


# ---------------------------------------------------------------------------------------------
# Missing engines
# ---------------------------------------------------------------------------------------------


def test_missing_pydraughts_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks that a missing pydraughts raises an ImportError naming the package."""
    monkeypatch.setitem(sys.modules, "draughts", None)
    with pytest.raises(ImportError, match="pip install pydraughts"):
        PydraughtsPeer("english")


def test_missing_openspiel_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checks that a missing OpenSpiel raises an ImportError naming the package."""
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(ImportError, match="pip install open_spiel"):
        OpenSpielCheckersPeer()
