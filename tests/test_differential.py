"""Differential tests: our legal moves against independent engines, position by position.

Moves are compared as sets of (origin, destination, captured set) in PDN numbers, which is
what both peers can express (pydraughts lists duplicate capture routes separately; the
adapters in damas_agents.players.peers merge them).

- pydraughts 0.6.7: international, english, brazilian, russian. Its rules agree with ours
  on all four; it has no draw rules we rely on here (we stop games at a ply cap).
- OpenSpiel 2.0.2 ``checkers``: English rules, but it ends a game as a draw after 40 plies
  without a capture (not an official rule), so a game is compared up to that point.

Positions come from seeded random games and from seeded random placements with kings
(random games rarely reach the flying-king captures that are hardest to get right).

Every compared position is tallied by peer and variant (``COMPARED``); ``conftest.py``
prints the tally at the end of the run, workers included.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

import numpy as np
import pytest
from helpers import VARIANTS as BUILT_IN

from damas_agents.players.peers import OpenSpielCheckersPeer, PydraughtsPeer
from damas_env import Move, Position
from damas_env.rules import Ruleset

pytest.importorskip("draughts")

#: The variants compared here, position by position without a game's history. pydraughts
#: also plays Frisian, Frysk!, Italian, Turkish, Breakthrough and Antidraughts:
#: ``test_differential_family.py`` compares those, through games.
VARIANTS = [v for v in BUILT_IN if v in ("international", "english", "brazilian", "russian")]

#: Positions compared in this process, by "peer variant"; printed by conftest.py.
COMPARED: Counter[str] = Counter()


def assert_same_moves(pos: Position, peer_moves: set, peer: str) -> None:
    """Asserts our legal moves equal a peer's, and tallies the comparison."""
    assert our_moves(pos) == peer_moves, f"{peer} {pos.rules.name} {pos.fen()}"
    COMPARED[f"{peer} {pos.rules.name}"] += 1


def our_moves(pos: Position) -> set[tuple[int, int, frozenset[int]]]:
    return pdn_keys(pos.legal_moves())


def pdn_keys(moves: Iterable[Move]) -> set[tuple[int, int, frozenset[int]]]:
    """Returns the (origin, destination, captured set) of each move, in PDN numbers."""
    return {(m.origin + 1, m.destination + 1, frozenset(c + 1 for c in m.captures)) for m in moves}


def ordered(moves: Iterable[tuple[int, int, frozenset[int]]]) -> list:
    """Returns moves in a fixed order (frozensets have none of their own), for seeded choices."""
    return sorted(moves, key=lambda m: (m[0], m[1], sorted(m[2])))


def play(pos: Position, move: tuple[int, int, frozenset[int]]) -> Position:
    """Returns the position after the move a peer names in PDN numbers."""
    key = (move[0] - 1, move[1] - 1, frozenset(c - 1 for c in move[2]))
    return pos.play(next(m for m in pos.legal_moves() if m.key == key))


def random_placement(variant: str | Ruleset, rng: random.Random) -> Position:
    """Returns a random legal-looking position: men off their crowning row, kings anywhere."""
    pos = Position.start(variant)
    squares, half = pos.rules.squares, pos.rules.squares_per_row
    board = np.zeros(squares, dtype=np.int8)
    for sq in rng.sample(range(squares), rng.randint(3, 14)):
        sign = rng.choice((1, -1))
        on_crown_row = sq < half if sign == 1 else sq >= squares - half
        board[sq] = sign * (2 if on_crown_row or rng.random() < 0.4 else 1)
    return Position(pos.rules, board, rng.randint(0, 1))


def _compare_game(variant: str, seed: int, plies: int) -> int:
    rng = random.Random(seed)
    pos = Position.start(variant)
    peer = PydraughtsPeer(variant)
    compared = 0
    for _ in range(plies):
        ours = our_moves(pos)
        assert_same_moves(pos, peer.moves(), "pydraughts")
        compared += 1
        if not ours:
            break
        move = rng.choice(ordered(ours))
        pos = play(pos, move)
        peer.play(move)
    return compared


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_against_pydraughts(variant: str) -> None:
    compared = sum(_compare_game(variant, seed, 120) for seed in range(10))
    assert compared > 300


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_placements_against_pydraughts(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(250):
        pos = random_placement(variant, rng)
        assert_same_moves(pos, PydraughtsPeer(variant, pos.fen()).moves(), "pydraughts")


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_random_placements_against_pydraughts(variant: str) -> None:
    rng = random.Random(f"slow-{variant}")
    for _ in range(3000):
        pos = random_placement(variant, rng)
        assert_same_moves(pos, PydraughtsPeer(variant, pos.fen()).moves(), "pydraughts")


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_random_games_against_pydraughts(variant: str) -> None:
    compared = sum(_compare_game(variant, 1000 + seed, 200) for seed in range(200))
    assert compared > 10_000


def _compare_openspiel(seed: int) -> int:
    pytest.importorskip("pyspiel")
    rng = random.Random(seed)
    pos = Position.start("english")
    peer = OpenSpielCheckersPeer()
    compared = 0
    while not peer.is_terminal():
        ours = our_moves(pos)
        assert_same_moves(pos, peer.moves(), "openspiel")
        assert pos.fen() == Position.from_fen(peer.fen(), "english").fen()
        compared += 1
        move = rng.choice(ordered(ours))
        pos = play(pos, move)
        peer.play(move)
    return compared


def test_random_games_against_openspiel() -> None:
    assert sum(_compare_openspiel(seed) for seed in range(40)) > 1000


@pytest.mark.slow
def test_many_random_games_against_openspiel() -> None:
    assert sum(_compare_openspiel(1000 + seed) for seed in range(1000)) > 25_000
