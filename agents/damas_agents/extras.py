"""Optional packages: which extra of damas-env installs each, and the one error that says so;
and the one resolver of ``module:attr`` names, which the registries of agent kinds and
training algorithms import only when one is used.

Torch-free and cheap to import: a command checks what it needs before it writes a file or
compiles a kernel, so that a missing package costs the user one line, not a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

__all__ = ["EXTRAS", "MissingExtraError", "import_target", "require", "require_module"]

#: Import name -> (what it is called, the extra of damas-env that installs it).
EXTRAS: dict[str, tuple[str, str]] = {
    "torch": ("PyTorch", "train"),
    "tensorboard": ("TensorBoard", "train"),
    "tqdm": ("tqdm", "train"),
    "pygame": ("pygame", "render"),
    "ray": ("Ray", "ray"),
    "draughts": ("pydraughts", "peers"),
    "pyspiel": ("OpenSpiel", "openspiel"),
    "dame": ("dame-rs", "dame"),
    "starlette": ("Starlette", "web"),
    "uvicorn": ("uvicorn", "web"),
    "PIL": ("Pillow", "web"),
}


class MissingExtraError(ImportError):
    """An optional package a feature needs is not installed; the message names the extra."""


def _message(module: str, user: str) -> str:
    top = module.partition(".")[0]
    name, extra = EXTRAS.get(top, (top, ""))
    install = f"pip install 'damas-env[{extra}]'" if extra else f"pip install {top}"
    return f"{user} needs {name}, which is not installed: {install}"


def require(module: str, user: str) -> None:
    """Raises MissingExtraError unless `module` can be imported; imports nothing.

    Args:
        module: the import name (``"torch"``).
        user: what needs it, as the message's subject (``"damas train"``).
    """
    if importlib.util.find_spec(module.partition(".")[0]) is None:
        raise MissingExtraError(_message(module, user), name=module)


def require_module(module: str, user: str) -> ModuleType:
    """Imports and returns `module`, or raises MissingExtraError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.partition(".")[0] != module.partition(".")[0]:
            raise  # the package is there, something it imports is not: not ours to rename
        raise MissingExtraError(_message(module, user), name=module) from exc


def import_target(target: str) -> Any:
    """Returns the object a ``"module:attr"`` name points to, importing its module now.

    Raises:
        ValueError: `target` is not of the form ``module:attr``.
        ImportError: the module cannot be imported.
        AttributeError: the module has no such attribute (the message names the target).
    """
    module_name, sep, attr = target.partition(":")
    if not (sep and module_name and attr) or ":" in attr:
        raise ValueError(f"{target!r} is not a 'module:attr' name")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise AttributeError(f"{target!r}: {module_name} has no attribute {attr!r}") from None
