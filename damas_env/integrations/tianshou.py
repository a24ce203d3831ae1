"""Tianshou: draughts_v0 as Tianshou's ``PettingZooEnv``.

    from tianshou.env import DummyVectorEnv, PettingZooEnv

    from damas_env import draughts_v0

    envs = DummyVectorEnv([lambda: PettingZooEnv(draughts_v0.env("english")) for _ in range(4)])

Tianshou's ``PettingZooEnv`` turns the observation dict into ``{"agent_id", "obs", "mask"}``
and hands on the infos; its collector stacks them into the replay buffer, which needs every
step's info to have the same keys (a key that appears only at the end is padded, and the
trainer stops with ``MalformedBufferError: Encountered NaNs in buffer``). The bare env's
infos are ``"colour"``, ``"reason"`` and ``"winner"`` from reset on, each an int (an IntEnum
member where a name exists: ``info["reason"].label`` names the reason, and in the buffer,
where they are numpy ints, ``Reason(code).label``; see :mod:`damas_env.draughts_v0`), so
the env needs nothing more. :func:`tianshou_env` is that one line, kept as a shortcut.
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
