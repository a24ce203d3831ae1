"""TorchRL: draughts_v0 in TorchRL's ``PettingZooWrapper``, with infos it can hold.

    from damas_env.ending import Reason
    from damas_env.integrations.torchrl import torchrl_env

    env = torchrl_env("english", seed=0)  # one group per agent: "player_0", "player_1"
    rollout = env.rollout(1000, break_when_any_done=True)  # random legal hops
    code = int(rollout[-1]["next", "player_0", "info", "reason"])
    print(Reason(code).label)  # "no_legal_move", ...

TorchRL's wrapper makes a tensor spec of every entry of the reset infos and fills it at each
step, so it holds numbers only, under the same keys from reset on. ``draughts_v0.env()``
gives names (``"colour": "black"``, and ``"reason"``, ``"winner"`` once the game has
ended), which PettingZoo users read, and on it ``PettingZooWrapper(..., use_mask=True)``
stops with ``TypeError: new(): invalid data type 'str'``. :func:`torchrl_env` builds the
env with ``numeric_infos=True`` instead: ``(group, "info", key)`` holds codes, which TorchRL
stores as float32 (its default for an unbounded spec):

============  ===========================================================================
``reason``    ``Reason(int(code)).label`` names it: 0 (``""``) while the game goes on,
              then ``"no_legal_move"``, ``"max_plies"``, ``"illegal_action"``, ...
``winner``    the winner's index in ``possible_agents``; -1 for a draw and during the game
``colour``    the agent's colour, an index into the ruleset's ``colour_names``
============  ===========================================================================

``use_mask=True`` is always set: one agent acts per step (an AEC game), and the wrapper marks
it with ``(group, "mask")``. The agent's legal hops are ``(group, "action_mask")``, and the
action specs carry them, so ``env.rand_step()`` and ``env.rollout(n)`` without a policy play
legal hops: ``illegal_action`` keeps draughts_v0's default, "raise". Importing this module
needs ``torchrl``.
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
    """Returns ``PettingZooWrapper(draughts_v0.env(variant, numeric_infos=True), use_mask=True)``.

    Args:
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset.
        seed: seeds the wrapper's first reset (TorchRL's ``seed``).
        device: the device of the tensors (TorchRL's ``device``; None: the CPU).
        **kwargs: passed to :func:`damas_env.draughts_v0.env` (illegal_action, max_plies,
            channels_last, rule switches, ...).
    """
    aec = draughts_v0.env(variant, numeric_infos=True, **kwargs)
    return PettingZooWrapper(aec, use_mask=True, seed=seed, device=device)
