"""Argument checks for the public API, and input quoted safely in error messages.

One home for refusing a wrong type or value the same way everywhere: the envs, the batch
env, notation, rulesets and the agents' configs and checkpoints all name a bad argument
through these functions. Input can be hostile (a 1 MB string, a 5000-digit int, a YAML
alias bomb), so an error message shows it through :func:`shown`, which is bounded in depth,
width and length.
"""

from __future__ import annotations

import reprlib
from typing import Any

import numpy as np

__all__ = [
    "INT64_MAX",
    "checked_bool",
    "checked_int",
    "checked_options",
    "checked_seed",
    "shown",
]

INT64_MAX = int(np.iinfo(np.int64).max)

# reprlib bounds the depth and width shown: YAML aliases can make a value exponentially big.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxtuple = 2, 4, 4, 4
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60


def shown(value: Any, limit: int = 60) -> str:
    """Returns a short repr of input for an error message, at most `limit` characters."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int of more digits than Python converts to text
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def checked_int(name: str, value: Any, low: int, high: int = INT64_MAX) -> int:
    """Returns an integer argument (a Python or numpy integer, not a bool) as an int.

    Raises:
        TypeError: value is not an integer.
        ValueError: value is outside [low, high].
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {type(value).__name__} {shown(value)}")
    if not low <= value <= high:
        bounds = f">= {low}" if high >= INT64_MAX else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be an int {bounds}, not {shown(value)}")
    return int(value)


def checked_bool(name: str, value: Any) -> bool:
    """Returns a bool argument (True, False or a numpy bool) as a bool.

    Raises:
        TypeError: value is not a bool (a truthy string or int is refused, not guessed).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {shown(value)}")
    return bool(value)


def checked_seed(seed: Any) -> int | None:
    """Returns a seed argument: None, or an int >= 0 (what numpy's SeedSequence takes).

    Raises:
        TypeError: seed is neither None nor an integer.
        ValueError: seed is negative or above 2**128 - 1.
    """
    return None if seed is None else checked_int("seed", seed, 0, high=2**128 - 1)


def checked_options(options: Any) -> dict[str, Any]:
    """Returns reset's options: a dict, empty for None.

    Raises:
        TypeError: options is neither None nor a dict.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict or None, not {type(options).__name__}")
    return options
