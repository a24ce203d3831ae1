"""Registers the environments with PettingZoo's and Gymnasium's registries.

    import gymnasium, pettingzoo
    from damas_env.registration import register

    register()
    aec = pettingzoo.make("aec", "damas/draughts-v0", variant="english")
    gym = gymnasium.make("damas/Draughts-v0", variant="english", play_as="player_1")

Keyword arguments of ``make`` go to :func:`damas_env.draughts_v0.env` and
:class:`damas_env.single_agent.DraughtsGymEnv`.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

__all__ = ["AEC_ID", "GYM_ID", "register"]

AEC_ID = "damas/draughts-v0"
GYM_ID = "damas/Draughts-v0"


def register() -> None:
    """Registers the AEC env and the single-agent Gymnasium env; calling it again does nothing."""
    if AEC_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point="damas_env.draughts_v0:env")
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="damas_env.single_agent:DraughtsGymEnv",
            vector_entry_point="damas_env.vector_gym:DraughtsVectorEnv",
        )
