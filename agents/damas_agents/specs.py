"""Agent specs: one string names an agent and its budget, for command lines and configs.

    random, greedy              a random legal hop; the best material after its move
    alphabeta:depth=4           alpha-beta search (depth, nodes and/or time; search=1: the
                                first search version, as the rating pool v1 plays it)
    mcts:sims=400               UCT with random rollouts (sims, c)
    openspiel-mcts:sims=1000    OpenSpiel's MCTSBot (English); dame:depth=6 (International)
    hub:/path/to/scan,threads=1 any Hub-protocol engine; options it does not know go to it
    checkpoint:runs/x.pt,sims=64  a trained network (an nnue one: depth, nodes or time)
    pretrained:english          a trained agent shipped in the package (english, international;
                                english-v1: that network forever)

    >>> parse_spec("hub:/opt/scan/scan,book=false")
    ('hub', {'path': '/opt/scan/scan', 'book': False})

Budgets are bounded: ``depth`` 1 to 64 plies (MAX_DEPTH), ``nodes`` 1 to 10**9 per move
(MAX_NODES), ``time`` 0.001 to 3600 seconds per move (MIN_SECONDS, MAX_SECONDS), ``sims`` 1 to
100000 (MAX_SIMS), ``c`` (UCT exploration) 0.001 to 100 (MIN_C, MAX_C); a Hub engine's
``timeout`` (overrun per move) and ``init_timeout`` (start) 0.001 to 3600 seconds. A spec is
checked without importing its agent; a missing package is refused in one line naming the extra.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from damas_agents.search.alphabeta import LATEST_SEARCH, MAX_DEPTH, MIN_SECONDS
from damas_env.checks import shown

__all__ = [
    "KINDS",
    "MAX_C",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_SECONDS",
    "MAX_SIMS",
    "MAX_SPEC_CHARS",
    "MIN_C",
    "MIN_SECONDS",
    "Option",
    "check_option",
    "parse_spec",
    "spec_usage",
]

Value = int | float | bool | str

#: Upper bounds of the budgets a spec may ask for (a search that would run for hours or fill
#: the memory is refused, not started). MAX_DEPTH is the alpha-beta search's own limit.
MAX_NODES = 10**9
MAX_SECONDS = 3600.0
MAX_SIMS = 100_000
MAX_C = 100.0

#: Least values of the float options (MIN_SECONDS, the search's own: a millisecond).
MIN_C = 0.001


@dataclass(frozen=True)
class Option:
    """A numeric option of a kind: its type, its largest value and its least (1 for ints)."""

    type: type
    high: float
    low: float = 1


@dataclass(frozen=True)
class Kind:
    """One agent kind: where its class lives, the options it takes and their types."""

    target: str
    """``module:Class`` (or ``module:function``) that builds the agent, imported only when
    one is made (:func:`damas_agents.extras.import_target`)."""

    options: dict[str, Option] = field(default_factory=dict)
    """Accepted options, their types (ints, floats) and bounds; others are an error."""

    usage: str = ""
    """How the kind is written, for error messages."""

    path: bool = False
    """The first item is a path (``hub:PATH``, ``checkpoint:PATH``) or a name."""

    first: str = "path"
    """The keyword the first item is passed as, when ``path`` is set."""

    open_options: bool = False
    """Any further option is passed through (the Hub engine's own options)."""

    seeded: bool = True
    """The constructor takes ``seed=``."""

    needs: tuple[str, ...] = ()
    """Optional packages (import names) the kind needs, checked before its module is
    imported (see :mod:`damas_agents.extras`)."""


_DEPTH, _SIMS = Option(int, MAX_DEPTH), Option(int, MAX_SIMS)
_NODES = Option(int, MAX_NODES)
_SEARCH = Option(int, LATEST_SEARCH)
_SECONDS = Option(float, MAX_SECONDS, MIN_SECONDS)

KINDS: dict[str, Kind] = {
    "random": Kind("damas_agents.players.classic:RandomAgent", usage="random"),
    "greedy": Kind("damas_agents.players.classic:GreedyAgent", usage="greedy"),
    "alphabeta": Kind(
        "damas_agents.players.classic:AlphaBetaAgent",
        {"depth": _DEPTH, "nodes": _NODES, "time": _SECONDS, "search": _SEARCH},
        usage="alphabeta:depth=N|nodes=N|time=S[,search=V]",
    ),
    "mcts": Kind(
        "damas_agents.players.tree:MCTSAgent",
        {"sims": _SIMS, "c": Option(float, MAX_C, MIN_C)},
        usage="mcts:sims=N[,c=X]",
    ),
    "openspiel-mcts": Kind(
        "damas_agents.players.external:OpenSpielMCTSAgent",
        {"sims": _SIMS},
        usage="openspiel-mcts:sims=N",
    ),
    "dame": Kind(
        "damas_agents.players.external:DameAgent",
        {"depth": _DEPTH},
        usage="dame:depth=N",
        seeded=False,
    ),
    "hub": Kind(
        "damas_agents.players.external:HubAgent",
        {"depth": _DEPTH, "time": _SECONDS, "timeout": _SECONDS, "init_timeout": _SECONDS},
        usage="hub:PATH[,depth=N|time=S][,timeout=S][,init_timeout=S][,cwd=DIR][,option=value...]",
        path=True,
        open_options=True,
        seeded=False,
    ),
    "checkpoint": Kind(
        "damas_agents.players.load:load_agent",
        {"sims": _SIMS, "depth": _DEPTH, "nodes": _NODES, "time": _SECONDS, "search": _SEARCH},
        usage="checkpoint:PATH[,sims=N|depth=N|nodes=N|time=S][,search=V]",
        path=True,
        needs=("torch",),
    ),
    "pretrained": Kind(
        "damas_agents.players.load:load_pretrained",
        {"depth": _DEPTH, "nodes": _NODES, "time": _SECONDS, "search": _SEARCH},
        usage="pretrained:english|international[-vN][,depth=N|nodes=N|time=S][,search=V]",
        path=True,
        first="name",
        needs=("torch",),
    ),
}

#: The longest spec read (a path and a few options fit; a megabyte of text is refused).
MAX_SPEC_CHARS = 4096

_MAX_NUMBER_CHARS = 40  # longer "numbers" stay text (and the regexes stay fast)
# ASCII digits only: Python's \d and int() also take other scripts' digits ("٣").
_INT = re.compile(r"[+-]?[0-9]{1,30}")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def spec_usage() -> str:
    """Returns the accepted spec forms, comma separated (for error messages and --help)."""
    return ", ".join(kind.usage for kind in KINDS.values())


def parse_spec(spec: str) -> tuple[str, dict[str, Value]]:
    """Returns (kind, options) of an agent spec, option values typed and checked.

    Raises:
        ValueError: unknown kind or option, malformed item, or a bad value (not a number,
            not finite, or out of its bounds); says what is accepted.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, not {shown(spec)}; {_accepted()}")
    if len(spec) > MAX_SPEC_CHARS:
        raise ValueError(f"agent spec {shown(spec)} is longer than {MAX_SPEC_CHARS} characters")
    name, _, rest = spec.strip().partition(":")
    kind = KINDS.get(name.lower())
    if kind is None:
        raise ValueError(f"unknown agent kind {shown(name)} in {shown(spec)}; {_accepted()}")
    items = [item.strip() for item in rest.split(",")] if rest else []
    options: dict[str, Value] = {}
    if kind.path:
        if not items or not items[0] or "=" in items[0]:
            raise ValueError(f"agent spec {shown(spec)} needs a {kind.first}: {kind.usage}")
        options[kind.first] = items.pop(0)
    for item in items:
        key, value = _option(spec, kind, item)
        if key in options:
            raise ValueError(f"option {shown(key)} is given twice in agent spec {shown(spec)}")
        options[key] = value
    return name.lower(), options


def _option(spec: str, kind: Kind, item: str) -> tuple[str, Value]:
    """Returns one ``option=value`` item as (name, typed value), checked against the kind."""
    key, eq, text = item.partition("=")
    key = key.strip().lower()
    if not eq or not key or not text.strip():
        raise ValueError(
            f"bad item {shown(item)} in agent spec {shown(spec)}: expected option=value "
            f"({kind.usage})"
        )
    if key not in kind.options and not kind.open_options:
        accepted = ", ".join(kind.options) or "no options"
        raise ValueError(
            f"unknown option {shown(key)} in agent spec {shown(spec)}; {kind.usage} accepts "
            f"{accepted}"
        )
    value = _typed(text.strip())
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(
            f"option {key} in agent spec {shown(spec)} must be a finite number, not {text.strip()}"
        )
    option = kind.options.get(key)
    return key, value if option is None else _checked(spec, key, value, option)


def _typed(text: str) -> Value:
    """Returns a value as an int, float or bool where it looks like one, else the text."""
    if len(text) <= _MAX_NUMBER_CHARS and _INT.fullmatch(text):
        return int(text)
    if len(text) <= _MAX_NUMBER_CHARS and _FLOAT.fullmatch(text):
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _checked(spec: str, key: str, value: Value, option: Option) -> Value:
    """Returns a numeric option converted to its type, or raises if it is out of its bounds."""
    return check_option(f"option {key} in agent spec {shown(spec)}", value, option)


def check_option(name: str, value: object, option: Option) -> int | float:
    """Returns a numeric option converted to its type (an int, or a float that an int may
    give), checked against its bounds.

    Args:
        name: what the value is, as the message's subject (``"option depth in agent spec
            'hub:scan,depth=0'"``).

    Raises:
        ValueError: not a number of the option's type (a bool is none), NaN, or out of its
            bounds; says what is accepted.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (option.type is int and not isinstance(value, int))
        or not option.low <= value <= option.high  # NaN fails it too
    ):
        raise ValueError(f"{name} must be {_bounds(option)}, not {shown(value)}")
    number: int | float = option.type(value)
    return number


def _bounds(option: Option) -> str:
    """Returns the values an option accepts, in words."""
    if option.type is int:
        return f"an integer from {int(option.low)} to {int(option.high)}"
    return f"a number from {option.low:g} to {option.high:g}"


def _accepted() -> str:
    return f"accepted: {spec_usage()}"
