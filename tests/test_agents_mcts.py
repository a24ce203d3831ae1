"""MCTS (UCT with random rollouts in the compiled search): legal play through the env, shots,
strength against random, colour-correct backups, seeded streams."""

from __future__ import annotations

import numpy as np
import pytest
from agent_play import RandomHops, play_game

from damas_agents.players.base import Agent
from damas_agents.players.tree import BatchedPUCT, MCTSAgent, PUCTNode, RolloutEvaluator
from damas_env import Colour, Position, draughts_v0
from damas_env import kernels as K
from damas_env.encoding import move_to_actions
from damas_env.turn import Turn


def q_of(node: PUCTNode | None, action: int) -> float:
    """Returns the mean value of one hop of a node, for the colour to move there."""
    assert node is not None
    (index,) = np.flatnonzero(node.actions == action)
    return float(node.q()[index])


def test_name_protocol_and_arguments():
    agent = MCTSAgent()
    assert agent.name == "mcts:sims=400"
    assert isinstance(agent, Agent)
    with pytest.raises(ValueError, match="position"):
        agent.act({})
    for bad in ({"sims": 0}, {"c": float("nan")}, {"c": -1.0}, {"rollout_plies": -1}):
        with pytest.raises(ValueError):
            MCTSAgent(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("english", None),
        ("english", "W:W22,32:B10,18,27"),  # two multi-captures, one winning
        ("international", None),
        # A white king with a four-piece majority capture against a black king.
        ("international", "W:WK46,38:B41,32,22,13,K5,20"),
    ],
)
def test_never_plays_an_illegal_hop(variant, fen):
    env = draughts_v0.env(variant, max_plies=60)
    agents = {"player_0": MCTSAgent(sims=20, seed=1), "player_1": MCTSAgent(sims=20, seed=2)}
    play_game(env, agents, fen)  # the env raises IllegalActionError on an illegal hop


def test_multi_capture_mid_turn_is_continued():
    position = Position.from_fen("W:W27:B23,15", "english")
    (route,) = position.capture_routes()
    first, second = move_to_actions(route, position.turn, 8)
    agent = MCTSAgent(sims=10, seed=0)
    assert agent.act({}, position, ()) == first
    assert agent.act({}, position, (first,)) == second
    with pytest.raises(ValueError, match="illegal"):
        agent.act({}, position, (second,))


@pytest.mark.parametrize(
    ("fen", "winner"),
    [("W:W22,32:B10,18,27", "32x7"), ("W:W10,27:B6,14,23", "27x2"), ("W:W11,26:B7,14,22", "26x3")],
)
def test_finds_a_capture_that_wins_at_once(fen, winner):
    position = Position.from_fen(fen, "english")
    win = position.find_move(winner)
    assert len(position.legal_moves()) >= 2 and not position.play(win).legal_moves()
    actions = move_to_actions(win, position.turn, 8)
    agent = MCTSAgent(sims=200, seed=3)
    hops: list[int] = []
    for expected in actions:
        hops.append(agent.act({}, position, hops))
        assert hops[-1] == expected


def test_values_are_backed_up_by_the_player_to_move():
    # White must take 18 and 10 (or 23/15 ...): the hops of one move are two plies of the
    # tree chosen by the same player, and the finished capture wins at once.
    position = Position.from_fen("W:W22,32:B10,18,27", "english")
    root = MCTSAgent(sims=300, seed=0).search(position)
    win = move_to_actions(position.find_move("32x7"), Colour.WHITE, 8)
    assert root.side == Colour.WHITE
    child = root.child(win[0])
    assert child is not None and child.side == Colour.WHITE  # White moves again mid-capture
    grandchild = child.child(win[1])
    assert grandchild is not None and grandchild.side == Colour.WHITE
    nodes = [root, child, grandchild][: len(win)]
    for node, hop in zip(nodes, win, strict=True):
        assert q_of(node, hop) == pytest.approx(1.0)  # a win for the colour choosing the hop
    assert int(root.actions[np.argmax(root.visits)]) == win[0]
    assert root.visits.sum() == 300


def test_values_for_black_to_move():
    # The same winning shot, turned round: Black's point of view.
    white = Position.from_fen("W:W27:B23,15", "english")
    black = Position(white.rules, -white.board[::-1], Colour.BLACK)
    root = MCTSAgent(sims=50, seed=0).search(black)
    (first,) = root.actions
    child = root.child(int(first))
    assert child is not None and root.side == child.side == Colour.BLACK
    (second,) = child.actions
    assert q_of(root, int(first)) == q_of(child, int(second)) == pytest.approx(1.0)
    grandchild = child.child(int(second))
    assert grandchild is not None and grandchild.result == K.BLACK_WINS  # over after it


def test_deterministic_for_a_seed():
    position = Position.start("english")

    def tree(agent: MCTSAgent) -> list[tuple[int, float, float]]:
        root = agent.search(position)
        columns = (root.actions.tolist(), root.visits.tolist(), root.values.tolist())
        return list(zip(*columns, strict=True))

    assert tree(MCTSAgent(sims=200, seed=7)) == tree(MCTSAgent(sims=200, seed=7))
    assert tree(MCTSAgent(sims=200, seed=7)) != tree(MCTSAgent(sims=200, seed=8))
    agent = MCTSAgent(sims=200, seed=7)
    first = tree(agent)
    assert tree(agent) != first  # the stream goes on between searches
    agent.reset()
    assert tree(agent) == first  # and restarts from the seed

    env = draughts_v0.env("english", max_plies=30)
    first_game = play_game(env, {"player_0": MCTSAgent(20, seed=5), "player_1": RandomHops(5)})
    again = play_game(env, {"player_0": MCTSAgent(20, seed=5), "player_1": RandomHops(5)})
    assert first_game == again


def test_each_hop_is_tried_once_first_in_a_random_order():
    position = Position.start("english")  # 7 moves
    root = MCTSAgent(sims=7, seed=0).search(position)
    assert root.visits.tolist() == [1.0] * 7
    tried = {tuple(MCTSAgent(sims=3, seed=s).search(position).visits) for s in range(8)}
    assert len(tried) > 1 and all(sum(t) == 3 and max(t) == 1 for t in tried)


def test_rollouts_cut_short_are_scored_by_material():
    # Cut at once (rollout_plies=0): the side ahead in material wins, either colour to move.
    for fen in ("W:W27,28,29:B1", "B:W32:B1,2,3"):
        position = Position.from_fen(fen, "english")
        root = MCTSAgent(sims=4, seed=0, rollout_plies=0).search(position)
        visited = root.visits > 0
        assert visited.any() and root.q()[visited] == pytest.approx(1.0)


def test_growing_the_edges_and_routes_in_the_walk_changes_nothing(monkeypatch):
    # An expansion that finds the edge arrays full, or a rollout that finds the route list
    # too small, undoes its walk (random draws included) and walks it again once they grew.
    position = Position.from_fen("W:WK46,K26,K5,K50:B20,13,22,K1", "international")  # kings
    turn = Turn(position.rules)
    turn.reset(position.board, position.turn)

    def visits() -> list[float]:
        search = BatchedPUCT(RolloutEvaluator(), 40, c_puct=1.4, seed=3, selection="uct")
        (out,) = search.search([turn], add_noise=False)
        return out.tolist()

    plain = visits()
    monkeypatch.setattr(BatchedPUCT, "EDGES_PER_NODE", 1)
    monkeypatch.setattr(K, "new_move_buffer", lambda: np.zeros((1, K.MOVE_WIDTH), np.int16))
    assert visits() == plain


def test_beats_random_in_english():
    env = draughts_v0.env("english")
    score = 0.0
    games = 20
    for game in range(games):
        mcts, rand = MCTSAgent(sims=200, seed=game), RandomHops(seed=1000 + game)
        seats = ("player_0", "player_1") if game % 2 == 0 else ("player_1", "player_0")
        rewards = play_game(env, {seats[0]: mcts, seats[1]: rand})
        score += (rewards[seats[0]] + 1) / 2
    assert score / games >= 0.8, f"MCTS scored {score}/{games} against random"
