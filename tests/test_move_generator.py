"""The move generator's parts agree with each other in every variant, along random games:
whether a side has a move, whether a piece can capture, and the moves listed."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_game_positions

from damas_env import kernels as K
from damas_env.engine import Engine
from damas_env.family import base_variants
from damas_env.rules import get_ruleset


def _positions(variant: str, games: int = 4) -> list[tuple[np.ndarray, int]]:
    """Returns the positions of a few random games (board, side to move), kings included."""
    engine = Engine.for_rules(get_ruleset(variant))
    return random_game_positions(engine, np.random.default_rng(7), games, plies=120)


@pytest.mark.parametrize("variant", base_variants())
def test_has_a_move_and_can_capture_agree_with_the_moves_listed(variant: str) -> None:
    engine = Engine.for_rules(get_ruleset(variant))
    ray, rules, ws = engine.ray, engine.rule_array, engine.workspace
    mv = K.new_move_buffer()
    kings = 0
    for board, side in _positions(variant):
        n = K.generate_moves(board, side, ray, rules, mv, False, ws)
        assert K.has_legal_move(board, side, ray, rules) == (n > 0)
        capturing = {int(mv[i, K.M_FROM]) for i in range(n) if mv[i, K.M_NCAP] > 0}
        sgn = 1 - 2 * side
        can = set()
        for s in np.flatnonzero(board * sgn > 0):
            king = bool(abs(board[s]) == 2)
            kings += king
            if K.can_capture_from(board, int(s), king, side, ray, rules):
                can.add(int(s))
        assert capturing <= can and bool(can) == bool(capturing)  # ranked: not every one listed
        assert K.can_capture(board, side, ray, rules, ws) == bool(can)
        if capturing:
            assert all(mv[i, K.M_NCAP] > 0 for i in range(n))  # captures are compulsory
    assert kings > 0  # the kings' paths were walked too


@pytest.mark.parametrize("variant", ["english", "international", "turkish"])
def test_the_pieces_listed_are_the_side_to_moves_in_square_order(variant: str) -> None:
    engine = Engine.for_rules(get_ruleset(variant))
    ws = engine.workspace
    pieces = ws[K.WS_PIECES]
    squares = engine.rules.squares
    assert pieces.shape[0] >= squares  # a side may hold every square of a set-up position
    full = np.ones(squares, np.int8)
    assert K.list_pieces(full, 1, squares, pieces) == squares
    np.testing.assert_array_equal(pieces[:squares], np.arange(squares))
    for board, side in _positions(variant, games=2):
        sgn = 1 - 2 * side
        count = K.list_pieces(board, sgn, squares, pieces)
        np.testing.assert_array_equal(pieces[:count], np.flatnonzero(board * sgn > 0))
