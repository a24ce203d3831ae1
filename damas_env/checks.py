"""Argument checks for the public API, input quoted safely in error messages, small files
read safely, and frozen dataclasses built from plain values.

The envs, notation, rulesets and the agents' configs and checkpoints all refuse a bad
argument through these functions. Input can be hostile (a 1 MB string, a 5000-digit int),
so an error message shows it through :func:`shown`, bounded in depth, width and length.
"""

from __future__ import annotations

import dataclasses
import difflib
import errno
import math
import os
import re
import reprlib
import stat
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import yaml

__all__ = [
    "INT64_MAX",
    "checked_bool",
    "checked_int",
    "checked_options",
    "checked_seed",
    "closest",
    "dataclass_from_dict",
    "did_you_mean",
    "DuplicateKeyError",
    "plain_fields",
    "type_name",
    "unknown_key_error",
    "load_yaml",
    "read_regular_file",
    "shown",
    "yaml_error_place",
]

INT64_MAX = int(np.iinfo(np.int64).max)

T = TypeVar("T")

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


# --- Frozen dataclasses from plain values ----------------------------------------------------
# The one builder of a typed dataclass from a mapping as YAML or JSON give it (lists, ints,
# strings): the training config's sections strictly, a ruleset's switches leniently (the
# Ruleset checks its own values, also when it is built in Python).


def type_name(hint: Any) -> str:
    """Returns how an error message names a field's type: ``int``, ``one of 'a', 'b'``,
    ``a list of str`` or ``a mapping``."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(hint))
    if origin is tuple:
        return "a list of " + type_name(typing.get_args(hint)[0])
    if origin is dict:
        return "a mapping"
    return getattr(hint, "__name__", str(hint))


def dataclass_from_dict(
    cls: type[T],
    data: Any,
    path: str = "",
    *,
    name: str = "the mapping",
    error: Callable[[str], Exception] = ValueError,
    check: Callable[[int | float, str], None] | None = None,
) -> T:
    """Returns a dataclass built from a mapping, every value checked against its field's type.

    A missing key takes the field's default and None stands for an empty mapping. Lists
    become tuples, ints become floats where the field wants them, and a field that is a
    dataclass is built the same way from a nested mapping.

    Args:
        cls: the dataclass.
        data: the mapping of field names to plain values.
        path: the key path of `data`, which messages start with (``"train"``); "" at the top.
        name: what messages call `data` at the top (``"the config"``).
        error: the exception class raised.
        check: called with each number and its key path (``"train.lr"``) once its type is
            right, to refuse a value out of range by raising.

    Raises:
        Exception: an `error` naming the key path: "train must be a mapping...",
            "unknown key 'train.lrr' (did you mean 'lr'?)...", "train.lr must be float,
            not 'fast'", "... must be a finite number...", or what `check` raises.
    """
    where = path or name
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise error(f"{where} must be a mapping of keys to values, not {shown(data)}")
    hints = _field_hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    values = {}
    for key, value in data.items():
        key_path = f"{path}.{key}" if path else str(key)
        if key not in hints:
            raise unknown_key_error(str(key), known, key_path, error)
        values[key] = _checked_value(value, hints[key], key_path, error, check)
    return cls(**values)


def unknown_key_error(
    key: str, known: list[str], path: str, error: Callable[[str], Exception] = ValueError
) -> Exception:
    """Returns the error for an unknown key at a key path: it suggests the closest known key
    and lists them all."""
    hint = did_you_mean(key, known)
    return error(f"unknown key {shown(path)}{hint}; known keys here: {', '.join(known)}")


def _checked_value(
    value: Any,
    hint: Any,
    path: str,
    error: Callable[[str], Exception],
    check: Callable[[int | float, str], None] | None,
) -> Any:
    """Returns `value` checked (and, for floats and lists, converted) against a field's type."""
    if dataclasses.is_dataclass(hint):
        section: type = hint  # type: ignore[assignment]
        return dataclass_from_dict(section, value, path, error=error, check=check)
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list | tuple):
            raise error(f"{path} must be {type_name(hint)}, not {shown(value)}")
        item = typing.get_args(hint)[0]
        return tuple(
            _checked_value(v, item, f"{path}[{i}]", error, check) for i, v in enumerate(value)
        )
    ok, value = _matched(value, hint, path, error)
    if not ok:
        raise error(f"{path} must be {type_name(hint)}, not {shown(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{path} must be a finite number, not {shown(value)}")
    if check is not None and isinstance(value, int | float):
        check(value, path)
    return value


def _matched(
    value: Any, hint: Any, path: str, error: Callable[[str], Exception]
) -> tuple[bool, Any]:
    """Returns whether a plain value has a field's (non-tuple, non-section) type, and the value
    as the field holds it (a float for an int given to a float field, a dict copied)."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        return isinstance(value, str) and value in typing.get_args(hint), value
    if origin is dict:
        ok = isinstance(value, dict) and all(isinstance(k, str) for k in value)
        return ok, dict(value) if ok else value
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return ok, _as_float(value, path, error) if ok else value
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    return isinstance(value, hint), value


def _as_float(value: int | float, path: str, error: Callable[[str], Exception]) -> float:
    try:
        return float(value)
    except OverflowError:  # an int too large for a float
        raise error(f"{path} must be a finite number, not {shown(value)}") from None


def plain_fields(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """Returns a mapping's values in the form the dataclass's fields hold them, for a class
    that checks its own values: the lists of tuple fields become tuples, and everything else
    (an unknown key, a value of the wrong type) is left for the class to refuse."""
    hints = _field_hints(cls)
    return {
        k: tuple(v) if isinstance(v, list) and _is_tuple(hints.get(k)) else v
        for k, v in data.items()
    }


_HINTS: dict[type, dict[str, Any]] = {}


def _field_hints(cls: type) -> dict[str, Any]:
    """Returns the type hints of a dataclass's fields, their string annotations resolved
    (once per class)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _is_tuple(hint: Any) -> bool:
    return hint is tuple or typing.get_origin(hint) is tuple
