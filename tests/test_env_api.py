"""draughts_v0 against PettingZoo's own tests, plus its contract for bad input."""

import copy
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from helpers import PRESETS
from helpers import VARIANTS as BUILT_IN
from pettingzoo.test import api_test, seed_test

from damas_env import draughts_v0
from damas_env.draughts_v0 import IllegalActionError
from damas_env.ending import Reason
from damas_env.engine import Colour
from damas_env.rules import RulesetError
from damas_env.single_agent import DraughtsGymEnv
from damas_env.vector import DraughtsBatchEnv
from damas_env.vector_gym import DraughtsVectorEnv

#: The built-in variants and the shipped presets (the giveaway twins play on the same code).
VARIANTS = [*BUILT_IN, *PRESETS]


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_test(variant: str) -> None:
    api_test(draughts_v0.env(variant=variant), num_cycles=300)


def test_pettingzoo_api_test_raw_and_channels_last() -> None:
    api_test(draughts_v0.raw_env(variant="english"), num_cycles=200)
    api_test(draughts_v0.env(variant="english", channels_last=True), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: draughts_v0.env(variant="english"), num_cycles=100)


def test_spaces_and_agents() -> None:
    env = draughts_v0.env(variant="english")
    env.reset()
    assert env.agents == ["player_0", "player_1"] and env.agent_selection == "player_0"
    assert env.infos["player_0"]["colour"] is Colour.BLACK  # English: Black moves first
    assert env.action_space("player_0").n == 896
    obs = env.observe("player_0")
    assert obs["observation"].shape == (8, 8, 8) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() == 7
    assert env.observe("player_1")["action_mask"].sum() == 0  # not to move: all zeros
    intl = draughts_v0.env()
    intl.reset()
    assert intl.action_space("player_1").n == 1800
    assert intl.infos["player_0"]["colour"] is Colour.WHITE


def test_observations_are_the_callers_own_arrays() -> None:
    env = draughts_v0.raw_env(variant="english")
    env.reset()
    first = env.observe("player_0")
    again = env.observe("player_0")
    assert again["action_mask"] is not first["action_mask"]
    assert again["observation"] is not first["observation"]
    assert np.array_equal(again["action_mask"], first["action_mask"])
    assert np.array_equal(again["observation"], first["observation"])
    first["action_mask"][:] = 0  # the caller's to write into: the env's state is unchanged
    first["observation"][:] = 1
    assert np.array_equal(env.observe("player_0")["action_mask"], again["action_mask"])
    assert np.array_equal(env.observe("player_0")["observation"], again["observation"])


def test_both_agents_see_their_own_men_moving_up() -> None:
    env = draughts_v0.raw_env(variant="english")
    env.reset()
    for agent in ("player_0", "player_1"):
        planes = env.observe(agent)["observation"]
        assert planes[0, 5:].sum() == 12 and planes[2, :3].sum() == 12  # own men at the bottom


def fingerprint(env: draughts_v0.raw_env) -> tuple:
    raw = env.unwrapped
    return (
        copy.deepcopy(raw.observe(raw.agent_selection)),
        raw.agent_selection,
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        copy.deepcopy(raw.infos),
        dict(raw.terminations),
        raw.position.fen(),
        raw._turn.hop,
    )


def same(a: tuple, b: tuple) -> bool:
    (obs_a, *rest_a), (obs_b, *rest_b) = a, b
    return rest_a == rest_b and all(np.array_equal(obs_a[k], obs_b[k]) for k in obs_a)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (0, r"illegal action 0 for player_0 \(black\).*legal actions: "),
        (-1, r"out of range \[0, 896\)"),
        (896, r"out of range \[0, 896\)"),
        (3.0, "must be an int"),
        ("9-13", "must be an int"),
        (True, "must be an int"),
    ],
)
def test_bad_actions_raise_and_change_nothing(action: object, message: str) -> None:
    env = draughts_v0.env(variant="english")
    env.reset()
    before = fingerprint(env)
    with pytest.raises(IllegalActionError, match=message):
        env.step(action)
    assert same(before, fingerprint(env))
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))


def test_illegal_hop_mid_capture_changes_nothing() -> None:
    env = draughts_v0.env(variant="english")
    env.reset(options={"fen": "W:WK20:B8,15,16,23,24"})
    legal = env.unwrapped.legal_actions()
    env.step(legal[0])
    before = fingerprint(env)
    with pytest.raises(IllegalActionError, match="moves in play"):
        env.step(legal[0])
    assert same(before, fingerprint(env))


def test_illegal_action_loses_wrapper() -> None:
    env = draughts_v0.env(variant="english", illegal_action="lose")
    env.reset()
    env.step(0)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert env.infos["player_0"]["reason"] is Reason.ILLEGAL_ACTION
    _, reward, termination, _, _ = env.last()
    assert termination and reward == -1.0
    with pytest.raises(ValueError, match="illegal_action must be"):
        draughts_v0.env(illegal_action="ignore")


def test_win_and_rewards_from_a_fen() -> None:
    env = draughts_v0.env(variant="english")
    env.reset(options={"fen": "W:W27:B23"})
    assert env.agent_selection == "player_1"  # White moves second in English
    (action,) = env.unwrapped.legal_actions()
    assert env.unwrapped.decode_action(action) == (27, 18)
    env.step(action)
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos["player_0"]["reason"] is Reason.NO_LEGAL_MOVE
    assert env.infos["player_0"]["winner"] == 1  # player_1


def test_max_plies_truncates() -> None:
    env = draughts_v0.env(variant="international", max_plies=4)
    env.reset()
    turns = 0
    for _agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            assert truncation and not termination and info["reason"] is Reason.MAX_PLIES
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        turns += 1
    assert turns == 4


def test_bad_constructor_arguments() -> None:
    with pytest.raises(ValueError, match="render_mode must be one of"):
        draughts_v0.env(render_mode="video")
    with pytest.raises(ValueError, match="max_plies must be an int >= 1"):
        draughts_v0.env(max_plies=0)
    with pytest.raises(ValueError, match=r"unknown keyword argument\(s\) \['flying'\]"):
        draughts_v0.env(variant="english", flying=True)
    with pytest.raises(ValueError, match="unknown variant"):
        draughts_v0.env(variant="chess")
    env = draughts_v0.env()
    with pytest.warns(UserWarning, match="reset ignores unknown options"):
        env.reset(options={"position": "W:W1:B2"})


@pytest.mark.parametrize(
    ("make", "owner", "keywords"),
    [
        (draughts_v0.env, "draughts_v0.env", "channels_last, illegal_action, max_plies"),
        (draughts_v0.raw_env, "draughts_v0.raw_env", "channels_last, max_plies, numeric_infos"),
    ],
    ids=["env", "raw_env"],
)
def test_a_misspelt_keyword_is_named_with_a_suggestion_and_both_lists(
    make: Any, owner: str, keywords: str
) -> None:
    with pytest.raises(RulesetError) as error:
        make("english", max_plys=10)
    message = str(error.value)
    assert message.startswith(
        "unknown keyword argument(s) ['max_plys'] (did you mean 'max_plies'?); "
    )
    assert f"{owner} takes {keywords}" in message
    assert "and the rule switches board_layout, board_size, capture_directions" in message


def test_several_misspelt_keywords_each_get_a_suggestion() -> None:
    guesses = "did you mean 'flying_kings' for 'flying', 'max_plies' for 'max_plys'"
    with pytest.raises(RulesetError, match=guesses):
        draughts_v0.env("english", max_plys=10, flying=True)


def test_a_misspelt_keyword_through_gymnasium_make_gets_a_suggestion() -> None:
    import gymnasium

    from damas_env.registration import GYM_ID, register

    register()
    with pytest.raises(RulesetError, match=r"\['max_plys'\] \(did you mean 'max_plies'\?\)"):
        gymnasium.make(GYM_ID, variant="english", max_plys=10)


def test_rule_overrides_reach_the_engine() -> None:
    env = draughts_v0.env(variant="english", ply_limit=2)
    env.reset()
    for _ in range(2):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.infos["player_0"]["reason"].label == "ply_limit"


def test_env_pickles() -> None:
    env = draughts_v0.env(variant="russian", max_plies=10, channels_last=True)
    clone = pickle.loads(pickle.dumps(env))
    clone.reset()
    assert clone.unwrapped.rules.name == "russian" and clone.unwrapped.max_plies == 10
    assert clone.observe("player_0")["observation"].shape == (8, 8, 8)


def test_pettingzoo_render_test(monkeypatch: pytest.MonkeyPatch) -> None:
    from pettingzoo.test import render_test

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    pytest.importorskip("pygame")
    render_test(lambda render_mode=None: draughts_v0.env("english", render_mode=render_mode))


def test_render_modes_and_svg() -> None:
    env = draughts_v0.env("website_checkers", render_mode="ansi")
    env.reset()
    text = env.render()
    assert "red to move" in text and text.count("r") >= 12
    image = draughts_v0.env("international", render_mode="rgb_array")
    image.reset()
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    svg = env.unwrapped._repr_svg_()
    assert svg.startswith("<svg") and svg.count("<circle") >= 24
    from damas_env import Position

    assert Position.start("english")._repr_svg_().startswith("<svg")


def test_infos_keep_one_schema_of_ints_with_the_names_on_the_members() -> None:
    """The same keys from reset on, every value an int (TorchRL and Tianshou batch them):
    ``colour`` a Colour, ``reason`` a Reason (its label the name), ``winner`` an index."""
    labels = ("", "no_legal_move", "repetition", "no_progress", "endgame_rule", "ply_limit")
    labels += ("adjudication", "max_plies", "illegal_action", "time", "first_king")
    assert draughts_v0.INFO_REASONS == tuple(reason.label for reason in Reason) == labels
    env = draughts_v0.env(variant="english")
    env.reset(options={"fen": "W:W27:B23"})
    assert env.infos == {
        "player_0": {"colour": Colour.BLACK, "reason": Reason.NONE, "winner": -1},  # English
        "player_1": {"colour": Colour.WHITE, "reason": Reason.NONE, "winner": -1},
    }
    env.step(env.unwrapped.legal_actions()[0])  # 27x18: White (player_1) wins
    won = {"reason": Reason.NO_LEGAL_MOVE, "winner": 1}
    assert env.infos == {
        "player_0": {"colour": Colour.BLACK, **won},
        "player_1": {"colour": Colour.WHITE, **won},
    }
    info = env.infos["player_0"]
    assert type(info["reason"]) is Reason and info["reason"].label == "no_legal_move"
    assert env.unwrapped.rules.colour_names[info["colour"]] == "black"
    assert env.possible_agents[info["winner"]] == "player_1"
    lose = draughts_v0.env(variant="english", illegal_action="lose")
    lose.reset()
    lose.step(0)
    assert lose.infos["player_0"] == {
        "colour": Colour.BLACK,
        "reason": Reason.ILLEGAL_ACTION,
        "winner": 1,
    }
    assert "illegal action 0 for player_0" in lose.illegal_action_error  # the message
    lose.reset()
    assert lose.illegal_action_error is None
    truncated = draughts_v0.env(variant="english", max_plies=1)
    truncated.reset()
    truncated.step(truncated.unwrapped.legal_actions()[0])
    assert truncated.infos["player_1"]["reason"] is Reason.MAX_PLIES
    assert truncated.infos["player_1"]["winner"] == -1
    assert pickle.loads(pickle.dumps(env)).unwrapped.numeric_infos  # kept: always True


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"max_plies": 12}, {"illegal_action": "lose"}, {"variant": "international"}],
    ids=["rules", "max_plies", "lose", "international"],
)
def test_every_step_has_the_same_info_keys_and_int_values(kwargs: dict[str, Any]) -> None:
    """Random games to their end (an illegal action now and then with "lose"): the infos'
    keys and value types never change, and only the final ones name an ending."""
    rng = np.random.default_rng(1)
    env = draughts_v0.env(**{"variant": "english", **kwargs})
    types = {"colour": Colour, "reason": Reason, "winner": int}
    for game in range(3):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, info = env.last()
            for a in env.agents:
                assert {k: type(v) for k, v in env.infos[a].items()} == types, env.infos[a]
                assert env.infos[a]["colour"] is env.unwrapped.colour_of(a)
            over = termination or truncation
            assert (info["reason"] is not Reason.NONE) == over
            assert info["reason"].label in draughts_v0.INFO_REASONS[int(over) :]
            assert -1 <= info["winner"] <= 1 and (info["winner"] == -1 or over)
            if over:
                action = None
            elif "illegal_action" in kwargs and rng.random() < 0.02:
                action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)


@pytest.mark.parametrize("make", [draughts_v0.env, draughts_v0.raw_env], ids=["env", "raw_env"])
def test_numeric_infos_true_warns_and_changes_nothing(make: Any) -> None:
    with pytest.warns(DeprecationWarning, match="numeric_infos=True is deprecated") as caught:
        env = make("english", numeric_infos=True)
    assert caught[0].filename == __file__  # the warning names the caller's line
    env.reset()
    assert env.infos["player_0"] == {"colour": Colour.BLACK, "reason": Reason.NONE, "winner": -1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.loads(pickle.dumps(env))  # the copy does not warn again


@pytest.mark.parametrize("make", [draughts_v0.env, draughts_v0.raw_env], ids=["env", "raw_env"])
def test_numeric_infos_false_is_refused_with_where_the_names_are(make: Any) -> None:
    with pytest.raises(ValueError, match=r'numeric_infos=False .* info\["reason"\]\.label'):
        make("english", numeric_infos=False)
    with pytest.raises(RulesetError, match="did you mean 'numeric_infos'"):
        make("english", numeric_info=True)


@pytest.mark.parametrize(
    ("build", "typo", "fix"),
    [
        (lambda: DraughtsBatchEnv(4, "english", max_plys=3), "max_plys", "max_plies"),
        (lambda: DraughtsGymEnv("english", opponnent="random"), "opponnent", "opponent"),
        (lambda: DraughtsVectorEnv(4, "english", play_ass="x"), "play_ass", "play_as"),
    ],
)
def test_every_env_names_its_own_keywords_for_a_typo(build, typo: str, fix: str) -> None:
    with pytest.raises(RulesetError, match=rf"\['{typo}'\] \(did you mean '{fix}'\?\)"):
        build()
