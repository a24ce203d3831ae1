"""Building agents from specs: :func:`make_agent` turns a spec string (the language of
:mod:`damas_agents.specs`) into an agent, importing its module only then. A command line
also takes a Python agent, ``python:MODULE:ATTR`` (:func:`command_line_agent`); a spec never
does, since configs are data and a spec must not run code.

    agent = make_agent("alphabeta:depth=4", seed=0, rules="english")
    source = command_line_agent("python:my_agent.py:policy", rules="english")
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from inspect import Parameter
from pathlib import Path
from types import ModuleType
from typing import Any

from damas_agents.extras import import_target, require
from damas_agents.players.base import Agent, PolicyAgent
from damas_agents.specs import KINDS, parse_spec
from damas_env.checks import shown
from damas_env.rules import Ruleset, get_ruleset

__all__ = [
    "PYTHON_PREFIX",
    "PYTHON_USAGE",
    "PythonAgent",
    "check_plays",
    "command_line_agent",
    "make_agent",
    "python_agent",
    "python_object",
]


def make_agent(spec: str, seed: int | None = None, rules: Ruleset | str | None = None) -> Agent:
    """Returns the agent a spec names, seeded where the agent takes a seed.

    Args:
        spec: the agent spec.
        seed: the agent's seed (for kinds that take one).
        rules: the ruleset it will play, if known: an agent that cannot play it (a checkpoint
            trained on other rules, an engine of one variant) is refused now, not in the game.

    Raises:
        ValueError: the spec is malformed (see :func:`parse_spec`), or the agent cannot play
            `rules`.
        CheckpointError: ``checkpoint:PATH`` names no usable checkpoint
            (:class:`damas_agents.models.checkpoint.CheckpointError`).
        ImportError: the agent's module, or the external engine it drives, is missing
            (:class:`damas_agents.extras.MissingExtraError` names the extra to install).
    """
    kind_name, options = parse_spec(spec)
    kind = KINDS[kind_name]
    for module in kind.needs:  # before the import: one line naming the extra, no traceback
        require(module, f"agent {shown(spec)}")
    build: Callable[..., Any] = import_target(kind.target)
    kwargs: dict[str, Any] = dict(options)
    if kind.seeded:
        kwargs["seed"] = seed
    agent: Agent = build(**kwargs)
    if rules is not None:
        check_plays(agent, rules)
    return agent


def check_plays(agent: Agent, rules: Ruleset | str) -> None:
    """Raises ValueError if an agent says it cannot play a ruleset.

    Agents bound to rules (a trained network, an engine of one variant) have a
    ``check_rules(rules)`` method that raises; other agents play any ruleset.
    """
    check = getattr(agent, "check_rules", None)
    if callable(check):
        check(get_ruleset(rules))


# --- Python agents, named on a command line only --------------------------------------------

#: How a command line names a Python agent: ``python:MODULE:ATTR`` or ``python:FILE.py:ATTR``.
#: Only the commands take it (never :func:`make_agent`, which reads the specs of configs): it
#: runs the code it names.
PYTHON_PREFIX = "python:"
PYTHON_USAGE = "python:MODULE:ATTR|python:FILE.py:ATTR"

_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_FILES: dict[Path, ModuleType] = {}  # the files imported in this process, by path


@dataclass(frozen=True)
class PythonAgent:
    """A factory of the agent a Python object names (see :func:`python_agent`): it holds only
    the target's text, so worker processes import the target themselves.

    Calling it returns the agent: the object called (with ``seed=`` if it takes one) when it
    is an agent class or factory, or a :class:`PolicyAgent` when it is a policy function.
    """

    target: str
    """``MODULE:ATTR`` or ``FILE.py:ATTR``, the file's path absolute."""
    name: str
    """The name a policy plays under: the target as the user wrote it."""

    def __call__(self, seed: int | None = None) -> Agent:
        return _agent_of(python_object(self.target), self.name, seed)


def command_line_agent(
    text: str, rules: Ruleset | str, workers: int = 1
) -> str | Agent | PythonAgent:
    """Returns what a command's agent argument names, for the arena or
    :func:`damas_agents.rating.rate`: a spec, checked (the caller builds it), or the agent of
    ``python:TARGET`` (:func:`python_agent`), built once now so that a bad one stops the
    command before any game.

    Raises:
        ValueError: a bad spec (as :func:`parse_spec`), or as :func:`python_agent`; an agent
            instance with `workers` > 1 (each worker process builds its own agents).
    """
    if not text.startswith(PYTHON_PREFIX):
        try:
            parse_spec(text)
        except ValueError as error:
            first = text.partition(":")[0]
            if ":" in text and first.lower() not in KINDS and re.search(r"[./\\]", first):
                raise ValueError(
                    f"{error}; a Python agent is written {PYTHON_PREFIX}{text}"
                ) from None
            raise
        return text
    source = python_agent(text)
    if not isinstance(source, PythonAgent) and workers > 1:
        raise ValueError(
            f"{text} is an agent instance, which plays in this process only: use --workers 1, "
            "or name its class, a factory or a policy function"
        )
    agent = source(seed=0) if isinstance(source, PythonAgent) else source
    try:
        check_plays(agent, rules)
    finally:
        if agent is not source:
            _close(agent)
    return source


def python_agent(text: str) -> Agent | PythonAgent:
    """Returns what ``python:TARGET`` names: an agent instance as it is, anything else as a
    :class:`PythonAgent` factory. Imports the target now.

    TARGET is ``MODULE:ATTR`` (a module on the path or in the current folder) or
    ``FILE.py:ATTR``; ATTR may be dotted. The object is an agent, an agent class or factory
    (called with no arguments, or with ``seed=``), or a policy ``policy(planes, mask) ->
    action`` (played by :class:`PolicyAgent`).

    Raises:
        ValueError: a malformed target, a missing file or module, an import that failed, no
            such attribute, or an object that is none of those (one line, naming it).
    """
    name = text.removeprefix(PYTHON_PREFIX)
    where, _, attr = name.rpartition(":")
    target = f"{Path(where).expanduser().resolve()}:{attr}" if where.endswith(".py") else name
    found = python_object(target, text)
    if isinstance(found, Agent) and not isinstance(found, type):
        return found
    if not callable(found):
        raise ValueError(f"{text} is {_a(found)}, not {_WANTED}")
    _kind(found, text)  # a callable of the wrong arguments is refused now
    return PythonAgent(target, name)


def python_object(target: str, label: str | None = None) -> Any:
    """Returns the object ``MODULE:ATTR`` or ``FILE.py:ATTR`` names, importing it now (a
    file once per process, with its folder on the path, as Python runs a script).

    Raises:
        ValueError: as :func:`python_agent`; `label` names the target in messages.
    """
    label = label or target
    where, sep, attr = target.rpartition(":")
    if not (sep and where and attr):
        raise ValueError(f"{shown(label)} names no object: write {PYTHON_USAGE}")
    if where.endswith(".py"):
        module = _import_file(Path(where), label)
    elif _MODULE_NAME.fullmatch(where):
        module = _import_module(where, label)
    else:
        raise ValueError(f"{shown(label)}: {shown(where)} is neither a module name nor a .py file")
    found: Any = module
    for part in attr.split("."):
        if not hasattr(found, part):
            near = difflib.get_close_matches(part, dir(found), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            where = label.removeprefix(PYTHON_PREFIX).rpartition(":")[0] or where
            raise ValueError(f"{label}: {where} has no attribute {attr!r}{hint}")
        found = getattr(found, part)
    return found


def _import_file(path: Path, label: str) -> ModuleType:
    """Returns a Python file run as a module (once per process)."""
    path = path.expanduser().resolve()
    if path in _FILES:
        return _FILES[path]
    if not path.is_file():
        raise ValueError(f"{label}: no such file {path}")
    folder = str(path.parent)
    if folder not in sys.path:  # its own imports find the modules beside it
        sys.path.insert(0, folder)
    name = f"damas_python_agent_{len(_FILES)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{label}: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        del sys.modules[name]
        raise ValueError(f"{label}: importing {path.name} failed: {_error(error)}") from error
    _FILES[path] = module
    return module


def _import_module(name: str, label: str) -> ModuleType:
    """Returns a module imported by name, the current folder on the path (as ``python -m``)."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as error:
        raise ValueError(f"{label}: importing {name} failed: {_error(error)}") from error


_WANTED = "an agent, an agent class or factory, or a policy function policy(planes, mask)"


def _kind(found: Callable[..., Any], label: str) -> str:
    """Returns "factory" (a class, or a callable of no required argument) or "policy" (two
    required positional arguments), or raises ValueError."""
    if isinstance(found, type):
        return "factory"
    try:
        parameters = inspect.signature(found).parameters.values()
    except (TypeError, ValueError):
        raise ValueError(f"{label}: cannot read the arguments of {_a(found)}") from None
    variadic = (Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD)
    required = [p for p in parameters if p.default is p.empty and p.kind not in variadic]
    if not required:
        return "factory"
    if len(required) == 2 and all(p.kind is not Parameter.KEYWORD_ONLY for p in required):
        return "policy"
    names = ", ".join(p.name for p in required)
    raise ValueError(
        f"{label} takes ({names}): a policy takes (planes, mask), an agent factory no "
        "arguments or seed="
    )


def _agent_of(found: Any, name: str, seed: int | None) -> Agent:
    """Returns the agent a Python object gives: itself, what it builds, or its policy played."""
    if isinstance(found, Agent) and not isinstance(found, type):
        return found
    if _kind(found, name) == "policy":
        return PolicyAgent(found, name)
    try:
        made = found(seed=seed) if _takes_seed(found) else found()
    except Exception as error:
        raise ValueError(f"{name}: building the agent failed: {_error(error)}") from error
    if not isinstance(made, Agent) or isinstance(made, type):
        raise ValueError(f"{name}() returned {_a(made)}, not an agent (name, reset(), act())")
    return made


def _takes_seed(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "seed" or p.kind is Parameter.VAR_KEYWORD for p in parameters)


def _a(value: object) -> str:
    """Returns what a value is, in words: "an int", "a list"."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".rstrip(": ")


def _close(agent: object) -> None:
    """Closes an agent that holds a resource (an external engine's process)."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()
