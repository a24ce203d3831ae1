"""Tianshou: draughts_v0 as Tianshou's ``PettingZooEnv``.

    envs = DummyVectorEnv([lambda: PettingZooEnv(draughts_v0.env("english")) for _ in range(4)])

The bare env needs nothing more: Tianshou's replay buffer wants the same info keys at every
step, and draughts_v0's infos are ints under the same keys from reset on (in the buffer,
``Reason(code).label`` names a reason). :func:`tianshou_env` is that line, as a shortcut.
Importing this module needs ``tianshou``.
"""

from __future__ import annotations

from typing import Any

from tianshou.env.pettingzoo_env import PettingZooEnv

from .. import draughts_v0

__all__ = ["tianshou_env"]


def tianshou_env(variant: str = "international", **kwargs: Any) -> PettingZooEnv:
    """Returns ``PettingZooEnv(draughts_v0.env(variant, **kwargs))``.

    Args:
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset.
        **kwargs: passed to :func:`damas_env.draughts_v0.env` (illegal_action, max_plies,
            channels_last, rule switches, ...).
    """
    return PettingZooEnv(draughts_v0.env(variant, **kwargs))
