"""The RL-library integrations in examples/integrations/ train, and only ever play legal hops.

Each training test skips unless its library is installed (``pip install -e ".[sb3]"`` and
so on), trains for a few seconds, and spies on the env's ``step`` to check every learner
action against the mask the learner was shown. Each example's ``as_agent`` adapter then
plays the model's own choice on the view it trained on, from the arena's observation (either
side to move), and complete games in the arena. The RLlib observation wrapper is tested
without Ray.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from helpers import load_script
from pettingzoo.test import api_test

from damas_agents.arena import play_match
from damas_agents.players.base import PolicyAgent, play_hop
from damas_env import draughts_v0
from damas_env.draughts_v0 import raw_env
from damas_env.ending import Reason
from damas_env.engine import Colour
from damas_env.integrations.rllib import RLlibObservations
from damas_env.single_agent import DraughtsGymEnv
from damas_env.vector_gym import DraughtsVectorEnv

EXAMPLES = Path(__file__).parent.parent / "examples" / "integrations"


def load_example(name: str) -> ModuleType:
    """Imports examples/integrations/<name>.py as a module."""
    return load_script(f"integration_{name}", EXAMPLES / f"{name}.py")


class Spy:
    """Records, for each action played, who played it and whether its mask allowed it."""

    def __init__(self) -> None:
        self.legal: dict[str, list[bool]] = {}

    def record(self, action: Any, mask: np.ndarray, agent: str = "learner") -> None:
        """Records whether `agent`'s action was in range and allowed by its mask."""
        a = int(np.asarray(action).item())
        self.legal.setdefault(agent, []).append(bool(0 <= a < mask.shape[0] and mask[a]))

    def record_batch(self, actions: Any, masks: np.ndarray) -> None:
        """Records one action per game of a batch, against that game's mask."""
        for action, mask in zip(np.asarray(actions).reshape(-1), masks, strict=True):
            self.record(action, mask)

    def check(self, at_least: int, agent: str = "learner") -> None:
        """Asserts `agent` played at least `at_least` actions, and every action was legal."""
        assert len(self.legal.get(agent, [])) >= at_least
        for who, legal in self.legal.items():
            assert all(legal), f"{who}: {legal.count(False)} illegal actions of {len(legal)}"


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # conftest.py

#: ``model_action(fen, agent, arena_observation)``: the model's own action at a position, on
#: the view its library trained it on (None where it cannot say, e.g. the other player).
ModelAction = Callable[[str, str, dict[str, np.ndarray]], int | None]


def turn_starts(count: int = 8, seed: int = 0) -> list[str]:
    """Returns FENs of a random English game at the start of turns, either side to move."""
    env = raw_env("english")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    fens: list[str] = []
    while len(fens) < count and not any(env.terminations.values()):
        if not env.hops_played:
            fens.append(env.position.fen())
        env.step(int(rng.choice(env.legal_actions())))
    assert len(fens) == count
    return fens


def check_adapter(agent: PolicyAgent, model_action: ModelAction, network: Any) -> None:
    """Asserts the adapter plays the model's own action from the arena's observation at
    positions of a random game, then complete games against random in the arena (the
    PolicyAgent refuses a hop its mask forbids, so a game ends only by the rules).

    The network's weights are drawn again first (seeded), large: a network trained for
    seconds picks nearly the same hop whatever it sees, and one that depends on every input
    makes a wrong layout or side change the actions."""
    import torch

    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for weights in network.parameters():
            weights.copy_(torch.randn(weights.shape, generator=generator))
    compared = set()
    for fen in turn_starts():
        env = raw_env("english")
        env.reset(options={"fen": fen})
        mover = env.agent_selection
        action = play_hop(agent, env)  # what the arena asks the agent
        expected = model_action(fen, mover, env.observe(mover))
        if expected is not None:
            assert action == expected, fen
            compared.add(mover)
    assert compared
    match = play_match(agent, "random", "english", games=2, progress=False)
    assert match.games == 2 and "illegal_action" not in match.reasons()


def check_saved(saved: PolicyAgent, agent: PolicyAgent) -> None:
    """Asserts a model saved and loaded again (the example's ``load_agent``) plays as the
    model in memory did, at positions of a random game."""
    for fen in turn_starts():
        env = raw_env("english")
        env.reset(options={"fen": fen})
        assert play_hop(saved, env) == play_hop(agent, env), fen


@pytest.fixture
def gym_spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Spies on DraughtsGymEnv.step: the learner's actions against action_masks()."""
    spy = Spy()
    step = DraughtsGymEnv.step

    def spied(self: DraughtsGymEnv, action: Any) -> Any:
        spy.record(action, self.action_masks())
        return step(self, action)

    monkeypatch.setattr(DraughtsGymEnv, "step", spied)
    return spy


@pytest.fixture
def batch_spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Spies on DraughtsVectorEnv.step: each game's learner action against its mask."""
    spy = Spy()
    step = DraughtsVectorEnv.step

    def spied(self: DraughtsVectorEnv, actions: Any) -> Any:
        spy.record_batch(actions, self.action_masks())
        return step(self, actions)

    monkeypatch.setattr(DraughtsVectorEnv, "step", spied)
    return spy


@pytest.fixture
def aec_spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Spies on draughts_v0's raw_env.step: each agent's actions against its mask."""
    spy = Spy()
    step = raw_env.step

    def spied(self: raw_env, action: Any) -> None:
        agent = self.agent_selection
        if action is not None:  # None: the step of an agent whose game has ended
            spy.record(action, self.observe(agent)["action_mask"], agent)
        step(self, action)

    monkeypatch.setattr(raw_env, "step", spied)
    return spy


def test_sb3_maskable_ppo(gym_spy: Spy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sb3_contrib")
    example = load_example("sb3_maskable_ppo")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    model, score = example.main(total_steps=512, n_envs=2, eval_games=2)
    assert not list(tmp_path.glob("SB3-*"))  # SB3 left no log folder behind
    assert model.num_timesteps >= 512
    assert -1.0 <= score <= 1.0
    gym_spy.check(at_least=512)

    def model_action(fen: str, agent: str, seen: dict[str, np.ndarray]) -> int:
        env = DraughtsGymEnv(variant="english", play_as=agent)
        obs, info = env.reset(options={"fen": fen})
        np.testing.assert_array_equal(obs, seen["observation"])  # same planes, same side
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        return int(action)

    check_adapter(example.as_agent(model), model_action, model.policy)
    model.save(tmp_path / "model.zip")
    check_saved(example.load_agent(str(tmp_path / "model.zip")), example.as_agent(model))


def test_sb3_vec_env_adapter() -> None:
    """SB3VecEnv: SB3's step contract, one mask per game, terminal observations."""
    pytest.importorskip("stable_baselines3")
    from damas_env.integrations.sb3 import SB3VecEnv

    env = SB3VecEnv(DraughtsVectorEnv(4, variant="english", max_plies=6, num_threads=1))
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (4, 8, 8, 8) and env.has_attr("action_masks")
    rng = np.random.default_rng(0)
    for _ in range(6):
        masks = env.env_method("action_masks")
        assert len(masks) == 4 and all(m.dtype == np.bool_ and m.any() for m in masks)
        obs, rewards, dones, infos = env.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        )
        assert obs.shape == (4, 8, 8, 8) and rewards.shape == dones.shape == (4,)
        for done, info in zip(dones, infos, strict=True):
            assert ("terminal_observation" in info) == done
    assert dones.all() and all(info["TimeLimit.truncated"] for info in infos)  # max_plies
    assert env.env_method("action_masks", indices=[1])[0].shape == (896,)
    env.close()


def test_sb3_maskable_ppo_batch(
    batch_spy: Spy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sb3_contrib")
    example = load_example("sb3_maskable_ppo_batch")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    model, score = example.main(total_steps=1024, num_envs=8, eval_games=8, num_threads=1)
    assert not list(tmp_path.glob("SB3-*"))  # SB3 left no log folder behind
    assert model.num_timesteps >= 1024
    assert -1.0 <= score <= 1.0
    batch_spy.check(at_least=1024)

    def model_action(fen: str, agent: str, seen: dict[str, np.ndarray]) -> int:
        env = DraughtsVectorEnv(1, variant="english", play_as=agent, fens=[fen], num_threads=1)
        obs, info = env.reset(seed=0)
        np.testing.assert_array_equal(obs[0], seen["observation"])  # same planes, same side
        action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
        return int(action[0])

    check_adapter(example.as_agent(model), model_action, model.policy)
    model.save(tmp_path / "model.zip")
    check_saved(example.load_agent(str(tmp_path / "model.zip")), example.as_agent(model))


@pytest.mark.parametrize("learner", ["player_0", "player_1"])
def test_tianshou_dqn(aec_spy: Spy, learner: str, tmp_path: Path) -> None:
    pytest.importorskip("tianshou")
    example = load_example("tianshou_dqn")
    algorithm, score = example.main(total_steps=300, learner=learner, n_envs=2, test_games=1)
    assert algorithm.get_algorithm(learner).__class__.__name__ == "DQN"
    assert -1.0 <= score <= 1.0
    aec_spy.check(at_least=150, agent=learner)

    from tianshou.data import Batch

    def model_action(fen: str, agent: str, seen: dict[str, np.ndarray]) -> int:
        obs, info = example.make_env("english").reset(options={"fen": fen})
        assert obs["agent_id"] == agent
        np.testing.assert_array_equal(obs["obs"], seen["observation"])
        step = Batch(obs=Batch(obs=obs["obs"][None], mask=np.array(obs["mask"])[None]), info={})
        return int(algorithm.get_algorithm(learner).policy(step).act[0])

    check_adapter(example.as_agent(algorithm), model_action, algorithm)
    import torch

    torch.save(example.learner_policy(algorithm).state_dict(), tmp_path / "dqn.pt")
    check_saved(example.load_agent(str(tmp_path / "dqn.pt")), example.as_agent(algorithm))


def test_torchrl_ppo(aec_spy: Spy, tmp_path: Path) -> None:
    pytest.importorskip("torchrl")
    example = load_example("torchrl_ppo")
    policy, score = example.main(total_steps=400, frames_per_batch=200, eval_games=1)
    assert len(policy) == 2  # the learner's masked actor, then the random opponent's
    assert -1.0 <= score <= 1.0
    aec_spy.check(at_least=150, agent="player_0")

    from torchrl.envs import ExplorationType, set_exploration_type

    def model_action(fen: str, agent: str, seen: dict[str, np.ndarray]) -> int | None:
        if agent != example.LEARNER:
            return None  # the other group is the random opponent
        step = example.make_env("english").reset(options={"fen": fen})
        planes = step[agent, "observation", "observation"][0].numpy()
        np.testing.assert_array_equal(planes, seen["observation"])
        with set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(policy[0](step)[agent, "action"].item())

    check_adapter(example.as_agent(policy), model_action, policy)
    import torch

    torch.save(policy[0].state_dict(), tmp_path / "learner.pt")
    check_saved(example.load_agent(str(tmp_path / "learner.pt")), example.as_agent(policy))


def test_torchrl_wraps_the_bare_env_and_rolls_out_to_the_end(aec_spy: Spy) -> None:
    """Issue 15: ``PettingZooWrapper(draughts_v0.env(variant), use_mask=True)`` with no extra
    flag: TorchRL's own spec check, random legal hops to the end, the reason's name."""
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(draughts_v0.env("english"), use_mask=True, seed=0)
    check_env_specs(env)
    assert set(env.observation_spec["player_0", "info"].keys()) == {"colour", "reason", "winner"}
    start = env.reset()
    assert int(start["player_0", "info", "reason"]) == Reason.NONE
    assert int(start["player_0", "info", "colour"]) == Colour.BLACK  # English: player_0
    rollout = env.rollout(1000, break_when_any_done=True)  # the action specs carry the masks
    end = rollout[-1]["next"]
    assert end["done"].item() and end["terminated"].item()
    reason = Reason(int(end["player_0", "info", "reason"]))
    winner = int(end["player_0", "info", "winner"])
    rewards = [float(end[agent, "reward"]) for agent in ("player_0", "player_1")]
    assert reason is not Reason.NONE and reason.label in draughts_v0.INFO_REASONS[1:]
    assert (rewards == [0.0, 0.0]) if winner < 0 else (rewards[winner] == 1.0)
    before = rollout[:-1]["next", "player_0", "info", "reason"]
    assert (before == Reason.NONE).all()  # the game went on until the last step
    aec_spy.check(at_least=len(rollout) // 2, agent="player_0")

    lose = PettingZooWrapper(draughts_v0.env("english", illegal_action="lose"), use_mask=True)
    illegal = lose.full_action_spec["player_0", "action"].zero()  # action 0: off the board
    step = lose.step(lose.reset().update({"player_0": {"action": illegal}}))["next"]
    assert Reason(int(step["player_1", "info", "reason"])).label == "illegal_action"


def test_the_torchrl_shortcut_is_the_bare_env_in_the_wrapper() -> None:
    """``torchrl_env`` (kept so imports work): the same wrapper, and a ``max_plies`` cut."""
    pytest.importorskip("torchrl")
    from damas_env.integrations.torchrl import torchrl_env

    short = torchrl_env("english", max_plies=4, seed=0).rollout(100, break_when_any_done=True)
    end = short[-1]["next"]
    assert end["truncated"].item()
    assert Reason(int(end["player_1", "info", "reason"])).label == "max_plies"


def test_tianshou_wraps_the_bare_env_and_plays_to_the_end() -> None:
    """Issue 15: Tianshou's ``PettingZooEnv(draughts_v0.env(variant))`` with no extra flag:
    every step's info has the same int keys (its buffer stacks them) to a game's end."""
    pytest.importorskip("tianshou")
    from tianshou.data import Batch
    from tianshou.env import PettingZooEnv

    env = PettingZooEnv(draughts_v0.env("english"))
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    keys = set(info)
    assert keys == {"colour", "reason", "winner"}
    infos = [info]
    done = False
    while not done:
        obs, rewards, terminated, truncated, info = env.step(
            rng.choice(np.flatnonzero(obs["mask"]))
        )
        assert set(info) == keys and all(isinstance(value, int) for value in info.values())
        infos.append(info)
        done = terminated or truncated
    assert terminated and type(info["reason"]) is Reason and info["reason"].label
    assert info["reason"] not in (Reason.MAX_PLIES, Reason.ILLEGAL_ACTION, Reason.TIME)  # rules
    assert all(i["reason"] is Reason.NONE for i in infos[:-1])
    assert info["winner"] == -1 or rewards[info["winner"]] == 1.0
    stacked = Batch.stack([Batch(i) for i in infos])  # what the buffer does: int arrays
    assert stacked.reason.dtype.kind == "i" and Reason(int(stacked.reason[-1])) is info["reason"]

    from damas_env.integrations.tianshou import tianshou_env  # the shortcut, kept

    short = tianshou_env("english", max_plies=6)
    obs, _ = short.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = short.step(int(np.flatnonzero(obs["mask"])[0]))
        done = terminated or truncated
    assert truncated and Reason(info["reason"]).label == "max_plies"


def test_rllib_observations_wrapper() -> None:
    """RLlibObservations: RLlib's key and mask dtype, and still a valid PettingZoo env."""
    env = RLlibObservations(draughts_v0.env("english", channels_last=True))
    api_test(env, num_cycles=100)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observations", "action_mask"}
    assert obs["observations"].shape == (8, 8, 8) and obs["action_mask"].dtype == np.int8
    assert env.observation_space("player_0").contains(obs)
    legal = env.unwrapped.legal_actions()
    assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)


def test_rllib_ppo(aec_spy: Spy, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    try:
        import ray.rllib  # noqa: F401
    except ImportError as error:  # also a ray whose RLlib lacks a dependency (pyarrow, dm-tree)
        pytest.skip(f"ray.rllib does not import: {error}")
    example = load_example("rllib_ppo")
    build = example.PPOConfig.build_algo

    def build_then_watch(self: Any, *args: Any, **kwargs: Any) -> Any:
        algo = build(self, *args, **kwargs)
        aec_spy.legal.clear()  # RLlib's env check stepped an unmasked sample on purpose
        return algo

    monkeypatch.setattr(example.PPOConfig, "build_algo", build_then_watch)
    try:
        algo, score = example.main(
            total_steps=400, batch_size=200, eval_games=2, progress_games=0, envs_per_runner=2
        )
        module = algo.get_module(example.MODULE)
    finally:
        ray.shutdown()
    assert algo.iteration >= 2
    assert -1.0 <= score <= 1.0
    aec_spy.check(at_least=150, agent="player_0")  # one shared module plays both sides
    aec_spy.check(at_least=150, agent="player_1")

    # The masked module: illegal hops get the float minimum, legal ones keep their logits.
    import torch
    from ray.rllib.core.columns import Columns

    from damas_env.integrations.rllib import MaskedPPOTorchRLModule, rllib_env

    assert isinstance(module, MaskedPPOTorchRLModule)
    obs, _ = rllib_env("english", channels_last=True).reset(seed=0)
    view = obs["player_0"]
    batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in view.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
    legal = torch.from_numpy(view["action_mask"]).bool()
    assert (logits[~legal] < -1e38).all() and (logits[legal] > -1e6).all()

    def model_action(fen: str, agent: str, seen: dict[str, np.ndarray]) -> int:
        obs, _ = rllib_env("english", channels_last=True).reset(options={"fen": fen})
        image = obs[agent]["observations"]  # (N, N, 8): the arena's planes, channels last
        np.testing.assert_array_equal(image, seen["observation"].transpose(1, 2, 0))
        return example.greedy_action(module, obs[agent])

    check_adapter(example.as_agent(algo), model_action, module)
