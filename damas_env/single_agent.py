"""The single-agent view: a Gymnasium env where the learner plays one side against an opponent.

    env = DraughtsGymEnv(variant="english", opponent="random", play_as="random")
    obs, info = env.reset(seed=0)
    action = env.action_space.sample(info["action_mask"])
    obs, reward, terminated, truncated, info = env.step(action)

``play_as`` is ``"player_0"``, ``"player_1"`` or ``"random"``; the opponent ``"random"``, a
callable ``f(observation_dict) -> int`` or an agent (``act(observation, position, hops)``).
A step is one hop of the learner, then the opponent's hops until the learner is to move
again. Observations are the learner's planes; the mask is ``info["action_mask"]``. Rewards
are +1, -1 or 0 for the learner at the end. An illegal action raises
:class:`~damas_env.draughts_v0.IllegalActionError` (or, with ``illegal_action="lose"``, ends
the episode with -1); an illegal opponent action raises :class:`OpponentError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import draughts_v0
from .checks import checked_options, checked_seed, shown
from .rules import Ruleset, check_switches, keywords_of

__all__ = ["DraughtsGymEnv", "OpponentError"]

AGENTS = ("player_0", "player_1")
Policy = Callable[[dict[str, np.ndarray]], Any]


class OpponentError(RuntimeError):
    """Raised when the opponent returns an action that is not one of its legal hops."""


class DraughtsGymEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Plays one side of a draughts game against a fixed opponent (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        variant: str | Ruleset = "international",
        opponent: Any = "random",
        play_as: str = "player_0",
        render_mode: str | None = None,
        max_plies: int | None = None,
        channels_last: bool = False,
        illegal_action: str = "raise",
        **rule_overrides: Any,
    ) -> None:
        """Builds the AEC game and the opponent.

        Args:
            variant: a ruleset name (see :func:`damas_env.ruleset_names`).
            opponent: "random", a callable ``f(observation_dict) -> int`` or an object with
                ``act(observation, position, hops) -> int`` (the ``damas_agents.players.base.Agent``
                protocol) and optionally ``reset()``.
            play_as: the learner's agent, "player_0", "player_1" or "random" (per episode).
            render_mode: None, "ansi", "rgb_array" or "human" (passed to the AEC env).
            max_plies: truncate the game after this many plies (None: the rules decide).
            channels_last: observations as (N, N, 8) instead of (8, N, N).
            illegal_action: "raise" (IllegalActionError, nothing changes) or "lose" (-1, end).
            **rule_overrides: rule switches of the ruleset to change.

        Raises:
            TypeError, ValueError: a bad argument, named (see draughts_v0.raw_env).
        """
        check_switches(rule_overrides, keywords_of(type(self).__init__), type(self).__name__)
        self.play_as = checked_play_as(play_as)
        self._aec = draughts_v0.env(
            illegal_action=illegal_action,
            variant=variant,
            render_mode=render_mode,
            max_plies=max_plies,
            channels_last=channels_last,
            **rule_overrides,
        )
        self._policy, self.opponent_name = opponent_policy(
            opponent,
            self._random_action,
            "a callable f(observation_dict) -> int, or an object with "
            "act(observation, position, hops) -> int",
        )
        self._opponent = opponent
        if callable(getattr(opponent, "act", None)):  # the Agent protocol: give it the position
            raw = self._aec.unwrapped
            self._policy = lambda view: opponent.act(view, raw.position, raw.hops_played)
        self.render_mode = render_mode
        self.learner = AGENTS[0] if play_as == "random" else play_as
        self.observation_space = self._aec.observation_space(AGENTS[0])["observation"]
        self.action_space = spaces.Discrete(self._aec.action_space(AGENTS[0]).n)
        self._has_reset = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts an episode and plays the opponent's hops until the learner is to move.

        Args:
            seed: seeds the random opponent and the ``play_as="random"`` draw.
            options: passed to the AEC env's reset (``{"fen": FEN}`` starts from a position).

        Raises:
            TypeError: seed is not an int, options not a dict or the FEN not a string.
            NotationError: the FEN is malformed (an empty one included).
            ValueError: seed is negative, or the game ends before the learner's first move
                (a FEN of a finished game, or one the opponent wins at once): Gymnasium has
                no terminal reset.
        """
        seed, options = checked_seed(seed), checked_options(options)
        super().reset(seed=seed)
        if self.play_as == "random":
            self.learner = AGENTS[int(self.np_random.integers(2))]
        reset = getattr(self._opponent, "reset", None)
        if callable(reset):
            reset()
        self._aec.reset(seed=seed, options=options)
        self._has_reset = True
        self._play_opponent()
        if self._is_over():
            reason = self._aec.infos[self.learner]["reason"].label
            raise ValueError(f"the game ended ({reason}) before the learner's first move")
        return self._observed()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Plays the learner's hop, then the opponent's move if the learner's is complete.

        Raises:
            TypeError: the action is not an integer (a float, a string, None, a bool);
                nothing changes, whatever ``illegal_action`` says.
            IllegalActionError: the action is illegal (``illegal_action="raise"``); nothing
                changes.
            RuntimeError: reset() was never called, or the episode has ended.
        """
        self._require_reset()
        if self._is_over():
            raise RuntimeError("the episode has ended: call reset() before step()")
        self._aec.step(checked_action_type(action))
        reward = self._aec.rewards[self.learner] + self._play_opponent()
        terminated = bool(self._aec.terminations[self.learner])
        truncated = bool(self._aec.truncations[self.learner])
        observation, info = self._observed()
        return observation, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Returns the learner's legal hops as booleans (what MaskablePPO asks for).

        Raises:
            RuntimeError: reset() was never called.
        """
        self._require_reset()
        return self._aec.observe(self.learner)["action_mask"].astype(bool)

    def render(self) -> Any:
        """Draws the game through the AEC env's renderer (``render_mode``)."""
        return self._aec.render()

    def close(self) -> None:
        """Closes the AEC env's window, if any."""
        self._aec.close()

    @property
    def aec_env(self) -> Any:
        """Returns the underlying PettingZoo AEC environment (both players)."""
        return self._aec

    # --- Internals --------------------------------------------------------------------------

    def _require_reset(self) -> None:
        """Raises RuntimeError if reset() was never called (there is no episode yet)."""
        if not self._has_reset:
            raise RuntimeError("call reset() first: there is no episode before it")

    @property
    def _opponent_agent(self) -> str:
        return AGENTS[1 - AGENTS.index(self.learner)]

    def _is_over(self) -> bool:
        return bool(self._aec.terminations[self.learner] or self._aec.truncations[self.learner])

    def _play_opponent(self) -> float:
        """Plays the opponent's hops until the learner is to move; returns the learner's reward."""
        reward = 0.0
        while not self._is_over() and self._aec.agent_selection != self.learner:
            obs = self._aec.observe(self._opponent_agent)  # copies: the policy may write in them
            mask = obs["action_mask"].copy()
            self._aec.step(self._checked_opponent_action(self._policy(obs), mask))
            reward += self._aec.rewards[self.learner]
        return reward

    def _checked_opponent_action(self, action: Any, mask: np.ndarray) -> int:
        """Returns the opponent's action, or raises OpponentError if it is not legal."""
        is_int = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
        if is_int and 0 <= action < mask.shape[0] and mask[action]:
            return int(action)
        legal = np.flatnonzero(mask).tolist()
        raise OpponentError(
            f"opponent {self.opponent_name} ({self._opponent_agent}) returned the illegal action "
            f"{shown(action)}; its legal actions are {legal}"
        )

    def _random_action(self, obs: dict[str, np.ndarray]) -> int:
        """Returns a uniformly random legal hop, drawn from the env's seeded generator."""
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[self.np_random.integers(legal.size)])

    def _observed(self) -> tuple[np.ndarray, dict[str, Any]]:
        """Returns the learner's observation and info, from one observe() (it copies)."""
        obs = self._aec.observe(self.learner)
        info = dict(self._aec.infos[self.learner])
        info["action_mask"] = obs["action_mask"]
        info["play_as"] = self.learner
        return obs["observation"], info


def checked_action_type(action: Any) -> Any:
    """Returns the learner's action if it is an integer: a Python or numpy int, or a 0-d
    integer array (what ``action_space.sample()`` gives). Its range and legality are the
    env's to check.

    Raises:
        TypeError: the action is of another type (bools included), named with its value.
    """
    integer = isinstance(action, int | np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
    )
    if not integer or isinstance(action, bool | np.bool_):
        raise TypeError(f"action must be an int, not {type(action).__name__} {shown(action)}")
    return action


def checked_play_as(play_as: Any) -> str:
    """Returns the learner's agent argument: "player_0", "player_1" or "random".

    Raises:
        ValueError: play_as is none of these.
    """
    if not isinstance(play_as, str) or play_as not in (*AGENTS, "random"):
        raise ValueError(
            f"play_as must be 'player_0', 'player_1' or 'random', not {shown(play_as)}"
        )
    return play_as


def opponent_policy(opponent: Any, random_policy: Any, accepted: str) -> tuple[Any, str]:
    """Returns an opponent's policy function and a name for error messages.

    ``"random"`` gives `random_policy`; an object with ``act`` gives that method; a callable
    is used as it is. `accepted` says what else is accepted, for the TypeError.
    """
    if isinstance(opponent, str):
        if opponent != "random":
            raise ValueError(f"the only opponent given by name is 'random', not {shown(opponent)}")
        return random_policy, "'random'"
    act = getattr(opponent, "act", None)
    if callable(act):
        return act, f"{type(opponent).__name__}.act"
    if callable(opponent):
        return opponent, getattr(opponent, "__qualname__", shown(opponent))
    raise TypeError(f"opponent must be 'random', {accepted}; got {type(opponent).__name__}")
