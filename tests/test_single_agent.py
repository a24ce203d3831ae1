"""DraughtsGymEnv: the learner's side of a game against an opponent, as a Gymnasium env."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import VARIANTS

from damas_env.draughts_v0 import IllegalActionError
from damas_env.ending import Reason
from damas_env.engine import Colour, Position
from damas_env.registration import register
from damas_env.single_agent import AGENTS, DraughtsGymEnv, OpponentError

# English: Black (player_0) moves first; White is player_1.
WHITE_WINS_AT_ONCE = "W:W27:B23"  # 27x18 takes Black's last man
BLACK_BLUNDERS = "B:W27:B18"  # 18-23 lets White take the last man: 27x18
DOUBLE_CAPTURE = "W:W27:B23,15,1"  # White 27x18x11, two hops; Black's man on 1 plays on


def action_for(env: DraughtsGymEnv, origin: int, target: int) -> int:
    """Returns the learner's legal action whose hop goes between two PDN squares."""
    raw = env.aec_env.unwrapped
    hops = {raw.decode_action(a): a for a in raw.legal_actions()}
    return hops[(origin, target)]


def play_out(env: DraughtsGymEnv, seed: int) -> tuple[list[int], list[float], dict]:
    """Plays random masked actions to the end; returns the actions, rewards and last info."""
    _, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    actions, rewards = [], []
    while True:
        assert info["action_mask"].any()
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = int(env.action_space.sample(info["action_mask"]))
        _, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        rewards.append(reward)
        if terminated or truncated:
            return actions, rewards, info


def first_legal(obs: dict[str, np.ndarray]) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


class FirstLegal:
    """An opponent object that plays its first legal hop and counts its resets."""

    def __init__(self) -> None:
        self.resets = 0
        self.calls = 0

    def reset(self) -> None:
        self.resets += 1

    def act(self, obs: dict[str, np.ndarray], position=None, hops=()) -> int:
        self.calls += 1
        return first_legal(obs)


def test_check_env_with_the_lose_policy() -> None:
    # check_env steps with unmasked samples of Discrete(A), nearly all illegal; with the
    # default "raise" the first would raise, so it is checked with illegal_action="lose".
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*not having a spec.*")
        for play_as in ("player_0", "player_1", "random"):
            check_env(DraughtsGymEnv("english", play_as=play_as, illegal_action="lose"))
        check_env(DraughtsGymEnv("international", illegal_action="lose", channels_last=True))


def test_check_env_through_gymnasium_make(monkeypatch: pytest.MonkeyPatch) -> None:
    # The registered id loses on an illegal action; check_env renders every declared mode,
    # "human" included: a window where pygame is installed (no display needed with the dummy
    # driver), the text board where it is not (test_check_env_as_the_readme_writes_it).
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    register()
    env = gymnasium.make("damas/Draughts-v0", variant="english")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped.*")
        warnings.filterwarnings("ignore", message=".*needs pygame.*")
        check_env(env.unwrapped)
        check_env(env)


def test_check_env_as_the_readme_writes_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)  # `import pygame` fails: no pygame here
    register()
    with pytest.warns(UserWarning, match="needs pygame: pip install pygame"):
        check_env(gymnasium.make("damas/Draughts-v0", variant="english").unwrapped)
    assert "black to move" in capsys.readouterr().out  # "human" printed the text board


def test_the_registered_env_loses_on_an_illegal_action_unless_told_to_raise() -> None:
    register()
    env = gymnasium.make("damas/Draughts-v0", variant="english")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["reason"] is Reason.ILLEGAL_ACTION
    strict = gymnasium.make("damas/Draughts-v0", variant="english", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    direct = DraughtsGymEnv("english")  # the class keeps "raise", as draughts_v0.env does
    direct.reset(seed=0)
    with pytest.raises(IllegalActionError):
        direct.step(illegal)


def test_human_mode_without_pygame_prints_the_board_and_warns_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    env = DraughtsGymEnv("english", render_mode="human", play_as="player_1")
    with pytest.warns(UserWarning, match="needs pygame") as caught:
        env.reset(seed=0)
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        env.render()
    assert sum("needs pygame" in str(w.message) for w in caught) == 1
    assert capsys.readouterr().out.count("to move") >= 3  # reset, each hop, render()
    with pytest.raises(ImportError, match="pip install pygame"):  # a person needs the window
        env.aec_env.unwrapped.wait_for_human()


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("play_as", ["player_0", "player_1"])
def test_random_games_run_to_the_end(variant: str, play_as: str) -> None:
    env = DraughtsGymEnv(variant, play_as=play_as)
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space and info["play_as"] == play_as
    rules = env.aec_env.unwrapped.rules
    size, lines = rules.board_size, rules.directions  # squares x directions x distances
    assert env.action_space.n == rules.squares * lines * (size - 1)
    assert env.action_space.n == (
        size * size // 2 * 4 * (size - 1)
        if lines == 4
        else {"frisian": 3600, "frysk": 3600, "turkish": 3584}[variant]
    )
    _, rewards, info = play_out(env, seed=3)
    assert all(r == 0.0 for r in rewards[:-1]) and rewards[-1] in (-1.0, 0.0, 1.0)
    assert info["reason"] is not Reason.NONE and not info["action_mask"].any()
    if rewards[-1]:
        assert (AGENTS[info["winner"]] == play_as) == (rewards[-1] == 1.0)
    else:
        assert info["winner"] == -1


def test_learner_gets_plus_one_for_its_winning_capture() -> None:
    env = DraughtsGymEnv("english", play_as="player_1")
    _, info = env.reset(options={"fen": WHITE_WINS_AT_ONCE})
    assert info["colour"] is Colour.WHITE
    _, reward, terminated, truncated, info = env.step(action_for(env, 27, 18))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["reason"] is Reason.NO_LEGAL_MOVE and info["winner"] == 1  # player_1


def test_learner_gets_minus_one_when_the_opponent_wins() -> None:
    env = DraughtsGymEnv("english", play_as="player_0")
    _, info = env.reset(seed=0, options={"fen": BLACK_BLUNDERS})
    assert info["colour"] is Colour.BLACK
    _, reward, terminated, _, info = env.step(action_for(env, 18, 23))
    assert (reward, terminated) == (-1.0, True)
    assert info["winner"] == 1  # player_1


def test_a_game_over_before_the_learner_moves_is_refused() -> None:
    env = DraughtsGymEnv("english", play_as="player_0")
    with pytest.raises(ValueError, match=r"ended \(no_legal_move\) before the learner's first"):
        env.reset(options={"fen": WHITE_WINS_AT_ONCE})


def test_multi_capture_takes_several_learner_steps() -> None:
    env = DraughtsGymEnv("english", play_as="player_1", opponent=first_legal)
    env.reset(options={"fen": DOUBLE_CAPTURE})
    _, reward, terminated, _, info = env.step(action_for(env, 27, 18))
    assert (reward, terminated) == (0.0, False)
    assert np.flatnonzero(info["action_mask"]).tolist() == [action_for(env, 18, 11)]
    env.step(action_for(env, 18, 11))
    assert env.aec_env.agent_selection == "player_1"
    assert env.aec_env.unwrapped.position.fen().startswith("W:W11:B")  # Black played 1-5/6


def test_opponent_as_a_callable() -> None:
    seen: list[dict[str, np.ndarray]] = []

    def policy(obs: dict[str, np.ndarray]) -> int:
        seen.append(obs)
        return first_legal(obs)

    env = DraughtsGymEnv("english", opponent=policy, play_as="player_1")
    env.reset(seed=0)
    assert len(seen) == 1 and set(seen[0]) == {"observation", "action_mask"}
    play_out(env, seed=0)
    assert len(seen) > 1


def test_opponent_as_an_object_with_act_and_reset() -> None:
    opponent = FirstLegal()
    env = DraughtsGymEnv("english", opponent=opponent, play_as="player_1")
    env.reset(seed=0)
    assert (opponent.resets, opponent.calls) == (1, 1)
    play_out(env, seed=0)
    assert opponent.resets == 2 and opponent.calls > 1


def test_action_masks_match_the_info_mask() -> None:
    env = DraughtsGymEnv("english", play_as="player_1")
    _, info = env.reset(seed=1)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and np.array_equal(masks, info["action_mask"].astype(bool))
    assert info["action_mask"].dtype == np.int8  # what Discrete.sample(mask=...) takes


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = DraughtsGymEnv("english", play_as="player_0")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    fen = env.aec_env.unwrapped.position.fen()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.aec_env.unwrapped.position.fen() == fen
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    legal = int(np.flatnonzero(info["action_mask"])[0])
    next_obs, *_ = env.step(legal)
    assert not np.array_equal(next_obs, obs)


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
@pytest.mark.parametrize("action", [1.5, "x", None, True, np.float64(3), [3], np.array([3])])
def test_an_action_of_the_wrong_type_is_a_type_error(illegal_action: str, action: object) -> None:
    """Not an integer: TypeError naming the action, and nothing changes, whatever the policy
    for illegal actions (which is for integers that are not a legal hop)."""
    env = DraughtsGymEnv("english", illegal_action=illegal_action)
    _, info = env.reset(seed=0)
    fen = env.aec_env.unwrapped.position.fen()
    with pytest.raises(TypeError, match=f"^action must be an int, not {type(action).__name__} "):
        env.step(action)
    assert env.aec_env.unwrapped.position.fen() == fen
    legal = np.flatnonzero(info["action_mask"])
    env.step(np.int64(legal[0]))  # numpy integers, as action_space.sample() gives, are ints


def test_illegal_action_loses_with_the_lose_policy() -> None:
    env = DraughtsGymEnv("english", illegal_action="lose")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["reason"].label) == (-1.0, True, "illegal_action")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(illegal)


def test_opponent_returning_an_illegal_action_is_named() -> None:
    def stubborn(obs: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(obs["action_mask"] == 0)[0])

    with pytest.raises(OpponentError, match="stubborn"):
        DraughtsGymEnv("english", opponent=stubborn, play_as="player_1").reset(seed=0)

    class Broken:
        def act(self, obs: dict[str, np.ndarray], position=None, hops=()) -> str:
            return "27-18"

    with pytest.raises(OpponentError, match=r"Broken\.act .*'27-18'"):
        DraughtsGymEnv("english", opponent=Broken(), play_as="player_1").reset(seed=0)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="play_as"):
        DraughtsGymEnv("english", play_as="white")
    with pytest.raises(ValueError, match="random"):
        DraughtsGymEnv("english", opponent="greedy")
    with pytest.raises(TypeError, match="opponent"):
        DraughtsGymEnv("english", opponent=42)


def test_max_plies_truncates() -> None:
    env = DraughtsGymEnv("english", max_plies=6)
    _, rewards, info = play_out(env, seed=0)
    assert info["reason"] is Reason.MAX_PLIES and rewards[-1] == 0.0


def test_same_seed_same_game() -> None:
    env = DraughtsGymEnv("english", play_as="random")
    other = DraughtsGymEnv("english", play_as="random")
    first = play_out(env, seed=7)
    for again in (play_out(env, seed=7), play_out(other, seed=7)):
        assert again[:2] == first[:2] and again[2]["reason"] == first[2]["reason"]


def test_play_as_random_is_drawn_from_the_seed() -> None:
    env = DraughtsGymEnv("english", play_as="random")
    sides = {env.reset(seed=s)[1]["play_as"] for s in range(20)}
    assert sides == {"player_0", "player_1"}
    assert env.reset(seed=5)[1]["play_as"] == env.reset(seed=5)[1]["play_as"]


def test_render_delegates_to_the_aec_env() -> None:
    env = DraughtsGymEnv("english", render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str)


def test_registration_makes_both_envs_and_is_idempotent() -> None:
    register()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register()
    gym_env = gymnasium.make(
        "damas/Draughts-v0", variant="english", opponent="random", play_as="player_1"
    )
    _, info = gym_env.reset(seed=0)
    assert info["colour"] is Colour.WHITE and gym_env.action_space.n == 896
    aec_env = pettingzoo.make("aec", "damas/draughts-v0", variant="english")
    aec_env.reset(seed=0)
    assert aec_env.agent_selection == "player_0" and aec_env.action_space("player_0").n == 896


def test_a_classical_agent_as_opponent_gets_the_position() -> None:
    from damas_agents.players.classic import AlphaBetaAgent

    class Watched(AlphaBetaAgent):
        """Notes what it is given beside what the engine holds at that moment."""

        def act(
            self,
            observation: dict[str, np.ndarray],
            position: Position | None = None,
            hops: Sequence[int] = (),
        ) -> int:
            raw = env.aec_env.unwrapped
            given.append((position, tuple(hops), raw.position, raw.hops_played))
            return super().act(observation, position, hops)

    given: list[tuple] = []
    env = DraughtsGymEnv(variant="english", opponent=Watched(depth=2, seed=0))
    obs, info = env.reset(seed=0)
    for _ in range(30):
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert len(given) >= 10
    opponent_colour = env.aec_env.unwrapped.colour_of("player_1")
    for position, hops, engine_position, engine_hops in given:
        assert isinstance(position, Position) and position == engine_position
        assert position.turn == opponent_colour and hops == engine_hops
