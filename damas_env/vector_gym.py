"""DraughtsVectorEnv: the single-agent view of a batch of games, as a Gymnasium VectorEnv.

    envs = DraughtsVectorEnv(1024, variant="english", opponent="random", play_as="random")
    obs, info = envs.reset(seed=0)
    obs, rewards, terminated, truncated, info = envs.step(my_policy(obs, info["action_mask"]))

What :class:`~damas_env.single_agent.DraughtsGymEnv` is to one game, this is to a
:class:`~damas_env.vector.DraughtsBatchEnv`: a step is one hop of the learner in every game,
then the opponent's hops until the learner is to move everywhere. The opponent is one policy
for the batch (``"random"``, ``f(observations, masks) -> actions`` or an object with
``act``). Ended games restart in the same step, their end in ``info["final_obs"]`` and
``info["final_info"]``. A game that ends before the learner's first move raises ValueError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .checks import checked_bool, checked_options, checked_seed
from .encoding import other_view
from .ending import Reason
from .rules import Ruleset, check_switches, keywords_of
from .single_agent import OpponentError, checked_play_as, opponent_policy
from .vector import DraughtsBatchEnv

__all__ = ["DraughtsVectorEnv"]

AGENTS = ("player_0", "player_1")
BatchPolicy = Callable[[np.ndarray, np.ndarray], Any]
_LABELS = np.array([reason.label for reason in Reason])  # a reason code's label


class _StepRecord:
    """What one ``step`` or ``reset`` gathers over its sub-steps, for the learner."""

    def __init__(self, num_envs: int) -> None:
        self.rewards = np.zeros(num_envs, np.float32)
        self.terminated = np.zeros(num_envs, np.bool_)
        self.truncated = np.zeros(num_envs, np.bool_)
        self.final_obs = np.full(num_envs, None, dtype=object)
        self.final_reason = np.zeros(num_envs, np.int64)
        self.final_plies = np.zeros(num_envs, np.int64)
        self.final_learner = np.zeros(num_envs, np.int64)

    @property
    def ended(self) -> np.ndarray:
        """Returns which games ended (terminated or truncated)."""
        return self.terminated | self.truncated


class DraughtsVectorEnv(gymnasium.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """Plays one side of a batch of draughts games against a fixed opponent (see the module)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        variant: str | Ruleset = "international",
        opponent: Any = "random",
        play_as: str = "player_0",
        seed: int | None = None,
        num_threads: int | None = None,
        max_plies: int | None = None,
        opening_plies: int = 0,
        fens: list[str] | None = None,
        copy: bool = True,
        **rule_overrides: Any,
    ) -> None:
        """Builds the batch env, the opponent and the spaces.

        Args:
            num_envs: games in the batch (B).
            variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset;
                ``**rule_overrides`` change switches.
            opponent: "random", a callable ``f(observations, masks) -> actions`` or an object
                with ``act(observations, masks) -> actions`` (see the module docstring).
            play_as: the learner's agent, "player_0", "player_1" or "random" (per episode).
            seed: seeds the batch env and the first ``reset()`` that gets no seed.
            num_threads: threads of the batch env's compiled loops (default: all cores).
            max_plies: truncate a game after this many plies (None: the rules decide).
            opening_plies: random plies played from the start position at each game start.
            fens: start positions (PDN FEN) drawn at each game start, instead of the start.
            copy: return copies of the observations (False: the batch env's buffers, which
                the next step overwrites).

        Raises:
            TypeError, ValueError: a bad argument, named (see DraughtsBatchEnv).
        """
        check_switches(rule_overrides, keywords_of(type(self).__init__), type(self).__name__)
        self.play_as = checked_play_as(play_as)
        self.copy = checked_bool("copy", copy)
        self._batch = DraughtsBatchEnv(
            num_envs,
            variant=variant,
            seed=seed,
            num_threads=num_threads,
            max_plies=max_plies,
            opening_plies=opening_plies,
            fens=fens,
            **rule_overrides,
        )
        self._policy, self.opponent_name = opponent_policy(
            opponent,
            None,  # the compiled random policy
            "a callable f(observations, masks) -> actions, or an object with "
            "act(observations, masks) -> actions",
        )
        self.num_envs = self._batch.num_envs
        self._first_seed = seed
        self.learner = np.zeros(num_envs, np.int64)
        self.single_observation_space = spaces.Box(0.0, 1.0, self._batch.obs.shape[1:], np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(self._batch.num_actions)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._has_reset = False

    # --- Gymnasium API ----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts every game and plays the opponent's hops until the learner is to move.

        Args:
            seed: seeds the games' random streams and the ``play_as="random"`` draws.
            options: unused (part of Gymnasium's signature); a dict or None.

        Raises:
            TypeError: seed is not an int or options not a dict; nothing changes.
            ValueError: seed is negative (nothing changes), or a game ends before the
                learner's first move.
        """
        seed, _ = checked_seed(seed), checked_options(options)
        if seed is None:  # the constructor's seed, on the first reset only
            seed = self._first_seed
        self._first_seed = None
        super().reset(seed=seed)
        self._batch.reset(seed=seed)
        self.learner[:] = self._drawn_learners(self.num_envs)
        record = _StepRecord(self.num_envs)
        self._has_reset = True
        self._play_opponent(record)
        if record.ended.any():
            self._refuse_empty_episode(int(np.flatnonzero(record.ended)[0]))
        return self._observations(), self._info(record)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays the learner's hop in every game, then the opponent's hops where it is to move.

        Returns:
            (observations, rewards, terminated, truncated, info); see the module docstring.

        Raises:
            ValueError: an action of the wrong shape or type, out of range, or illegal in
                some game (the message names the first such game); no game changes.
            RuntimeError: reset() was never called.
        """
        self._require_reset()
        record = _StepRecord(self.num_envs)
        self._batch.step(actions)
        self._collect(record, learner_moved=True)
        self._play_opponent(record)
        info = self._info(record)
        return self._observations(), record.rewards, record.terminated, record.truncated, info

    def action_masks(self) -> np.ndarray:
        """Returns the learner's legal hops in every game as booleans (B, A).

        Raises:
            RuntimeError: reset() was never called.
        """
        self._require_reset()
        return self._batch.masks.astype(bool)

    @property
    def batch_env(self) -> DraughtsBatchEnv:
        """Returns the underlying DraughtsBatchEnv (both players' view of every game)."""
        return self._batch

    def _require_reset(self) -> None:
        """Raises RuntimeError if reset() was never called (no learner is to move yet)."""
        if not self._has_reset:
            raise RuntimeError("call reset() first: the learner is to move only after it")

    # --- The opponent ----------------------------------------------------------------------

    def _play_opponent(self, record: _StepRecord) -> None:
        """Steps the games where the opponent is to move until the learner is to move in all."""
        while True:
            turn = self._batch.to_play != self.learner
            if not turn.any():
                return
            self._batch.step(self._opponent_actions(turn), games=turn)
            self._collect(record, learner_moved=False)

    def _opponent_actions(self, turn: np.ndarray) -> np.ndarray:
        """Returns a full batch of actions holding the opponent's hops where `turn` is True."""
        if self._policy is None:
            return np.asarray(self._batch.random_actions())
        games = np.flatnonzero(turn)
        masks = self._batch.masks[games]
        chosen = self._policy(self._batch.obs[games], masks)
        actions = np.zeros(self.num_envs, np.int64)
        actions[games] = self._checked_opponent_actions(chosen, games, masks)
        return actions

    def _checked_opponent_actions(
        self, chosen: Any, games: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        """Returns the opponent's actions as int64, or raises OpponentError naming a game."""
        if hasattr(chosen, "detach"):  # a torch tensor: no torch import needed
            chosen = chosen.detach().cpu().numpy()
        arr = np.asarray(chosen)
        if arr.shape != games.shape or arr.dtype.kind not in "iu":
            raise OpponentError(
                f"opponent {self.opponent_name} must return {games.size} integer actions, "
                f"not an array of shape {arr.shape} and dtype {arr.dtype}"
            )
        in_range = (arr >= 0) & (arr < masks.shape[1])
        legal = in_range & (masks[np.arange(games.size), np.where(in_range, arr, 0)] == 1)
        if not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            raise OpponentError(
                f"opponent {self.opponent_name} returned the illegal action {arr[k]} in game "
                f"{games[k]}; its legal actions there are {np.flatnonzero(masks[k]).tolist()}"
            )
        return arr.astype(np.int64, copy=False)

    # --- Episode bookkeeping ----------------------------------------------------------------

    def _collect(self, record: _StepRecord, learner_moved: bool) -> None:
        """Adds the endings of the batch env's last step to the record; draws new learners."""
        ended = self._batch.terminated | self._batch.truncated
        if not ended.any():
            return
        games = np.flatnonzero(ended)
        again = games[record.ended[games]]
        if again.size:
            self._refuse_empty_episode(int(again[0]))
        learners = self.learner[games]
        record.rewards[games] += self._batch.rewards[games, learners]
        record.terminated[games] = self._batch.terminated[games]
        record.truncated[games] = self._batch.truncated[games]
        record.final_reason[games] = self._batch.final_reason[games]
        record.final_plies[games] = self._batch.final_plies[games]
        record.final_learner[games] = learners
        final = self._batch.final_obs[games]
        if learner_moved:  # the batch env saw the last position from the side to move next
            final = other_view(final)
        for k, g in enumerate(games):
            record.final_obs[g] = np.ascontiguousarray(final[k])
        self.learner[games] = self._drawn_learners(games.size)

    def _drawn_learners(self, count: int) -> np.ndarray:
        """Returns the learner's player index for `count` new games (drawn if "random")."""
        if self.play_as == "random":
            return self.np_random.integers(2, size=count)
        return np.full(count, AGENTS.index(self.play_as), np.int64)

    def _refuse_empty_episode(self, game: int) -> None:
        """Raises the ValueError for a game that ended before the learner's first move."""
        reason = Reason(int(self._batch.final_reason[game])).label
        raise ValueError(
            f"game {game}: the game ended ({reason}) before the learner's first move; "
            "check the start positions (fens) and max_plies"
        )

    # --- Outputs ----------------------------------------------------------------------------

    def _observations(self) -> np.ndarray:
        return self._batch.obs.copy() if self.copy else self._batch.obs

    def _info(self, record: _StepRecord) -> dict[str, Any]:
        """Returns the step's info: masks, learners, and the final entries of ended games."""
        info: dict[str, Any] = {
            "action_mask": self._batch.masks.copy(),
            "learner": self.learner.copy(),
            "plies": self._batch.plies.copy(),
        }
        ended = record.ended
        if ended.any():
            info["final_obs"], info["_final_obs"] = record.final_obs, ended
            info["final_info"], info["_final_info"] = _final_info(record), ended.copy()
        return info


def _final_info(record: _StepRecord) -> dict[str, Any]:
    """Returns the final info of the ended games, in Gymnasium's batched-info layout."""
    ended = record.ended
    return {
        "reason": _LABELS[record.final_reason],
        "_reason": ended.copy(),
        "plies": record.final_plies,
        "_plies": ended.copy(),
        "learner": record.final_learner,
        "_learner": ended.copy(),
    }
