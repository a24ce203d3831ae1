"""The extremes: positions with the most moves and capture routes we could find.

The positions come from a hill-climbing search over random positions full of kings
(`benchmarks/extremes.py`). The kernels' move lists are fixed buffers that raise
OverflowError when full; the Python API grows them and retries, so these positions, which
overflow the default buffer, still give every move. Counts are checked against pydraughts
where it can play the variant.
"""

import pytest

from damas_env import Position
from damas_env import kernels as K
from damas_env.engine import Engine

INTERNATIONAL_MOST_MOVES = (
    "W:WK2,K3,K4,K5,K36,K46,K47,K49:B7-9,K10,K11,15,K20,K21,K24,27,K29,32,K33,K38,K42,K43"
)
INTERNATIONAL_MOST_ROUTES = (
    "W:WK1,K4,K5,K45,K50:B3,8,9,11,K12,K14,K17,20,K21,K26,K30,K31,K34,K37,39,41-44,K46,K48"
)
CANADIAN_MOST_MOVES = (
    "W:WK1,K2,K6,K7,10,11,15,K18,K19,31,K54,63,K66,K67,K68,K70,K71,K72"
    ":BK3,K4,K5,K9,K22,27,K28,30,K33,35,K36,K37,K38,41,K44,47,K48,49,50,K52,K55,57,K58,K69"
)
CANADIAN_MOST_ROUTES = (
    "W:WK1,K2,K4,K5,K12,K18,19,K24,K35,K42,43,K56,K58,K66,67,K69,71,K72"
    ":B6,K8,9,K10,K11,17,21,K22,25,26,28,29,K30,32,K37,K38,K40,K41,K45,48,49,K51,52,54,60-62"
    ",K63,64,65"
)


def fresh(fen: str, variant: str) -> Position:
    """Returns the position with the engine's buffers back to their default size."""
    pos = Position.from_fen(fen, variant)
    Engine.for_rules(pos.rules).moves = K.new_move_buffer()
    Engine.for_rules(pos.rules)._perft_buffers = None
    return pos


def test_international_most_moves_matches_pydraughts() -> None:
    pos = fresh(INTERNATIONAL_MOST_MOVES, "international")
    moves = {
        (m.origin + 1, m.destination + 1, frozenset(c + 1 for c in m.captures))
        for m in pos.legal_moves()
    }
    assert len(moves) == 407
    peers = pytest.importorskip("damas_agents.players.peers")
    pytest.importorskip("draughts")
    assert moves == peers.PydraughtsPeer("international", INTERNATIONAL_MOST_MOVES).moves()


def test_international_most_routes() -> None:
    pos = fresh(INTERNATIONAL_MOST_ROUTES, "international")
    routes = pos.capture_routes()
    assert len(routes) == 1668 and len(pos.legal_moves()) == 38
    assert {r.key for r in routes} == {m.key for m in pos.legal_moves()}
    assert all(len(r.captures) == 11 for r in routes)  # majority rule: all take the most


def test_canadian_overflowing_default_buffers() -> None:
    pos = fresh(CANADIAN_MOST_MOVES, "canadian")
    assert len(pos.legal_moves()) == 2176 > K.MAX_MOVES
    assert pos.perft(1) == 2176
    assert len(pos.capture_routes()) == 9816


def test_canadian_most_routes() -> None:
    pos = fresh(CANADIAN_MOST_ROUTES, "canadian")
    assert len(pos.capture_routes()) == 40040 and len(pos.legal_moves()) == 98
    assert pos.perft(2) == 242


def test_overflow_past_the_cap_is_loud(monkeypatch: pytest.MonkeyPatch) -> None:
    import damas_env.engine as engine

    pos = fresh(INTERNATIONAL_MOST_ROUTES, "international")
    monkeypatch.setattr(engine, "MAX_LIST_ROWS", 1024)
    Engine.for_rules(pos.rules).moves = K.new_move_buffer(256)
    with pytest.raises(OverflowError, match="more than 1024 capture routes"):
        pos.capture_routes()
    assert (
        pos.board.sum() == Position.from_fen(INTERNATIONAL_MOST_ROUTES, "international").board.sum()
    )
    Engine.for_rules(pos.rules).moves = K.new_move_buffer()
