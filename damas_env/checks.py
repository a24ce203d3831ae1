"""Argument checks for the public API, input quoted safely in error messages, and small
files read safely.

The envs, notation, rulesets and the agents' configs and checkpoints all refuse a bad
argument through these functions. Input can be hostile (a 1 MB string, a 5000-digit int),
so an error message shows it through :func:`shown`, bounded in depth, width and length.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import reprlib
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

__all__ = [
    "INT64_MAX",
    "checked_bool",
    "checked_int",
    "checked_options",
    "checked_seed",
    "closest",
    "did_you_mean",
    "DuplicateKeyError",
    "load_yaml",
    "read_regular_file",
    "shown",
    "yaml_error_place",
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


def read_regular_file(path: str | Path, limit: int) -> bytes:
    """Returns up to `limit` bytes of a regular file.

    The file is opened without blocking and checked before it is read, so a FIFO, a device
    or a directory is refused at once instead of hanging or streaming without end.

    Raises:
        OSError: the file cannot be opened, or is not a regular file ("not a regular file").
        ValueError: the path holds a NUL byte.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder itself
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    with os.fdopen(fd, "rb") as f:
        return f.read(limit)


def yaml_error_place(error: BaseException) -> str:
    """Returns " at line L, column C" for a YAML error that knows where it is, else "".

    Messages about a file give its place, never its text: a file may hold secrets.
    """
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""


# --- YAML, read strictly ---------------------------------------------------------------------


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping holds the same key twice (YAML would silently keep the last value)."""


class _StrictLoader(yaml.SafeLoader):
    """A safe loader that reads YAML 1.2 floats such as ``3e-4`` (PyYAML needs ``3.0e-4``)
    and refuses a key given twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Returns the mapping of a node; raises DuplicateKeyError for a repeated key."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *defaults` may be overridden by the keys after it
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in seen
            except TypeError:
                continue  # an unhashable key: the SafeLoader reports it
            if repeated:
                raise DuplicateKeyError(
                    None, None, f"key {shown(key)} given twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# Copy the resolver lists first: add_implicit_resolver would append to SafeLoader's own.
_StrictLoader.yaml_implicit_resolvers = {
    k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def load_yaml(text: str) -> Any:
    """Returns the plain values of a YAML text, read strictly: safe (no object tags), YAML 1.2
    floats, and a key given twice in one mapping refused. The one YAML reader of rules files
    and training configs.

    Raises:
        yaml.YAMLError: the text is not YAML (:class:`DuplicateKeyError` for a repeated key;
            :func:`yaml_error_place` gives where).
        RecursionError: the text is nested too deeply.
        ValueError: an int of too many digits.
    """
    return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass: no object tags


# --- Misspelt names ------------------------------------------------------------------------


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """Returns " (did you mean 'x'?)" for the choice closest to a misspelt word, else "".

    The one hint for an unknown name: rule switches, variants, config keys, bundled configs.
    Variant names ask for a closer match (cutoff 0.75): "frisian" is a variant of its own,
    not a misspelt "russian".
    """
    close = closest(word, choices, cutoff)
    return f" (did you mean {close!r}?)" if close else ""


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """Returns the choice closest to a word (difflib's ratio at least `cutoff`), else None;
    only the word's first 100 characters are compared (a megabyte name stays fast)."""
    close = difflib.get_close_matches(word[:100], sorted(choices), n=1, cutoff=cutoff)
    return close[0] if close else None
