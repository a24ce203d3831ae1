"""RLlib (new API stack): draughts_v0 as a ``MultiAgentEnv``, and a masked PPO module.

    register_env("draughts", lambda config: rllib_env(**config))
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config={...})

:func:`rllib_env` renames the ``"observation"`` key to RLlib's ``"observations"``
(:class:`RLlibObservations`) and wraps the env in RLlib's ``PettingZooEnv``, with
``illegal_action="lose"`` by default since RLlib checks an env with unmasked samples.
:class:`MaskedPPOTorchRLModule` is PPO's default torch module with the logits of illegal hops
pushed to the float minimum; importing it imports RLlib, the rest of this module does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from .. import draughts_v0

__all__ = ["MaskedPPOTorchRLModule", "RLlibObservations", "rllib_env"]

if TYPE_CHECKING:
    MaskedPPOTorchRLModule: type  # built on first use by __getattr__ (imports RLlib)


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


def __getattr__(name: str) -> Any:
    """Builds :class:`MaskedPPOTorchRLModule` on first use (it needs RLlib and torch)."""
    if name == "MaskedPPOTorchRLModule":
        module_class = _masked_ppo_module()
        globals()[name] = module_class
        return module_class
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _masked_ppo_module() -> type:
    """Returns the masked PPO module class (defined here, so that RLlib loads only on use)."""
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    mask_column = "action_mask"

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
        """PPO's default torch module on ``{"observations", "action_mask"}`` observations.

        The encoder and heads see only ``"observations"``; every forward pass sets the
        logits of the hops the mask forbids to the float minimum. The module keeps the full
        dict as its ``observation_space``, as RLlib's connectors expect.
        """

        def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
            _check_masked_space(observation_space)
            self._with_mask = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self) -> None:
            """Builds the networks for the planes, then restores the dict space."""
            super().setup()
            self.observation_space = self._with_mask

        def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = _unpack(batch)
            return _masked(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = _unpack(batch)
            return _masked(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = _unpack(batch)
            return _masked(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            """The value head's estimates (the learner calls this before the train pass)."""
            _unpack(batch)
            return super().compute_values(batch, embeddings)

    def _unpack(batch: dict[str, Any]) -> Any:
        """Moves the mask out of the observation dict, in place; returns the mask.

        In place, as RLlib's own example does: the learner computes the values (GAE) on the
        same batch it then trains on, so the second call finds the mask already moved.
        """
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch[Columns.OBS] = obs["observations"]
            batch[mask_column] = obs[mask_column]
        return batch[mask_column]

    def _masked(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
        """Sets the logits of forbidden hops to the float minimum."""
        logits = outputs[Columns.ACTION_DIST_INPUTS]
        outputs[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(~mask.to(torch.bool), FLOAT_MIN)
        return outputs

    MaskedPPOTorchRLModule.__module__ = __name__
    MaskedPPOTorchRLModule.__qualname__ = "MaskedPPOTorchRLModule"
    return MaskedPPOTorchRLModule


def _check_masked_space(observation_space: Any) -> None:
    """Raises ValueError unless the space is a Dict of "observations" and "action_mask"."""
    if not isinstance(observation_space, spaces.Dict) or set(observation_space) != {
        "observations",
        "action_mask",
    }:
        raise ValueError(
            "MaskedPPOTorchRLModule needs a Dict observation space of "
            f"'observations' and 'action_mask', got {observation_space}"
        )
