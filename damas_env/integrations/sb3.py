"""Stable-Baselines3: the batch view (:class:`DraughtsVectorEnv`) as an SB3 ``VecEnv``.

    env = VecMonitor(SB3VecEnv(DraughtsVectorEnv(64, variant="english", play_as="random")))
    model = MaskablePPO("MlpPolicy", env).learn(100_000, callback=ProgressPrinter())

All B games step in one call of the batch env; a game that ends restarts at once (its last
observation in ``info["terminal_observation"]``), and ``env_method("action_masks")`` gives
``MaskablePPO`` the masks. :class:`ProgressPrinter` prints hops, seconds and the mean reward
of the last 100 games. Importing this module needs ``stable-baselines3``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from ..vector_gym import DraughtsVectorEnv

__all__ = ["ProgressPrinter", "SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """Adapts a :class:`DraughtsVectorEnv` to SB3's ``VecEnv`` (see the module docstring)."""

    def __init__(self, env: DraughtsVectorEnv) -> None:
        """Wraps the batch env; ``VecEnv.seed(s)`` seeds its next ``reset`` with ``s``."""
        self.env = env
        self._actions: np.ndarray | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> np.ndarray:
        """Starts every game; returns the learner's observations (B, C, N, N)."""
        obs, _ = self.env.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keeps the learner's actions for :meth:`step_wait`."""
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """Steps every game; returns (observations, rewards, dones, infos) in SB3's form."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones):
            infos[game]["terminal_observation"] = info["final_obs"][game]
            infos[game]["TimeLimit.truncated"] = bool(truncated[game] and not terminated[game])
            infos[game]["reason"] = str(info["final_info"]["reason"][game])
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Returns the learner's legal hops in every game as booleans (B, A)."""
        return self.env.action_masks()

    def close(self) -> None:
        """Closes the batch env."""
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Returns an attribute of this adapter or of the batch env, once per game asked."""
        owner = self if attr_name == "action_masks" else self.env
        value = getattr(owner, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets an attribute of the batch env (shared by every game)."""
        setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Calls a method once for the batch; ``action_masks`` is split into one per game."""
        games = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[game] for game in games]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in games]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """Returns False for every game: the batch env has no per-game Gymnasium wrappers."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Returns no images: the batch env does not render."""
        return [None for _ in range(self.num_envs)]


class ProgressPrinter(BaseCallback):
    """Prints the training's progress after a rollout, at most every `every` seconds.

    A line reads ``  12,288 hops    31 s  mean reward +0.42 (last 100 games)``: the learner's
    hops so far, seconds since ``learn`` started, and the mean reward of the last 100
    finished games (SB3's ``ep_info_buffer``, filled by a ``Monitor``/``VecMonitor``;
    "no game finished yet" before the first). When ``learn`` ends, a last line unless the
    last rollout's line says it already.
    """

    def __init__(self, every: float = 10.0, write: Callable[[str], None] | None = None) -> None:
        """`every`: seconds between lines; `write`: where lines go (stdout, flushed, if None)."""
        super().__init__()
        self.every = every
        self.write = write or (lambda line: print(line, flush=True))
        self._start = self._last = 0.0
        self._printed_at = -1  # num_timesteps of the last line

    def _on_training_start(self) -> None:
        self._start = self._last = time.perf_counter()

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if time.perf_counter() - self._last >= self.every:
            self._line()

    def _on_training_end(self) -> None:
        if self.num_timesteps != self._printed_at:
            self._line()

    def _line(self) -> None:
        self._last = time.perf_counter()
        self._printed_at = self.num_timesteps
        games = [info["r"] for info in self.model.ep_info_buffer or ()]
        reward = (
            f"mean reward {np.mean(games):+.2f} (last {len(games)} games)"
            if games
            else "no game finished yet"
        )
        self.write(f"{self.num_timesteps:9,d} hops  {self._last - self._start:5.0f} s  {reward}")
