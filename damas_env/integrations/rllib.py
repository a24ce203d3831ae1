"""RLlib: draughts_v0 with the observation keys of RLlib's action-masking RLModule.

    from damas_env.integrations.rllib import rllib_env
    from ray.tune.registry import register_env

    register_env("draughts", lambda config: rllib_env(**config))

RLlib's action-masking module (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``)
reads ``{"observations": ..., "action_mask": ...}`` (plural), where PettingZoo's
convention is ``{"observation": ..., "action_mask": ...}``. :class:`RLlibObservations`
renames the key (the int8 mask stays as it is); :func:`rllib_env` wraps the
result in RLlib's ``PettingZooEnv`` (an AEC game as a ``MultiAgentEnv``: one agent acts per
step, and the last step gives both agents their final reward).

:func:`rllib_env` defaults to ``illegal_action="lose"``: RLlib checks a multi-agent env by
stepping it with an unmasked sample of the action space (almost always an illegal hop) and
expects a transition back, as Gymnasium's ``check_env`` does; with "lose" that sample ends
the game with -1 for the mover (reason ``"illegal_action"``). A masked module never plays
one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from .. import draughts_v0

__all__ = ["RLlibObservations", "rllib_env"]


class RLlibObservations(BaseWrapper):
    """Renames the observation dict's ``"observation"`` to ``"observations"``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._spaces: dict[str, spaces.Dict] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            self._spaces[agent] = spaces.Dict(
                {"observations": inner["observation"], "action_mask": inner["action_mask"]}
            )

    def observation_space(self, agent: str) -> spaces.Space:
        """Returns ``Dict({"observations": planes, "action_mask": int8 mask})``."""
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Returns the agent's observation under RLlib's keys."""
        obs = self.env.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"]}


def rllib_env(variant: str = "international", illegal_action: str = "lose", **kwargs: Any) -> Any:
    """Returns RLlib's ``PettingZooEnv`` over ``RLlibObservations(draughts_v0.env(...))``.

    Args:
        variant: a ruleset name or a rules YAML path.
        illegal_action: "lose" (default here, see the module docstring) or "raise".
        **kwargs: passed to :func:`damas_env.draughts_v0.env` (max_plies, channels_last,
            rule switches, ...).
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    aec = draughts_v0.env(variant, illegal_action=illegal_action, **kwargs)
    return PettingZooEnv(RLlibObservations(aec))
