"""DraughtsVectorEnv: Gymnasium's vector API, the learner's turn, auto-reset, opponents."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from damas_env.ending import Reason
from damas_env.engine import Colour
from damas_env.single_agent import DraughtsGymEnv, OpponentError
from damas_env.vector_gym import DraughtsVectorEnv

# English: Black (player_0) moves first; White is player_1.
WHITE_WINS_AT_ONCE = "W:W27:B23"  # 27x18 takes Black's last man
BLACK_BLUNDERS = "B:W27:B18"  # 18-23 lets White take the last man: 27x18
DOUBLE_CAPTURE = "W:W27:B23,15,1"  # White 27x18x11, two hops; Black's man on 1 plays on


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Returns one uniformly random legal action per row of masks."""
    return np.argmax(np.where(masks == 1, rng.random(masks.shape), -1.0), axis=1)


def last_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A deterministic batch opponent: the highest legal action of each game."""
    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


def hop(env: DraughtsVectorEnv, origin: int, target: int, colour: Colour) -> int:
    """Returns the action of a hop between two PDN squares for a colour."""
    return env.batch_env.layout.hop_action(origin - 1, target - 1, colour)


def assert_learner_to_move(env: DraughtsVectorEnv) -> None:
    assert np.array_equal(env.batch_env.to_play, env.learner)


def play(env: DraughtsVectorEnv, steps: int, seed: int) -> list[tuple[Any, ...]]:
    """Resets with `seed` and plays random masked learner actions; returns every output."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    outputs: list[tuple[Any, ...]] = [(obs, info["action_mask"], info["learner"])]
    for _ in range(steps):
        obs, rewards, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
        outputs.append((obs, rewards, terminated, truncated, info["action_mask"], info["learner"]))
    return outputs


def assert_same_outputs(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)


# --- Gymnasium's vector API ------------------------------------------------------------------


def test_spaces_shapes_and_dtypes() -> None:
    env = DraughtsVectorEnv(5, "english", seed=0)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.num_envs == 5
    assert env.single_observation_space == spaces.Box(0.0, 1.0, (8, 8, 8), np.float32)
    assert env.single_action_space == spaces.Discrete(896)
    assert env.action_space == spaces.MultiDiscrete([896] * 5)
    assert env.observation_space.shape == (5, 8, 8, 8)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert info["action_mask"].shape == (5, 896) and info["action_mask"].dtype == np.int8
    assert info["learner"].tolist() == [0] * 5
    obs, rewards, terminated, truncated, info = env.step(
        random_legal(info["action_mask"], np.random.default_rng(0))
    )
    assert env.observation_space.contains(obs)
    assert rewards.shape == (5,) and rewards.dtype == np.float32
    assert terminated.shape == truncated.shape == (5,)
    assert terminated.dtype == truncated.dtype == np.bool_
    assert "final_obs" not in info  # no game ends in one move from the start


def test_international_board() -> None:
    env = DraughtsVectorEnv(3, seed=0, play_as="player_1")
    obs, info = env.reset()
    assert obs.shape == (3, 8, 10, 10) and info["action_mask"].shape == (3, 1800)
    assert_learner_to_move(env)
    assert env.batch_env.plies.tolist() == [1, 1, 1]  # White (player_0) has moved


def test_same_seed_same_trajectories() -> None:
    first = play(DraughtsVectorEnv(8, "english", play_as="random", max_plies=40), 300, seed=7)
    second = play(DraughtsVectorEnv(8, "english", play_as="random", max_plies=40), 300, seed=7)
    assert_same_outputs(first, second)
    learners = np.concatenate([out[-1] for out in first])
    assert 0 < learners.mean() < 1  # both sides drawn


def test_reset_with_the_same_seed_replays() -> None:
    env = DraughtsVectorEnv(8, "english", play_as="random", max_plies=40)
    assert_same_outputs(play(env, 200, seed=3), play(env, 200, seed=3))


def test_constructor_seed_seeds_the_first_reset() -> None:
    a = DraughtsVectorEnv(6, "english", play_as="random", seed=11)
    b = DraughtsVectorEnv(6, "english", play_as="random")
    obs_a, info_a = a.reset()
    obs_b, info_b = b.reset(seed=11)
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(info_a["learner"], info_b["learner"])
    a.reset(seed=12)
    obs_a, info_a = a.reset()  # goes on from seed 12: the constructor's seed is used once
    obs_b, info_b = b.reset(seed=11)
    same = np.array_equal(obs_a, obs_b) and np.array_equal(info_a["learner"], info_b["learner"])
    assert not same


def test_observations_are_copies_unless_asked() -> None:
    env = DraughtsVectorEnv(4, "english", seed=0)
    obs, _ = env.reset()
    assert not np.shares_memory(obs, env.batch_env.obs)
    env = DraughtsVectorEnv(4, "english", seed=0, copy=False)
    obs, _ = env.reset()
    assert obs is env.batch_env.obs


# --- The learner's turn and auto-reset ---------------------------------------------------------


@pytest.mark.parametrize("play_as", ["player_0", "player_1", "random"])
def test_learner_is_to_move_after_reset_and_every_step(play_as: str) -> None:
    env = DraughtsVectorEnv(16, "english", play_as=play_as, seed=1, max_plies=30)
    rng = np.random.default_rng(1)
    _, info = env.reset()
    assert_learner_to_move(env)
    for _ in range(400):
        _, _, _, _, info = env.step(random_legal(info["action_mask"], rng))
        assert_learner_to_move(env)
        assert info["action_mask"].any(axis=1).all()
        assert np.array_equal(info["learner"], env.learner)


def test_episode_bookkeeping_agrees_with_the_batch_env(monkeypatch: pytest.MonkeyPatch) -> None:
    env = DraughtsVectorEnv(16, "english", play_as="player_1", seed=2, max_plies=50)
    batch = env.batch_env
    batch_ends = [0]
    batch_step = batch.step

    def counting_step(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
        out = batch_step(*args, **kwargs)
        batch_ends[0] += int((out[4] | out[5]).sum())
        return out

    monkeypatch.setattr(batch, "step", counting_step)
    rng = np.random.default_rng(2)
    _, info = env.reset()
    ends, outcomes = 0, set()
    for t in range(3000):
        _, rewards, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
        ended = terminated | truncated
        assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
        assert not rewards[~terminated].any()  # rewards only at the rules' endings
        assert not (terminated & truncated).any()
        if not ended.any():
            assert "final_obs" not in info and "final_info" not in info
            continue
        ends += int(ended.sum())
        outcomes |= set(rewards[terminated].tolist())
        assert np.array_equal(info["_final_obs"], ended)
        assert np.array_equal(info["_final_info"], ended)
        final = info["final_info"]
        assert np.array_equal(final["_reason"], ended)
        assert (final["reason"][truncated] == "max_plies").all()
        rules_reasons = {r.label for r in Reason if Reason.NONE < r < Reason.MAX_PLIES}
        assert set(final["reason"][terminated]) <= rules_reasons
        assert (final["plies"][truncated] == 50).all()
        assert (final["learner"][ended] == 1).all()
        for g in np.flatnonzero(ended):
            assert env.single_observation_space.contains(info["final_obs"][g])
        assert all(info["final_obs"][g] is None for g in np.flatnonzero(~ended))
        if t % 100 == 0:  # the learner, player_1, is White in English
            assert all(batch.position(g).turn == Colour.WHITE for g in range(16))
    assert ends == batch_ends[0] > 100
    assert {-1.0, 1.0} <= outcomes


def test_record_episode_statistics_counts_the_same_episodes() -> None:
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        DraughtsVectorEnv(8, "english", seed=4, max_plies=40)
    )
    rng = np.random.default_rng(4)
    _, info = env.reset(seed=4)
    ends = 0
    for _ in range(500):
        _, _, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
        ends += int((terminated | truncated).sum())
        if "episode" in info:
            assert (info["episode"]["l"][info["_episode"]] >= 1).all()
    assert env.episode_count == ends > 0


def test_dict_info_to_list_reads_the_final_entries() -> None:
    env = gymnasium.wrappers.vector.DictInfoToList(
        DraughtsVectorEnv(2, "english", play_as="player_1", fens=[WHITE_WINS_AT_ONCE])
    )
    env.reset(seed=0)
    capture = hop(env.unwrapped, 27, 18, Colour.WHITE)
    _, _, _, _, infos = env.step(np.array([capture, capture]))
    assert infos[1]["final_info"] == {"reason": "no_legal_move", "plies": 1, "learner": 1}
    assert infos[1]["final_obs"].shape == (8, 8, 8)


@pytest.mark.parametrize("play_as", ["player_0", "player_1"])
def test_equal_to_single_agent_envs(play_as: str) -> None:
    """The batch view plays every game as DraughtsGymEnv does with the same opponent."""
    games = 4
    env = DraughtsVectorEnv(games, "english", opponent=last_legal, play_as=play_as, max_plies=30)

    def single_last_legal(obs: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(obs["action_mask"])[-1])

    singles = [
        DraughtsGymEnv("english", opponent=single_last_legal, play_as=play_as, max_plies=30)
        for _ in range(games)
    ]
    obs, info = env.reset(seed=0)
    single_obs = [s.reset(seed=0)[0] for s in singles]
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        for g, single in enumerate(singles):
            np.testing.assert_array_equal(obs[g], single_obs[g])
            np.testing.assert_array_equal(info["action_mask"][g], single.action_masks())
        actions = random_legal(info["action_mask"], rng)
        obs, rewards, terminated, truncated, info = env.step(actions)
        for g, single in enumerate(singles):
            s_obs, s_reward, s_term, s_trunc, s_info = single.step(int(actions[g]))
            assert (rewards[g], terminated[g], truncated[g]) == (s_reward, s_term, s_trunc)
            single_obs[g] = s_obs
            if s_term or s_trunc:
                ends += 1
                np.testing.assert_array_equal(info["final_obs"][g], s_obs)
                assert info["final_info"]["reason"][g] == s_info["reason"].label
                single_obs[g] = single.reset()[0]
    assert ends >= games


# --- Endings from positions ------------------------------------------------------------------


def test_a_finished_game_gives_the_learner_plus_one() -> None:
    env = DraughtsVectorEnv(2, "english", play_as="player_1", fens=[WHITE_WINS_AT_ONCE])
    _, info = env.reset(seed=0)
    assert_learner_to_move(env)
    capture = hop(env, 27, 18, Colour.WHITE)
    assert np.flatnonzero(info["action_mask"][0]).tolist() == [capture]
    obs, rewards, terminated, truncated, info = env.step([capture, capture])
    assert rewards.tolist() == [1.0, 1.0]
    assert terminated.tolist() == [True, True] and truncated.tolist() == [False, False]
    assert info["final_info"]["reason"].tolist() == ["no_legal_move"] * 2
    final = info["final_obs"][0]
    assert final[0].sum() == 1 and final[2:4].sum() == 0  # the learner's man, alone
    np.testing.assert_array_equal(obs[0], obs[1])  # both restarted from the FEN
    assert_learner_to_move(env)


def test_the_opponent_winning_gives_the_learner_minus_one() -> None:
    env = DraughtsVectorEnv(1, "english", play_as="player_0", fens=[BLACK_BLUNDERS])
    env.reset(seed=0)
    _, rewards, terminated, _, info = env.step([hop(env, 18, 23, Colour.BLACK)])
    assert (rewards[0], terminated[0]) == (-1.0, True)
    final = info["final_obs"][0]
    assert final[0:2].sum() == 0 and final[2].sum() == 1  # only the opponent's man is left


def test_a_game_over_before_the_learner_moves_is_refused() -> None:
    env = DraughtsVectorEnv(2, "english", play_as="player_0", fens=[WHITE_WINS_AT_ONCE])
    with pytest.raises(ValueError, match="game 0: .* before the learner's first move"):
        env.reset(seed=0)


def test_multi_capture_gives_the_opponent_no_move_until_it_ends() -> None:
    calls: list[np.ndarray] = []

    def opponent(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(masks.copy())
        return last_legal(observations, masks)

    env = DraughtsVectorEnv(
        1, "english", opponent=opponent, play_as="player_1", fens=[DOUBLE_CAPTURE]
    )
    env.reset(seed=0)
    _, rewards, terminated, _, info = env.step([hop(env, 27, 18, Colour.WHITE)])
    assert (rewards[0], terminated[0], len(calls)) == (0.0, False, 0)
    assert np.flatnonzero(info["action_mask"][0]).tolist() == [hop(env, 18, 11, Colour.WHITE)]
    assert_learner_to_move(env)
    env.step([hop(env, 18, 11, Colour.WHITE)])
    assert len(calls) == 1
    assert env.batch_env.position(0).fen().startswith("W:W11:B")  # Black's man on 1 played


# --- Opponents ---------------------------------------------------------------------------------


def test_callable_opponent_sees_only_its_games_and_its_actions_are_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = 12
    env: DraughtsVectorEnv
    played: list[tuple[np.ndarray, np.ndarray]] = []

    def opponent(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = env.batch_env
        turn = batch.to_play != env.learner
        assert turn.any()
        assert observations.shape == (turn.sum(), 8, 8, 8) and observations.dtype == np.float32
        assert masks.shape == (turn.sum(), 896) and masks.dtype == np.int8
        np.testing.assert_array_equal(masks, batch.masks[turn])
        np.testing.assert_array_equal(observations, batch.obs[turn])
        actions = last_legal(observations, masks)
        played.append((np.flatnonzero(turn), actions))
        return actions

    env = DraughtsVectorEnv(games, "english", opponent=opponent, play_as="random", seed=5)
    batch = env.batch_env
    original_step = batch.step
    stepped: list[tuple[np.ndarray, np.ndarray]] = []

    def recording_step(actions: Any, games: Any = None) -> tuple[Any, ...]:
        if games is not None:
            stepped.append((np.flatnonzero(games), np.asarray(actions)[games].copy()))
        return original_step(actions, games)

    monkeypatch.setattr(batch, "step", recording_step)
    rng = np.random.default_rng(5)
    _, info = env.reset()
    for _ in range(100):
        _, _, _, _, info = env.step(random_legal(info["action_mask"], rng))
    assert len(played) == len(stepped) > 100
    for (games_asked, actions), (games_stepped, actions_played) in zip(
        played, stepped, strict=True
    ):
        np.testing.assert_array_equal(games_asked, games_stepped)
        np.testing.assert_array_equal(actions, actions_played)
    assert any(len(g) < games for g, _ in played)  # only the games where it is to move


def test_opponent_object_and_torch_actions() -> None:
    torch = pytest.importorskip("torch")

    class TorchOpponent:
        def act(self, observations: np.ndarray, masks: np.ndarray) -> Any:
            return torch.from_numpy(last_legal(observations, masks))

    env = DraughtsVectorEnv(4, "english", opponent=TorchOpponent(), play_as="player_1", seed=0)
    _, info = env.reset()
    assert_learner_to_move(env)
    _, _, _, _, info = env.step(
        torch.from_numpy(random_legal(info["action_mask"], np.random.default_rng(0)))
    )
    assert_learner_to_move(env)


def test_opponent_returning_an_illegal_action_is_named() -> None:
    def stubborn(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmin(masks, axis=1)

    with pytest.raises(OpponentError, match=r"stubborn returned the illegal action \d+ in game 0"):
        DraughtsVectorEnv(2, "english", opponent=stubborn, play_as="player_1").reset(seed=0)

    def too_few(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.zeros(1, np.int64)

    with pytest.raises(OpponentError, match="must return 3 integer actions"):
        DraughtsVectorEnv(3, "english", opponent=too_few, play_as="player_1").reset(seed=0)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="play_as"):
        DraughtsVectorEnv(2, play_as="white")
    with pytest.raises(ValueError, match="only opponent given by name"):
        DraughtsVectorEnv(2, opponent="greedy")
    with pytest.raises(TypeError, match="opponent must be"):
        DraughtsVectorEnv(2, opponent=3)


# --- Illegal actions and masks ------------------------------------------------------------------


def test_illegal_learner_action_names_the_game_and_changes_nothing() -> None:
    env = DraughtsVectorEnv(4, "english", play_as="random", seed=6)
    obs, info = env.reset()
    actions = random_legal(info["action_mask"], np.random.default_rng(6))
    actions[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    learner = env.learner.copy()
    with pytest.raises(ValueError, match="game 2: illegal action"):
        env.step(actions)
    np.testing.assert_array_equal(env.batch_env.obs, obs)
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
    np.testing.assert_array_equal(env.learner, learner)
    assert_learner_to_move(env)
    actions[2] = int(np.flatnonzero(info["action_mask"][2])[0])
    env.step(actions)  # the legal batch plays


def test_action_masks_equal_the_info_masks() -> None:
    env = DraughtsVectorEnv(6, "english", play_as="random", seed=8, max_plies=20)
    rng = np.random.default_rng(8)
    _, info = env.reset()
    for _ in range(60):
        masks = env.action_masks()
        assert masks.dtype == np.bool_
        np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
        _, _, _, _, info = env.step(random_legal(info["action_mask"], rng))
