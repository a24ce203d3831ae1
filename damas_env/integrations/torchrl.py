"""TorchRL: draughts_v0 in TorchRL's ``PettingZooWrapper``.

    env = PettingZooWrapper(draughts_v0.env("english"), use_mask=True, seed=0)
    rollout = env.rollout(1000, break_when_any_done=True)  # random legal hops
    code = int(rollout[-1]["next", "player_0", "info", "reason"])
    print(Reason(code).label)  # "no_legal_move", ...

The bare env needs nothing more: its infos are ints under the same keys from reset on, kept
as float32 under ``(group, "info", key)`` (``reason`` 0 and ``winner`` -1 until the end).
``use_mask=True`` is required; the action specs carry the legal hops, so a rollout without a
policy plays legal hops. :func:`torchrl_env` is the wrapper line above, as a shortcut.
Importing this module needs ``torchrl``.
"""

from __future__ import annotations

from typing import Any

from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from .. import draughts_v0

__all__ = ["torchrl_env"]


def torchrl_env(
    variant: str = "international",
    *,
    seed: int | None = None,
    device: Any = None,
    **kwargs: Any,
) -> PettingZooWrapper:
    """Returns ``PettingZooWrapper(draughts_v0.env(variant, **kwargs), use_mask=True)``.

    Args:
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset.
        seed: seeds the wrapper's first reset (TorchRL's ``seed``).
        device: the device of the tensors (TorchRL's ``device``; None: the CPU).
        **kwargs: passed to :func:`damas_env.draughts_v0.env` (illegal_action, max_plies,
            channels_last, rule switches, ...).
    """
    return PettingZooWrapper(
        draughts_v0.env(variant, **kwargs), use_mask=True, seed=seed, device=device
    )
