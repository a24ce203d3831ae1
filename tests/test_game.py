"""Game: apply/undo, hashing, counters and results along seeded random games; the same
results as the AEC env in every registered ruleset."""

import random

import numpy as np
import pytest
from helpers import RULESETS, VARIANTS

from damas_env import IllegalMoveError, Position, draughts_v0
from damas_env.encoding import move_to_actions
from damas_env.engine import Colour
from damas_env.game import Game, Outcome, Reason
from damas_env.rules import get_ruleset

#: Kings only, three a side, by board size: endings by repetition and the draw rules.
KINGS = {
    8: "W:WK4,K12,K14:BK21,K29,K30",
    10: "W:WK5,K14,K28:BK37,K46,K47",
    12: "W:WK6,K17,K30:BK50,K66,K67",
}


def random_game(variant: str, seed: int, plies: int = 200, fen: str | None = None) -> Game:
    rng = random.Random(seed)
    game = Game(variant, fen)
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


def turn_state(game: Game) -> list[np.ndarray]:
    """Returns copies of what a game's turn state holds between moves (the rest is scratch)."""
    s = game._turn.states
    return [a.copy() for a in (s.board, s.st, s.hist, s.last)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_incremental_hash_matches_full_hash(variant: str) -> None:
    game = random_game(variant, seed=2)
    replay = Game(variant)
    for move in game.moves:
        replay.push(move)
        hist = replay._turn.hist  # a ring: the hash after ply i is at i % its size
        assert int(hist[replay.ply % hist.size]) == replay.position.hash()


def repetitions_by_position(game: Game) -> list[int]:
    """Returns the repetition count after each ply, from the positions themselves: the same
    position (the side to move included) since the last capture or man move."""
    replay = Game(game.rules, game.start_fen)
    seen = [replay.position]
    counts = [1]
    for move in game.moves:
        if move.captures or abs(int(replay.board[move.origin])) == 1:
            seen = []
        replay.push(move)
        seen.append(replay.position)
        counts.append(seen.count(replay.position))
    return counts


@pytest.mark.parametrize("variant", ["english", "english_giveaway", "website_checkers"])
def test_repetitions_count_positions_since_the_last_irreversible_move(variant: str) -> None:
    repeated = 0
    for seed in range(4):
        game = random_game(variant, seed, plies=2000, fen=KINGS[8])
        counts = repetitions_by_position(game)
        while True:
            assert game.repetitions() == counts[game.ply]
            repeated += counts[game.ply] > 1
            if not game.moves:
                break
            game.pop()
    assert repeated > 0  # the games did repeat positions


#: International draughts whose history ring holds 8 hashes (6 plies without progress).
SHORT_RING = get_ruleset("international", no_progress_plies=6, name="short_ring")


@pytest.mark.parametrize("fen", [None, "B:W30,31,32,33,34,K45:B1,2,3,4,5,K6"])
def test_pop_to_the_start_restores_the_turn_state(fen: str | None) -> None:
    fresh = turn_state(Game(SHORT_RING, fen))
    game = Game(SHORT_RING, fen)
    assert game._turn.hist.size == 8
    rng = random.Random(5)
    while game.ply < 300 and not game.is_over:
        game.push(rng.choice(game.legal_moves()))
    assert game.ply > 16  # round the ring twice
    while game.moves:
        game.pop()
    assert all(np.array_equal(a, b) for a, b in zip(turn_state(game), fresh, strict=True))


@pytest.mark.parametrize("variant", ["english_adjudicated", "website_checkers"])
def test_pop_from_the_end_and_push_again(variant: str) -> None:
    game = random_game(variant, seed=7, plies=1000)
    outcome, last = game.outcome(), game.moves[-1]
    assert outcome is not None
    before = turn_state(game)
    game.pop()
    assert game.outcome() is None and last in game.legal_moves()
    game.push(last)
    assert game.outcome() == outcome
    assert all(np.array_equal(a, b) for a, b in zip(turn_state(game), before, strict=True))


@pytest.mark.parametrize("variant", ["english", "international", "frisian"])
def test_pop_forgets_the_routes_listed_after_the_move(variant: str) -> None:
    """The turn state lists a position's routes once; after a pop it lists those of the
    position taken back to, not the ones of the position the move had led to."""
    rng, game = random.Random(11), Game(variant)
    while game.ply < 40 and not game.is_over:
        game._turn.legal_actions()  # each position's routes listed before its move
        game.push(rng.choice(game.legal_moves()))
    while game.ply > 30:
        replay = Game(variant)
        for move in game.moves[:-1]:
            replay.push(move)
        game._turn.legal_actions()
        game.pop()
        assert game._turn.legal_actions() == replay._turn.legal_actions()


@pytest.mark.parametrize("variant", ["english", "international"])
def test_every_legal_move_can_be_pushed_after_a_pop(variant: str) -> None:
    game = random_game(variant, seed=12, plies=30)
    for _ in range(10):
        game.pop()
        for move in game.legal_moves():
            assert game.push(move) == move
            game.pop()


def test_position_play_matches_game_push() -> None:
    game = random_game("international", seed=3, plies=80)
    pos = Position.start("international")
    for move in game.moves:
        pos = pos.play(move)
    assert pos == game.position


def test_illegal_push_changes_nothing() -> None:
    game = random_game("english", seed=4, plies=20)
    before, moves = turn_state(game), list(game.moves)
    with pytest.raises(IllegalMoveError, match="legal moves:"):
        game.push("1-5")
    assert game.moves == moves
    assert all(np.array_equal(a, b) for a, b in zip(turn_state(game), before, strict=True))


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


ENV_RULES = [*RULESETS, get_ruleset("english", no_progress_plies=0, name="english_no_limit")]


@pytest.mark.parametrize("rules", ENV_RULES, ids=lambda r: getattr(r, "name", r))
def test_game_and_env_agree_at_every_ply(rules: object) -> None:
    """Random games (from the start, and from kings only) played in a Game and, hop by hop,
    in the AEC env: after every ply the same counters, the repetitions the positions give,
    the same ending, reason and winner; now and then a move is taken back and played again."""
    ruleset = get_ruleset(rules)  # type: ignore[arg-type]
    env = draughts_v0.raw_env(variant=ruleset)
    for seed, fen in enumerate((None, KINGS[ruleset.board_size])):
        rng = random.Random(seed)
        env.reset(options={"fen": fen} if fen else None)
        game = Game(ruleset, fen)
        seen = [game.position]
        while not game.is_over and game.ply < 600:
            move = rng.choice(game.legal_moves())
            for action in move_to_actions(move, game.turn, ruleset):
                env.step(action)
            if move.captures or abs(int(game.board[move.origin])) == 1:
                seen = []
            game.push(move)
            if rng.random() < 0.2:
                assert game.pop() == move
                game.push(move)
            seen.append(game.position)
            assert game.counters.tolist() == env._turn.counters.tolist()
            assert game.repetitions() == seen.count(game.position) == env._turn.repetitions
            assert game.is_over == all(env.terminations.values())
        outcome = game.outcome()
        assert outcome is not None or game.ply == 600, f"{ruleset.name} seed {seed}"
        if outcome is not None:
            info = env.infos["player_0"]
            assert info["reason"] is outcome.reason
            winner = info["winner"]  # an index into possible_agents, -1 for a draw
            colour = None if winner < 0 else env.colour_of(env.possible_agents[winner])
            assert colour == outcome.winner


def test_push_refuses_a_tired_kings_fourth_step_and_changes_nothing() -> None:
    """Frisian rules art. 10: three non-capturing moves in a row with one king while men
    remain; the fourth is refused as illegal (not as a turn-state failure), and the game is
    left as it was."""
    game = Game("frisian", "W:WK28,46,47:B1,2,3")
    for move in ("28-41", "1-7", "41-32", "7-12", "32-16", "2-8"):
        game.push(move)
    before = (game.board.copy(), game.counters.copy(), game.ply)
    with pytest.raises(IllegalMoveError, match="king_move_limit"):
        game.push("16-27")
    assert (game.board == before[0]).all() and (game.counters == before[1]).all()
    assert game.ply == before[2]
    assert all(m.origin != 15 for m in game.legal_moves())
    assert all(m.origin != 15 for m in game.position.legal_moves())  # it carries the king runs
    pieces_only = Position(game.rules, game.board, game.turn)
    assert any(m.origin == 15 for m in pieces_only.legal_moves())  # the pieces alone allow it
