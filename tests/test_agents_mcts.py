"""MCTS over hops: legal play through the env, shots, strength against random, backups."""

from __future__ import annotations

import pytest
from agent_play import RandomHops, play_game

from agents.base import Agent
from agents.mcts import MCTSAgent, Node, rollout
from damas_env import Colour, Position, draughts_v0
from damas_env.encoding import move_to_actions


def test_name_and_protocol():
    agent = MCTSAgent()
    assert agent.name == "mcts:sims=400"
    assert isinstance(agent, Agent)
    with pytest.raises(ValueError, match="position"):
        agent.act({})


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
    child = root.children[win[0]]
    assert child.mover == Colour.WHITE
    grandchild = child.children[win[1]]
    assert grandchild.mover == Colour.WHITE  # the same player moves again mid-capture
    leaf = grandchild.children[win[2]] if len(win) > 2 else grandchild
    for node in (child, grandchild, leaf):
        assert node.mean == pytest.approx(1.0)  # a win for the colour that chose the edge
    assert root.best_child() is child
    assert root.visits == 300 == sum(c.visits for c in root.children.values())


def test_values_for_black_to_move():
    # The same winning shot, turned round: Black's point of view.
    white = Position.from_fen("W:W27:B23,15", "english")
    black = Position(white.rules, -white.board[::-1], Colour.BLACK)
    root = MCTSAgent(sims=50, seed=0).search(black)
    (child,) = root.children.values()
    (grandchild,) = child.children.values()
    assert child.mover == grandchild.mover == Colour.BLACK
    assert child.mean == grandchild.mean == pytest.approx(1.0)
    assert grandchild.result != 0  # the game is over after the capture


def test_deterministic_for_a_seed():
    position = Position.start("english")

    def tree(seed: int) -> list[tuple[int, int, float]]:
        root = MCTSAgent(sims=200, seed=seed).search(position)
        return [(a, n.visits, n.value) for a, n in sorted(root.children.items())]

    assert tree(7) == tree(7)
    assert tree(7) != tree(8)

    env = draughts_v0.env("english", max_plies=30)
    first = play_game(env, {"player_0": MCTSAgent(20, seed=5), "player_1": RandomHops(5)})
    again = play_game(env, {"player_0": MCTSAgent(20, seed=5), "player_1": RandomHops(5)})
    assert first == again


def test_rollout_values_and_material_cutoff():
    agent = MCTSAgent(sims=1, seed=0, rollout_plies=0)
    ahead = Position.from_fen("W:W27,28,29:B1", "english")  # cut at once: material decides
    root = agent.search(ahead)
    (child,) = [c for c in root.children.values() if c.visits]
    assert child.mover == Colour.WHITE and child.mean == 1.0
    assert callable(rollout)


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


def test_node_repr_and_stats():
    node = Node(Colour.BLACK, 5, 0)
    assert node.mean == 0.0
    node.visits, node.value = 4, 2.0
    assert node.mean == 0.5
    assert "mover=black" in repr(node)
