"""DraughtsBatchEnv: equal to independent draughts_v0 envs, auto-reset, errors, determinism."""

import numba
import numpy as np
import pytest
from helpers import PRESETS
from helpers import VARIANTS as BUILT_IN

from damas_env import Position, draughts_v0
from damas_env.ending import Reason
from damas_env.vector import DraughtsBatchEnv

#: Every built-in variant, every preset and one giveaway twin.
VARIANTS = [*BUILT_IN, "international_giveaway", *PRESETS]


def compare_with_single_envs(variant: str, games: int, steps: int, seed: int) -> int:
    """Steps a batch and `games` raw envs on the same actions; returns games finished."""
    batch = DraughtsBatchEnv(games, variant=variant, seed=seed, num_threads=1)
    obs, masks, to_play = batch.reset()
    envs = [draughts_v0.raw_env(variant=variant) for _ in range(games)]
    for env in envs:
        env.reset()
    finished = 0
    for _ in range(steps):
        for g, env in enumerate(envs):
            agent = env.agent_selection
            assert agent == f"player_{to_play[g]}"
            single = env.observe(agent)
            np.testing.assert_array_equal(single["observation"], obs[g])
            np.testing.assert_array_equal(single["action_mask"], masks[g])
        actions = batch.random_actions().copy()
        obs, masks, to_play, rewards, terminated, truncated, info = batch.step(actions)
        for g, env in enumerate(envs):
            env.step(int(actions[g]))
            if not terminated[g]:
                assert not any(env.terminations.values())
                continue
            finished += 1
            reason = env.infos["player_0"]["reason"]
            assert Reason(int(info["final_reason"][g])) is reason
            assert [env.rewards["player_0"], env.rewards["player_1"]] == rewards[g].tolist()
            assert info["final_plies"][g] == env._turn.ply
            nxt = env._agent_by_side[int(env._turn.side)]  # who would move next
            planes = env.observe(nxt)["observation"]
            np.testing.assert_array_equal(planes, info["final_observation"][g])
            env.reset()
    return finished


@pytest.mark.parametrize("variant", VARIANTS)
def test_batch_equals_single_envs(variant: str) -> None:
    assert compare_with_single_envs(variant, games=12, steps=400, seed=1) >= 12


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_batch_equals_single_envs_thousands_of_games(variant: str) -> None:
    assert compare_with_single_envs(variant, games=64, steps=4000, seed=2) >= 1000


def snapshot(env: DraughtsBatchEnv) -> list[np.ndarray]:
    return [a.copy() for a in (*env._games, env.obs, env.masks, env.to_play)]


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(3, np.int64), r"shape \(4,\)"),
        (np.zeros((4, 1), np.int64), r"shape \(4,\)"),
        (np.zeros(4, np.float32), "must be integers"),
        ({3: 896}, r"game 3: action 896 is out of range"),
        ({1: -1}, r"game 1: action -1 is out of range"),
    ],
)
def test_bad_actions_raise_and_change_nothing(actions: object, message: str) -> None:
    env = DraughtsBatchEnv(4, variant="english", seed=0)
    env.reset()
    if isinstance(actions, dict):  # legal actions but for the games named
        legal, actions = env.random_actions().copy(), actions
        for g, a in actions.items():
            legal[g] = a
        actions = legal
    before = snapshot(env)
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(env), strict=True))


def test_one_illegal_action_names_its_game_and_changes_nothing() -> None:
    env = DraughtsBatchEnv(4, variant="english", seed=0)
    env.reset()
    env.step(env.random_actions())
    actions = env.random_actions().copy()
    actions[2] = int(np.flatnonzero(env.masks[2] == 0)[0])
    before = snapshot(env)
    with pytest.raises(ValueError, match=r"game 2: illegal action \d+ \(hop .*no game changed"):
        env.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(before, snapshot(env), strict=True))


def test_auto_reset_keeps_episode_statistics() -> None:
    env = DraughtsBatchEnv(32, variant="english", seed=3, max_plies=60)
    env.reset()
    lengths, ended = np.zeros(32, np.int64), 0
    for _ in range(3000):
        before = env.plies.copy()
        _, _, _, rewards, terminated, truncated, info = env.step(env.random_actions())
        done = terminated | truncated
        ended += int(done.sum())
        lengths = np.where(done, 0, env.plies)
        assert (info["final_plies"][done] >= before[done]).all()
        assert (info["final_plies"][truncated] == 60).all()
        assert (rewards[truncated] == 0).all()
        assert (rewards.sum(axis=1) == 0).all()  # zero-sum
        assert (env.plies[done] == 0).all()  # the new game starts at ply 0
    assert ended > 100 and lengths.max() <= 60


@pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2,  # type: ignore[attr-defined]
    reason="one processor available (e.g. under taskset): no second thread to compare",
)
def test_deterministic_for_a_seed_whatever_the_threads() -> None:
    runs = []
    for threads in (1, 2, 1):
        env = DraughtsBatchEnv(64, variant="international", seed=9, num_threads=threads)
        env.reset()
        total = np.zeros((64, 2))
        for _ in range(200):
            total += env.step(env.random_actions())[3]
        runs.append((env.boards.copy(), total))
    for boards, total in runs[1:]:
        assert np.array_equal(boards, runs[0][0]) and np.array_equal(total, runs[0][1])


def test_the_chosen_threads_change_nothing_but_the_speed() -> None:
    """num_threads=None probes one thread now and then (and may keep it): same games."""
    runs = []
    for threads in (None, 1):
        env = DraughtsBatchEnv(64, variant="english", seed=3, num_threads=threads)
        env.reset()
        total = np.zeros((64, 2))
        for _ in range(300):  # past the first probe (step 8) and the second (step 256)
            total += env.step(env.random_actions())[3]
        runs.append((env.boards.copy(), total))
        assert env.threads_in_use in (1, env.num_threads)
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def _choices(times: dict[bool, float], steps: int) -> list[bool]:
    """Runs a ThreadChooser on steps that take times[serial]; returns its sides in turn."""
    from damas_env.vector import ThreadChooser

    chooser, sides = ThreadChooser(), []
    for _ in range(steps):
        serial = chooser.use_serial()
        sides.append(serial)
        chooser.record(times[serial])
    return sides


def test_the_chooser_keeps_threads_that_pay_and_probes_rarely() -> None:
    sides = _choices({False: 1.0, True: 1.8}, 1024)
    assert sides[8:12] == [True] * 4  # the first probe
    assert sum(sides) == 4 * 4  # steps 8, 256, 512 and 768: four probes of four steps
    assert not any(sides[12:256])


def test_the_chooser_moves_to_one_thread_when_threads_are_slower() -> None:
    sides = _choices({False: 1.0, True: 0.7}, 600)
    assert not any(sides[:8]) and all(sides[8:256])  # one thread from the first probe on
    assert sides[256:260] == [False] * 4  # then probes the threads again, and goes back
    assert all(sides[260:512])


def test_the_chooser_ignores_a_difference_within_its_margin() -> None:
    assert sum(_choices({False: 1.0, True: 0.97}, 600)) == 3 * 4  # probes only


def test_openings_and_fens() -> None:
    env = DraughtsBatchEnv(16, variant="english", seed=0, opening_plies=6)
    env.reset()
    assert (env.plies == 6).all()
    assert len({env.position(g).fen() for g in range(16)}) > 4
    fens = ["W:W27:B23", "B:WK1:B5,6"]
    env = DraughtsBatchEnv(8, variant="english", seed=0, fens=fens)
    env.reset()
    assert {env.position(g).fen() for g in range(8)} <= {"W:W27:B23", "B:WK1:B5,6"}


@pytest.mark.parametrize(
    ("variant", "fen", "end"),
    [
        ("italian", "W:W:B5", "white to move has no legal move: black wins"),
        ("english", "B:W21:B", "black to move has no legal move: white wins"),  # no pieces
        ("english", "B:W17,18,21,23:B14", "black to move has no legal move: white wins"),  # blocked
        ("breakthrough", "W:WK47,K48:B5", "first_king: white wins"),
    ],
)
def test_a_start_position_whose_game_is_over_is_refused(variant: str, fen: str, end: str) -> None:
    """The AEC env ends a game that is over at its start (the side to move has no move) at
    once. In the batch such a game had no legal action, so every later step was refused; a
    start position must now leave a move to play, and the error names the FEN."""
    raw = draughts_v0.raw_env(variant)
    raw.reset(options={"fen": fen})
    assert all(raw.terminations.values())  # over at once in the AEC env
    message = rf"fens\[1\] '{fen}': the game is over before its first move \({end}\)"
    with pytest.raises(ValueError, match=message):
        DraughtsBatchEnv(4, variant=variant, seed=0, fens=[Position.start(variant).fen(), fen])


def test_games_mask_steps_only_some_games() -> None:
    env = DraughtsBatchEnv(4, variant="english", seed=0)
    env.reset()
    before = env.boards.copy()
    games = np.array([True, False, True, False])
    env.step(env.random_actions(), games=games)
    changed = (env.boards != before).any(axis=1)
    assert changed.tolist() == [True, False, True, False]


def test_constructor_errors() -> None:
    with pytest.raises(ValueError, match=r"num_envs must be an int in \[1, "):
        DraughtsBatchEnv(0)
    with pytest.raises(ValueError, match="num_threads must be"):
        DraughtsBatchEnv(2, num_threads=99)
    with pytest.raises(ValueError, match="unknown variant"):
        DraughtsBatchEnv(2, variant="chess")


def test_torch_shares_memory() -> None:
    torch = pytest.importorskip("torch")
    env = DraughtsBatchEnv(4, variant="english", seed=0, as_torch=True)
    obs, masks, to_play = env.reset()
    assert isinstance(obs, torch.Tensor) and obs.data_ptr() == env.obs.ctypes.data
    actions = env.random_actions()
    assert isinstance(actions, torch.Tensor)
    out = env.step(actions)
    assert out[0].data_ptr() == env.obs.ctypes.data
