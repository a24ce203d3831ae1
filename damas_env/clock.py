"""A chess clock for the AEC environment: each player has their own time, and loses without it.

    from damas_env import draughts_v0
    from damas_env.clock import TimeControl

    env = TimeControl(draughts_v0.env(variant="english"), seconds=300, increment=2)

The mover's clock runs from when it is selected until it steps (all the hops of a
multi-capture on one clock); the increment is added when a complete move ends. A step that
arrives once the mover's time is used up is not played: the mover gets -1, the opponent +1,
and the game ends with ``Reason.TIME``. ``infos[agent]["time_left"]`` and
:meth:`TimeControl.remaining` give the time left; ``clock=`` injects the time source (tests
drive a fake clock). An illegal action still raises and changes nothing, and the mover's
clock keeps running.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .checks import shown

__all__ = ["TimeControl"]


class TimeControl(wrappers.BaseWrapper):
    """Gives each agent its own clock; an agent that steps after its time is up loses."""

    def __init__(
        self,
        env: AECEnv,
        seconds: float | Mapping[str, float],
        increment: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Wraps an AEC draughts environment with a time control.

        Args:
            env: the environment (e.g. ``draughts_v0.env(...)``).
            seconds: the starting time of every agent, or a mapping from each agent to its own.
            increment: seconds added to the mover's clock after each complete move.
            clock: the time source in seconds (``time.monotonic``; a fake one in tests).

        Raises:
            TypeError: env is not an AEC env, a time is not a real number (a string or a
                bool included) or clock is not callable.
            ValueError: a time is not finite, seconds is not > 0 or increment is negative,
                or seconds does not give a time for each agent.
        """
        if not isinstance(env, AECEnv):
            raise TypeError(f"env must be a PettingZoo AEC env, not {type(env).__name__}")
        if not callable(clock):
            raise TypeError(f"clock must be callable, not {type(clock).__name__} {shown(clock)}")
        super().__init__(env)
        self._initial = _initial_times(seconds, list(env.possible_agents))
        self._increment = _checked_seconds("increment", increment, positive=False)
        self._clock = clock
        self._left = dict(self._initial)
        self._since = 0.0

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Starts a new game with full clocks; the first mover's clock starts now."""
        super().reset(seed=seed, options=options)
        self._left = dict(self._initial)
        self._since = self._now()
        self._write_infos()

    def step(self, action: Any) -> None:
        """Plays the mover's hop on its clock, or ends the game if its time is up."""
        agent = self.agent_selection
        if not self.agents or self.terminations[agent] or self.truncations[agent]:
            super().step(action)  # a dead step: no clock runs
            return
        left = self._left[agent] - (self._now() - self._since)
        if left <= 0:
            self._left[agent] = 0.0
            self._lose_on_time(agent)
        else:
            super().step(action)  # an illegal action raises here: clocks untouched
            self._left[agent] = left
            if self._is_move_complete(agent):
                self._left[agent] += self._increment
            self._since = self._now()
        self._write_infos()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Returns the wrapped env's last() (the clock changes no observation or reward), so
        its errors (before reset, after every agent stepped out) come through as they are."""
        return self.env.last(observe)

    def remaining(self, agent: str) -> float:
        """Returns an agent's time left in seconds, counting the running clock of the mover.

        Raises:
            ValueError: agent is not one of possible_agents.
        """
        if not isinstance(agent, str) or agent not in self._initial:
            raise ValueError(f"agent must be one of {list(self._initial)}, not {shown(agent)}")
        left = self._left[agent]
        if self._is_running(agent):
            left -= self._now() - self._since
        return max(left, 0.0)

    # --- Internals --------------------------------------------------------------------------

    def _now(self) -> float:
        """Returns the clock's reading, or raises RuntimeError if it is not a finite number."""
        reading = self._clock()
        if not _is_real(reading) or not math.isfinite(reading):
            raise RuntimeError(f"the clock must return a finite number, not {shown(reading)}")
        return float(reading)

    def _is_running(self, agent: str) -> bool:
        return (
            bool(self.agents)
            and agent == self.agent_selection
            and not (self.terminations[agent] or self.truncations[agent])
        )

    def _is_move_complete(self, agent: str) -> bool:
        """Returns whether the agent's last hop ended its move (turn passed or game over)."""
        over = self.terminations[agent] or self.truncations[agent]
        return bool(over or self.agent_selection != agent)

    def _write_infos(self) -> None:
        for agent in self.agents:
            self.infos[agent]["time_left"] = self._left[agent]

    def _lose_on_time(self, agent: str) -> None:
        """Ends the game: the agent whose time is up gets -1, the other agent +1."""
        env = self.unwrapped
        opponent = next(a for a in env.agents if a != agent)
        env.end_game(opponent, "time")


def _initial_times(seconds: float | Mapping[str, float], agents: list[str]) -> dict[str, float]:
    """Returns each agent's starting time, checked to be a positive, finite real number."""
    if not isinstance(seconds, Mapping):
        return dict.fromkeys(agents, _checked_seconds("seconds", seconds))
    if set(seconds) != set(agents):
        raise ValueError(f"seconds must give a time for each of {agents}, not {shown(seconds)}")
    return {a: _checked_seconds(f"seconds[{a!r}]", seconds[a]) for a in agents}


def _checked_seconds(name: str, value: Any, positive: bool = True) -> float:
    """Returns a time argument as a float: a real number (not a bool or a string), finite,
    > 0 (or >= 0 with ``positive=False``).

    Raises:
        TypeError: value is not a real number.
        ValueError: value is not finite, or out of range.
    """
    if not _is_real(value):
        raise TypeError(
            f"{name} must be a number of seconds, not {type(value).__name__} {shown(value)}"
        )
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond float's range
        seconds = math.inf
    bound = "> 0" if positive else ">= 0"
    if not math.isfinite(seconds) or seconds < 0 or (positive and seconds == 0):
        raise ValueError(f"{name} must be a finite number of seconds {bound}, not {shown(value)}")
    return seconds


def _is_real(value: Any) -> bool:
    """Returns whether value is an int or a float (Python or numpy), not a bool."""
    numbers = (int, float, np.integer, np.floating)
    return isinstance(value, numbers) and not isinstance(value, (bool, np.bool_))
