"""The end of a game, decided in one place: rewards, termination or truncation, the reason
and the final observation.

The batch env calls the kernel :func:`end_of_move` after each complete move; the AEC env
calls :func:`rules_ending`, or :func:`decided_ending` for a game decided outside the rules
(an illegal action, a clock). The reason is a :class:`Reason` (its ``label`` names it in
JSON and PDN). Only ``MAX_PLIES`` truncates (both rewards 0); every other ending terminates.
Rewards are the result for each player's colour (+1, -1, 0), or with ``loser_only`` (the
PettingZoo illegal-move convention) 0 for the winner.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from . import kernels as K
from .checks import shown
from .kernels import Reason, kernel
from .rules import get_ruleset
from .turn import (
    Turn,
    direct_call,
    new_states,
    ply_of,
    reason_of,
    result_of,
    result_value,
    side_of,
    write_planes,
)

__all__ = [
    "Ending",
    "Reason",
    "decided_ending",
    "end_of_move",
    "ending_reason",
    "rules_ending",
    "truncates",
]


class Ending(NamedTuple):
    """How a game ended, as an env records it."""

    reason: Reason
    """Why the game ended (never ``Reason.NONE``)."""
    winner: int | None
    """The winning player (0: player_0, who plays the ruleset's first colour); None for a
    draw or a truncation."""
    rewards: tuple[float, float]
    """The rewards of player 0 and player 1."""
    truncated: bool
    """The env cut the game (``max_plies``); otherwise it terminated."""


# --- Kernels ---------------------------------------------------------------------------------
# Those that take the bundles (turn.States, turn.Tables) are inlined into their callers:
# passing a bundle across a compiled call is slow. Numba infers their types, so they carry no
# annotations (hence each `type: ignore[no-untyped-def]`).


def _goes_on(result, ply, max_plies):  # type: ignore[no-untyped-def]
    """Returns whether a game goes on: the engine has not ended it and ``max_plies`` (> 0)
    has not cut it. Run as Python by :func:`rules_ending`, compiled as :func:`goes_on`."""
    return result == K.ONGOING and not (max_plies > 0 and ply >= max_plies)


goes_on = kernel(inline="ir")(_goes_on)


@kernel(inline="ir")
def ending_reason(s, g, max_plies):  # type: ignore[no-untyped-def]
    """Returns why game g ends after a complete move: the rules' reason if the engine ended
    it, Reason.MAX_PLIES at the ply cut (``max_plies`` > 0), Reason.NONE while it goes on."""
    result = result_of(s, g)
    if goes_on(result, ply_of(s, g), max_plies):
        return Reason.NONE
    return reason_of(s, g) if result != K.ONGOING else Reason.MAX_PLIES


@kernel(inline="ir")
def truncates(reason):  # type: ignore[no-untyped-def]
    """Returns whether an ending truncates the game (only Reason.MAX_PLIES: the env cut it,
    the game is not over) rather than terminating it."""
    return reason == Reason.MAX_PLIES


@kernel(inline="ir")
def player_colour(player, first):  # type: ignore[no-untyped-def]
    """Returns the colour a player plays (player 0 plays colour `first`, player 1 the other)."""
    return first if player == 0 else 1 - first


@kernel(inline="ir")
def write_rewards(result, first, loser_only, rewards):  # type: ignore[no-untyped-def]
    """Writes the rewards of a result by player into rewards[0:2] (player 0 plays colour
    `first`): +1 win, -1 loss, 0 draw or unfinished; with `loser_only` the winner gets 0."""
    for player in range(2):
        value = result_value(result, player_colour(player, first))
        rewards[player] = 0.0 if loser_only and value > 0 else value


@kernel(inline="ir")
def end_of_move(s, g, t, first, max_plies, rewards, final_obs):  # type: ignore[no-untyped-def]
    """Ends game g after a complete move, if it is over or cut: returns the reason
    (:func:`ending_reason`; Reason.NONE while it goes on, and nothing is written) and writes
    the rewards by player into `rewards` and the final observation into `final_obs`
    (:func:`truncates` tells truncated from terminated).
    """
    reason = ending_reason(s, g, max_plies)
    if reason != Reason.NONE:
        write_rewards(result_of(s, g), first, False, rewards)
        write_planes(s, g, t, final_obs, side_of(s, g))
    return reason


# --- Python entries (the AEC env) ------------------------------------------------------------


def rules_ending(turn: Turn, first: int, max_plies: int) -> Ending | None:
    """Returns how a turn state's game ends after a complete move (or at the start), by the
    batch env's kernels: the rules' ending, a ``max_plies`` truncation (0: none), or None
    while it goes on."""
    if _goes_on(turn.result, turn.ply, max_plies):  # after every move: kept cheap in Python
        return None
    ENDING_KERNELS.load()
    code = direct_call(ending_reason, (), turn.states, 0, int(max_plies))
    rewards = _rewards(turn.result, first, False)
    winner = rewards.index(1.0) if 1.0 in rewards else None
    return Ending(Reason(code), winner, rewards, bool(truncates(int(code))))


def decided_ending(
    winner: int | None, first: int, reason: Reason | str, loser_only: bool = False
) -> Ending:
    """Returns the ending of a game decided outside the rules (an illegal action, a clock):
    `winner` (a player, None for a draw) wins, the other player loses; it terminates.

    `reason` is a Reason or its label (``"time"``), never ``Reason.NONE`` (the game goes on).

    Raises:
        TypeError: reason is neither a Reason nor a string.
        ValueError: reason is NONE or its label "", or a string that is no Reason's label
            (infos hold a Reason, so an ending needs one: name the closest, e.g. ``"time"``
            for a flag fall, ``"adjudication"`` for a result agreed or imposed).
    """
    code = _ending_code(reason)
    ENDING_KERNELS.load()
    if winner is None:
        result = K.DRAW
    else:
        white_wins = player_colour(int(winner), int(first)) == K.WHITE
        result = K.WHITE_WINS if white_wins else K.BLACK_WINS
    return Ending(code, winner, _rewards(result, first, loser_only), False)


def _ending_code(reason: Reason | str) -> Reason:
    """Returns the Reason of a decided ending: a Reason other than NONE, or its label.

    Raises:
        TypeError: reason is neither a Reason nor a string.
        ValueError: reason is NONE or "", or no Reason's label.
    """
    if isinstance(reason, Reason):
        code = reason
    elif isinstance(reason, str):
        try:
            code = Reason.from_label(reason)
        except ValueError:
            labels = [r.label for r in Reason if r is not Reason.NONE]
            raise ValueError(
                f"reason must be a Reason or one of its labels {labels}, not {shown(reason)}; "
                "infos hold a Reason (a number), so name the ending with the closest one"
            ) from None
    else:
        raise TypeError(f"reason must be a Reason or its label, not {type(reason).__name__}")
    if code is Reason.NONE:
        raise ValueError("reason must name an ending, not Reason.NONE (the game goes on)")
    return code


def _rewards(result: int, first: int, loser_only: bool) -> tuple[float, float]:
    """Returns the rewards of a result by player (:func:`write_rewards`)."""
    rewards = np.zeros(2, np.float64)
    write_rewards(int(result), int(first), bool(loser_only), rewards)
    return float(rewards[0]), float(rewards[1])


def _ending_calls() -> list[tuple[Any, tuple[Any, ...]]]:
    """Returns the ending kernels this module's Python functions call, with arguments of the
    types they call them with (any ruleset's states have the same types)."""
    states = new_states(get_ruleset("english"), 1)
    return [
        (ending_reason, (states, 0, 0)),
        (truncates, (0,)),
        (player_colour, (0, 0)),
        (write_rewards, (0, 0, False, np.zeros(2, np.float64))),
    ]


#: The ending kernels, loaded (or compiled, on a first run) at a process's first ending.
ENDING_KERNELS = K.EntryPoints(_ending_calls)
