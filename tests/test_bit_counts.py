"""perft's shortcuts on bit sets give the generator's counts, position by position, in every
variant: the bundle kept by each move (bits_after), the moves counted without listing them
(count_moves: steps by popcount, captures by a walk of the jumps; on 12x12, which has no
bundle, square by square) and the two last plies (perft(2): the steps walked on bit sets; on
12x12 the replies counted on sets of two words, damas_env.wide).
Positions: random games and random boards, kings and long captures included."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_game_positions

from damas_env import kernels as K
from damas_env.engine import Engine, Position
from damas_env.family import base_variants
from damas_env.rules import get_ruleset


def _positions(engine: Engine, rng: np.random.Generator) -> list[tuple[np.ndarray, int]]:
    """Returns positions of random games and random boards (board, side to move)."""
    positions = random_game_positions(engine, rng, games=3, plies=150)
    squares = engine.rules.squares
    for _ in range(150):
        density = rng.uniform(0.2, 0.7)
        codes = rng.choice([1, 2, -1, -2], size=squares, p=[0.35, 0.15, 0.35, 0.15])
        board = np.where(rng.random(squares) < density, codes, 0).astype(np.int8)
        row = engine.rules.squares_per_row
        board[:row][board[:row] == 1] = 2  # no man stands on its crowning row
        board[squares - row :][board[squares - row :] == -1] = -2
        positions.append((board, int(rng.integers(2))))
    return positions


def _bundle(bits: tuple[int, ...]) -> tuple[np.uint64, ...]:
    """A bundle back from a kernel (Python ints) as the kernels take it."""
    return tuple(np.uint64(b) for b in bits)


def _listed(engine: Engine, board: np.ndarray, side: int, mv: np.ndarray) -> int:
    n = K.generate_moves(board, side, engine.ray, engine.rule_array, mv, True, engine.workspace)
    assert n <= mv.shape[0]
    return int(n)


@pytest.mark.parametrize("variant", base_variants())
def test_counts_on_bit_sets_are_the_generators(variant: str) -> None:
    engine = Engine.for_rules(get_ruleset(variant))
    ray, rules, ws = engine.ray, engine.rule_array, engine.workspace
    word = rules[K.R_WORD] == 1  # beyond a word (12x12): counted square by square, no bundle
    mv, below = K.new_move_buffer(4096), K.new_move_buffer(4096)
    captures = kings_moving = 0
    for board, side in _positions(engine, np.random.default_rng(11)):
        bits = _bundle(K.board_bits(board, rules))
        n = _listed(engine, board, side, mv)
        assert K.count_moves(board, bits, side, ray, rules, below, ws) == n
        captures += n > 0 and mv[0, K.M_NCAP] > 0
        leaves = 0
        for i in range(n):
            kings_moving += abs(board[mv[i, K.M_FROM]]) == 2
            after = _bundle(K.bits_after(bits, mv, i, rules)) if word else bits
            K.apply_move(board, mv, i)
            assert after == _bundle(K.board_bits(board, rules))
            leaves += _listed(engine, board, 1 - side, below)
            K.undo_move(board, mv, i)
        assert engine.perft(board, side, 2) == leaves
    assert captures > 50 and kings_moving > 50


@pytest.mark.parametrize("code", [1, 2, -1, -2])
def test_the_bundle_follows_a_capture_that_comes_back_to_its_square(code: int) -> None:
    """A piece that takes four pieces round a square of the board lands where it started (a
    man may, where men capture backwards): the bundle keeps it there, the taken ones gone."""
    engine = Engine.for_rules(get_ruleset("international"))
    rules = engine.rule_array
    board = np.zeros(engine.rules.squares, np.int8)
    origin, taken = 22, [17, 18, 27, 28]
    board[origin] = code
    board[taken] = -np.sign(code)
    mv = K.new_move_buffer(1)
    mv[0, K.M_FROM] = mv[0, K.M_TO] = origin
    mv[0, K.M_NCAP] = len(taken)
    mv[0, K.M_CAPS : K.M_CAPS + 4] = taken
    mv[0, K.M_CODES : K.M_CODES + 4] = board[taken]
    after = _bundle(K.bits_after(_bundle(K.board_bits(board, rules)), mv, 0, rules))
    K.apply_move(board, mv, 0)
    assert board[origin] == code and not board[taken].any()
    assert after == _bundle(K.board_bits(board, rules))


def _without_kings(board: np.ndarray) -> np.ndarray:
    return np.sign(board).astype(np.int8)  # men only: no flying king takes part


@pytest.mark.parametrize("variant", base_variants())
@pytest.mark.parametrize("merge", [True, False])
def test_the_generator_on_bit_sets_lists_what_the_square_walk_lists(
    variant: str, merge: bool
) -> None:
    """The generator on bit sets (capturers, the jumps of every piece that no flying king
    can join, the steps) lists the same rows, in the same order, as its square-by-square
    walk, the path of a board beyond a word (the same rules with that switch off)."""
    engine = Engine.for_rules(get_ruleset(variant))
    ray, rules, ws = engine.ray, engine.rule_array, engine.workspace
    if rules[K.R_WORD] != 1:  # one word
        pytest.skip("a board beyond a word: the square walk only")
    by_squares = rules.copy()
    by_squares[K.R_WORD] = 0
    mv, expected = K.new_move_buffer(4096), K.new_move_buffer(4096)
    positions = _positions(engine, np.random.default_rng(5))
    positions += [(_without_kings(b), s) for b, s in positions]
    captures = 0
    for board, side in positions:
        before = board.copy()
        n = K.generate_moves(board, side, ray, rules, mv, merge, ws)
        m = K.generate_moves(board, side, ray, by_squares, expected, merge, ws)
        assert n == m <= mv.shape[0]
        columns = slice(0, K.M_MARK)  # M_MARK: scratch
        np.testing.assert_array_equal(mv[:n, columns], expected[:n, columns])
        assert np.array_equal(board, before)
        captures += n > 0 and mv[0, K.M_NCAP] > 0
    assert captures > 50


@pytest.mark.parametrize(
    ("fen", "on_bits", "flies_on"),
    [
        ("W:W9:B6,7", False, True),  # 9x2 crowns, and the new king flies on over 7
        ("W:W17:B13,14", True, False),  # no enemy piece next to the crowning row
        ("W:W9,K30:B6,7", False, True),  # and a king of the side to move is on the board
    ],
)
def test_a_man_crowned_in_a_capture_walks_squares_where_it_may_fly_on(
    fen: str, on_bits: bool, flies_on: bool
) -> None:
    """Russian rules: a man that reaches the crowning row in a capture goes on as a flying
    king. The generator walks the jumps on bit sets only where no jump can land on that row
    (nor a king of the side to move is on the board); either way it lists the square walk's
    rows."""
    position = Position.from_fen(fen, "russian")
    engine = Engine.for_rules(position.rules)
    ray, rules, ws = engine.ray, engine.rule_array, engine.workspace
    board, side = position.board.copy(), int(position.turn)
    own_m, own_k, opp_m, opp_k, empty = _bundle(
        K.side_sets(_bundle(K.board_bits(board, rules)), side)
    )
    switches = K._switches(rules, side)
    assert (
        K._counts_captures_on_bits(own_m, own_k, opp_m | opp_k, empty, side, rules, switches)
        == on_bits
    )
    by_squares = rules.copy()
    by_squares[K.R_WORD] = 0
    mv, expected = K.new_move_buffer(64), K.new_move_buffer(64)
    for merge in (True, False):
        n = K.generate_moves(board, side, ray, rules, mv, merge, ws)
        assert n == K.generate_moves(board, side, ray, by_squares, expected, merge, ws) > 0
        np.testing.assert_array_equal(mv[:n, : K.M_MARK], expected[:n, : K.M_MARK])
    flying_on = [m for m in position.legal_moves() if len(m.captures) == 2 and m.path[0] == 1]
    assert bool(flying_on) == flies_on
