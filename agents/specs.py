"""Agent specs: one string names an agent and its budget, for command lines and configs.

    random                      a uniformly random legal hop
    greedy                      best material after its move
    alphabeta:depth=4           alpha-beta search; depth=N, nodes=N and/or time=S
    mcts:sims=400               UCT with random rollouts; sims=N, c=X
    openspiel-mcts:sims=1000    OpenSpiel's MCTSBot (English)
    dame:depth=6                the dame-rs engine (International)
    hub:/path/to/scan,threads=1 any Hub-protocol engine, with its options
    checkpoint:runs/x.pt,sims=64  a trained network; sims=N searches N PUCT simulations per hop

The grammar is ``kind[:item[,item...]]``; an item is ``option=value`` or, for ``hub`` and
``checkpoint``, the path (first). Values become ints or floats where they look like numbers.

    >>> parse_spec("alphabeta:depth=4,time=0.5")
    ('alphabeta', {'depth': 4, 'time': 0.5})
    >>> parse_spec("hub:/opt/scan/scan,book=false")
    ('hub', {'path': '/opt/scan/scan', 'book': False})

The agent modules are imported only when :func:`make_agent` builds one, so a spec can be
checked without the optional engines installed.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .base import Agent

__all__ = ["KINDS", "parse_spec", "make_agent", "spec_usage"]

Value = int | float | bool | str


@dataclass(frozen=True)
class Kind:
    """One agent kind: where its class lives, the options it takes and their types."""

    target: str
    """``module:Class`` (or ``module:function``) that builds the agent."""

    options: dict[str, type] = field(default_factory=dict)
    """Accepted options and their types (ints, floats); others are an error."""

    usage: str = ""
    """How the kind is written, for error messages."""

    path: bool = False
    """The first item is a path (``hub:PATH``, ``checkpoint:PATH``)."""

    open_options: bool = False
    """Any further option is passed through (the Hub engine's own options)."""

    seeded: bool = True
    """The constructor takes ``seed=``."""


KINDS: dict[str, Kind] = {
    "random": Kind("agents.classic:RandomAgent", usage="random"),
    "greedy": Kind("agents.classic:GreedyAgent", usage="greedy"),
    "alphabeta": Kind(
        "agents.classic:AlphaBetaAgent",
        {"depth": int, "nodes": int, "time": float},
        usage="alphabeta:depth=N|nodes=N|time=S",
    ),
    "mcts": Kind("agents.mcts:MCTSAgent", {"sims": int, "c": float}, usage="mcts:sims=N[,c=X]"),
    "openspiel-mcts": Kind(
        "agents.external:OpenSpielMCTSAgent", {"sims": int}, usage="openspiel-mcts:sims=N"
    ),
    "dame": Kind("agents.external:DameAgent", {"depth": int}, usage="dame:depth=N", seeded=False),
    "hub": Kind(
        "agents.external:HubAgent",
        usage="hub:PATH[,option=value...]",
        path=True,
        open_options=True,
        seeded=False,
    ),
    "checkpoint": Kind(
        "agents.checkpoint:load_agent", {"sims": int}, usage="checkpoint:PATH[,sims=N]", path=True
    ),
}

_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def spec_usage() -> str:
    """Returns the accepted spec forms, comma separated (for error messages and --help)."""
    return ", ".join(kind.usage for kind in KINDS.values())


def parse_spec(spec: str) -> tuple[str, dict[str, Value]]:
    """Returns (kind, options) of an agent spec, option values typed and checked.

    Raises:
        ValueError: unknown kind or option, malformed item, or a bad value; says what is
            accepted.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, not {spec!r}; {_accepted()}")
    name, _, rest = spec.strip().partition(":")
    kind = KINDS.get(name.lower())
    if kind is None:
        raise ValueError(f"unknown agent kind {name!r} in {spec!r}; {_accepted()}")
    items = [item.strip() for item in rest.split(",")] if rest else []
    options: dict[str, Value] = {}
    if kind.path:
        if not items or not items[0] or "=" in items[0]:
            raise ValueError(f"agent spec {spec!r} needs a path: {kind.usage}")
        options["path"] = items.pop(0)
    for item in items:
        key, value = _option(spec, kind, item)
        if key in options:
            raise ValueError(f"option {key!r} is given twice in agent spec {spec!r}")
        options[key] = value
    return name.lower(), options


def _option(spec: str, kind: Kind, item: str) -> tuple[str, Value]:
    """Returns one ``option=value`` item as (name, typed value), checked against the kind."""
    key, eq, text = item.partition("=")
    key = key.strip().lower()
    if not eq or not key or not text.strip():
        raise ValueError(
            f"bad item {item!r} in agent spec {spec!r}: expected option=value ({kind.usage})"
        )
    if key not in kind.options and not kind.open_options:
        accepted = ", ".join(kind.options) or "no options"
        raise ValueError(
            f"unknown option {key!r} in agent spec {spec!r}; {kind.usage} accepts {accepted}"
        )
    value = _typed(text.strip())
    expected = kind.options.get(key)
    if expected is None:
        return key, value
    return key, _checked(spec, key, value, expected)


def _typed(text: str) -> Value:
    """Returns a value as an int, float or bool where it looks like one, else the text."""
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _checked(spec: str, key: str, value: Value, expected: type) -> Value:
    """Returns a numeric option converted to its type, or raises if it is not a positive one."""
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if not (is_int or (expected is float and isinstance(value, float))):
        what = "an integer" if expected is int else "a number"
        raise ValueError(f"option {key} in agent spec {spec!r} must be {what}, not {value!r}")
    assert isinstance(value, (int, float))
    if value <= 0:
        raise ValueError(f"option {key} in agent spec {spec!r} must be positive, not {value!r}")
    return int(value) if expected is int else float(value)


def _accepted() -> str:
    return f"accepted: {spec_usage()}"


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Returns the agent a spec names, seeded where the agent takes a seed.

    Raises:
        ValueError: the spec is malformed (see :func:`parse_spec`).
        agents.checkpoint.CheckpointError: ``checkpoint:PATH`` names no usable checkpoint.
        ImportError: the agent's module, or the external engine it drives, is missing.
    """
    kind_name, options = parse_spec(spec)
    kind = KINDS[kind_name]
    build = _target(kind_name, kind)
    kwargs: dict[str, Any] = dict(options)
    if kind.seeded:
        kwargs["seed"] = seed
    agent = build(**kwargs)
    return agent


def _target(kind_name: str, kind: Kind) -> Callable[..., Any]:
    """Returns the class or function that builds a kind, importing its module now."""
    module_name, _, attr = kind.target.partition(":")
    module = importlib.import_module(module_name)
    build: Callable[..., Any] = getattr(module, attr)
    return build
