"""The tree search over hops with deterministic evaluators and random rollouts, by PUCT and UCT:
wins, backup signs, batching, noise, legality."""

from __future__ import annotations

import numpy as np
import pytest

from damas_agents.players.tree import (
    BatchedPUCT,
    Evaluator,
    PUCTNode,
    RolloutEvaluator,
    UniformEvaluator,
    select_action,
    uniform_priors,
)
from damas_env import Colour, Position
from damas_env import kernels as K
from damas_env.encoding import move_to_actions
from damas_env.turn import Turn


class ConstantEvaluator:
    """Uniform priors; every leaf is worth `value` to the player to move there."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.calls: list[int] = []

    def evaluate(self, observations, masks):
        self.calls.append(len(masks))
        return uniform_priors(masks), np.full(len(masks), self.value, dtype=np.float32)


class MaterialEvaluator:
    """Deterministic, row by row: uneven priors, value = tanh of the mover's material lead."""

    def evaluate(self, observations, masks):
        weights = (np.arange(masks.shape[1]) % 5 + 1).astype(np.float32)
        priors = uniform_priors(masks * weights)
        own = observations[:, 0].sum((1, 2)) + 2 * observations[:, 1].sum((1, 2))
        opp = observations[:, 2].sum((1, 2)) + 2 * observations[:, 3].sum((1, 2))
        return priors, np.tanh(own - opp)


def turn_of(fen: str | None, rules: str, hops: tuple[int, ...] = ()) -> Turn:
    position = Position.start(rules) if fen is None else Position.from_fen(fen, rules)
    turn = Turn(position.rules)
    turn.reset(position.board, position.turn)
    for hop in hops:
        turn.play(hop)
    return turn


def best_hops(fen: str, rules: str, simulations: int) -> list[int]:
    """Plays the most visited hop until the turn passes; returns the hops played."""
    turn = turn_of(fen, rules)
    side, hops = turn.side, []
    search = BatchedPUCT(UniformEvaluator(), simulations, seed=0)
    while turn.side == side and turn.result == K.ONGOING:
        (visits,) = search.search([turn], add_noise=False)
        hops.append(select_action(visits, 0.0, np.random.default_rng(0)))
        turn.play(hops[-1])
    return hops


def test_evaluators_fill_the_protocol():
    assert isinstance(UniformEvaluator(), Evaluator)
    assert not isinstance(RolloutEvaluator(), Evaluator)  # the search runs it itself
    with pytest.raises(ValueError, match="max_plies"):
        RolloutEvaluator(max_plies=-1)
    with pytest.raises(ValueError, match="selection"):
        BatchedPUCT(UniformEvaluator(), 8, selection="ucb")


@pytest.mark.parametrize(
    ("fen", "rules", "winner"),
    [
        ("W:W27:B23", "english", "27x18"),  # wins at once
        ("W:W22,32:B10,18,27", "english", "32x7"),  # 22x6 does not win
        ("W:W10,27:B6,14,23", "english", "27x2"),
        ("W:W32:B27,17", "international", "32x12"),  # two hops, then Black has nothing
    ],
)
def test_finds_a_capture_that_wins_at_once(fen, rules, winner):
    position = Position.from_fen(fen, rules)
    win = position.find_move(winner)
    assert not position.play(win).legal_moves()
    expected = move_to_actions(win, position.turn, position.rules)
    assert best_hops(fen, rules, simulations=100) == expected


def test_a_winning_capture_is_worth_one_along_its_hops():
    # White must take 23 and 15 (27x11): the first hop leads to a node where White moves
    # again, and the finished capture wins (a terminal result, no evaluation).
    turn = turn_of("W:W27:B23,15", "english")
    search = BatchedPUCT(UniformEvaluator(), simulations=10, seed=0)
    search.search([turn], add_noise=False)
    root = search.roots[0]
    (first,) = root.actions
    mid = root.child(int(first))
    assert mid is not None and mid.side == root.side == Colour.WHITE
    assert mid.q() == pytest.approx([1.0])  # a win for White, who chose the last hop
    assert root.q()[0] > 0.85  # not flipped across the mid-capture hop (0 for the first leaf)


def test_mid_capture_values_keep_their_sign():
    # Every leaf is worth +0.5 to its player to move. Leaf 1 is mid-capture (White to move):
    # +0.5 for White's root edge. Leaf 2 is after the capture (Black to move): -0.5 for White.
    turn = turn_of("W:W27:B23,15,1", "english")
    search = BatchedPUCT(ConstantEvaluator(0.5), simulations=1, batch_leaves=1, seed=0)
    search.search([turn], add_noise=False)
    root = search.roots[0]
    assert root.visits.tolist() == [1.0] and root.values.tolist() == [0.5]
    search.simulations = 2
    search.search([turn], add_noise=False)
    root = search.roots[0]
    mid = root.children[0]
    assert mid is not None and mid.side == Colour.WHITE
    after = mid.children[0]
    assert after is not None and after.side == Colour.BLACK and after.result == K.ONGOING
    assert mid.values.tolist() == [-0.5]
    assert root.values.tolist() == [0.0] and root.visits.tolist() == [2.0]


def games() -> list[Turn]:
    return [
        turn_of(None, "english"),
        turn_of("W:W22,32:B10,18,27", "english"),
        turn_of("B:W21,22,23,K30:B5,9,10,14", "english"),
        turn_of("W:W27:B23,15,1", "english"),
    ]


@pytest.mark.parametrize("batch_leaves", [1, 4])
def test_batched_search_equals_one_game_at_a_time(batch_leaves):
    kwargs = dict(simulations=60, batch_leaves=batch_leaves, seed=7)
    evaluator = MaterialEvaluator()
    together = BatchedPUCT(evaluator, **kwargs).search(games(), add_noise=False)
    for turn, visits in zip(games(), together, strict=True):
        (alone,) = BatchedPUCT(evaluator, **kwargs).search([turn], add_noise=False)
        np.testing.assert_array_equal(visits, alone)


def test_one_evaluator_call_per_round_for_all_games():
    evaluator = ConstantEvaluator(0.0)
    search = BatchedPUCT(evaluator, simulations=16, batch_leaves=8, seed=0)
    search.search([turn_of(None, "english") for _ in range(3)], add_noise=False)
    assert evaluator.calls[0] == 3  # the roots
    assert len(evaluator.calls) <= 1 + 2 + 6  # rounds of up to 8 leaves each, some collide
    assert max(evaluator.calls) <= 24


@pytest.mark.parametrize(
    ("evaluator", "selection"),
    [(RolloutEvaluator(), "puct"), (RolloutEvaluator(), "uct"), (ConstantEvaluator(0.1), "uct")],
)
def test_no_illegal_hop_gets_visits(evaluator, selection):
    def check(node: PUCTNode, turn: Turn) -> None:
        assert node.actions.tolist() == turn.legal_actions()
        assert node.side == turn.side

    turns = games()
    search = BatchedPUCT(evaluator, simulations=64, batch_leaves=4, seed=2, selection=selection)
    for visits, turn, root in zip(
        search.search(turns, add_noise=True), turns, search.roots, strict=True
    ):
        mask = np.zeros_like(visits, dtype=np.int8)
        turn.write_mask(mask)
        assert np.all(visits[mask == 0] == 0) and visits.sum() == pytest.approx(1.0)
        assert root.visits.sum() == 64
        check(root, turn)
        for action, child in zip(root.actions, root.children, strict=True):
            if child is not None and len(child.actions):
                state = Turn(turn.rules)
                state.reset(turn.board, turn.side)
                state.play(int(action))
                check(child, state)


def test_a_finished_game_gets_no_visits():
    (visits,) = BatchedPUCT(UniformEvaluator(), 8).search(
        [turn_of("W:W27:B23", "english", hops=(729,))], add_noise=False
    )
    assert not visits.any()


def test_dirichlet_noise_only_when_asked():
    turn = turn_of(None, "international")
    search = BatchedPUCT(UniformEvaluator(), simulations=4, seed=0)
    search.search([turn], add_noise=False)
    plain = search.roots[0].priors
    assert plain == pytest.approx(np.full(len(plain), 1 / len(plain)))
    search.search([turn], add_noise=True)
    noisy = search.roots[0].priors
    assert noisy.sum() == pytest.approx(1.0) and not np.allclose(noisy, plain)
    child = next(c for c in search.roots[0].children if c is not None)
    if len(child.actions):
        assert child.priors == pytest.approx(np.full(len(child.priors), 1 / len(child.priors)))


def test_rollout_values_are_for_the_player_to_move_at_the_leaf():
    # Rollouts cut at once (max_plies=0) score the material: the side ahead wins, either
    # colour to move at the root, by either selection rule.
    for fen in ("W:W27,28,29:B1", "B:W32:B1,2,3"):
        for selection in ("puct", "uct"):
            search = BatchedPUCT(RolloutEvaluator(0), 6, seed=0, selection=selection)
            search.search([turn_of(fen, "english")], add_noise=False)
            root = search.roots[0]
            assert root.visits.sum() == 6 and root.q()[root.visits > 0] == pytest.approx(1.0)


def test_uct_tries_each_hop_once_first():
    turn = turn_of(None, "international")  # 9 moves
    for evaluator in (RolloutEvaluator(), ConstantEvaluator(0.0)):
        search = BatchedPUCT(evaluator, 9, batch_leaves=1, seed=0, selection="uct")
        search.search([turn], add_noise=False)
        assert search.roots[0].visits.tolist() == [1.0] * 9


def test_select_action():
    visits = np.array([0.0, 0.2, 0.5, 0.3])
    rng = np.random.default_rng(0)
    assert select_action(visits, 0.0, rng) == 2
    draws = {select_action(visits, 1.0, rng) for _ in range(200)}
    assert draws == {1, 2, 3}
    assert {select_action(visits, 0.01, rng) for _ in range(20)} == {2}
