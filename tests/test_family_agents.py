"""The rest of the draughts family (commit 008fbd8) under the envs and the agents: PettingZoo's
API test, the batch env against the game record, the arena's agents, the network and the
trainers, and the king move limit in a turn state started from a position and in every
search."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from helpers import tiny_config
from pettingzoo.test import api_test

from damas_agents.arena import play_match
from damas_agents.models.config import NetworkConfig
from damas_agents.models.network import DraughtsNet
from damas_agents.players.base import MoveAgent, play_hop
from damas_agents.players.classic import AlphaBetaAgent, GreedyAgent, RandomAgent
from damas_agents.players.learned import NetworkAgent
from damas_agents.players.tree import MCTSAgent
from damas_agents.training.alphazero import AlphaZeroTrainer
from damas_agents.training.nnue import NNUETrainer
from damas_agents.training.ppo import PPOTrainer
from damas_env import Colour, Move, Position, draughts_v0
from damas_env import kernels as K
from damas_env.encoding import (
    PLANES,
    Plane,
    action_layout,
    actions_to_move,
    move_to_actions,
    planes_for,
)
from damas_env.ending import Reason
from damas_env.game import Game
from damas_env.rules import get_ruleset
from damas_env.turn import Turn
from damas_env.vector import DraughtsBatchEnv

#: The rulesets that commit added: orthogonal lines (Frisian, Frysk!, Turkish), all 64
#: squares (Turkish), the mirrored board (Italian, Spanish, Portuguese), capture ranks, men
#: that may not take kings, Thai landing, the king move limit, first king wins.
FAMILY = [
    "frisian",
    "frysk",
    "italian",
    "turkish",
    "breakthrough",
    "spanish",
    "portuguese",
    "czech",
    "thai",
]

TINY = NetworkConfig(channels=8, blocks=1, value_hidden=16, device="cpu")

#: A Frisian game whose White king has made three non-capturing moves in a row (art. 10): it
#: may not make a fourth while White has men, though the position alone allows it 9 moves.
TIRED_FEN = "W:WK28,46,47:B1,2,3"
TIRED_MOVES = ("28-41", "1-7", "41-32", "7-12", "32-16", "2-8")
TIRED_LEGAL = ["46-41", "47-41", "47-42"]


# --- The envs -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", FAMILY)
def test_pettingzoo_api_test(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's notes on spaces and seeding
        api_test(draughts_v0.env(variant=variant), num_cycles=300)


def first_hops(game: Game) -> set[int]:
    """Returns the first hop of each of the game's legal moves (the mask at a turn's start)."""
    return {move_to_actions(m, game.turn, game.rules)[0] for m in game.legal_moves()}


def replay_random_games(variant: str, games: int, fen: str | None = None) -> dict[str, int]:
    """Plays random games of a batch env to their end, each replayed in a Game: the mask at
    the start of every turn must be the first hops of the game's legal moves (the king move
    limit included), every move legal in the game, and each game must end as the Game says.
    Returns the games ended, the turns checked and the turns where the game allowed fewer
    moves than the position (a tired king)."""
    rules = get_ruleset(variant)
    env = DraughtsBatchEnv(
        games, variant=variant, seed=7, num_threads=1, fens=None if fen is None else [fen]
    )
    _, masks, to_play = env.reset()
    records = [Game(rules, fen) for _ in range(games)]
    hops: list[list[int]] = [[] for _ in range(games)]
    counts = {"ended": 0, "turns": 0, "limited": 0}
    for _ in range(20_000):
        for g, record in enumerate(records):
            if not hops[g]:
                assert set(np.flatnonzero(masks[g]).tolist()) == first_hops(record)
                counts["turns"] += 1
                pieces_only = Position(rules, record.board, record.turn)  # no king runs
                counts["limited"] += len(record.legal_moves()) < len(pieces_only.legal_moves())
        actions = env.random_actions().copy()
        before = to_play.copy()
        _, masks, to_play, _, terminated, truncated, info = env.step(actions)
        for g in range(games):
            hops[g].append(int(actions[g]))
            done = bool(terminated[g] or truncated[g])
            if not done and to_play[g] == before[g]:
                continue  # a capture goes on
            records[g].push(actions_to_move(hops[g], records[g].position))
            hops[g] = []
            if done:
                outcome = records[g].outcome()
                assert outcome is not None and outcome.reason is Reason(info["final_reason"][g])
                records[g] = Game(rules, fen)
                counts["ended"] += 1
        if counts["ended"] >= games:
            return counts
    raise AssertionError(f"{variant}: {counts['ended']} of {games} games ended in 20,000 steps")


@pytest.mark.parametrize("variant", FAMILY)
def test_batch_env_plays_random_games_to_the_end_as_the_game_record_does(variant: str) -> None:
    assert replay_random_games(variant, games=4)["turns"] > 100


@pytest.mark.parametrize("variant", ["frisian", "frysk"])
def test_batch_env_masks_follow_the_king_move_limit(variant: str) -> None:
    """From a king and two men against men, random play often moves the king three times
    in a row: the masks then leave its moves out, as the Game does."""
    assert replay_random_games(variant, games=8, fen=TIRED_FEN)["limited"] > 0


# --- The agents -----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", FAMILY)
def test_alphabeta_and_random_play_through_the_arena(variant: str) -> None:
    match = play_match(
        "alphabeta:depth=2", "random", variant, games=2, seed=0, max_plies=60, progress=False
    )
    assert match.games == 2
    assert all(r.reason != "illegal_action" for r in match.records)
    assert all(r.plies > 4 for r in match.records)


@pytest.mark.parametrize("variant", ["frisian", "turkish", "breakthrough"])
def test_mcts_plays_through_the_arena(variant: str) -> None:
    match = play_match(
        "mcts:sims=16", "random", variant, games=1, seed=0, max_plies=30, progress=False
    )
    assert match.games == 1 and match.records[0].reason != "illegal_action"


def test_alphabeta_sees_that_the_first_king_wins() -> None:
    """Breakthrough: a man one step from the far row crowns and wins at once; the search
    scores that as a won game, not as a king's worth of material."""
    position = Position.from_fen("W:W7,46:B3,40", "breakthrough")
    result = AlphaBetaAgent(depth=3, seed=0).search(position)
    assert result.move.crowns and result.mate_in == 1


def tired_king_env() -> tuple[Any, Game]:
    """Returns a Frisian env and its Game after TIRED_MOVES (White to move, king tired)."""
    env = draughts_v0.raw_env("frisian")
    env.reset(options={"fen": TIRED_FEN})
    game = Game("frisian", TIRED_FEN)
    for text in TIRED_MOVES:
        move = game.position.find_move(text)
        for action in move_to_actions(move, game.turn, game.rules):
            env.step(action)
        game.push(move)
    return env, game


def test_the_envs_position_carries_the_king_runs_its_legal_moves_are_the_games() -> None:
    env, game = tired_king_env()
    observation, position = env.observe(env.agent_selection), env.position
    assert position == game.position and position.king_runs == ((15, 3), (0, 0))
    assert sorted(str(m) for m in game.legal_moves()) == TIRED_LEGAL
    assert sorted(str(m) for m in position.legal_moves()) == TIRED_LEGAL
    assert set(np.flatnonzero(observation["action_mask"]).tolist()) == first_hops(game)
    pieces_only = Position("frisian", position.board, position.turn)
    assert len(pieces_only.legal_moves()) == 12  # the pieces alone let the king go on
    # What makes the tests bite: from the pieces alone the search would move the king.
    assert AlphaBetaAgent(depth=2, seed=0).choose(pieces_only).origin == 15


def king_steps(position: Position, square: int) -> set[int]:
    """Returns the first hops of the steps the pieces alone allow the piece on `square`."""
    pieces_only = Position(position.rules, position.board, position.turn)
    steps = [m for m in pieces_only.legal_moves() if m.origin == square and not m.captures]
    return {move_to_actions(m, position.turn, position.rules)[0] for m in steps}


def test_a_turn_started_from_a_position_carries_its_king_runs() -> None:
    """Turn.reset with the position's king runs: its hops are the game's (no step of the
    tired king), its king-run planes are the env's, and the game it holds is the position."""
    env, game = tired_king_env()
    position = game.position
    turn, obs = Turn(position.rules), np.zeros((planes_for(position.rules), 10, 10), np.float32)
    turn.reset(position.board, position.turn)  # the pieces alone: the king may go on
    turn.write_planes(obs, turn.side)
    assert king_steps(position, 15) <= set(turn.legal_actions()) and not obs[PLANES:].any()
    turn.reset(position.board, position.turn, position.king_runs)
    assert set(turn.legal_actions()) == first_hops(game)
    assert sorted(str(m) for m in turn.routes_in_play()) == TIRED_LEGAL
    turn.write_planes(obs, turn.side)
    layout = action_layout(position.rules)
    assert obs[Plane.OWN_KING_RUN, layout.row[15], layout.col[15]] == 1.0  # three of three
    assert (obs[PLANES:] == env.observe(env.agent_selection)["observation"][PLANES:]).all()
    assert Position.of_game(position.rules, turn.board, turn.side, turn.counters) == position


def test_a_turn_starts_from_a_game_position_with_its_king_runs_and_gives_them_back() -> None:
    """At every turn of a random Frisian game where both sides' kings run (mostly king
    moves): a turn state started from the position allows the game's first hops and reads
    back the same position, king runs included."""
    rng = np.random.default_rng(0)
    game = Game("frisian", "W:WK50,46,47:BK1,6,7")
    turn = Turn(game.rules)
    runs = set()
    while game.outcome() is None:
        position = game.position
        turn.reset(position.board, position.turn, position.king_runs)
        assert set(turn.legal_actions()) == first_hops(game)
        assert Position.of_game(game.rules, turn.board, turn.side, turn.counters) == position
        runs.add(position.king_runs)
        moves = game.legal_moves()
        kings = [m for m in moves if abs(int(game.board[m.origin])) == 2]
        pool = kings if kings and rng.random() < 0.8 else moves
        game.push(pool[int(rng.integers(len(pool)))])
    assert len(runs) > 5 and any(white[1] for white, _ in runs)
    assert any(black[1] for _, black in runs)


def test_a_turn_whose_only_moves_are_a_tired_kings_has_none() -> None:
    """The turn begins with the runs: a blocked man and a tired king leave White no move."""
    board = Position.from_fen("W:WK5,46:B41,37", "frisian").board
    position = Position("frisian", board, Colour.WHITE, king_runs=((4, 3), (0, 0)))
    turn = Turn(position.rules)
    turn.reset(position.board, position.turn)
    assert turn.result == K.ONGOING and len(turn.legal_actions()) == 6
    turn.reset(position.board, position.turn, position.king_runs)
    assert position.legal_moves() == [] and turn.legal_actions() == []
    assert turn.result == K.BLACK_WINS and turn.reason == Reason.NO_LEGAL_MOVE


def test_a_turn_refuses_bad_king_runs_and_ignores_them_without_the_limit() -> None:
    position = Position.start("frisian")
    turn = Turn(position.rules)
    with pytest.raises(ValueError, match="square"):
        turn.reset(position.board, position.turn, ((99, 3), (0, 0)))
    with pytest.raises(TypeError, match="king_runs"):
        turn.reset(position.board, position.turn, (3, 3))  # type: ignore[arg-type]
    english = Position.start("english")
    turn = Turn(english.rules)
    turn.reset(english.board, english.turn, ((8, 3), (0, 0)))
    assert not turn.counters.any()


class Recorder(MoveAgent):
    """A MoveAgent that filters nothing: it plays a king's move if its position offers one
    (else the first), and records every move it was offered."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Move] = []

    def choose(self, position: Position) -> Move:
        legal = position.legal_moves()
        self.seen += legal
        kings = [m for m in legal if abs(int(position.board[m.origin])) == 2]
        return (kings or legal)[0]


def tiny_network_agent(simulations: int) -> NetworkAgent:
    torch.manual_seed(0)
    rules = get_ruleset("frisian")
    return NetworkAgent(DraughtsNet(TINY, rules).eval(), rules, simulations=simulations, seed=0)


def test_an_agent_handed_a_tired_kings_position_never_sees_its_step_as_legal() -> None:
    """Through the one API, position.legal_moves(), with no filtering of the agent's own:
    the arena hands the env's position, and the tired king (square 16) has no move in it."""
    env, _ = tired_king_env()
    agent = Recorder()
    action = play_hop(agent, env)
    assert agent.seen and all(m.origin != 15 for m in agent.seen)
    assert env.observe(env.agent_selection)["action_mask"][action] == 1
    pieces_only = Position("frisian", env.position.board, env.position.turn)
    assert any(m.origin == 15 for m in pieces_only.legal_moves())  # what the test guards


@pytest.mark.parametrize(
    "make",
    [
        lambda: AlphaBetaAgent(depth=3, seed=0),
        lambda: GreedyAgent(seed=0),
        lambda: RandomAgent(seed=0),
        lambda: MCTSAgent(sims=40, seed=0),
        lambda: tiny_network_agent(0),
        lambda: tiny_network_agent(8),
        Recorder,
    ],
    ids=["alphabeta", "greedy", "random", "mcts", "network", "network-puct", "recorder"],
)
def test_every_agent_plays_a_move_the_game_allows(make: Any) -> None:
    env, game = tired_king_env()
    agent = make()
    agent.reset()
    action = play_hop(agent, env)
    assert env.observe(env.agent_selection)["action_mask"][action] == 1
    assert str(actions_to_move([action], game.position)) in TIRED_LEGAL


class KingLover:
    """An evaluator that puts its priors on some hops (a tired king's steps: what a root
    started from the pieces alone would let the agent play) and keeps the planes it is shown."""

    def __init__(self, hops: set[int]) -> None:
        self.hops = sorted(hops)
        self.observations: list[np.ndarray] = []

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[Any, Any]:
        self.observations.append(observations.copy())
        priors = np.full(masks.shape, 1e-3, np.float32)
        priors[:, self.hops] = 1.0
        priors *= masks > 0
        return priors / priors.sum(axis=1, keepdims=True), np.zeros(len(masks), np.float32)


@pytest.mark.parametrize("simulations", [0, 8], ids=["policy", "puct"])
def test_the_network_agent_without_the_envs_planes_never_plays_a_tired_kings_step(
    simulations: int,
) -> None:
    env, game = tired_king_env()
    position, steps = game.position, king_steps(game.position, 15)
    agent = tiny_network_agent(simulations)
    agent.evaluator = lover = KingLover(steps)  # type: ignore[assignment]
    if agent.search is not None:
        agent.search.evaluator = lover
    action = agent.act({}, position)  # no env planes: the agent starts from the position
    assert action in first_hops(game) and action not in steps
    root = lover.observations[0][0]
    assert root[Plane.OWN_KING_RUN].any()
    assert (root[PLANES:] == env.observe(env.agent_selection)["observation"][PLANES:]).all()
    pieces_only = Position("frisian", position.board, position.turn)
    assert agent.act({}, pieces_only) in steps  # what the test guards: the evaluator bites


def test_mcts_searches_the_games_hops_at_the_root_and_below() -> None:
    """At the root the tired king has no step; below it, a king's run goes on from the
    position's: a king with two moves of its run made may step once more, then not."""
    _, game = tired_king_env()
    agent = MCTSAgent(sims=40, seed=0)
    assert set(agent.search(game.position).actions.tolist()) == first_hops(game)
    assert agent.act({}, game.position) in first_hops(game)
    game = Game("frisian", TIRED_FEN)
    for text in TIRED_MOVES[:4]:
        game.push(game.position.find_move(text))
    assert game.position.king_runs == ((31, 2), (0, 0))
    step = game.position.find_move("32-16")
    root = MCTSAgent(sims=300, seed=0).search(game.position)
    node = root.child(move_to_actions(step, game.turn, game.rules)[0])
    assert node is not None
    game.push(step)
    checked = 0
    for reply in game.legal_moves():
        (hop,) = move_to_actions(reply, game.turn, game.rules)
        grandchild = node.child(hop)
        if grandchild is not None and grandchild.is_expanded:
            game.push(reply)
            assert set(grandchild.actions.tolist()) == first_hops(game)
            checked += bool(king_steps(game.position, 15))  # the pieces let the king step
            game.pop()
    assert checked > 0


# --- The network and the trainers -----------------------------------------------------------


@pytest.mark.parametrize("variant", ["frisian", "turkish"])
def test_network_maps_the_rulesets_planes_and_actions(variant: str) -> None:
    rules = get_ruleset(variant)
    layout = action_layout(rules)
    env = DraughtsBatchEnv(3, variant=variant, seed=1, num_threads=1, opening_plies=4)
    obs, masks, _ = env.reset()
    assert obs.shape[1] == planes_for(rules) and masks.shape[1] == layout.num_actions
    net = DraughtsNet(TINY, rules).eval()
    with torch.no_grad():
        logits, value = net(torch.from_numpy(obs), torch.from_numpy(masks))
    assert logits.shape == (3, layout.num_actions) and value.shape == (3,)
    assert np.all(torch.softmax(logits, 1).numpy()[masks == 0] == 0)
    # The policy head reads action (origin, direction, distance) at the origin's cell.
    size, hops = rules.board_size, layout.directions * layout.distances
    head = DraughtsNet(NetworkConfig(channels=hops, blocks=0), rules)
    with torch.no_grad():
        head.policy.weight.copy_(torch.eye(hops).reshape(hops, hops, 1, 1))
        head.policy.bias.zero_()
    x = torch.randn(2, hops, size, size)
    head_logits = head._policy_logits(x)
    for action in np.linspace(0, layout.num_actions - 1, 37).astype(int):
        origin, direction, distance = layout.decode(int(action))
        channel = direction * layout.distances + distance - 1
        cell = x[:, channel, layout.row[origin], layout.col[origin]]
        assert torch.equal(head_logits[:, action], cell)


def test_a_board_size_still_means_the_first_layout() -> None:
    """Networks built from a board size (every checkpoint before the family) keep their
    shapes: 8 planes, 4 directions, the dark squares."""
    net = DraughtsNet(TINY, 10)
    assert net.planes == 8 and net.num_actions == 1800 and net.hops_per_square == 36
    assert net.num_actions == DraughtsNet(TINY, get_ruleset("international")).num_actions


@pytest.mark.parametrize("variant", ["frisian", "turkish"])
def test_alphazero_iterates(variant: str) -> None:
    trainer = AlphaZeroTrainer(tiny_config(env={"variant": variant, "max_plies": 16}))
    metrics = trainer.step()
    assert trainer.iteration == 1 and metrics["positions"] > 0
    r = trainer.replay
    assert r.obs.shape[1:] == (planes_for(trainer.rules), *(2 * (trainer.rules.board_size,)))
    assert np.all(r.policies[: r.size][~r.masks[: r.size]] == 0)


@pytest.mark.parametrize("variant", ["frisian", "turkish"])
def test_ppo_iterates(variant: str) -> None:
    config = tiny_config(
        algorithm="ppo",
        env={"variant": variant, "max_plies": 12, "num_envs": 4},
        ppo={"rollout_steps": 8, "num_minibatches": 1, "update_epochs": 1},
    )
    trainer = PPOTrainer(config)
    metrics = trainer.step()
    assert trainer.iteration == 1
    assert all(np.isfinite(v) for v in metrics.values())


@pytest.mark.parametrize("variant", ["frisian", "turkish"])
def test_nnue_iterates(variant: str) -> None:
    nnue = {"hidden": 8, "hidden2": 4, "depth": 2, "games_per_iteration": 2, "workers": 1}
    config = tiny_config(algorithm="nnue", env={"variant": variant, "max_plies": 30}, nnue=nnue)
    trainer = NNUETrainer(config)
    metrics = trainer.step()
    assert metrics["games"] == 2 and metrics["positions"] > 0
    assert all(np.isfinite(v) for v in metrics.values())
