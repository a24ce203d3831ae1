"""Helpers shared by the tests: variant lists from the registry, random games' positions, a
tiny training config, hostile checkpoints, a snapshot of everything an env holds, and the
code blocks and commands of the README and the docs.

Tests import it as ``from helpers import ...`` (pytest puts ``tests/`` on the path, as for
``agent_play``). It imports neither torch nor the trainers at import time.
"""

from __future__ import annotations

import copy
import importlib.util
import re
import shlex
import struct
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from damas_env.rules import RULES_DIR, get_ruleset, ruleset_names

# --- Variants, from the registry ------------------------------------------------------------

#: Every distinct registered ruleset: each name whose ruleset carries that name, so the
#: aliases ("american", "checkers", ...) are left out, the giveaway twins and presets kept.
RULESETS: list[str] = [name for name in ruleset_names() if get_ruleset(name).name == name]

#: The rules presets shipped as YAML files in ``damas_env/presets``.
PRESETS: list[str] = [name for name in RULESETS if (RULES_DIR / f"{name}.yaml").is_file()]

#: The built-in variants: every ruleset that is neither a preset nor a giveaway twin.
VARIANTS: list[str] = [
    name for name in RULESETS if name not in PRESETS and not get_ruleset(name).giveaway
]

#: One built-in variant of each board size (the first in the registry's order): for tests
#: whose subject depends on the board's size only.
ONE_PER_BOARD_SIZE: list[str] = []
for _name in VARIANTS:
    if all(get_ruleset(v).board_size != get_ruleset(_name).board_size for v in ONE_PER_BOARD_SIZE):
        ONE_PER_BOARD_SIZE.append(_name)

#: The giveaway twin of every built-in variant.
GIVEAWAY: list[str] = [name for name in RULESETS if get_ruleset(name).giveaway]


# --- Positions --------------------------------------------------------------------------------


def random_game_positions(
    engine: Any, rng: np.random.Generator, games: int, plies: int
) -> list[tuple[np.ndarray, int]]:
    """Returns the positions (board, side to move) of random games of an engine's ruleset,
    every legal move alike (kings come in as the games go on)."""
    from damas_env import kernels as K

    mv, ws = K.new_move_buffer(), engine.workspace
    positions = []
    for _ in range(games):
        board = engine.start_board()
        side = 0 if engine.rules.first_player == "white" else 1
        for _ in range(plies):
            n = K.generate_moves(board, side, engine.ray, engine.rule_array, mv, True, ws)
            positions.append((board.copy(), side))
            if n == 0:
                break
            K.apply_move(board, mv, int(rng.integers(n)))
            side = 1 - side
    return positions


# --- A training run of seconds --------------------------------------------------------------


def tiny_training(**sections: Any) -> dict[str, Any]:
    """Returns a fresh config dict for a training run of a few seconds: a tiny network, two
    games, few simulations and no evaluation.

    Each keyword updates that section of the config (a dict is merged into the section's,
    anything else replaces it), e.g. ``tiny_training(env={"max_plies": 8}, algorithm="ppo")``.
    """
    data: dict[str, Any] = {
        "name": "tiny",
        "env": {"variant": "english", "num_envs": 2, "max_plies": 20},
        "network": {"channels": 8, "blocks": 1, "value_hidden": 8, "device": "cpu"},
        "train": {"iterations": 4, "batch_size": 8, "replay_size": 64},
        "mcts": {"simulations": 2, "leaves_per_game": 1, "steps_per_iteration": 1},
        "eval": {"every": 0},
    }
    for key, value in sections.items():
        old = data.get(key)
        data[key] = {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value
    return data


def tiny_config(**sections: Any) -> Any:
    """Returns :func:`tiny_training`'s dict as an ``damas_agents.models.config.Config``."""
    from damas_agents.models.config import config_from_dict

    return config_from_dict(tiny_training(**sections))


# --- Hostile checkpoints --------------------------------------------------------------------


class Exploit:
    """An object whose unpickling would call ``print("pwned")``: what ``torch.load`` without
    ``weights_only`` would run. A checkpoint holding one must be refused unread."""

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str]]:
        return (print, ("pwned",))


def crafted_checkpoint(
    source: Path | dict[str, Any], target: Path, change: Callable[[dict[str, Any]], Any]
) -> Path:
    """Writes a checkpoint's contents with `change` applied to `target`; returns `target`.

    `source` is a checkpoint file (read with ``weights_only``) or contents already read,
    which are deep-copied first and so left as they were.
    """
    import torch

    if isinstance(source, dict):
        data = copy.deepcopy(source)
    else:
        data = torch.load(source, weights_only=True)
    change(data)
    torch.save(data, target)
    return target


# --- Snapshots of an env's full state -------------------------------------------------------

#: Attributes, as ``Class.attribute``, that are per-call scratch: written by a call before
#: they are read, holding no game state. The batch env's status of each game in the last
#: call, its retry counts, its action buffer and its route and move-generation workspaces;
#: the engine's buffer of generated moves (refusing a hop lists the legal ones).
SCRATCH = frozenset(
    {
        "DraughtsBatchEnv._status",
        "DraughtsBatchEnv._trouble",
        "DraughtsBatchEnv._actions",
        "DraughtsBatchEnv._scratch",
        "DraughtsBatchEnv._ws",
        "Engine.moves",
    }
)

#: Modules whose objects a snapshot walks into; any other object is compared by identity.
_WALKED = ("damas_env", "pettingzoo", "gymnasium")


def state_of(obj: Any, skip: Iterable[str] = SCRATCH) -> dict[str, Any]:
    """Returns everything `obj` holds, flattened to ``{path: value}`` for comparing bit for bit.

    Walks the attributes of objects from damas_env, PettingZoo and Gymnasium (wrappers,
    the raw env, its turn state, spaces), dicts, lists and tuples. Arrays are compared by
    dtype, shape and bytes, floats by their bits, random generators by their state, anything
    else (functions, compiled kernels) by identity. Attributes named in `skip`
    (``Class.attribute``) are left out,
    and so is the object they hold wherever else it appears.
    """
    out: dict[str, Any] = {}
    skipped: set[int] = set()
    _walk(obj, "$", out, set(), frozenset(skip), skipped)
    return out


def _walk(
    obj: Any,
    path: str,
    out: dict[str, Any],
    seen: set[int],
    skip: frozenset[str],
    skipped: set[int],
) -> None:
    """Adds obj's leaves under `path` to `out` (see :func:`state_of`)."""
    if id(obj) in skipped:
        return
    if isinstance(obj, np.ndarray):
        out[path] = (obj.dtype.str, obj.shape, obj.tobytes())
    elif isinstance(obj, float | np.floating):
        out[path] = (type(obj).__name__, struct.pack("<d", float(obj)))
    elif obj is None or isinstance(obj, bool | int | str | bytes | np.generic):
        out[path] = (type(obj).__name__, obj)
    elif isinstance(obj, np.random.Generator):
        out[path] = ("Generator", repr(obj.bit_generator.state))
    elif id(obj) in seen:
        out[path] = ("seen", id(obj))
    else:
        seen.add(id(obj))
        _walk_container(obj, path, out, seen, skip, skipped)


def _walk_container(
    obj: Any,
    path: str,
    out: dict[str, Any],
    seen: set[int],
    skip: frozenset[str],
    skipped: set[int],
) -> None:
    """Walks a dict, list, tuple or an object of the walked modules; notes anything else."""
    if isinstance(obj, dict):
        out[path] = ("dict", [repr(key) for key in obj])
        for key, value in obj.items():
            _walk(value, f"{path}[{key!r}]", out, seen, skip, skipped)
    elif isinstance(obj, list | tuple):
        out[path] = (type(obj).__name__, len(obj))
        for i, value in enumerate(obj):
            _walk(value, f"{path}[{i}]", out, seen, skip, skipped)
    elif type(obj).__module__.startswith(_WALKED) and hasattr(obj, "__dict__"):
        out[path] = (type(obj).__qualname__, sorted(vars(obj)))
        attributes = vars(obj)
        owner = type(obj).__name__
        skipped.update(id(v) for k, v in attributes.items() if f"{owner}.{k}" in skip)
        for name, value in attributes.items():
            _walk(value, f"{path}.{name}", out, seen, skip, skipped)
    else:
        out[path] = ("object", type(obj).__qualname__, id(obj))


def env_state(env: Any) -> dict[str, Any]:
    """Returns :func:`state_of` an env, a PettingZoo one after it observed every agent: its
    turn lists the routes on the first look (as a refused action may), which changes no
    position but fills a cache.
    """
    raw = getattr(env, "unwrapped", env)
    if getattr(raw, "agents", None) and hasattr(raw, "possible_agents"):
        for agent in raw.possible_agents:
            raw.observe(agent)
    return state_of(env)


def assert_same_state(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Asserts two :func:`state_of` snapshots are identical, naming the paths that differ."""
    missing = object()
    paths = before.keys() | after.keys()
    changed = sorted(p for p in paths if before.get(p, missing) != after.get(p, missing))
    assert not changed, f"changed: {changed[:20]}"


# --- The README and the docs: their code blocks and commands --------------------------------

ROOT = Path(__file__).resolve().parent.parent

#: History in text for users (docstrings, the README, the docs; the changelog aside):
#: "issue 12", "#12", and a revision hash: 7 to 40 hex digits with a digit and a letter.
HISTORY = re.compile(
    r"\bissue\s+\d|#\d|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", re.IGNORECASE
)
#: The internal names of the rule texts behind the presets ("seed000", "seed 002"), and
#: issues named in words ("the issue's target"): a text for users says what a thing is.
INTERNAL = re.compile(
    r"\bseed\s*_?\d{3}(?!\d)|\bseeds?\s+(?:document|text|rule)|\bissue(?:'s|s)?\b", re.IGNORECASE
)

#: A Python block's test marker, an HTML comment on the line before its fence:
#: ``<!-- docs-test: skip REASON -->`` or ``<!-- docs-test: needs MODULE -->``.
_BLOCK = re.compile(r"(?:<!-- docs-test: (skip|needs) (.+?) -->\n)?```python\n(.*?)```", re.S)
#: Lines of a shell block that show output, not commands (the arena's report).
_OUTPUT = ("English:", "score ", "Elo ", "average", "end", "by ")


def python_blocks(text: str) -> list[tuple[str, str, str]]:
    """Returns the ```python blocks of a Markdown text as (marker, argument, code); the
    marker is "" for a block the tests run as it is."""
    return [(m.group(1) or "", m.group(2) or "", m.group(3)) for m in _BLOCK.finditer(text)]


def shell_commands(text: str) -> list[str]:
    """Returns the commands of a Markdown text's ```bash blocks: each line split at ``&&``,
    without its ``$ `` prompt and its comment."""
    lines = [
        line.removeprefix("$ ").split("  #")[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
        for line in block.splitlines()
        if line.strip() and not line.startswith(_OUTPUT)
    ]
    return [part.strip() for line in lines for part in line.split("&&")]


def command_argv(command: str) -> list[str]:
    """Returns the words of a command with its optional ``[...]`` parts dropped."""
    return shlex.split(re.sub(r"\[[^\]]*\]", "", command))


def parse_damas_command(command: str) -> None:
    """Parses a ``damas ...`` command with the parser of its subcommand (and a training
    config with its overrides), raising SystemExit or an error if anything is unknown."""
    from damas_agents.arena.cli import build_parser as arena_parser
    from damas_agents.arena.hub import build_parser as hub_parser
    from damas_agents.arena.play import build_parser as play_parser
    from damas_agents.models.config import apply_overrides, load_config
    from damas_agents.rating.rate import build_parser as rate_parser
    from damas_agents.training.train import _parser as train_parser
    from damas_agents.web.cli import build_parser as web_parser
    from damas_env.cli import _parser as damas_parser

    argv = command_argv(command)[1:]
    parsers = {
        "arena": arena_parser,
        "play": play_parser,
        "hub": hub_parser,
        "rate": rate_parser,
        "web": web_parser,
    }
    if argv[0] == "train":
        args = train_parser().parse_args(argv[1:])
        if args.config:
            path = ROOT / args.config  # a checkout's path, else a bundled config's name
            apply_overrides(load_config(path if path.exists() else args.config), args.overrides)
    elif argv[0] in parsers:
        parsers[argv[0]]().parse_args(argv[1:])
    else:
        damas_parser().parse_args(argv)


def command_problems(command: str, extras: Iterable[str]) -> list[str]:
    """Returns what a shell command names that does not exist: a file of the checkout, an
    extra of ``pyproject.toml`` (`extras`), or a flag of a script of the checkout."""
    problems = []
    words = command_argv(command)
    for word in words:
        if word.endswith((".py", ".yaml", ".ipynb")) and "/" in word and not (ROOT / word).exists():
            problems.append(f"names {word}, which does not exist")
    for group in re.findall(r'"\.\[([\w,]+)\]"', command):
        unknown = [extra for extra in group.split(",") if extra not in set(extras)]
        problems += [f"installs the extra {extra!r}, not in pyproject" for extra in unknown]
    if words[:1] == ["python"] and len(words) > 1 and words[1].endswith(".py"):
        script = ROOT / words[1]
        source = script.read_text(encoding="utf-8") if script.is_file() else ""
        for flag in (w.split("=")[0] for w in words[2:] if w.startswith("--")):
            if f'"{flag}"' not in source:
                problems.append(f"passes {flag}, which {words[1]} does not take")
    return problems


def load_script(name: str, path: Path) -> ModuleType:
    """Imports a script (a docs generator, a benchmark, an example) as the module `name`,
    registered in ``sys.modules`` (its dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
