"""A chess clock for the AEC environment: each player has their own time, and loses without it.

Seed 002: "Each player has their own clock; whoever runs out of time loses."

    from damas_env import draughts_v0
    from damas_env.clock import TimeControl

    env = TimeControl(draughts_v0.env(variant="english"), seconds=300, increment=2)

==============  ===============================================================================
Running clock   the agent to move, from when it is selected until it steps; the hops of a
                multi-capture all count on the same clock
Increment       added to the mover's clock when a complete move ends (``agent_selection``
                passes to the other agent, or the game ends)
Flag fall       a step that arrives once the mover's time is used up is not played: the mover
                gets -1, the opponent +1, all agents terminate, ``infos[a]["reason"]`` is
                ``"time"``
Remaining time  ``infos[agent]["time_left"]`` (after reset and every step), :meth:`remaining`
==============  ===============================================================================

The time source is injectable (``clock=``), so tests drive a fake clock by hand. An illegal
action still raises and changes nothing; the mover's clock keeps running.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

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
        """
        super().__init__(env)
        self._initial = _initial_times(seconds, list(env.possible_agents))
        if not (math.isfinite(increment) and increment >= 0):
            raise ValueError(f"increment must be a finite number >= 0, not {increment!r}")
        self._increment = float(increment)
        self._clock = clock
        self._left = dict(self._initial)
        self._since = 0.0

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Starts a new game with full clocks; the first mover's clock starts now."""
        super().reset(seed=seed, options=options)
        self._left = dict(self._initial)
        self._since = self._clock()
        self._write_infos()

    def step(self, action: Any) -> None:
        """Plays the mover's hop on its clock, or ends the game if its time is up."""
        agent = self.agent_selection
        if not self.agents or self.terminations[agent] or self.truncations[agent]:
            super().step(action)  # a dead step: no clock runs
            return
        now = self._clock()
        left = self._left[agent] - (now - self._since)
        if left <= 0:
            self._left[agent] = 0.0
            self._lose_on_time(agent)
        else:
            super().step(action)  # an illegal action raises here: clocks untouched
            self._left[agent] = left
            if self._is_move_complete(agent):
                self._left[agent] += self._increment
            self._since = self._clock()
        self._write_infos()

    def remaining(self, agent: str) -> float:
        """Returns an agent's time left in seconds, counting the running clock of the mover."""
        left = self._left[agent]
        if self._is_running(agent):
            left -= self._clock() - self._since
        return max(left, 0.0)

    # --- Internals --------------------------------------------------------------------------

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
    """Returns each agent's starting time, checked to be positive and finite."""
    if isinstance(seconds, Mapping):
        if set(seconds) != set(agents):
            raise ValueError(f"seconds must give a time for each of {agents}, not {dict(seconds)}")
        times = {a: float(seconds[a]) for a in agents}
    else:
        times = dict.fromkeys(agents, float(seconds))
    for agent, t in times.items():
        if not (math.isfinite(t) and t > 0):
            raise ValueError(f"the time of {agent} must be a positive number of seconds, not {t}")
    return times
