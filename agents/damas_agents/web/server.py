"""The HTTP side of ``damas web``: a Starlette app of one page and a small JSON API.

    app = create_app(agents=["hub:/opt/scan/scan"], rules_files=[Path("my_rules.yaml")])

Every request body is bounded before it is read (MAX_JSON_BYTES, MAX_PDN_BYTES) and must be
JSON (``application/json``: a cross-site page cannot post it without the server's consent);
the ``Host`` must be the one served (no DNS rebinding). A bad request gets a JSON
``{"error": "one line"}`` with a 4xx status, and the server goes on. Agent specs from the page
may not name a file (``hub:PATH``, ``checkpoint:PATH``) unless the command line offered that
spec; rules come from their names or from the text of an uploaded rules file, and PDN tags
only ever name a ruleset. Games, PDN files and uploaded rules are kept in memory, the newest
MAX_KEPT of each.
"""

from __future__ import annotations

import json
import re
import secrets
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from damas_agents.players.make import make_agent
from damas_agents.specs import KINDS, parse_spec
from damas_agents.web.games import LiveGame, Replay, replay_pdn_game, routes
from damas_env import Colour, Engine, Position, Ruleset, get_ruleset, ruleset_names
from damas_env.animation import game_gif, game_svg
from damas_env.notation import PdnGame, read_pdn
from damas_env.rules import MAX_RULES_FILE_BYTES, RulesetError, load_ruleset_file

__all__ = [
    "HUMAN",
    "MAX_JSON_BYTES",
    "MAX_KEPT",
    "MAX_PDN_BYTES",
    "MAX_PDN_GAMES",
    "SUGGESTED_AGENTS",
    "create_app",
    "pdn_games_bound",
]

STATIC = Path(__file__).resolve().parent / "static"
#: The largest JSON request body (a move, a new game's settings).
MAX_JSON_BYTES = 64 * 1024
#: The largest PDN text read (a match of a few thousand games).
MAX_PDN_BYTES = 8 * 1024 * 1024
#: The most games read from one PDN text (counted from above before they are parsed).
MAX_PDN_GAMES = 20_000
#: How many live games, PDN files and uploaded rulesets are kept, each (the oldest goes).
MAX_KEPT = 16
#: The word that seats a person instead of an agent.
HUMAN = "human"
#: The agents the page offers in its list (any other spec may be typed).
SUGGESTED_AGENTS = (
    "random",
    "greedy",
    "alphabeta:depth=2",
    "alphabeta:depth=6",
    "alphabeta:time=1",
    "mcts:sims=200",
    "pretrained:english",
    "pretrained:international",
)
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
T = TypeVar("T")


class _Store(OrderedDict):  # type: ignore[type-arg]
    """Up to MAX_KEPT entries by id, the oldest dropped (and closed, if it closes)."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()  # games are added from worker threads

    def add(self, value: Any) -> str:
        key = secrets.token_urlsafe(12)
        with self.lock:
            self[key] = value
            dropped = [self.popitem(last=False)[1] for _ in range(len(self) - MAX_KEPT)]
        for old in dropped:
            close = getattr(old, "close", None)
            if callable(close):
                close()
        return key

    def get_or_404(self, key: str, what: str) -> Any:
        if not _ID.fullmatch(key) or key not in self:
            kept = f"the server keeps the last {MAX_KEPT}"
            raise HTTPException(404, f"no {what} {key[:64]!r} ({kept})")
        return self[key]


class _State:
    """What one server holds: its games, PDN files and rulesets, and its offered agents."""

    def __init__(self, agents: Sequence[str], rules: Sequence[Ruleset], clock: Callable) -> None:
        for spec in agents:
            parse_spec(spec)  # a bad --agent stops the command before it serves
        self.agents = list(dict.fromkeys([*SUGGESTED_AGENTS, *agents]))
        self.offered = set(agents)
        self.rules: dict[str, Ruleset] = {r.name: r for r in rules}
        self.games = _Store()
        self.pdn_files = _Store()
        self.uploaded = _Store()
        self.clock = clock


# --- Requests -------------------------------------------------------------------------------


async def _body(request: Request, limit: int) -> dict[str, Any]:
    """Returns a request's JSON object, read no further than `limit` bytes.

    Raises:
        HTTPException: 415 not JSON, 413 too large, 400 not a JSON object.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, f"send JSON (Content-Type: application/json), not {kind!r}")
    length = request.headers.get("content-length", "")
    if length and (not length.isdigit() or int(length) > limit):
        raise HTTPException(413, f"the request body is larger than {limit} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise HTTPException(413, f"the request body is larger than {limit} bytes")
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise HTTPException(400, "the request body is not valid JSON") from None
    if not isinstance(value, dict):
        raise HTTPException(400, "the request body must be a JSON object")
    return value


_REQUIRED = object()


def _field(
    data: dict[str, Any], name: str, kinds: tuple[type, ...], default: Any = _REQUIRED
) -> Any:
    """Returns a field of a request, checked to be one of `kinds` (absent: `default`).

    Raises:
        HTTPException: 400, the field is missing (without a default) or of another type.
    """
    if name not in data:
        if default is _REQUIRED:
            raise HTTPException(400, f"field {name!r} is missing")
        return default
    value = data[name]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise HTTPException(400, f"field {name!r} must be {_kind_name(kinds)}")
    return value


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", list: "a list"}
    return " or ".join(names.get(k, "null" if k is type(None) else k.__name__) for k in kinds)


# --- Games ----------------------------------------------------------------------------------


def _ruleset(state: _State, name: str) -> Ruleset:
    """Returns a ruleset by name: an uploaded one's id, a command-line rules file, a preset or
    a named variant (a name never opens a file)."""
    if name in state.uploaded:
        ruleset: Ruleset = state.uploaded[name]
        return ruleset
    if name in state.rules:
        return state.rules[name]
    return get_ruleset(name)


def _player(state: _State, spec: str, rules: Ruleset, seed: int) -> Any:
    """Returns the agent a side's spec names, or None for a person.

    Raises:
        ValueError: a bad spec, an agent that cannot play the rules, or a spec that names a
            file the command line did not offer.
    """
    if spec.strip().lower() == HUMAN:
        return None
    kind, options = parse_spec(spec)
    if KINDS[kind].path and KINDS[kind].first == "path" and spec not in state.offered:
        raise ValueError(
            f"agent {spec[:200]!r} names a file; the page may only use such agents when "
            f"damas web offers them (damas web --agent '{kind}:...')"
        )
    return make_agent(spec, seed, rules=rules)


def _new_game(state: _State, data: dict[str, Any]) -> str:
    rules = _ruleset(state, _field(data, "variant", (str,), "english"))
    specs = {
        Colour.WHITE: _field(data, "white", (str,), HUMAN),
        Colour.BLACK: _field(data, "black", (str,), "alphabeta:depth=4"),
    }
    seconds = _field(data, "seconds", (int, float, type(None)), None)
    increment = _field(data, "increment", (int, float), 0)
    if seconds is not None and not 0 < seconds <= 86_400:
        raise HTTPException(400, "field 'seconds' must be more than 0 and at most 86400")
    if not 0 <= increment <= 3_600:
        raise HTTPException(400, "field 'increment' must be from 0 to 3600")
    seed = _field(data, "seed", (int,), secrets.randbelow(2**31))
    players = {c: _player(state, s, rules, seed + int(c)) for c, s in specs.items()}
    names = {c: "you" if players[c] is None else players[c].name for c in players}
    fen = _field(data, "fen", (str, type(None)), None)
    live = LiveGame(rules, players, names, seconds, float(increment), state.clock, fen)
    return state.games.add(live)


def _game_json(key: str, live: LiveGame) -> dict[str, Any]:
    """Returns what the page draws of a live game."""
    live.check_flag()
    outcome = live.outcome()
    game = live.game
    return {
        "id": key,
        **_rules_json(live.rules),
        "players": [live.names[Colour.WHITE], live.names[Colour.BLACK]],
        "people": [live.players[c] is None for c in (Colour.WHITE, Colour.BLACK)],
        "frames": live.frames,
        "routes": routes(game) if live.mover_is_person() else [],
        "agent_to_move": not live.is_over and not live.mover_is_person(),
        "outcome": _outcome_json(live.rules, outcome),
        "clock": live.clocks(),
        "limits": {
            "no_progress": [game.plies_without_progress, live.rules.no_progress_plies],
            "ply": [game.ply, live.rules.ply_limit],
            "repetitions": [game.repetitions(), live.rules.repetition_count],
        },
        "can_undo": live.seconds is None and bool(game.moves),
    }


def _rules_json(rules: Ruleset) -> dict[str, Any]:
    """Returns a ruleset's name, colour names and the board's squares (row, column)."""
    geo = Engine.for_rules(rules).geometry
    return {
        "variant": rules.name,
        "size": geo.size,
        "colours": list(rules.colour_names),
        "cells": [[int(geo.row[s]), int(geo.col[s])] for s in range(geo.squares)],
    }


def _sides(rules: Ruleset) -> list[str]:
    """Returns the names of White's side and Black's side, the one that moves first marked."""
    names = list(rules.colour_names)
    names[int(Position.start(rules).turn)] += " (moves first)"
    return names


def _outcome_json(rules: Ruleset, outcome: Any) -> dict[str, Any] | None:
    if outcome is None:
        return None
    who = "draw" if outcome.winner is None else f"{rules.colour_names[int(outcome.winner)]} wins"
    return {
        "result": outcome.pdn_result(rules.board_size),
        "text": f"{who} ({outcome.reason.label.replace('_', ' ')})",
    }


# --- Handlers -------------------------------------------------------------------------------


def _json(value: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(value, status_code=status)


def _error(status: int, message: str) -> JSONResponse:
    line = " ".join(str(message).split())[:2000]
    return JSONResponse({"error": line}, status_code=status)


async def _answer(key: str, live: LiveGame, work: Callable[[], None] | None = None) -> Response:
    """Runs a game's blocking work, then reads its state, in a worker thread holding the
    game's lock: one request changes or reads a game at a time."""

    def run() -> dict[str, Any]:
        with live.lock:
            if work is not None:
                work()
            return _game_json(key, live)

    return _json(await run_in_threadpool(run))


def _holding(live: LiveGame, read: Callable[[], T]) -> T:
    """Returns what `read` returns, holding the game's lock (call it in a worker thread)."""
    with live.lock:
        return read()


# Where a PDN game may end or begin (read_pdn's grammar): a result token (ended as its token
# is; a numeric one never follows a move's characters, which the move token would have taken)
# or a tag line.
_RESULTS = re.compile(r"(?:(?<![0-9x:/-])(?:2-0|0-2|1-1|1-0|0-1|1/2-1/2|0-0)|\*)(?![^\s(){;])")
_TAG_LINES = re.compile(r"^[ \t\r\x0b\x0c]*\[[^\n]*", re.MULTILINE)


def pdn_games_bound(text: str) -> int:
    """Returns an upper bound of the games in a PDN text, without parsing it: a game ends at
    a result token, or at the end of the movetext after a run of tag lines."""
    results = sum(1 for _ in _RESULTS.finditer(text))
    runs, end = 0, -2
    for line in _TAG_LINES.finditer(text):
        runs += line.start() != end + 1  # not the line after the last tag line: a new run
        end = line.end()
    return results + 2 * runs + 1


def _listing(games: list[PdnGame]) -> list[dict[str, Any]]:
    """Returns the page's list of a PDN file's games: players, event, result, plies."""
    return [
        {
            "white": g.tags.get("White", "?"),
            "black": g.tags.get("Black", "?"),
            "event": g.tags.get("Event", ""),
            "result": g.result,
            "plies": len(g.moves),
        }
        for g in games
    ]


class _Api:
    """The request handlers of one server, over its state."""

    def __init__(self, state: _State) -> None:
        self.state = state

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def meta(self, request: Request) -> Response:
        state = self.state
        custom = [{"id": k, "name": r.name} for k, r in state.uploaded.items()]
        names = [*state.rules, *(n for n in ruleset_names() if n not in state.rules)]
        sides = {n: _sides(_ruleset(state, n)) for n in names}
        sides.update({c["id"]: _sides(state.uploaded[c["id"]]) for c in custom})
        return _json({"variants": names, "agents": state.agents, "custom": custom, "sides": sides})

    async def new_game(self, request: Request) -> Response:
        data = await _body(request, MAX_JSON_BYTES)
        key = await run_in_threadpool(_new_game, self.state, data)
        return await _answer(key, self.state.games[key])

    def _game(self, request: Request) -> tuple[str, LiveGame]:
        key = request.path_params["key"]
        return key, self.state.games.get_or_404(key, "game")

    async def show(self, request: Request) -> Response:
        key, live = self._game(request)
        return await _answer(key, live)

    async def move(self, request: Request) -> Response:
        key, live = self._game(request)
        data = await _body(request, MAX_JSON_BYTES)
        squares = _field(data, "squares", (list,))
        if not squares or len(squares) > 64 or not all(type(s) is int for s in squares):
            raise HTTPException(400, "field 'squares' must list 1 to 64 square indices")
        return await _answer(key, live, lambda: live.play_squares(squares))

    async def agent(self, request: Request) -> Response:
        key, live = self._game(request)
        return await _answer(key, live, live.play_agent)

    async def undo(self, request: Request) -> Response:
        key, live = self._game(request)
        return await _answer(key, live, live.undo)

    async def pdn(self, request: Request) -> Response:
        _, live = self._game(request)
        text = await run_in_threadpool(_holding, live, live.pdn)
        return PlainTextResponse(text, headers=_download("game.pdn"))

    async def export(self, request: Request) -> Response:
        _, live = self._game(request)
        return await _export(request, await run_in_threadpool(_holding, live, live.copy))

    async def open_pdn(self, request: Request) -> Response:
        data = await _body(request, MAX_PDN_BYTES + MAX_JSON_BYTES)
        text = _field(data, "text", (str,))
        if len(text) > MAX_PDN_BYTES:
            raise HTTPException(413, f"the PDN text is longer than {MAX_PDN_BYTES} characters")
        if pdn_games_bound(text) > MAX_PDN_GAMES:
            raise HTTPException(413, f"the PDN text holds more than {MAX_PDN_GAMES} games")
        games = await run_in_threadpool(read_pdn, text)
        if not games:
            raise HTTPException(400, "no game found in the PDN text")
        return _json({"id": self.state.pdn_files.add(games), "games": _listing(games)})

    def _replay(self, request: Request) -> Replay:
        games = self.state.pdn_files.get_or_404(request.path_params["key"], "PDN file")
        index = request.path_params["index"]
        if not 0 <= index < len(games):
            raise HTTPException(404, f"the PDN file has games 0 to {len(games) - 1}, not {index}")
        return replay_pdn_game(games[index])

    async def replay(self, request: Request) -> Response:
        view = await run_in_threadpool(self._replay, request)
        players = [view.tags.get("White", "?"), view.tags.get("Black", "?")]
        return _json(
            {
                **_rules_json(view.game.rules),
                "tags": view.tags,
                "frames": view.frames,
                "error": view.error,
                "result": view.result,
                "players": players,
            }
        )

    async def replay_export(self, request: Request) -> Response:
        view = await run_in_threadpool(self._replay, request)
        return await _export(request, view.game)

    async def upload_rules(self, request: Request) -> Response:
        data = await _body(request, MAX_RULES_FILE_BYTES + MAX_JSON_BYTES)
        text = _field(data, "text", (str,))
        name = _field(data, "name", (str,), "custom.yaml")
        rules = await run_in_threadpool(_rules_from_text, text, name)
        return _json({"id": self.state.uploaded.add(rules), "name": rules.name})

    def routes(self) -> list[Any]:
        """Returns the app's routes."""
        post = ["POST"]
        return [
            Route("/", self.index),
            Route("/api/meta", self.meta),
            Route("/api/games", self.new_game, methods=post),
            Route("/api/games/{key}", self.show),
            Route("/api/games/{key}/move", self.move, methods=post),
            Route("/api/games/{key}/agent", self.agent, methods=post),
            Route("/api/games/{key}/undo", self.undo, methods=post),
            Route("/api/games/{key}/pdn", self.pdn),
            Route("/api/games/{key}/export.{kind}", self.export),
            Route("/api/pdn", self.open_pdn, methods=post),
            Route("/api/pdn/{key}/{index:int}", self.replay),
            Route("/api/pdn/{key}/{index:int}/export.{kind}", self.replay_export),
            Route("/api/rules", self.upload_rules, methods=post),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]


def _download(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}


async def _export(request: Request, game: Any) -> Response:
    """Returns a game as an animated SVG or GIF (``?ms=`` per ply, ``flip=1``)."""
    kind = request.path_params["kind"]
    ms_text = request.query_params.get("ms", "800")
    if not ms_text.isdigit() or len(ms_text) > 6:
        raise HTTPException(400, "ms must be a whole number of milliseconds per ply")
    flip = request.query_params.get("flip", "0") == "1"
    if kind == "svg":
        text = await run_in_threadpool(game_svg, game, int(ms_text), 2400, 40, flip)
        return Response(text, media_type="image/svg+xml", headers=_download("game.svg"))
    if kind == "gif":
        data = await run_in_threadpool(game_gif, game, int(ms_text), 2400, 40, flip)
        return Response(data, media_type="image/gif", headers=_download("game.gif"))
    raise HTTPException(404, f"export as svg or gif, not {kind[:20]!r}")


def _rules_from_text(text: str, name: str) -> Ruleset:
    """Returns the ruleset of an uploaded rules file's text, read as a rules file is.

    The text is written to a fresh temporary folder under a name made of the upload's
    letters and digits (the ruleset's default name); errors name the upload, not the folder.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_RULES_FILE_BYTES:
        raise HTTPException(413, f"the rules file is larger than {MAX_RULES_FILE_BYTES} bytes")
    stem = re.sub(r"[^a-z0-9_]", "_", Path(name[:200]).stem.lower())[:40].strip("_") or "custom"
    with tempfile.TemporaryDirectory(prefix="damas-web-") as folder:
        path = Path(folder) / f"{stem}.yaml"
        path.write_text(text, encoding="utf-8", errors="replace")
        try:
            return load_ruleset_file(path)
        except RulesetError as e:
            raise RulesetError(str(e).replace(str(path), name[:200])) from None


# --- The app --------------------------------------------------------------------------------


def create_app(
    agents: Sequence[str] = (),
    rules_files: Sequence[Path] = (),
    hosts: Sequence[str] = ("127.0.0.1", "localhost", "[::1]"),
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """Returns the app of ``damas web``.

    Args:
        agents: agent specs to offer besides SUGGESTED_AGENTS; specs that name a file
            (``hub:PATH``, ``checkpoint:PATH``) are playable from the page only if listed here.
        rules_files: rules YAML files to offer by their rulesets' names.
        hosts: the Host names requests may use (``*``: any).
        clock: the games' time source in seconds (tests drive a fake one).

    Raises:
        ValueError: a bad agent spec; RulesetError: a bad rules file.
    """
    rules = [load_ruleset_file(p) for p in rules_files]
    state = _State(agents, rules, clock)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, exc.detail)

    async def refused(request: Request, exc: Exception) -> Response:
        return _error(400, str(exc) or type(exc).__name__)

    async def failed(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    return Starlette(
        routes=_Api(state).routes(),
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
        exception_handlers={
            HTTPException: http_error,
            ValueError: refused,  # NotationError, IllegalMoveError, RulesetError, GameError
            ImportError: refused,  # an agent's missing extra
            Exception: failed,
        },
    )
