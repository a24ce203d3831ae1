"""The envs under hostile input: refusals change nothing, wrong types get named.

Every refused call (an illegal, out-of-range or mistyped action, a bad argument) raises a
documented error (ValueError, TypeError, NotationError) and leaves the env bit-identical:
the tests snapshot every state array, observation, mask, reward and flag before the call
and compare after it. The batch env checks actions against the games' own state, never
against the masks it handed out, which a caller may write into.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import ONE_PER_BOARD_SIZE, assert_same_state, env_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from damas_env import draughts_v0
from damas_env.clock import TimeControl
from damas_env.ending import Reason
from damas_env.engine import Colour, Position
from damas_env.notation import NotationError
from damas_env.single_agent import DraughtsGymEnv
from damas_env.turn import HOP_ILLEGAL
from damas_env.vector import DraughtsBatchEnv
from damas_env.vector_gym import DraughtsVectorEnv

B = 8  # games in the batch envs below
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def illegal_action(env: DraughtsBatchEnv, g: int) -> int:
    """Returns an in-range action that is not legal in game g (from the engine's list)."""
    legal = set(np.flatnonzero(env.masks[g]).tolist())
    return next(a for a in range(env.num_actions) if a not in legal)


@pytest.fixture(scope="module")
def batch() -> DraughtsBatchEnv:
    return DraughtsBatchEnv(B, variant="english", seed=0, num_threads=1)


# --- the batch env never trusts the masks it returned ------------------------------


@pytest.mark.parametrize("fill", [1, 0])
def test_written_masks_neither_let_illegal_actions_through_nor_block_legal_ones(
    batch: DraughtsBatchEnv, fill: int
) -> None:
    _, masks, _ = batch.reset(seed=3)
    for _ in range(5):
        batch.step(batch.random_actions())
    actions = batch.random_actions().copy()
    actions[5] = illegal_action(batch, 5)
    masks[:] = fill  # the caller writes into the array step returned
    before = env_state(batch)
    with pytest.raises(ValueError, match=r"^game 5: illegal action .*no game changed"):
        batch.step(actions)
    assert_same_state(before, env_state(batch))
    batch.step(batch.random_actions())  # legal actions still play, whatever the masks say


def test_written_torch_masks_change_nothing() -> None:
    torch = pytest.importorskip("torch")
    env = DraughtsBatchEnv(B, variant="english", seed=1, as_torch=True, num_threads=1)
    _, masks, _ = env.reset()
    env.step(env.random_actions())
    actions = env.random_actions().clone()
    actions[7] = illegal_action(env, 7)
    masks.fill_(1)  # the tensor shares the env's buffer
    assert isinstance(masks, torch.Tensor) and (env.masks == 1).all()
    before = env_state(env)
    with pytest.raises(ValueError, match=r"^game 7: illegal action"):
        env.step(actions)
    assert_same_state(before, env_state(env))


def test_a_refused_partial_step_keeps_the_idle_games_outputs(batch: DraughtsBatchEnv) -> None:
    batch.reset(seed=4)
    batch.rewards[:] = 0.5  # what the previous step reported, still in the caller's hands
    actions = batch.random_actions().copy()
    actions[2] = batch.num_actions
    games = np.arange(B) % 2 == 0
    before = env_state(batch)
    with pytest.raises(ValueError, match="game 2: action 896 is out of range"):
        batch.step(actions, games=games)
    assert_same_state(before, env_state(batch))


def test_a_uint64_action_is_reported_as_given(batch: DraughtsBatchEnv) -> None:
    batch.reset(seed=5)
    actions = batch.random_actions().astype(np.uint64)
    actions[3] = np.uint64(2**64 - 1)
    with pytest.raises(ValueError, match=r"game 3: action 18446744073709551615 is out of range"):
        batch.step(actions)
    raw = draughts_v0.raw_env(variant="english")
    raw.reset()
    with pytest.raises(ValueError, match=r"action 18446744073709551615 is out of range"):
        raw.step(np.uint64(2**64 - 1))


def test_strided_read_only_and_listed_actions_play_like_int64(batch: DraughtsBatchEnv) -> None:
    boards = []
    for form in ("int64", "strided", "read-only", "list"):
        batch.reset(seed=6)
        actions = batch.random_actions().copy()
        if form == "strided":
            actions = np.stack([actions, actions], axis=1)[:, 0]
        elif form == "read-only":
            actions.flags.writeable = False
        batch.step(actions.tolist() if form == "list" else actions)
        boards.append(batch.boards.copy())
    assert all(np.array_equal(boards[0], b) for b in boards)


# --- an empty FEN is a malformed FEN, not the start position ----------------------


def test_an_empty_fen_is_refused_everywhere() -> None:
    env = draughts_v0.env(variant="english")
    env.reset(seed=0, options={"fen": "W:W27:B23"})
    before = env_state(env)
    with pytest.raises(NotationError, match=r"options\['fen'\]: .*FEN"):
        env.reset(options={"fen": ""})
    assert_same_state(before, env_state(env))
    with pytest.raises(NotationError, match=r"options\['fen'\]"):
        DraughtsGymEnv(variant="english").reset(options={"fen": "  "})
    with pytest.raises(ValueError, match="fens is empty"):
        DraughtsBatchEnv(2, variant="english", fens=[])
    with pytest.raises(NotationError, match=r"fens\[1\]: .*FEN"):
        DraughtsBatchEnv(2, variant="english", fens=["W:W27:B23", ""])
    with pytest.raises(ValueError, match="fens is empty"):
        DraughtsVectorEnv(2, variant="english", fens=[])


def test_only_none_means_the_start_position() -> None:
    env = draughts_v0.raw_env(variant="english")
    env.reset(options={"fen": None})
    assert env.position.fen() == "B:W21-32:B1-12"
    assert DraughtsBatchEnv(2, variant="english", fens=None).position(1).fen() == env.position.fen()


# --- Items 12 and 14: wrong types get the documented errors, naming the argument -----------

BAD_BATCH_ARGUMENTS = [
    ({"obs_dtype": object}, ValueError, "obs_dtype must be one of"),
    ({"obs_dtype": "bogus"}, TypeError, "obs_dtype must be a numpy dtype"),
    ({"obs_dtype": None}, ValueError, "obs_dtype must be one of"),
    ({"seed": "abc"}, TypeError, "seed must be an int"),
    ({"seed": -1}, ValueError, "seed must be an int >= 0"),
    ({"seed": 1.5}, TypeError, "seed must be an int"),
    ({"num_envs": True}, TypeError, "num_envs must be an int, not bool"),
    ({"num_envs": 2.0}, TypeError, "num_envs must be an int"),
    ({"num_envs": 0}, ValueError, "num_envs must be an int in"),
    ({"num_envs": 10**12}, ValueError, "num_envs must be an int in"),
    ({"fens": "W:W31:B1"}, TypeError, r"fens must be a list .* fens=\[fen\]"),
    ({"fens": [12345]}, TypeError, r"fens\[0\] must be a PDN FEN string"),
    ({"fens": [b"W:W31:B1"]}, TypeError, r"fens\[0\] must be a PDN FEN string"),
    ({"fens": {"W:W31:B1"}}, TypeError, "fens must be a list"),
    ({"num_threads": 0}, ValueError, "num_threads must be an int in"),
    ({"num_threads": 1.0}, TypeError, "num_threads must be an int"),
    ({"max_plies": 0}, ValueError, "max_plies must be an int >= 1"),
    ({"max_plies": 10**30}, ValueError, "max_plies must be an int >= 1"),
    ({"max_plies": "10"}, TypeError, "max_plies must be an int"),
    ({"opening_plies": -1}, ValueError, r"opening_plies must be an int in \[0, 60\]"),
    ({"opening_plies": 61}, ValueError, r"opening_plies must be an int in \[0, 60\]"),
    ({"opening_plies": 10**9}, ValueError, r"opening_plies must be an int in \[0, 60\]"),
    ({"obs_dtype": ">f4"}, ValueError, "obs_dtype must be one of .* native byte order"),
    ({"obs_dtype": np.dtype(np.float32).newbyteorder()}, ValueError, "native byte order"),
    ({"obs_dtype": "x" * 10**6}, TypeError, r"obs_dtype must be a numpy dtype, not 'x{10}"),
    ({"opening_plies": None}, TypeError, "opening_plies must be an int"),
    ({"as_torch": "yes"}, TypeError, "as_torch must be True or False"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD_BATCH_ARGUMENTS)
def test_batch_env_constructor_names_a_bad_argument(
    kwargs: dict[str, Any], error: type, message: str
) -> None:
    arguments = {"num_envs": 2, "variant": "english", **kwargs}
    with pytest.raises(error, match=message):
        DraughtsBatchEnv(**arguments)


def test_numpy_integers_are_accepted_as_counts_and_seeds() -> None:
    env = DraughtsBatchEnv(
        np.int64(4), variant="english", seed=np.uint32(7), num_threads=np.int8(1)
    )
    assert env.num_envs == 4 and type(env.num_envs) is int
    env.reset(seed=np.int64(3))
    assert env.position(np.int64(2)).fen() == "B:W21-32:B1-12"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda e: e.reset(seed="abc"), TypeError, "seed must be an int"),
        (lambda e: e.seed(-5), ValueError, "seed must be an int >= 0"),
        (lambda e: e.position(-1), ValueError, r"game must be an int in \[0, 1\]"),
        (lambda e: e.position(2), ValueError, r"game must be an int in \[0, 1\]"),
        (lambda e: e.position("0"), TypeError, "game must be an int"),
        (lambda e: e.step([0, 0], games=[1, 0]), ValueError, "games must be a bool array"),
        (lambda e: e.step([[0], [0, 1]]), ValueError, "actions must be an array"),
        (lambda e: e.step([1.0, 2.0]), ValueError, "actions must be integers, not float64"),
        (lambda e: e.step(None), ValueError, "actions must be integers, not object"),
        (lambda e: e.step("ab"), ValueError, "actions must be integers"),
        (lambda e: e.step([2**70, 0]), ValueError, "actions must be integers"),
        (lambda e: e.step(np.int64(3)), ValueError, r"actions must have shape \(2,\)"),
    ],
)
def test_batch_env_methods_name_a_bad_argument(call: Any, error: type, message: str) -> None:
    env = DraughtsBatchEnv(2, variant="english", seed=0, num_threads=1)
    before = env_state(env)
    rng = env.rng.copy()
    with pytest.raises(error, match=message):
        call(env)
    assert_same_state(before, env_state(env))
    assert np.array_equal(rng, env.rng)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"channels_last": "maybe"}, TypeError, "channels_last must be True or False"),
        ({"numeric_infos": "x"}, TypeError, "numeric_infos must be True or False"),
        ({"numeric_infos": 1}, TypeError, "numeric_infos must be True or False"),
        ({"numeric_infos": False}, ValueError, r'numeric_infos=False .* info\["reason"\]\.label'),
        ({"max_plies": np.int64(0)}, ValueError, "max_plies must be an int >= 1"),
        ({"max_plies": 2.5}, TypeError, "max_plies must be an int"),
        ({"render_mode": ["ansi"]}, ValueError, "render_mode must be one of"),
        ({"illegal_action": ["raise"]}, ValueError, "illegal_action must be"),
    ],
)
def test_aec_env_constructor_names_a_bad_argument(
    kwargs: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        draughts_v0.env(variant="english", **kwargs)


def test_numpy_integers_and_bools_are_accepted_by_the_aec_env() -> None:
    env = draughts_v0.raw_env(variant="english", max_plies=np.int64(3), channels_last=np.True_)
    env.reset(seed=np.int64(1))
    assert env.max_plies == 3 and env.channels_last is True


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"options": {"fen": 12345}}, TypeError, r"options\['fen'\] must be a PDN FEN string"),
        ({"options": {"fen": b"W:W27:B23"}}, TypeError, r"options\['fen'\] must be a PDN FEN"),
        ({"options": "x"}, TypeError, "options must be a dict or None"),
        ({"options": [("fen", "W:W27:B23")]}, TypeError, "options must be a dict or None"),
        ({"options": {"fen": "W:W99:B1"}}, NotationError, r"options\['fen'\]: "),
        ({"seed": "abc"}, TypeError, "seed must be an int"),
        ({"seed": 1.0}, TypeError, "seed must be an int"),
        ({"seed": True}, TypeError, "seed must be an int"),
        ({"seed": -1}, ValueError, "seed must be an int >= 0"),
    ],
)
def test_resets_name_a_bad_argument_and_change_nothing(
    kwargs: dict[str, Any], error: type, message: str
) -> None:
    env = draughts_v0.env(variant="english")
    env.reset(seed=0)
    env.step(env.unwrapped.legal_actions()[0])
    before = env_state(env)
    with pytest.raises(error, match=message):
        env.reset(**kwargs)
    assert_same_state(before, env_state(env))
    with pytest.raises(error, match=message):
        DraughtsGymEnv(variant="english").reset(**kwargs)
    if "fen" not in str(kwargs):  # the vector view takes no FEN option
        with pytest.raises(error, match=message):
            DraughtsVectorEnv(2, variant="english", num_threads=1).reset(**kwargs)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: DraughtsGymEnv(variant="english", play_as=0), ValueError, "play_as must be"),
        (lambda: DraughtsGymEnv(channels_last="maybe"), TypeError, "channels_last must be"),
        (lambda: DraughtsVectorEnv(2, play_as=["x"]), ValueError, "play_as must be"),
        (lambda: DraughtsVectorEnv(2, copy="no"), TypeError, "copy must be True or False"),
        (lambda: DraughtsVectorEnv(True), TypeError, "num_envs must be an int"),
        (lambda: DraughtsVectorEnv(2, fens="W:W31:B1"), TypeError, "fens must be a list"),
    ],
)
def test_gym_views_name_a_bad_argument(make: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        make()


BEFORE_RESET = [
    lambda e: e.step(0),
    lambda e: e.observe("player_0"),
    lambda e: e.last(),
    lambda e: e.decode_action(0),
    lambda e: e.render(),
    lambda e: e.position,
    lambda e: e.legal_actions(),
    lambda e: e.hops_played,
]


@pytest.mark.parametrize("call", BEFORE_RESET)
def test_the_raw_env_asks_for_a_reset_first(call: Any) -> None:
    env = draughts_v0.raw_env(variant="english", render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        call(env)
    assert env._repr_svg_() is None


def test_the_wrapped_envs_ask_for_a_reset_first() -> None:
    env = draughts_v0.env(variant="english")  # PettingZoo's order enforcing
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(0)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before observe"):
        env.observe("player_0")
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        env.last()
    gym = DraughtsGymEnv(variant="english")
    vector = DraughtsVectorEnv(2, variant="english", num_threads=1)
    for call in (lambda: gym.step(0), gym.action_masks, lambda: vector.step([0, 0])):
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            call()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        vector.action_masks()


def timed(**kwargs: Any) -> TimeControl:
    """Returns draughts_v0.env(**kwargs) under a 5-second clock."""
    return TimeControl(draughts_v0.env(**kwargs), 5)


@pytest.mark.parametrize("make", [draughts_v0.raw_env, draughts_v0.env, timed])
def test_last_names_the_end_once_every_agent_has_stepped_out(make: Any) -> None:
    wrapped = make is not draughts_v0.raw_env
    env = make(variant="english", max_plies=1)
    env.reset()
    env.step(env.unwrapped.legal_actions()[0])  # truncated after one ply
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(RuntimeError, match="every agent has stepped out"):
        env.last()
    if not wrapped:  # the wrapper warns instead (PettingZoo's order enforcing)
        with pytest.raises(RuntimeError, match="every agent has stepped out"):
            env.step(None)
    assert env.observe("player_0")["action_mask"].sum() == 0  # TorchRL observes every agent


@pytest.mark.parametrize("agent", [None, "player_2", 5, "x" * 10**6])
def test_unknown_agents_are_named(agent: Any) -> None:
    env = draughts_v0.env(variant="english")
    env.reset()
    calls = [env.observe, env.action_space, env.observation_space]
    if agent is not None:  # decode_action(action, None) decodes for the agent to move
        calls.append(lambda a: env.unwrapped.decode_action(0, a))
    for call in calls:
        with pytest.raises(ValueError, match=r"agent must be one of \['player_0', 'player_1'\]"):
            call(agent)


def test_end_game_names_a_bad_winner_or_reason() -> None:
    env = draughts_v0.raw_env(variant="english")
    env.reset()
    before = env_state(env)
    with pytest.raises(ValueError, match="winner must be None or one of"):
        env.end_game("player_9", "time")
    with pytest.raises(TypeError, match="reason must be a Reason or its label"):
        env.end_game("player_0", None)
    with pytest.raises(ValueError, match="not 'resigned'; infos hold a Reason"):
        env.end_game("player_0", "resigned")  # no custom names: infos hold numbers
    with pytest.raises(ValueError, match="not Reason.NONE"):
        env.end_game("player_0", Reason.NONE)
    assert_same_state(before, env_state(env))
    env.end_game("player_1", "time")  # a label names its Reason
    assert env.infos["player_0"] == {"colour": Colour.BLACK, "reason": Reason.TIME, "winner": 1}


def test_the_turn_state_refuses_wrong_types_and_huge_hops() -> None:
    turn = draughts_v0.raw_env(variant="english")._turn
    turn.reset(np.array(Position.start("english").board), Position.start("english").turn)
    st_before = turn.st.copy()
    for action in (2**64 - 1, np.uint64(2**64 - 1), -(2**70), 896):
        assert turn.play(action) == HOP_ILLEGAL
    for action in (3.0, None, "3", True):
        with pytest.raises(TypeError, match="action must be an int"):
            turn.play(action)
    assert np.array_equal(st_before, turn.st)


def test_a_refused_learner_action_changes_no_game_of_the_vector_view() -> None:
    envs = DraughtsVectorEnv(B, variant="english", num_threads=1, seed=0)
    envs.reset()
    batch = envs.batch_env
    actions = batch.random_actions().copy()
    actions[4] = illegal_action(batch, 4)
    batch.masks[:] = 1
    before = env_state(batch)
    with pytest.raises(ValueError, match="game 4: illegal action"):
        envs.step(actions)
    assert_same_state(before, env_state(batch))


# --- Outputs the caller may write into, dtypes, openings, huge inputs ----------------------


@pytest.mark.parametrize("wrapped", [False, True])
def test_writing_into_an_observation_changes_nothing(wrapped: bool) -> None:
    env = (draughts_v0.env if wrapped else draughts_v0.raw_env)(variant="english")
    env.reset()
    before = env_state(env)
    obs = env.observe("player_0")
    obs["action_mask"][:] = 1
    obs["observation"][:] = 7.0
    last, *_ = env.last()
    last["action_mask"][:] = 1
    assert_same_state(before, env_state(env))
    assert env.last()[0]["action_mask"].sum() == len(env.unwrapped.legal_actions())


@pytest.mark.parametrize("dtype", ["=f4", np.float32, "float32", "=u1", np.uint8, "|u1"])
def test_native_observation_dtypes_are_accepted(dtype: Any) -> None:
    env = DraughtsBatchEnv(2, variant="english", seed=0, num_threads=1, obs_dtype=dtype)
    reference = DraughtsBatchEnv(2, variant="english", seed=0, num_threads=1)
    assert env.obs.dtype.isnative
    assert np.array_equal(env.obs[:, :4], reference.obs[:, :4])  # the 0/1 piece planes


def test_the_longest_opening_is_played() -> None:
    env = DraughtsBatchEnv(4, variant="english", seed=0, num_threads=1, opening_plies=60)
    assert (env.plies == 60).all()


HUGE = "x" * 10**6


@pytest.mark.parametrize(
    "call",
    [
        lambda: draughts_v0.env(variant="english").unwrapped._checked_action(HUGE),
        lambda: draughts_v0.raw_env(variant="english", render_mode=HUGE),
        lambda: draughts_v0.env(variant="english", illegal_action=HUGE),
        lambda: DraughtsBatchEnv(2, variant="english", num_threads=1).step(HUGE),
        lambda: DraughtsBatchEnv(2, variant="english", num_threads=1).step([HUGE, HUGE]),
        lambda: DraughtsBatchEnv(2, variant="english", obs_dtype=HUGE),
        lambda: DraughtsGymEnv(variant="english", play_as=HUGE),
        lambda: DraughtsGymEnv(variant="english", opponent=HUGE),
        lambda: draughts_v0.raw_env(variant="english")._turn.play(HUGE),
    ],
)
def test_huge_input_is_quoted_briefly(call: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as error:
        call()
    assert "xxxxxxxxxx" in str(error.value) and len(str(error.value)) < 300


def test_unknown_reset_options_of_any_key_type_are_quoted_briefly() -> None:
    env = draughts_v0.env(variant="english")
    with pytest.warns(UserWarning, match="reset ignores unknown options") as warned:
        env.reset(options={1: 2, HUGE: 3})
    assert len(str(warned[0].message)) < 300


def test_a_huge_action_string_is_quoted_briefly_by_the_aec_env() -> None:
    env = draughts_v0.env(variant="english")
    env.reset()
    with pytest.raises(draughts_v0.IllegalActionError) as error:
        env.step(HUGE)
    assert len(str(error.value)) < 300


# --- The clock: times are finite real numbers, readings too ---------------------------------

BAD_TIME_CONTROLS = [
    ({"seconds": "5"}, TypeError, "seconds must be a number of seconds, not str"),
    ({"seconds": b"5"}, TypeError, "seconds must be a number of seconds, not bytes"),
    ({"seconds": True}, TypeError, "seconds must be a number of seconds, not bool"),
    ({"seconds": None}, TypeError, "seconds must be a number of seconds"),
    ({"seconds": 10**400}, ValueError, "seconds must be a finite number of seconds > 0"),
    ({"seconds": float("nan")}, ValueError, "seconds must be a finite number"),
    ({"seconds": 0}, ValueError, "seconds must be a finite number of seconds > 0"),
    ({"seconds": {"player_0": 5, "player_1": "5"}}, TypeError, r"seconds\['player_1'\]"),
    ({"seconds": {"player_0": 5}}, ValueError, "seconds must give a time for each of"),
    ({"increment": True}, TypeError, "increment must be a number of seconds, not bool"),
    ({"increment": "1"}, TypeError, "increment must be a number of seconds, not str"),
    ({"increment": -1}, ValueError, "increment must be a finite number of seconds >= 0"),
    ({"increment": float("inf")}, ValueError, "increment must be a finite number"),
    ({"clock": None}, TypeError, "clock must be callable, not NoneType"),
    ({"env": None}, TypeError, "env must be a PettingZoo AEC env, not NoneType"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD_TIME_CONTROLS)
def test_time_controls_name_a_bad_argument(
    kwargs: dict[str, Any], error: type, message: str
) -> None:
    arguments = {"env": draughts_v0.env(variant="english"), "seconds": 5, **kwargs}
    with pytest.raises(error, match=message):
        TimeControl(**arguments)


def test_time_controls_take_numpy_numbers() -> None:
    env = TimeControl(draughts_v0.env(variant="english"), np.float32(5), np.int64(1))
    env.reset()
    assert env.remaining("player_1") == 5.0


@pytest.mark.parametrize("reading", [float("nan"), float("inf"), None, "1.0"])
def test_a_clock_reading_that_is_not_a_finite_number_is_refused(reading: Any) -> None:
    readings = iter([0.0, reading])
    env = TimeControl(draughts_v0.env(variant="english"), 5, clock=lambda: next(readings))
    env.reset()
    with pytest.raises(RuntimeError, match="the clock must return a finite number"):
        env.step(env.unwrapped.legal_actions()[0])


def test_the_remaining_time_of_an_unknown_agent_is_refused() -> None:
    env = TimeControl(draughts_v0.env(variant="english"), 5)
    env.reset()
    with pytest.raises(ValueError, match=r"agent must be one of \['player_0', 'player_1'\]"):
        env.remaining("player_9")


# --- Property tests: random action streams with hostile actions mixed in ------------------

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def hostile_scalars(num_actions: int) -> st.SearchStrategy[Any]:
    """Returns a strategy of single actions, mostly refused: any value of any type."""
    ints = st.one_of(
        st.integers(0, num_actions - 1),
        st.integers(-(2**70), 2**70),
        st.sampled_from([-1, num_actions, 2**63 - 1, 2**64 - 1, -(2**63)]),
    )
    numpy_ints = st.sampled_from(INT_DTYPES).flatmap(
        lambda dtype: st.integers(np.iinfo(dtype).min, np.iinfo(dtype).max).map(dtype)
    )
    return st.one_of(
        ints,
        numpy_ints,
        st.floats(allow_nan=True),
        st.sampled_from([None, True, False, np.True_, "3", b"3", 3.0, np.float32(3), [3], (3,)]),
        st.text(max_size=4),
        hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
    )


class Pick(int):
    """A legal hop to play: the index (modulo their count) into the legal actions."""


def as_int(value: Any) -> int | None:
    """Returns the int draughts_v0 reads from an action, or None if it refuses the type."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    return None


AEC_ENVS = {v: draughts_v0.env(variant=v) for v in ONE_PER_BOARD_SIZE}


@FUZZ
@given(
    variant=st.sampled_from(sorted(AEC_ENVS)),
    seed=st.integers(0, 2**32 - 1),
    stream=st.lists(st.one_of(st.integers(0, 10**6).map(Pick), hostile_scalars(1800)), max_size=40),
)
def test_aec_env_survives_a_hostile_action_stream(variant: str, seed: int, stream: list) -> None:
    env = AEC_ENVS[variant]
    raw = env.unwrapped
    env.reset(seed=seed)
    for item in stream:
        if any(raw.terminations.values()) or any(raw.truncations.values()):
            env.reset(seed=seed)
        legal = raw.legal_actions()
        if isinstance(item, Pick):
            env.step(legal[item % len(legal)])
            continue
        hop = as_int(item)
        if hop is not None and hop in legal:
            env.step(item)
            continue
        before = env_state(env)
        with pytest.raises(draughts_v0.IllegalActionError):
            env.step(item)
        assert_same_state(before, env_state(env))
    assert raw.legal_actions() or any(raw.terminations.values())


BATCH_ENVS = {v: DraughtsBatchEnv(B, variant=v, seed=0, num_threads=1) for v in ONE_PER_BOARD_SIZE}


@st.composite
def legal_actions(draw: st.DrawFn, legal: np.ndarray) -> np.ndarray:
    """Returns one legal action per game (int64), from the test's copy of the masks."""
    picks = draw(hnp.arrays(np.int64, legal.shape[0], elements=st.integers(0, 2**16)))
    rows = [np.flatnonzero(row) for row in legal]
    return np.array([row[i % row.size] for row, i in zip(rows, picks, strict=True)])


def scribble(masks: np.ndarray, how: str, seed: int) -> None:
    """Writes into the masks a batch env returned, as a careless caller might."""
    if how == "noise":
        masks[:] = np.random.default_rng(seed).integers(0, 2, masks.shape, dtype=np.int8)
    else:
        masks[:] = 1 if how == "ones" else 0


@st.composite
def hostile_batch_actions(draw: st.DrawFn, legal: np.ndarray, active: np.ndarray) -> Any:
    """Returns the actions of one batch step with one defect: an illegal or out-of-range
    action in an active game, a wrong dtype, a wrong shape, or the wrong kind of object."""
    games, num_actions = legal.shape
    g = draw(st.sampled_from(np.flatnonzero(active).tolist()))
    actions = draw(legal_actions(legal))
    defect = draw(st.sampled_from(["illegal", "range", "dtype", "shape", "object"]))
    if defect == "illegal":
        actions[g] = draw(st.sampled_from(np.flatnonzero(legal[g] == 0).tolist()))
        return draw(st.sampled_from([actions, actions.astype(np.uint16), actions.tolist()]))
    if defect == "range":
        bad = draw(st.one_of(st.integers(num_actions, 2**64 - 1), st.integers(-(2**63), -1)))
        actions = actions.astype(np.uint64 if bad >= 0 else np.int64)
        actions[g] = bad
        return actions
    if defect == "dtype":
        dtype = draw(st.sampled_from([np.float32, np.float64, np.bool_, np.complex64, "U3"]))
        return actions.astype(dtype)
    if defect == "shape":
        shape = draw(st.sampled_from([(games - 1,), (games + 1,), (games, 1), (1, games), ()]))
        return np.resize(actions, shape)
    return draw(st.sampled_from([None, "x", 3, 3.5, [None] * games, {0: 1}, object()]))


@FUZZ
@given(data=st.data(), variant=st.sampled_from(sorted(BATCH_ENVS)), seed=st.integers(0, 2**20))
def test_batch_env_survives_hostile_steps(data: st.DataObject, variant: str, seed: int) -> None:
    env = BATCH_ENVS[variant]
    _, masks, _ = env.reset(seed=seed)
    legal = masks.copy()  # the test's own copy: the env's masks get scribbled on below
    for _ in range(data.draw(st.integers(1, 12))):
        some = data.draw(st.booleans())
        games = data.draw(hnp.arrays(np.bool_, B)) if some else None
        active = np.ones(B, bool) if games is None else games
        if not active.any():
            continue
        how = data.draw(st.sampled_from(["keep", "ones", "zeros", "noise"]))
        if how != "keep":
            scribble(masks, how, seed)
        actions = data.draw(hostile_batch_actions(legal, active))
        before = env_state(env)
        with pytest.raises(ValueError):
            env.step(actions, games=games)
        assert_same_state(before, env_state(env))
        env.step(data.draw(legal_actions(legal)), games=games)
        legal[active] = masks[active]  # the rows the step wrote; the others keep theirs
