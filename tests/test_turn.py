"""The compiled turn state against the engine: hop by hop equals move by move."""

import random

import numpy as np
import pytest
from helpers import PRESETS
from helpers import VARIANTS as BUILT_IN

from damas_env import Position
from damas_env.encoding import (
    PLANES,
    action_layout,
    actions_to_move,
    move_to_actions,
)
from damas_env.engine import Colour
from damas_env.game import Game
from damas_env.kernels import MOVE_WIDTH, WHITE, new_move_buffer
from damas_env.rules import get_ruleset
from damas_env.turn import (
    HOP_ILLEGAL,
    HOP_PLAYED,
    MOVE_DONE,
    Turn,
    copy_game,
    direct_call,
    game_value,
    grown,
    new_states,
    play_hop,
)

#: Every built-in variant and every preset (the giveaway twins share their kernels).
VARIANTS = [*BUILT_IN, *PRESETS]


def first_hops(pos: Position) -> set[int]:
    layout = action_layout(pos.rules)
    return {layout.hop_action(r.origin, r.path[0], pos.turn) for r in pos.capture_routes()}


def mask_of(turn: Turn) -> set[int]:
    return set(turn.legal_actions())


@pytest.mark.parametrize("variant", VARIANTS)
def test_hop_by_hop_matches_move_by_move(variant: str) -> None:
    rng = random.Random(variant)
    game = Game(variant)
    turn = Turn(game.rules)
    turn.reset(game.board, game.turn)
    for _ in range(300):
        if game.outcome() is not None:
            assert turn.result != 0
            break
        assert mask_of(turn) == first_hops(game.position)
        route = rng.choice(game.position.capture_routes())
        actions = move_to_actions(route, game.turn, game.rules)
        for i, action in enumerate(actions):
            status = turn.play(action)
            assert status == (MOVE_DONE if i == len(actions) - 1 else HOP_PLAYED)
        game.push(route)
        assert Position(game.rules, turn.board, turn.side) == game.position
        assert turn.ply == game.ply and turn.last_move() == route
        assert turn.counters.tolist() == game.counters.tolist()


def test_every_route_of_a_merged_move_is_playable() -> None:
    # English king loop: two routes round the same four men back to 20 (one merged move).
    pos = Position.from_fen("W:WK20:B8,15,16,23,24", "english")
    loops = [r for r in pos.capture_routes() if r.origin == r.destination]
    assert len(loops) == 2
    finals = []
    for route in loops:
        turn = Turn(pos.rules)
        turn.reset(pos.board, pos.turn)
        for action in move_to_actions(route, pos.turn, 8):
            assert turn.play(action) != HOP_ILLEGAL
        finals.append(turn.board.copy())
    assert np.array_equal(finals[0], finals[1])


def test_illegal_hop_changes_nothing() -> None:
    pos = Position.from_fen("W:WK20:B8,15,16,23,24", "english")
    turn = Turn(pos.rules)
    turn.reset(pos.board, pos.turn)
    route = pos.capture_routes()[0]
    first, second = move_to_actions(route, pos.turn, 8)[:2]
    assert turn.play(first) == HOP_PLAYED
    before = [a.copy() for a in (turn.board, turn.st, turn.hist, turn.cur)]
    for bad in (first, -1, 10**6, action_layout(8).hop_action(19, 15, Colour.WHITE)):
        assert turn.play(bad) == HOP_ILLEGAL
    after = (turn.board, turn.st, turn.hist, turn.cur)
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    assert turn.play(second) != HOP_ILLEGAL


def test_planes_during_a_capture_in_agents_view() -> None:
    # Black (turned view) man on 10 takes 14 and 22, landing on 17 then 26.
    pos = Position.from_fen("B:W14,22,30:B10", "english")
    (move,) = pos.legal_moves()
    assert [s + 1 for s in move.squares] == [10, 17, 26]
    turn = Turn(pos.rules)
    turn.reset(pos.board, pos.turn)
    obs = np.zeros((PLANES, 8, 8), np.float32)
    layout = action_layout(8)
    turn.play(move_to_actions(move, Colour.BLACK, 8)[0])
    turn.write_planes(obs, Colour.BLACK)

    def cells(plane: int) -> set[int]:
        # Back to absolute PDN numbers: the view is turned, square v <-> S - 1 - v.
        rows, cols = np.nonzero(obs[plane])
        view = {
            int(np.flatnonzero((layout.row == r) & (layout.col == c))[0])
            for r, c in zip(rows, cols, strict=True)
        }
        return {32 - v for v in view}

    assert cells(0) == {17} and cells(4) == {17}  # the moving man on its current square
    assert cells(2) == {14, 22, 30} and cells(5) == {14}  # taken but still on the board
    assert cells(1) == cells(3) == set()
    turn.write_planes(obs, Colour.WHITE)  # White's view: not turned, colours swapped
    rows, cols = np.nonzero(obs[2])
    assert {
        int(np.flatnonzero((layout.row == r) & (layout.col == c))[0]) + 1
        for r, c in zip(rows, cols, strict=True)
    } == {17}


def test_counter_planes() -> None:
    game = Game("english", fen="W:WK29:BK4")
    turn = Turn(game.rules)
    turn.reset(game.board, game.turn)
    for move in ["29-25", "4-8", "25-29", "8-4"]:
        (action,) = move_to_actions(game.position.find_move(move), game.turn, 8)
        turn.play(action)
        game.push(move)
    obs = np.zeros((PLANES, 8, 8), np.float32)
    turn.write_planes(obs, turn.side)
    assert np.allclose(obs[6], 4 / 80)  # 4 king moves of the 80-ply limit
    assert np.allclose(obs[7], (2 - 1) / (3 - 1))  # the start position, seen twice


def test_actions_round_trip_to_moves() -> None:
    for variant in ["international", "english", "russian"]:
        rng = random.Random(1)
        game = Game(variant)
        for _ in range(60):
            legal = game.legal_moves()
            if not legal:
                break
            for route in game.position.capture_routes():
                actions = move_to_actions(route, game.turn, game.rules)
                assert actions_to_move(actions, game.position) == route
            game.push(rng.choice(legal))
    with pytest.raises(ValueError, match="not a legal move"):
        actions_to_move(
            [action_layout(8).hop_action(0, 4, Colour.BLACK)], Position.start("english")
        )


def test_action_layout_sizes() -> None:
    assert [action_layout(n).num_actions for n in (8, 10, 12)] == [896, 1800, 3168]
    layout = action_layout(10)
    assert layout.decode(layout.encode(49, 3, 9)) == (49, 3, 9)
    # Turned view: White's 32-28 (squares 31 -> 27) is the same action as Black's 19-23.
    assert layout.hop_action(31, 27, Colour.WHITE) == layout.hop_action(18, 22, Colour.BLACK)


def test_copy_game_clones_a_game_mid_capture_into_another_batch() -> None:
    pos = Position.from_fen("W:WK20:B8,15,16,23,24", "english")
    turn = Turn(pos.rules)
    turn.reset(pos.board, pos.turn)
    first, second = move_to_actions(pos.capture_routes()[0], pos.turn, 8)[:2]
    turn.play(first)
    turn.legal_actions()  # lists the routes and the hops, which travel with the copy
    batch = new_states(pos.rules, 3)
    batch.rng[:] = 7
    direct_call(copy_game, (), turn.states, 0, batch, 2)
    assert batch.rng.tolist() == [7, 7, 7]  # the random streams stay
    assert batch.hops.tolist() == [0, 0, 1] and batch.sides[2] == turn.side
    assert batch.listed_hops(2) == turn.legal_actions() and second in turn.legal_actions()
    status = play_hop(batch, 2, turn.tables, second, turn.routes, turn.ws)
    assert status == turn.play(second) != HOP_ILLEGAL
    assert np.array_equal(batch.board[2], turn.board)
    assert np.array_equal(batch.st[2], turn.st)
    assert batch.plies[2] == turn.ply == 1


def test_game_value_is_the_result_or_the_material_sign() -> None:
    pos = Position.from_fen("W:W27,28,29:B1", "english")
    turn = Turn(pos.rules)
    turn.reset(pos.board, pos.turn)
    s, t = turn.states, turn.tables
    assert game_value(s, 0, t, WHITE) == 1.0 and game_value(s, 0, t, 1) == -1.0
    turn.reset(Position.from_fen("W:W27:B1,2", "english").board, Colour.WHITE)
    assert game_value(s, 0, t, WHITE) == -1.0


@pytest.mark.parametrize("variant", ["english", "international"])
def test_game_value_counts_a_king_as_two_men_whatever_kings_do(variant: str) -> None:
    """Neither a short king's 1.5 men nor a flying king's 2.5 men: a rollout's score weighs
    a king as two men on every board."""
    turn = Turn(get_ruleset(variant))
    s, t = turn.states, turn.tables
    for fen, value in [("W:WK27:B1,2", 0.0), ("W:WK27,K28:B1,2,3", 1.0), ("W:WK27:B1,2,3", -1.0)]:
        turn.reset(Position.from_fen(fen, variant).board, Colour.WHITE)
        assert game_value(s, 0, t, WHITE) == value, fen


def test_grown_scratch_is_four_times_longer() -> None:
    assert grown(new_move_buffer(5)).shape == (20, MOVE_WIDTH)
    assert grown(np.zeros((2, 5, MOVE_WIDTH), np.int16)).shape == (2, 20, MOVE_WIDTH)


def test_copy_from_refuses_a_turn_state_of_another_ruleset() -> None:
    english, international = Turn(get_ruleset("english")), Turn(get_ruleset("international"))
    before = international.st.copy()
    with pytest.raises(ValueError, match="plays 'international', not 'english'"):
        international.copy_from(english)
    assert np.array_equal(international.st, before)
