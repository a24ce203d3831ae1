"""The Agent protocol every player implements, classical or learned.

    action = play_hop(agent, env)   # what the arena does for the agent to move

An agent is asked for one hop at a time: ``act(observation, position, hops)`` gets the env's
observation dict, the position at the start of the turn and the hops already played this
turn. Agents that think in complete moves subclass :class:`MoveAgent`, which plays the chosen
move hop by hop. Legality is the engine's: the position carries the history the rules need
(its king runs, for the Frisian king move limit), so ``position.legal_moves()`` are the game's.
A policy trained elsewhere (an RL library's model) plays as :class:`PolicyAgent`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from damas_env import Move, Position
from damas_env.encoding import move_to_actions

__all__ = ["Agent", "MoveAgent", "Policy", "PolicyAgent", "Reseedable", "play_hop"]

Observation = Mapping[str, np.ndarray]
#: ``policy(observation, action_mask) -> action``: the planes and the int8 mask of the
#: player to move, as draughts_v0 observes them, to one hop action.
Policy = Callable[[np.ndarray, np.ndarray], Any]


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


@runtime_checkable
class Reseedable(Protocol):
    """An agent with random streams that can restart them: after ``reseed(s)`` it plays as
    the same agent built with ``seed=s`` would. The arena builds an agent once and reseeds it
    for each game, so a match does not depend on which process played which game."""

    def reseed(self, seed: int | None) -> None:
        """Restarts every random stream of the agent from `seed`."""


class MoveAgent:
    """Base of agents that choose complete moves; emits the chosen move's hops one by one.

    At the start of a turn it asks :meth:`choose` for one of ``position.legal_moves()``.
    """

    name = "move-agent"

    def __init__(self) -> None:
        self._plan: list[int] = []

    def reset(self) -> None:
        """Forgets the move in progress."""
        self._plan = []

    def choose(self, position: Position) -> Move:
        """Returns the move to play in a position, one of its legal moves (subclasses
        implement it)."""
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
                    if move_to_actions(m, position.turn, position.rules)[: len(hops)] == list(hops)
                )
                self._plan = move_to_actions(move, position.turn, position.rules)
        return self._plan[len(hops)]


class PolicyAgent:
    """Plays a policy function, ``policy(observation, action_mask) -> action``, as an Agent.

        agent = PolicyAgent(lambda planes, mask: int(np.flatnonzero(mask)[0]), "first-legal")
        play_match(agent, "random", games=2)

    The policy gets the arrays of draughts_v0's observation dict, the planes (C, N, N) from
    the mover's side and the action mask; it returns an integer action (a numpy scalar or a
    one-element array will do). An action the mask forbids raises ValueError: a bug in the
    policy or its adapter is reported, not played as a lost game.
    """

    def __init__(self, policy: Policy, name: str = "policy") -> None:
        if not callable(policy):
            raise TypeError(f"policy must be callable, not {type(policy).__name__}")
        self.policy = policy
        self.name = name

    def reset(self) -> None:
        """Does nothing: the policy keeps no state between games."""

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the policy's action, checked against the mask.

        Raises:
            ValueError: the policy returned something other than one integer, or an action
                the mask forbids.
        """
        mask = observation["action_mask"]
        chosen = self.policy(observation["observation"], mask)
        action = _one_integer(chosen)
        if action is None:
            raise ValueError(f"{self.name} returned {chosen!r}, not an integer action")
        if not (0 <= action < mask.shape[0] and mask[action]):
            legal = np.flatnonzero(mask).tolist()
            raise ValueError(
                f"{self.name} chose action {action}, which the action mask forbids (legal: {legal})"
            )
        return action


def _one_integer(value: Any) -> int | None:
    """Returns an integer, numpy integer or one-element integer array as an int, else None."""
    array = np.asarray(value)
    if array.size != 1 or array.dtype.kind not in "iu":
        return None
    return int(array.reshape(()))


def play_hop(agent: Agent, env: Any) -> int:
    """Returns the agent's action for the agent to move in a draughts_v0 env (wrapped or not)."""
    raw = env.unwrapped
    observation = raw.observe(raw.agent_selection)
    return int(agent.act(observation, raw.position, raw.hops_played))
