"""The Agent protocol every player implements, classical or learned.

An agent is asked for one *hop* at a time, as the environments play them
(:mod:`damas_env.encoding`): ``act(observation, position, hops)`` gets the env's
observation dict (planes and ``action_mask``), the engine position at the start of the
turn, and the actions already played this turn (non-empty only in the middle of a
multi-capture), and returns the next action. Agents that think in complete moves subclass
:class:`MoveAgent`: they choose a :class:`damas_env.Move` and it emits its hops one by one.

Agents never decide legality themselves: moves come from the engine
(``position.legal_moves()``) and hops from the mask.

    from damas_env import draughts_v0
    from damas_agents.players.base import play_hop

    env = draughts_v0.env("english")
    env.reset()
    action = play_hop(agent, env)   # what the arena does for the agent to move
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from damas_env import Move, Position
from damas_env.encoding import move_to_actions

__all__ = ["Agent", "MoveAgent", "play_hop"]

Observation = Mapping[str, np.ndarray]


@runtime_checkable
class Agent(Protocol):
    """Anything that plays: a name, a reset between games, and one action per call."""

    name: str

    def reset(self) -> None:
        """Forgets the game in progress (called before each game)."""

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the next hop action for the agent to move."""
        ...


class MoveAgent:
    """Base of agents that choose complete moves; emits the chosen move's hops one by one."""

    name = "move-agent"

    def __init__(self) -> None:
        self._plan: list[int] = []

    def reset(self) -> None:
        """Forgets the move in progress."""
        self._plan = []

    def choose(self, position: Position) -> Move:
        """Returns the move to play in a position (subclasses implement it)."""
        raise NotImplementedError

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the next hop of the chosen move (choosing it at the first hop).

        Raises:
            ValueError: no position was given (a MoveAgent thinks on the engine position).
        """
        if position is None:
            raise ValueError(f"{self.name} needs the engine position: act(obs, position, hops)")
        if not hops or self._plan[: len(hops)] != list(hops):
            move = self.choose(position)
            self._plan = move_to_actions(move, position.turn, position.rules)
            if hops and self._plan[: len(hops)] != list(hops):
                # The turn began with hops this agent did not choose: follow any route on.
                move = next(
                    m
                    for m in position.capture_routes()
                    if move_to_actions(m, position.turn, position.rules)[: len(hops)]
                    == list(hops)
                )
                self._plan = move_to_actions(move, position.turn, position.rules)
        return self._plan[len(hops)]


def play_hop(agent: Agent, env: Any) -> int:
    """Returns the agent's action for the agent to move in a draughts_v0 env (wrapped or not)."""
    raw = env.unwrapped
    observation = raw.observe(raw.agent_selection)
    return int(agent.act(observation, raw.position, raw.hops_played))
