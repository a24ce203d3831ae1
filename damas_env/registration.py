"""Registers the environments with PettingZoo's and Gymnasium's registries.

    register()
    aec = pettingzoo.make("aec", "damas/draughts-v0", variant="english")
    gym = gymnasium.make("damas/Draughts-v0", variant="english", play_as="player_1")

Keyword arguments of ``make`` go to :func:`damas_env.draughts_v0.env` and
:class:`damas_env.single_agent.DraughtsGymEnv`. ``gymnasium.make`` uses
``illegal_action="lose"`` (:func:`gym_env`), since ``check_env`` and learners without masks
play unmasked samples; pass ``illegal_action="raise"`` for the error instead.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import pettingzoo

__all__ = ["AEC_ID", "GYM_ID", "gym_env", "register"]

AEC_ID = "damas/draughts-v0"
GYM_ID = "damas/Draughts-v0"


def register() -> None:
    """Registers the AEC env and the single-agent Gymnasium env; calling it again does nothing."""
    if AEC_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point="damas_env.draughts_v0:env")
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="damas_env.registration:gym_env",
            vector_entry_point="damas_env.vector_gym:DraughtsVectorEnv",
        )


def gym_env(illegal_action: str = "lose", **kwargs: Any) -> gymnasium.Env:
    """Returns the single-agent view that ``gymnasium.make(GYM_ID)`` builds.

    Args:
        illegal_action: "lose" (default here, see the module docstring) or "raise".
        **kwargs: passed to :class:`damas_env.single_agent.DraughtsGymEnv`.
    """
    from .single_agent import DraughtsGymEnv

    return DraughtsGymEnv(illegal_action=illegal_action, **kwargs)
