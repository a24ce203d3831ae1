"""TimeControl: per-player clocks on the AEC env, driven by a fake clock advanced by hand."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test

from damas_env import draughts_v0
from damas_env.clock import TimeControl
from damas_env.draughts_v0 import IllegalActionError
from damas_env.ending import Reason

# English: Black (player_0) moves first; White is player_1.
# White 27x18x11 takes 23 and 15 in two hops; Black's man on 1 keeps the game going.
DOUBLE_CAPTURE = "W:W27:B23,15,1"


class FakeClock:
    """A time source that moves only when a test advances it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class TickingClock(FakeClock):
    """A time source that moves by one second every time it is read."""

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def make(seconds: float | dict[str, float] = 10.0, increment: float = 0.0, fen: str | None = None):
    clock = FakeClock()
    env = TimeControl(draughts_v0.env(variant="english"), seconds, increment, clock=clock)
    env.reset(seed=0, options={"fen": fen} if fen else None)
    return env, clock


def action_for(env, origin: int, target: int) -> int:
    """Returns the legal action whose hop goes from one PDN square to another."""
    raw = env.unwrapped
    hops = {raw.decode_action(a): a for a in raw.legal_actions()}
    return hops[(origin, target)]


def any_legal(env) -> int:
    return env.unwrapped.legal_actions()[0]


def times(env) -> dict[str, float]:
    return {a: env.infos[a]["time_left"] for a in env.agents}


def test_reset_fills_the_clocks_and_reports_them() -> None:
    env, _ = make(seconds={"player_0": 5.0, "player_1": 8.0})
    assert times(env) == {"player_0": 5.0, "player_1": 8.0}
    assert env.remaining("player_0") == 5.0 and env.remaining("player_1") == 8.0


def test_time_runs_only_for_the_agent_to_move() -> None:
    env, clock = make()
    clock.advance(3)
    assert env.remaining("player_0") == 7.0 and env.remaining("player_1") == 10.0
    env.step(any_legal(env))
    assert times(env) == {"player_0": 7.0, "player_1": 10.0}
    clock.advance(2)
    assert env.remaining("player_0") == 7.0 and env.remaining("player_1") == 8.0
    env.step(any_legal(env))
    assert times(env) == {"player_0": 7.0, "player_1": 8.0}


def test_hops_of_a_multi_capture_count_on_one_clock_and_the_increment_follows_the_move() -> None:
    env, clock = make(increment=5.0, fen=DOUBLE_CAPTURE)
    assert env.agent_selection == "player_1"  # White to move
    clock.advance(1)
    env.step(action_for(env, 27, 18))
    assert env.agent_selection == "player_1"  # the capture goes on: no increment yet
    assert times(env) == {"player_0": 10.0, "player_1": 9.0}
    clock.advance(2)
    env.step(action_for(env, 18, 11))
    assert env.agent_selection == "player_0"
    assert times(env) == {"player_0": 10.0, "player_1": 12.0}  # 10 - 1 - 2 + 5


def test_increment_is_added_after_every_complete_move() -> None:
    env, clock = make(increment=1.5)
    for expected in ({"player_0": 9.5, "player_1": 10.0}, {"player_0": 9.5, "player_1": 9.5}):
        clock.advance(2)
        env.step(any_legal(env))
        assert times(env) == expected


def test_running_out_of_time_loses_instead_of_moving() -> None:
    env, clock = make()
    before = env.unwrapped.position
    clock.advance(10)
    env.step(any_legal(env))
    assert env.unwrapped.position == before  # the move was not played
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert all(env.terminations.values())
    assert {env.infos[a]["reason"] for a in env.agents} == {Reason.TIME}  # label "time"
    assert env.infos["player_0"]["winner"] == 1  # player_1
    assert times(env) == {"player_0": 0.0, "player_1": 10.0}
    _, reward, termination, _, _ = env.last()
    assert reward == -1.0 and termination
    assert env.observe("player_0")["action_mask"].sum() == 0  # no hop is offered any more


def test_running_out_of_time_mid_capture_loses() -> None:
    env, clock = make(seconds=3.0, fen=DOUBLE_CAPTURE)
    clock.advance(1)
    env.step(action_for(env, 27, 18))
    clock.advance(2.5)
    env.step(action_for(env, 18, 11))
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_1"]["reason"] is Reason.TIME


def test_dead_steps_pass_through_after_a_loss_on_time() -> None:
    env, clock = make()
    clock.advance(11)
    env.step(any_legal(env))
    while env.agents:
        env.step(None)
    assert env.agents == []
    env.step(None)  # one more is PettingZoo's warning, not a crash


def test_reset_restores_the_clocks() -> None:
    env, clock = make(increment=1.0)
    clock.advance(4)
    env.step(any_legal(env))
    clock.advance(20)
    env.step(any_legal(env))
    assert env.terminations["player_1"]
    env.reset()
    assert times(env) == {"player_0": 10.0, "player_1": 10.0}
    assert not any(env.terminations.values())
    clock.advance(1)
    assert env.remaining("player_0") == 9.0


def test_illegal_action_raises_and_changes_nothing_but_the_time_keeps_running() -> None:
    env, clock = make()
    clock.advance(3)
    legal = set(env.unwrapped.legal_actions())
    illegal = next(a for a in range(env.action_space("player_0").n) if a not in legal)
    before = (env.unwrapped.position, env.agent_selection, times(env))
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert (env.unwrapped.position, env.agent_selection, times(env)) == before
    assert env.remaining("player_0") == 7.0
    clock.advance(2)
    env.step(any_legal(env))
    assert times(env)["player_0"] == 5.0


@pytest.mark.parametrize(
    ("seconds", "increment"),
    [(0.0, 0.0), (-1.0, 0.0), (float("inf"), 0.0), (10.0, -1.0), ({"player_0": 5.0}, 0.0)],
)
def test_bad_time_controls_are_refused(seconds, increment) -> None:
    with pytest.raises(ValueError):
        TimeControl(draughts_v0.env(variant="english"), seconds, increment)


def test_pettingzoo_api_test_with_ample_time() -> None:
    api_test(TimeControl(draughts_v0.env(variant="english"), seconds=1e9), num_cycles=200)


def test_pettingzoo_api_test_with_games_lost_on_time() -> None:
    clock = TickingClock()
    env = TimeControl(draughts_v0.env(variant="english"), seconds=20.0, clock=clock)
    api_test(env, num_cycles=200)
    env.reset()
    while not any(env.terminations.values()):
        env.step(any_legal(env))
    assert env.infos[env.agent_selection]["reason"].label == "time"
