"""Game: apply/undo, hashing, counters and results along seeded random games."""

import random

import numpy as np
import pytest
from helpers import VARIANTS

from damas_env import IllegalMoveError, Position
from damas_env.engine import Colour
from damas_env.game import Game, Outcome, Reason


def random_game(variant: str, seed: int, plies: int = 200) -> Game:
    rng = random.Random(seed)
    game = Game(variant)
    while game.ply < plies and not game.is_over:
        game.push(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("variant", VARIANTS)
def test_undo_restores_every_position_and_counter(variant: str) -> None:
    game = random_game(variant, seed=1)
    history = []
    replay = Game(variant)
    for move in game.moves:
        history.append((replay.position, replay.counters.copy(), replay.repetitions()))
        replay.push(move)
    while game.moves:
        game.pop()
        position, counters, repetitions = history.pop()
        assert game.position == position
        assert game.counters.tolist() == counters.tolist()
        assert game.repetitions() == repetitions
    assert game.position == Position.start(variant)


@pytest.mark.parametrize("variant", VARIANTS)
def test_incremental_hash_matches_full_hash(variant: str) -> None:
    game = random_game(variant, seed=2)
    replay = Game(variant)
    for move in game.moves:
        replay.push(move)
        assert int(replay._hashes[replay.ply]) == replay.position.hash()


def test_position_play_matches_game_push() -> None:
    game = random_game("international", seed=3, plies=80)
    pos = Position.start("international")
    for move in game.moves:
        pos = pos.play(move)
    assert pos == game.position


def test_illegal_push_changes_nothing() -> None:
    game = random_game("english", seed=4, plies=20)
    before = (game.position, game.counters.copy(), list(game.moves), game._hashes.copy())
    with pytest.raises(IllegalMoveError, match="legal moves:"):
        game.push("1-5")
    assert (game.position, game.counters.tolist(), game.moves) == (
        before[0],
        before[1].tolist(),
        before[2],
    )
    assert np.array_equal(game._hashes, before[3])


def test_pop_on_empty_game_is_an_error() -> None:
    with pytest.raises(IndexError, match="no move to take back"):
        Game("english").pop()


def test_no_move_after_the_end() -> None:
    game = Game("english", fen="W:W27:B23")
    game.push("27x18")
    assert game.outcome() == Outcome(Colour.WHITE, Reason.NO_LEGAL_MOVE)
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.push("18-14")


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_end_with_a_reason(variant: str) -> None:
    ends = set()
    for seed in range(6):
        game = random_game(variant, seed, plies=2000)
        outcome = game.outcome()
        assert outcome is not None, f"{variant} seed {seed} did not end in 2000 plies"
        ends.add(outcome.reason)
    assert ends <= set(Reason)


def test_giveaway_inverts_no_move_result() -> None:
    for variant, winner in (("english", Colour.WHITE), ("english_giveaway", Colour.BLACK)):
        game = Game(variant, fen="W:W27:B23")
        game.push("27x18")
        assert game.outcome() == Outcome(winner, Reason.NO_LEGAL_MOVE)
