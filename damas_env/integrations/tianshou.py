"""Tianshou: draughts_v0 as Tianshou's ``PettingZooEnv``, with infos its buffer can hold.

    from damas_env.integrations.tianshou import tianshou_env
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv([lambda: tianshou_env("english") for _ in range(4)])

Tianshou's ``PettingZooEnv`` turns the observation dict into ``{"agent_id", "obs", "mask"}``
and hands on the infos; its collector stacks them into the replay buffer, which needs every
step's info to have the same keys (a key that appears only at the end is padded, and the
trainer stops with ``MalformedBufferError: Encountered NaNs in buffer``). The infos of
``draughts_v0.env()`` gain ``"reason"`` and ``"winner"`` when the game ends, so
:func:`tianshou_env` builds the env with ``numeric_infos=True``: ``"colour"``, ``"reason"``
and ``"winner"`` from reset on, each an int (``Reason(info["reason"]).label`` names the
reason; see :mod:`damas_env.draughts_v0`). Importing this module needs ``tianshou``.
"""

from __future__ import annotations

from typing import Any

from tianshou.env.pettingzoo_env import PettingZooEnv

from .. import draughts_v0

__all__ = ["tianshou_env"]


def tianshou_env(variant: str = "international", **kwargs: Any) -> PettingZooEnv:
    """Returns ``PettingZooEnv(draughts_v0.env(variant, numeric_infos=True))``.

    Args:
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset.
        **kwargs: passed to :func:`damas_env.draughts_v0.env` (illegal_action, max_plies,
            channels_last, rule switches, ...).
    """
    return PettingZooEnv(draughts_v0.env(variant, numeric_infos=True, **kwargs))
