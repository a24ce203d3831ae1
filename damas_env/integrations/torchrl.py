"""TorchRL: draughts_v0 in TorchRL's ``PettingZooWrapper``.

    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    from damas_env import draughts_v0
    from damas_env.ending import Reason

    env = PettingZooWrapper(draughts_v0.env("english"), use_mask=True, seed=0)
    rollout = env.rollout(1000, break_when_any_done=True)  # random legal hops
    code = int(rollout[-1]["next", "player_0", "info", "reason"])
    print(Reason(code).label)  # "no_legal_move", ...

The bare env needs nothing more: its infos hold ints under the same keys from reset on (see
:mod:`damas_env.draughts_v0`), which is what TorchRL's wrapper wants (it makes a tensor
spec of every entry of the reset infos and fills it at each step). ``(group, "info", key)``
holds them as float32, TorchRL's default for an unbounded spec:

============  ===========================================================================
``reason``    ``Reason(int(code)).label`` names it: 0 (``""``) while the game goes on,
              then ``"no_legal_move"``, ``"max_plies"``, ``"illegal_action"``, ...
``winner``    the winner's index in ``possible_agents``; -1 for a draw and during the game
``colour``    the agent's :class:`~damas_env.moves.Colour` (an index into the ruleset's
              ``colour_names``)
============  ===========================================================================

``use_mask=True`` is needed (TorchRL refuses an AEC env without it): one agent acts per
step, and the wrapper marks it with ``(group, "mask")``. The agent's legal hops are
``(group, "action_mask")``, and the action specs carry them, so ``env.rand_step()`` and
``env.rollout(n)`` without a policy play legal hops: ``illegal_action`` keeps draughts_v0's
default, "raise". :func:`torchrl_env` is the one line above, kept as a shortcut. Importing
this module needs ``torchrl``.
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
