"""``damas hub``: any agent as an engine speaking the Hub protocol (version 2, as Scan 3 speaks
it) on stdin/stdout, for draughts GUIs and tournament managers, and for one revision of this
project to play another (:class:`HubServer` says what it answers).

    damas hub --variant english pretrained:english          # a GUI starts this command
    damas arena --variant english --agents "hub:damas,args=hub --variant english greedy" random

The server finds what it needs (``make_agent``, the spec parser, ``Position``, the env, the
Hub move format) through :data:`PLACES`, newest layout first, so this file also runs on its
own over the packages of an older checkout that has no ``damas hub``
(``benchmarks/revision_match.py`` plays such an engine against this checkout's agents)::

    PYTHONPATH=/old/checkout python agents/damas_agents/arena/hub.py --variant english SPEC
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import shlex
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from types import SimpleNamespace
from typing import IO, Any, BinaryIO

if __name__ == "__main__":  # run as a file: its folder must not shadow top-level modules
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

__all__ = [
    "PLACES",
    "HubServer",
    "build_parser",
    "library",
    "main",
    "move_seconds",
    "position_from_hub",
]

#: Where each name the server uses lives, newest layout first: ``module`` paths tried in
#: order (an older checkout kept ``make_agent`` and the spec parser in ``players/specs.py``).
PLACES: dict[str, tuple[str, ...]] = {
    "make_agent": ("damas_agents.players.make", "damas_agents.players.specs"),
    "parse_spec": ("damas_agents.specs", "damas_agents.players.specs"),
    "KINDS": ("damas_agents.specs", "damas_agents.players.specs"),
    "hub_move": ("damas_agents.players.external",),
    "parse_hub_move": ("damas_agents.players.external",),
    "parse_hub_line": ("damas_agents.players.external",),
    "Position": ("damas_env",),
    "Colour": ("damas_env",),
    "version": ("damas_env",),
    "get_ruleset": ("damas_env.rules",),
    "ruleset_names": ("damas_env.rules",),
    "variant_arg": ("damas_env.cli",),
    "raw_env": ("damas_env.draughts_v0",),
    "actions_to_move": ("damas_env.encoding",),
    "move_to_actions": ("damas_env.encoding",),
    "Halt": ("damas_agents.search.alphabeta",),
}
_ATTRIBUTES = {"version": "__version__"}  # a name looked up under another attribute
#: Names an older checkout may lack: None then (without a Halt, ``stop`` ends no search).
OPTIONAL = frozenset({"Halt"})

# The bounds of a level, those of the spec options it becomes (damas_agents.specs).
MAX_DEPTH, MAX_NODES, MIN_SECONDS, MAX_SECONDS = 64, 10**9, 0.001, 3600.0
DEFAULT_SECONDS = 1.0  # a move's time for an agent whose kind needs a limit and got none
MOVES_LEFT = 30  # the moves a time control without moves= is shared over
SCAN_VARIANTS = {
    "normal": "international",
    "frisian": "frisian",
    "bt": "breakthrough",
    "losing": "antidraughts",
}
LIMITS = ("depth", "nodes", "time", "sims")  # spec options that fix an agent's budget
LEVEL_KEYS = ("depth", "nodes", "move-time", "moves", "time", "inc", "infinite")
MAX_SEED = 2**32 - 1  # the largest --seed, as damas arena takes
_MAX_LINE = 65536  # bytes of an input line; a longer one is an error
_AGENTS_KEPT = 4  # agents built for levels, kept for the next searches


def library() -> SimpleNamespace:
    """Returns the names of :data:`PLACES`, each from the first module that has it.

    Raises:
        ImportError: a name (other than those of :data:`OPTIONAL`, then None) is in none of
            its modules (a missing dependency of a module that exists is raised as it is).
    """
    found: dict[str, Any] = {}
    for name, modules in PLACES.items():
        attribute = _ATTRIBUTES.get(name, name)
        for module_name in modules:
            if not _in_package(module_name):
                continue
            module = importlib.import_module(module_name)
            if hasattr(module, attribute):
                found[name] = getattr(module, attribute)
                break
        else:
            if name in OPTIONAL:
                found[name] = None
                continue
            raise ImportError(f"damas hub: no {attribute} in {', '.join(modules)}")
    return SimpleNamespace(**found)


def _in_package(module_name: str) -> bool:
    """Returns whether a module exists in the folder its top package was imported from.

    Only there: an installed checkout (``pip install -e``) offers its own modules for names
    that an older tree on ``PYTHONPATH`` lacks, and those would mix two revisions."""
    try:
        spec = importlib.util.find_spec(module_name)
    except ModuleNotFoundError:  # a parent package is missing
        return False
    if spec is None or spec.origin is None:
        return False
    top = importlib.import_module(module_name.partition(".")[0])
    roots = [os.path.realpath(folder) for folder in getattr(top, "__path__", [])]
    origin = os.path.realpath(spec.origin)
    return any(origin.startswith(root + os.sep) for root in roots)


# --- Positions and levels -------------------------------------------------------------------

_PIECE_CODES = {"e": 0, "w": 1, "W": 2, "b": -1, "B": -2}


def position_from_hub(text: str, rules: Any, lib: SimpleNamespace) -> Any:
    """Returns the Position of a Hub position (``W`` or ``B``, then one of ``w b W B e`` per
    square in PDN order) under a ruleset.

    Raises:
        ValueError: not a Hub position of the ruleset's board, or not a possible position
            (no piece at all, or a man on its crowning row).
    """
    squares = rules.squares
    if (
        len(text) != squares + 1
        or text[:1] not in ("W", "B")
        or set(text[1:]) - _PIECE_CODES.keys()
    ):
        raise ValueError(
            f"bad position {_shown(text)}: {rules.name} needs W or B, then one of w b W B e "
            f"for each of its {squares} squares"
        )
    if set(text[1:]) == {"e"}:
        raise ValueError(f"bad position {_shown(text)}: the board has no piece")
    turn = lib.Colour.WHITE if text[0] == "W" else lib.Colour.BLACK
    return lib.Position(rules, [_PIECE_CODES[c] for c in text[1:]], turn)


def move_seconds(time_left: float, inc: float = 0.0, moves: int = 0) -> float:
    """Returns the seconds for this move under a time control: the time left over the moves
    left (:data:`MOVES_LEFT` when not given), plus the increment, at most half the time left."""
    share = time_left / (moves if moves > 0 else MOVES_LEFT) + inc
    return min(share, time_left / 2)


def level_options(args: dict[str, str]) -> dict[str, int | float]:
    """Returns the spec options a ``level`` line asks for (none for ``infinite``), bounded.

    Raises:
        ValueError: a key that is not one of :data:`LEVEL_KEYS`, a value that is not a number
            of its kind, or a negative one.
    """
    unknown = [key for key in args if key not in LEVEL_KEYS]
    if unknown:
        raise ValueError(f"level has no key {_shown(unknown[0])}; it takes {', '.join(LEVEL_KEYS)}")
    options: dict[str, int | float] = {}
    if "depth" in args:
        options["depth"] = min(max(_number(args, "depth", int), 1), MAX_DEPTH)
    if "nodes" in args:
        options["nodes"] = min(max(_number(args, "nodes", int), 1), MAX_NODES)
    seconds = None
    if "move-time" in args:
        seconds = _number(args, "move-time", float)
    elif "time" in args:
        inc = _number(args, "inc", float) if "inc" in args else 0.0
        moves = _number(args, "moves", int) if "moves" in args else 0
        seconds = move_seconds(_number(args, "time", float), inc, moves)
    if seconds is not None:
        options["time"] = float(f"{min(max(seconds, MIN_SECONDS), MAX_SECONDS):.3g}")
    return options


def _number(args: dict[str, str], name: str, kind: type) -> Any:
    """Returns a level's value as an int or float (ASCII digits), or raises ValueError."""
    text = args[name]
    try:
        value = kind(text) if text.isascii() and len(text) <= 40 else None
    except ValueError:
        value = None
    if value is None or not 0 <= value < float("inf"):
        what = "an integer" if kind is int else "a number"
        raise ValueError(f"level {name}= must be {what} of at least 0, not {_shown(text)}")
    return value


def _shown(text: object, limit: int = 80) -> str:
    """Returns a value quoted for a message, cut at `limit` characters."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 3] + "..."


def _value(text: str) -> str:
    """Returns a value for a Hub line: quoted when empty or holding a space or '=' (a double
    quote, which no value may hold, becomes a single one; line breaks become spaces)."""
    text = " ".join(text.replace('"', "'").split())
    return f'"{text}"' if not text or " " in text or "=" in text else text


# --- The server -----------------------------------------------------------------------------


class HubServer:
    """One agent served over the Hub protocol: reads lines, writes answers through `write`.

    The answers (GUI lines left, the engine's right)::

        hub                             id name=... version=...; param name=variant ...; wait
        set-param name=variant value=V  (nothing; error for an unknown variant or parameter)
        init                            ready, after one search from the start position (so
                                        that compiling and loading are not the first move's)
        new-game                        (the agents forget the game)
        pos pos=P [moves="M ..."]       (P: W or B, then one of w b W B e per square;
                                        pos start: the start position)
        level depth=N | nodes=N | move-time=S | [moves=N] time=S [inc=S] | infinite
        go think | ponder | analyze     done move=M, after the agent's search
        ping                            pong, at once (during a search too)
        stop                            done move=M at once during a search: the best move
                                        found so far (nothing otherwise)
        ponder-hit                      (nothing: the search goes on)
        quit                            (the engine exits, even during a search)

    ``pos`` and ``go`` forget the level, as in Scan: a GUI sends ``pos``, ``level``, ``go``
    for every search. The moves of ``pos`` are the game's history: the search starts after
    them even where the game's draw rules would have ended it (a repetition, or too long
    without progress), without that history then. A bad line (an unknown command, parameter
    or level key, a key given twice or without a name, a position that is not one of the
    variant's or has no piece, an illegal move or a quiet move written with ``x``, a number
    that is not one) is answered with one ``error message="..."`` line and the server reads
    on, its state unchanged; a ``pos`` that fails leaves no position, so a ``go`` after it
    is an error too, never a move for another position. At the end of its input the server
    finishes the search in progress and writes its move.

    Searches run in a thread of their own, so ``ping``, ``stop`` and ``quit`` are answered
    while they run. ``stop`` ends the alpha-beta searches (``alphabeta``, ``pretrained``),
    the tree searches (``mcts``, a network's) after their slice of walks in progress and a
    ``hub:`` engine's search (it is sent ``stop``); ``greedy`` and ``random`` answer at once.

    Limits: a spec that fixes its own budget (``depth``, ``nodes``, ``time`` or ``sims``)
    plays it, whatever the GUI's ``level`` says. Otherwise the level is given to the agent as
    the spec options its kind takes (``depth=``, ``nodes=``, ``time=``; a time control is
    :func:`move_seconds` for this move); a level the kind has no option for is not used.
    Without one the agent plays at its own default (:data:`DEFAULT_SECONDS` a move for a kind
    that needs a limit, like ``alphabeta``).

    Variants: the ``variant`` parameter takes this package's ruleset names and Scan's
    ``normal``, ``frisian``, ``bt`` and ``losing`` (:data:`SCAN_VARIANTS`); an agent that
    cannot play a variant refuses it with an ``error`` line (the variant stays as it was).

    Args:
        spec: the agent spec (any that ``make_agent`` takes).
        variant: the ruleset name (or a rules file's Path) played until ``set-param``.
        seed: the agents' seed.
        write: takes one line (without its end) and sends it.
        lib: the names of :data:`PLACES` (default: :func:`library`).

    Raises:
        ValueError, ImportError, OSError, RuntimeError: the spec is bad, or names an agent that
            cannot be built or cannot play the variant.
    """

    def __init__(
        self,
        spec: str,
        variant: object = "international",
        seed: int | None = 0,
        write: Callable[[str], None] = print,
        lib: SimpleNamespace | None = None,
    ) -> None:
        self.lib = lib or library()
        self.spec, self.seed, self._send = spec.strip(), seed, write
        kind, options = self.lib.parse_spec(self.spec)
        self.fixed = any(key in options for key in LIMITS)
        """Whether the spec fixes the agent's budget (then the GUI's level is not used)."""
        self.takes = {
            key for key in ("depth", "nodes", "time") if key in self.lib.KINDS[kind].options
        }
        """The level options the agent's kind takes."""
        self._lock = threading.Lock()  # one line at a time from the two threads
        self._search: threading.Thread | None = None
        self._halt: Any = None  # the Halt of the search in progress (None: cannot be halted)
        self._quitting = False
        self._agents: OrderedDict[str, Any] = OrderedDict()
        self._envs: dict[Any, Any] = {}
        self._position: Any = None  # the position of the last pos (None: it failed)
        self._moves: list[Any] = []  # the moves played from it
        self._pos_error: str | None = None
        self.rules = self.lib.get_ruleset(variant)
        self._default = self._build_default(self.rules)
        self._new_position(self.rules)
        self.level: dict[str, int | float] = {}

    # --- Lines in, lines out ----------------------------------------------------------------

    def serve(self, lines: Iterable[str | None]) -> None:
        """Answers lines until ``quit`` or the end of the input (then the search in progress
        ends and its move is written). None stands for a line too long to read."""
        for line in lines:
            if not self.handle(line):
                return
        self.wait()

    def handle(self, line: str | None) -> bool:
        """Answers one line; returns False after ``quit``. A bad line is answered with an
        ``error`` line, never raised."""
        if line is None:
            self.error(f"line longer than {_MAX_LINE} bytes")
            return True
        try:
            command, args = self.lib.parse_hub_line(line)
            _check_names(line)
        except Exception as exc:  # the client's parser raises its own HubError
            self.error(str(exc))
            return True
        if self.searching():
            answered = self._while_searching(command)
            if answered is not None:
                return answered
            self.wait()  # any other command waits for the search's move
        if command == "quit":
            return False
        handler = self._handlers().get(command)
        if handler is None:
            self.error("missing command" if not command else f"bad command {_shown(command)}")
            return True
        try:
            handler(args)
        except Exception as exc:  # any failure is the GUI's to hear about, not a crash
            self.error(str(exc) or type(exc).__name__)
        return True

    def write(self, line: str) -> None:
        """Sends one protocol line (from either thread)."""
        with self._lock:
            self._send(line)

    def error(self, message: str) -> None:
        """Sends ``error message="..."``."""
        self.write(f"error message={_value(message)}")

    def searching(self) -> bool:
        """Returns whether a search is running."""
        return self._search is not None and self._search.is_alive()

    def wait(self) -> None:
        """Waits for the search in progress (if any) to write its move."""
        if self._search is not None:
            self._search.join()
            self._search = None

    def _while_searching(self, command: str) -> bool | None:
        """Answers ``ping``, ``stop``, ``ponder-hit`` and ``quit`` during a search and returns
        what :meth:`handle` returns; None for any other command."""
        if command == "ping":
            self.write("pong")
        elif command == "stop":
            self._halt_search()  # the search writes its move at once
        elif command == "quit":
            self._quitting = True  # the search's move is not written
            self._halt_search()
            return False
        elif command != "ponder-hit":  # ponder-hit: the search ends by its own limit
            return None
        return True

    def _halt_search(self) -> None:
        """Ends the search in progress where its agent can be halted (see the class)."""
        if self._halt is not None:
            self._halt.set()

    def close(self) -> None:
        """Closes the agents that hold a resource (an engine's process)."""
        for agent in [self._default, *self._agents.values()]:
            close = getattr(agent, "close", None)
            if callable(close):
                close()
        self._agents.clear()

    # --- Commands ---------------------------------------------------------------------------

    def _handlers(self) -> dict[str, Callable[[dict[str, str]], None]]:
        return {
            "hub": self._hub,
            "set-param": self._set_param,
            "init": self._init,
            "new-game": self._new_game,
            "pos": self._pos,
            "level": self._level,
            "go": self._go,
            "ping": lambda args: self.write("pong"),
            "stop": lambda args: None,
            "ponder-hit": lambda args: None,
        }

    def _hub(self, args: dict[str, str]) -> None:
        name = f"damas {self.spec}"
        self.write(f"id name={_value(name)} version={_value(str(self.lib.version))}")
        names = " ".join([*dict.fromkeys([self.rules.name, *self.lib.ruleset_names()])])
        self.write(
            f"param name=variant value={_value(self.rules.name)} type=enum values={_value(names)}"
        )
        self.write("wait")

    def _set_param(self, args: dict[str, str]) -> None:
        name = args.get("name", "")
        if not name:
            raise ValueError("missing name")
        if name != "variant":
            raise ValueError(f"unknown parameter {_shown(name)}; this engine has: variant")
        value = args.get("value", "")
        key = SCAN_VARIANTS.get(value.lower(), value)
        rules = self.lib.get_ruleset(key)  # a ValueError names the variants it knows
        default = self._build_default(rules)  # raises if the agent cannot play it
        self.close()
        self.rules, self._default = rules, default
        self._new_position(rules)

    def _init(self, args: dict[str, str]) -> None:
        """Plays one search from the start position (compiling, loading), then ``ready``."""
        try:
            start = self.lib.Position.start(self.rules)
            self._best_move(self._default, start, [], start)
            self._reset_agents()
        except Exception as exc:  # a warm-up that fails says so; the searches will too
            print(f"damas hub: the warm-up search failed: {exc}", file=sys.stderr)
        self.write("ready")

    def _new_game(self, args: dict[str, str]) -> None:
        self._reset_agents()

    def _pos(self, args: dict[str, str]) -> None:
        self.level = {}
        self._position, self._moves, self._pos_error = None, [], "no position"
        try:
            if "pos" in args:
                start = position_from_hub(args["pos"], self.rules, self.lib)
            else:
                start = self.lib.Position.start(self.rules)
            moves, position = [], start
            for text in args.get("moves", "").split():
                move = self.lib.parse_hub_move(text, position)
                if "x" in text and not move.captures:
                    raise ValueError(f"move {_shown(text)} takes nothing: write it with '-'")
                moves.append(move)
                position = position.play(move)
        except Exception as exc:
            self._pos_error = f"the last pos failed ({exc})"
            raise
        self._position, self._moves, self._pos_error = start, moves, None

    def _level(self, args: dict[str, str]) -> None:
        self.level = level_options(args)

    def _go(self, args: dict[str, str]) -> None:
        level, self.level = self.level, {}
        if self._position is None:
            raise ValueError(f"nothing to search: {self._pos_error}")
        position = self._position
        for move in self._moves:
            position = position.play(move)
        if not position.legal_moves():
            raise ValueError(f"no legal move in {position.fen()}: the game is over")
        agent = self._agent(level)
        start, moves = self._position, list(self._moves)
        self._halt = self.lib.Halt() if self.lib.Halt is not None else None
        self._search = threading.Thread(
            target=self._think,
            args=(agent, start, moves, position, self._halt),
            daemon=True,
            name="hub search",
        )
        self._search.start()

    # --- Searching --------------------------------------------------------------------------

    def _think(self, agent: Any, start: Any, moves: list[Any], final: Any, halt: Any) -> None:
        """Writes the agent's move (``done``), or an ``error`` line if it fails; a search
        under `halt` (if any) ends when it is set."""
        try:
            with halt.applied() if halt is not None else contextlib.nullcontext():
                found = self._best_move(agent, start, moves, final)
            move = self.lib.hub_move(found)
        except Exception as exc:
            if not self._quitting:
                self.error(f"the agent failed: {exc}")
            return
        if not self._quitting:
            with contextlib.suppress(OSError):  # the GUI has gone
                self.write(f"done move={move}")

    def _best_move(self, agent: Any, start: Any, moves: list[Any], final: Any) -> Any:
        """Returns the agent's move in `final`, the position after `moves` from `start`, asked
        hop by hop in an env that has played them (the history an agent or the draw rules
        may read), or in a fresh env at `final` if the draw rules ended the game on the way
        (a GUI may ask for a move in any position)."""
        env = self._env(start.rules)
        env.reset(options={"fen": start.fen()})
        for move in moves:
            if _over(env):
                break
            for action in self.lib.move_to_actions(move, env.position.turn, start.rules):
                env.step(action)
        if _over(env):  # policy: the position is searched, without the history that ended it
            env.reset(options={"fen": final.fen()})
        mover, position, hops = env.agent_selection, env.position, []
        while env.agent_selection == mover and not _over(env):
            observation = env.observe(mover)
            action = int(agent.act(observation, env.position, env.hops_played))
            env.step(action)
            hops.append(action)
        return self.lib.actions_to_move(hops, position)

    def _env(self, rules: Any) -> Any:
        if rules not in self._envs:
            self._envs[rules] = self.lib.raw_env(rules)
        return self._envs[rules]

    # --- Agents -----------------------------------------------------------------------------

    def _spec_with(self, options: dict[str, int | float]) -> str:
        """Returns the spec with level options added (``kind:`` or ``,`` before them)."""
        items = ",".join(f"{key}={value}" for key, value in sorted(options.items()))
        if not items:
            return self.spec
        return f"{self.spec}{',' if ':' in self.spec else ':'}{items}"

    def _build_default(self, rules: Any) -> Any:
        """Returns the agent played without a level: the spec's own, or (for a kind that
        needs a limit and got none) one with :data:`DEFAULT_SECONDS` a move."""
        try:
            return self.lib.make_agent(self.spec, self.seed, rules=rules)
        except ValueError as first:
            if self.fixed or "time" not in self.takes:
                raise
            try:
                return self.lib.make_agent(
                    self._spec_with({"time": DEFAULT_SECONDS}), self.seed, rules=rules
                )
            except ValueError:
                raise first from None

    def _agent(self, level: dict[str, int | float]) -> Any:
        """Returns the agent for a level: the default, or one built with the level's options
        that the kind takes (kept for later searches; the oldest of several is closed)."""
        options = {} if self.fixed else {k: v for k, v in level.items() if k in self.takes}
        if not options:
            return self._default
        spec = self._spec_with(options)
        if spec not in self._agents:
            self._agents[spec] = self.lib.make_agent(spec, self.seed, rules=self.rules)
            if len(self._agents) > _AGENTS_KEPT:
                _, old = self._agents.popitem(last=False)
                close = getattr(old, "close", None)
                if callable(close):
                    close()
        self._agents.move_to_end(spec)
        return self._agents[spec]

    def _reset_agents(self) -> None:
        for agent in [self._default, *self._agents.values()]:
            agent.reset()

    def _new_position(self, rules: Any) -> None:
        """Sets the start position of a ruleset as the one to search."""
        self._position, self._moves, self._pos_error = self.lib.Position.start(rules), [], None


def _over(env: Any) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


def _check_names(line: str) -> None:
    """Raises ValueError if a Hub line (quotes balanced) gives a key twice, or one without a
    name (``=x``)."""
    names = [word.partition("=")[0] for word in shlex.split(line)[1:]]
    if "" in names:
        raise ValueError(f"a key without a name in {_shown(line)}: write key=value")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"key {_shown(twice[0])} given twice in {_shown(line)}")


# --- The command ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of ``damas hub``."""
    parser = argparse.ArgumentParser(
        prog="damas hub",
        description="Serves an agent over the Hub protocol (version 2) on stdin/stdout, for "
        "draughts GUIs and tournament managers.",
        epilog="An agent spec that fixes its budget (depth, nodes, time, sims) plays it; "
        "otherwise the GUI's level sets it.",
    )
    parser.add_argument("spec", help="the agent, as damas arena --agents takes it")
    parser.add_argument(
        "--variant",
        default="international",
        help="ruleset name or rules YAML path (default international; the GUI's variant "
        "parameter changes it)",
    )
    parser.add_argument(
        "--seed", type=_seed, default=0, help=f"the agent's seed, 0 to {MAX_SEED} (default 0)"
    )
    return parser


def _seed(text: str) -> int:
    """Returns --seed's value (argparse names the option in the message of an error)."""
    if text.isascii() and text.isdigit() and len(text) <= 10 and int(text) <= MAX_SEED:
        return int(text)
    raise argparse.ArgumentTypeError(f"must be an integer from 0 to {MAX_SEED}, not {text!r}")


def _input_lines(stream: BinaryIO) -> Iterator[str | None]:
    """Yields the input's lines as text (None for one over :data:`_MAX_LINE` bytes, whose
    rest is read and dropped)."""
    while chunk := stream.readline(_MAX_LINE + 1):
        if len(chunk) <= _MAX_LINE or chunk.endswith(b"\n"):
            yield chunk.decode("utf-8", "replace").rstrip("\r\n")
            continue
        yield None
        while chunk and not chunk.endswith(b"\n"):
            chunk = stream.readline(_MAX_LINE + 1)


def _protocol_stream() -> IO[str]:
    """Returns a stream to the real stdout for protocol lines, and sends everything else
    written to stdout (Python's or a library's own) to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def main(argv: list[str] | None = None) -> int:
    """Runs ``damas hub``; returns the exit status (2 when the agent cannot be served)."""
    args = build_parser().parse_args(argv)
    protocol = _protocol_stream()

    def send(line: str) -> None:
        protocol.write(line + "\n")
        protocol.flush()

    try:
        lib = library()
        server = HubServer(args.spec, lib.variant_arg(args.variant), args.seed, send, lib)
    except (ValueError, ImportError, OSError, RuntimeError) as exc:
        print(f"damas hub: error: {exc}", file=sys.stderr)
        return 2
    try:
        server.serve(_input_lines(sys.stdin.buffer))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the GUI has gone
        return 0
    if server.searching():  # quit during a search: do not wait for it
        with contextlib.suppress(OSError):
            protocol.flush()
        os._exit(0)
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
