"""Bit sets of two words (damas_env.wide): compiled, the operators of a 128-bit integer,
the same as plain Python's (WideInt, what runs under NUMBA_DISABLE_JIT); on a 12x12 board
the sets hold the board and follow its moves as a word's bundle does."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
from helpers import random_game_positions
from hypothesis import given, settings
from hypothesis import strategies as st

from damas_env import kernels as K
from damas_env.compiled_rules import R_WORD, WORD_TWO
from damas_env.engine import Engine, Position
from damas_env.rules import get_ruleset
from damas_env.wide import WideInt, wide_from, wide_parts

WORD = st.integers(0, 2**64 - 1)
MASK = 2**128 - 1


def _operations(lo, hi, lo2, hi2, k):  # type: ignore[no-untyped-def]  # also compiled
    x, y = wide_from(lo, hi), wide_from(lo2, hi2)
    shift = np.uint64(k)
    out = (
        x & y, x | y, x ^ y, ~x, x << shift, x >> shift, x + np.uint64(1), x - np.uint64(1),
        x & (~x + np.uint64(1)),
    )  # fmt: skip
    parts = [wide_parts(v) for v in out]
    flags = (x == 0, x != 0, (x & y) != 0)
    low = K.lowest_bit(x) if x != 0 else -1
    return parts, flags, K.popcount(x), low


_compiled = numba.njit(_operations)


@settings(max_examples=300, deadline=None)
@given(WORD, WORD, WORD, WORD, st.integers(0, 63))
def test_compiled_operations_are_pythons(lo: int, hi: int, lo2: int, hi2: int, k: int) -> None:
    args = (np.uint64(lo), np.uint64(hi), np.uint64(lo2), np.uint64(hi2), k)
    parts, flags, count, low = _compiled(*args)
    plain = _operations(*args)
    assert [tuple(int(w) for w in p) for p in parts] == [tuple(int(w) for w in p) for p in plain[0]]
    assert tuple(flags) == tuple(plain[1]) and count == plain[2] and low == plain[3]
    x, y = lo | hi << 64, lo2 | hi2 << 64  # and both are what 128-bit integers give
    expected = [x & y, x | y, x ^ y, ~x & MASK, (x << k) & MASK, x >> k, (x + 1) & MASK]
    expected += [(x - 1) & MASK, x & -x]
    assert [int(p[0]) | int(p[1]) << 64 for p in parts] == expected
    assert count == bin(x).count("1") and low == ((x & -x).bit_length() - 1 if x else -1)
    assert isinstance(wide_from(lo, hi) << 3, WideInt)


def _ints(parts: list[tuple[int, int]]) -> list[int]:
    """Sets given as their (low, high) words, as Python ints."""
    return [int(lo) | int(hi) << 64 for lo, hi in parts]


@numba.njit
def _compiled_bundle(board, rules):  # type: ignore[no-untyped-def]
    return [wide_parts(s) for s in K.two_word_bits(board, rules)]


@numba.njit
def _compiled_after(board, rules, mv, i):  # type: ignore[no-untyped-def]
    return [wide_parts(s) for s in K.bits_after(K.two_word_bits(board, rules), mv, i, rules)]


def test_a_12x12_board_in_two_words_follows_its_moves() -> None:
    """two_word_bits places each piece on its square's bit (R_BIT) and bits_after keeps the
    sets move by move, captures and crowning included."""
    engine = Engine.for_rules(get_ruleset("canadian"))
    rules = engine.rule_array
    assert rules[R_WORD] == WORD_TWO
    bit = rules[K.R_BIT : K.R_BIT + engine.rules.squares]
    mv = K.new_move_buffer(4096)
    moved = captured = 0
    for board, side in random_game_positions(engine, np.random.default_rng(3), games=2, plies=200):
        sets = _ints(_compiled_bundle(board, rules))
        for code, s in zip((1, 2, -1, -2), sets, strict=False):
            assert s == sum(1 << int(b) for b in bit[board == code])
        assert sets[4] == sum(1 << int(b) for b in bit)
        n = K.generate_moves(board, side, engine.ray, rules, mv, True, engine.workspace)
        for i in range(n):
            after = _ints(_compiled_after(board, rules, mv, i))
            K.apply_move(board, mv, i)
            assert after == _ints(_compiled_bundle(board, rules))
            K.undo_move(board, mv, i)
            moved += 1
            captured += mv[i, K.M_NCAP] > 0
    assert moved > 1000 and captured > 50


PLAIN = """
from damas_env import Position
for fen in FENS:
    position = Position.from_fen(fen, "canadian") if fen else Position.start("canadian")
    print(position.perft(3))
"""
FENS = ["", "W:WK10,K60,20,30:B15,25,45,50", "B:W40,41,K2:BK70,K33,30,31"]


def test_plain_python_counts_as_the_compiled_kernels() -> None:
    """Under NUMBA_DISABLE_JIT the sets of two words are WideInts: perft on 12x12, flying
    kings and captures included, counts as the compiled kernels do."""
    compiled = [
        Position.from_fen(fen, "canadian").perft(3) if fen else Position.start("canadian").perft(3)
        for fen in FENS
    ]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    script = f"FENS = {FENS!r}\n" + PLAIN
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert [int(line) for line in out.stdout.split()] == compiled
    assert min(compiled) > 10
