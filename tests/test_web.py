"""``damas web`` without a browser: its JSON API served by uvicorn on a free port, hostile
requests and PDN included, and the pictures it exports (animated SVG, GIF, notebook reprs).

The page itself is driven by Debian's chromium in ``tests/test_web_browser.py``. The clock
tests drive a fake time source, never the wall clock.
"""

from __future__ import annotations

import http.client
import io
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from damas_agents.arena import play_match
from damas_agents.command import main as damas
from damas_agents.web import games, server
from damas_agents.web.cli import running
from damas_agents.web.server import create_app, pdn_games_bound
from damas_env import Engine, Position, get_ruleset, ruleset_names
from damas_env.animation import game_frames, game_gif, game_svg
from damas_env.game import Game
from damas_env.notation import NotationError, read_pdn
from damas_env.render import position_html


class FakeClock:
    """A time source the tests move by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


CLOCK = FakeClock()
#: Seconds a subprocess may take to stop: a hang guard, not a speed claim.
HANG = 600


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running(create_app(clock=CLOCK)) as address:
        yield address


def call(
    url: str,
    path: str,
    body: Any = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """Returns (status, JSON answer) of a GET (no body) or a POST."""
    data = (
        None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    )
    request = urllib.request.Request(
        url + path.lstrip("/"), data=data, headers={"Content-Type": content_type, **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text.decode()


def raw(url: str, path: str) -> bytes:
    with urllib.request.urlopen(url + path.lstrip("/")) as response:
        return bytes(response.read())


def refused(answer: tuple[int, Any], status: int, words: str) -> None:
    """Asserts a one-line JSON error of the status that contains the words."""
    code, data = answer
    assert code == status, answer
    assert words in data["error"] and "\n" not in data["error"], data


def new(url: str, **settings: Any) -> dict[str, Any]:
    code, data = call(url, "api/games", settings)
    assert code == 200, data
    return dict(data)


# --- Playing ------------------------------------------------------------------------------


def test_page_and_its_files_are_served(url: str) -> None:
    page = raw(url, "").decode()
    assert 'id="board"' in page and "/static/app.js" in page
    assert b"pointerdown" in raw(url, "static/app.js")
    code, meta = call(url, "api/meta")
    assert "website_checkers" in meta["variants"] and "alphabeta:depth=2" in meta["agents"]
    assert meta["sides"]["website_checkers"] == ["white", "red (moves first)"]


def test_a_person_plays_an_agent_that_answers_with_its_score_and_pv(url: str) -> None:
    game = new(url, variant="english", white="human", black="alphabeta:depth=2", seed=1)
    assert game["agent_to_move"] and game["routes"] == []  # English: Black moves first
    code, game = call(url, f"api/games/{game['id']}/agent", {})
    reply = game["frames"][-1]
    assert reply["pv"][0] == reply["text"] and re.fullmatch(r"[+-]\d+\.\d\d", reply["score"])
    route = game["routes"][0]
    code, game = call(url, f"api/games/{game['id']}/move", {"squares": route["squares"]})
    assert code == 200 and len(game["frames"]) == 3 and game["agent_to_move"]
    assert game["frames"][-1]["squares"] == route["squares"]


def test_a_bad_move_is_refused_in_one_line_and_the_game_goes_on(url: str) -> None:
    game = new(url, variant="english", white="human", black="human")
    key = game["id"]
    refused(call(url, f"api/games/{key}/move", {"squares": [0, 4]}), 400, "legal moves: ")
    refused(call(url, f"api/games/{key}/move", {"squares": "9-13"}), 400, "'squares'")
    refused(call(url, f"api/games/{key}/move", {"squares": [True]}), 400, "'squares'")
    code, after = call(url, f"api/games/{key}")
    assert after["frames"] == game["frames"] and after["routes"] == game["routes"]
    code, after = call(url, f"api/games/{key}/move", {"squares": game["routes"][0]["squares"]})
    assert code == 200 and len(after["frames"]) == 2


def test_a_multi_capture_is_played_whole_and_only_whole(url: str) -> None:
    game = new(url, variant="english", white="human", black="human", fen="B:W18,27:B14")
    routes = game["routes"]
    assert routes == [{"squares": [13, 22, 31], "captures": [17, 26]}]  # 14x23x32
    key = game["id"]
    refused(call(url, f"api/games/{key}/move", {"squares": [13, 22]}), 400, "not a legal move")
    code, game = call(url, f"api/games/{key}/move", {"squares": [13, 22, 31]})
    assert game["frames"][-1]["text"] == "14x32" and game["outcome"]["result"] == "0-1"


def test_undo_takes_back_the_person_s_move_and_the_reply(url: str) -> None:
    game = new(url, variant="russian", white="human", black="greedy", seed=3)
    key = game["id"]
    code, game = call(url, f"api/games/{key}/move", {"squares": game["routes"][0]["squares"]})
    code, game = call(url, f"api/games/{key}/agent", {})
    assert len(game["frames"]) == 3 and game["can_undo"]
    code, game = call(url, f"api/games/{key}/undo", {})
    assert len(game["frames"]) == 1 and game["routes"] and not game["can_undo"]
    refused(call(url, f"api/games/{key}/undo", {}), 400, "nothing to undo")


def test_the_website_preset_as_written_red_first_and_its_draw_limits(url: str) -> None:
    game = new(url, variant="website_checkers", white="human", black="human")
    assert game["colours"] == ["white", "red"] and game["frames"][0]["turn"] == 1
    assert game["limits"] == {"no_progress": [0, 80], "ply": [0, 200], "repetitions": [1, 0]}
    code, game = call(
        url, f"api/games/{game['id']}/move", {"squares": game["routes"][0]["squares"]}
    )
    assert game["limits"]["no_progress"] == [1, 80]  # a man's move is no progress here


def test_the_clock_ends_the_game_when_the_mover_s_time_is_up(url: str) -> None:
    game = new(url, variant="website_checkers", white="human", black="human", seconds=60)
    key = game["id"]
    assert game["clock"]["left"] == [60.0, 60.0] and game["clock"]["running"] == 1
    refused(call(url, f"api/games/{key}/undo", {}), 400, "undo is off under a clock")
    CLOCK.now += 20
    code, game = call(url, f"api/games/{key}/move", {"squares": game["routes"][0]["squares"]})
    assert game["clock"]["left"] == [60.0, 40.0] and game["clock"]["running"] == 0
    CLOCK.now += 61
    code, game = call(url, f"api/games/{key}")
    assert game["outcome"] == {"result": "0-1", "text": "red wins (time)"}
    refused(call(url, f"api/games/{key}/move", {"squares": [20, 16]}), 400, "game is over")
    assert '[Result "0-1"]' in raw(url, f"api/games/{key}/pdn").decode()


def test_two_agents_play_each_other(url: str) -> None:
    game = new(url, variant="international", white="random", black="alphabeta:depth=1", seed=5)
    for _ in range(4):
        code, game = call(url, f"api/games/{game['id']}/agent", {})
        assert code == 200
    assert len(game["frames"]) == 5 and "pv" in game["frames"][2] and "pv" not in game["frames"][1]
    refused(call(url, f"api/games/{game['id']}/move", {"squares": [30, 25]}), 400, "turn")


# --- Hostile requests -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"white": "hub:/bin/sh"}, "names a file"),
        ({"black": "checkpoint:/etc/passwd"}, "names a file"),
        ({"black": "python:os:system"}, "unknown agent kind"),
        ({"black": "alphabeta:depth=1000"}, "depth"),
        ({"variant": "../../etc/passwd.yaml"}, "unknown variant"),
        ({"variant": 3}, "'variant' must be a string"),
        ({"seconds": -1}, "'seconds'"),
        ({"seconds": True}, "'seconds'"),
        ({"fen": "W:W99"}, "99"),
    ],
)
def test_bad_settings_are_refused(url: str, settings: dict[str, Any], words: str) -> None:
    refused(call(url, "api/games", settings), 400, words)


def test_bad_requests_get_a_clear_error_and_the_server_goes_on(url: str) -> None:
    refused(call(url, "api/games", b"{not json"), 400, "not valid JSON")
    refused(call(url, "api/games", b"[1, 2]"), 400, "JSON object")
    refused(call(url, "api/games", {"variant": "english"}, "text/plain"), 415, "application/json")
    refused(call(url, "api/games", b"{}", headers={"Content-Length": "99999999"}), 413, "larger")
    refused(call(url, "api/games/nothere"), 404, "no game")
    refused(call(url, "api/games/../../etc"), 404, "")
    assert call(url, "api/games/x", headers={"Host": "evil.example"})[0] == 400
    assert call(url, "api/meta")[0] == 200


def test_the_body_is_bounded_as_it_is_read(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "MAX_PDN_BYTES", 1000)
    refused(call(url, "api/pdn", {"text": "1. 11-15 " * 1000}), 413, "PDN text is longer")
    big = json.dumps({"text": "1. 11-15 " * 10_000}).encode()
    refused(call(url, "api/pdn", big), 413, "larger than")  # its Content-Length says so
    host, port = url.split("//")[1].rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port))
    pieces = (big[i : i + 4096] for i in range(0, len(big), 4096))  # no length: chunked
    headers = {"Content-Type": "application/json"}
    connection.request("POST", "/api/pdn", body=pieces, headers=headers, encode_chunked=True)
    answer = connection.getresponse()
    assert answer.status == 413 and "larger than" in json.loads(answer.read())["error"]
    connection.close()


def test_a_command_line_spec_that_names_a_file_must_be_offered() -> None:
    with pytest.raises(ValueError, match="unknown agent kind"):
        create_app(agents=["nonsense:x"])


# --- PDN ------------------------------------------------------------------------------------


def arena_pdn() -> str:
    """Returns two games as the arena writes them (Game.to_pdn, players' names as tags)."""
    first = Game("english")
    for move in ("11-15", "23-19", "8-11", "22-17"):
        first.push(move)
    second = Game("international", "W:W28:B23,14")
    second.push("28x10")
    return first.to_pdn(White="alphabeta:depth=2", Black="random") + "\n" + second.to_pdn()


def test_a_pdn_file_is_listed_and_each_game_replayed(url: str) -> None:
    code, opened = call(url, "api/pdn", {"text": arena_pdn()})
    assert [(g["white"], g["plies"]) for g in opened["games"]] == [
        ("alphabeta:depth=2", 4),
        ("?", 1),
    ]
    code, view = call(url, f"api/pdn/{opened['id']}/0")
    assert view["variant"] == "english" and view["error"] == ""
    assert [f["text"] for f in view["frames"][1:]] == ["11-15", "23-19", "8-11", "22-17"]
    code, view = call(url, f"api/pdn/{opened['id']}/1")
    assert view["size"] == 10 and view["frames"][1]["captures"] == [22, 13]
    refused(call(url, f"api/pdn/{opened['id']}/2"), 404, "games 0 to 1")


def test_a_pdn_game_replays_as_far_as_its_moves_are_legal(url: str) -> None:
    code, opened = call(url, "api/pdn", {"text": '[GameType "21"]\n1. 11-15 23-19 2. 11-16 *'})
    code, view = call(url, f"api/pdn/{opened['id']}/0")
    assert len(view["frames"]) == 3 and view["error"].startswith("PDN move 3 (11-16):")


@pytest.mark.parametrize(
    ("text", "status", "words"),
    [
        ('[Event "x"\n1. 11-15', 400, "PDN line 1: bad tag"),
        ("1. 11-15 {never closed", 400, "never closed"),
        ("", 400, "no game"),
        ("\u0000\u0001", 400, "unexpected"),
    ],
)
def test_bad_pdn_is_refused(url: str, text: str, status: int, words: str) -> None:
    refused(call(url, "api/pdn", {"text": text}), status, words)


@pytest.mark.parametrize(
    "tags", ['[Variant "/etc/passwd"]', '[Variant "rules.yaml"]', '[Rules "{\\"board_size\\":99}"]']
)
def test_pdn_tags_name_no_file_and_no_bad_rules(url: str, tags: str) -> None:
    code, opened = call(url, "api/pdn", {"text": f"{tags}\n1. 32-28 *"})
    refused(call(url, f"api/pdn/{opened['id']}/0"), 400, "PDN")


# --- Rules files ----------------------------------------------------------------------------


def test_an_uploaded_rules_file_is_played(url: str) -> None:
    text = "base: english\nply_limit: 10\nno_progress_plies: 0\n"
    code, made = call(url, "api/rules", {"name": "short game.yaml", "text": text})
    assert code == 200 and made["name"] == "short_game"
    game = new(url, variant=made["id"], white="human", black="human")
    assert game["variant"] == "short_game" and game["limits"]["ply"] == [0, 10]
    code, meta = call(url, "api/meta")
    assert {"id": made["id"], "name": "short_game"} in meta["custom"]


def test_a_bad_rules_file_is_refused_naming_the_upload(url: str) -> None:
    answer = call(url, "api/rules", {"name": "mine.yaml", "text": "base: english\nbord: 9\n"})
    refused(answer, 400, "mine.yaml")
    assert "damas-web-" not in answer[1]["error"]
    refused(call(url, "api/rules", {"name": "x.yaml", "text": "a: [1"}), 400, "not valid YAML")


# --- Exports and notebooks ------------------------------------------------------------------


def played() -> Game:
    game = Game("english")
    for move in ("11-15", "23-19", "8-11", "22-17"):
        game.push(move)
    return game


def test_the_animated_svg_shows_every_ply_in_turn() -> None:
    text = game_svg(played(), ms_per_ply=500, hold_ms=1000)
    assert text.count('class="frame"') == 5 and text.count("<animate ") == 5
    assert 'dur="3.000s"' in text  # four plies of 0.5 s, then the last frame held 1 s
    assert 'keyTimes="0.000000;0.166667;0.333333"' in text  # the second frame
    with pytest.raises(ValueError, match="frame time"):
        game_svg(played(), ms_per_ply=0)


def test_the_gif_has_a_frame_per_ply() -> None:
    image = pytest.importorskip("PIL.Image")
    gif = image.open(io.BytesIO(game_gif(played(), ms_per_ply=100)))
    assert gif.n_frames == 5 and gif.size == (320, 320)
    assert len(game_frames(played())) == 5


def test_exports_of_live_and_replayed_games(url: str) -> None:
    game = new(url, variant="english", white="human", black="human")
    game_url = f"api/games/{game['id']}"
    call(url, f"{game_url}/move", {"squares": game["routes"][0]["squares"]})
    assert raw(url, f"{game_url}/export.svg").count(b'class="frame"') == 2
    assert raw(url, f"{game_url}/export.gif?flip=1").startswith(b"GIF89a")
    refused(call(url, f"{game_url}/export.png"), 404, "svg or gif")
    refused(call(url, f"{game_url}/export.svg?ms=abc"), 400, "milliseconds")
    code, opened = call(url, "api/pdn", {"text": arena_pdn()})
    assert raw(url, f"api/pdn/{opened['id']}/0/export.svg").count(b'class="frame"') == 5


def test_a_game_and_a_position_draw_themselves_in_a_notebook() -> None:
    game = played()
    assert game._repr_svg_().startswith("<svg") and game._repr_svg_().count('class="piece') == 24
    assert "english, ply 4: black to move" in game._repr_html_()
    game = Game("english", "B:W18:B14")
    game.push("14x23")
    assert "0-1, black wins (no_legal_move)" in game.status()
    html = position_html(Position.start("website_checkers"))
    assert "<svg" in html and "website_checkers: red to move, B:W21-32:B1-12" in html


def test_plies_without_progress_follow_the_rules_progress_switch() -> None:
    for variant, quiet in (("english", 0), ("website_checkers", 2)):
        game = Game(variant)
        for _ in range(2):
            game.push(game.legal_moves()[0])
        assert game.plies_without_progress == quiet, variant


# --- The command ----------------------------------------------------------------------------


def test_the_command_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert damas(["web", "--agent", "nonsense"]) == 2
    assert "damas web: error: unknown agent kind" in capsys.readouterr().err
    assert damas(["web", "--port", "70000"]) == 2
    assert damas(["web", "--rules", str(Path("no/such/rules.yaml"))]) == 2
    assert "cannot read rules file" in capsys.readouterr().err


def test_the_command_serves_this_machine_only_by_default() -> None:
    """``damas web --port 0`` binds 127.0.0.1 on a free port, says where, and serves."""
    command = [sys.executable, "-m", "damas_agents.command", "web", "--port", "0"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        address = re.search(r"serving on (http://\S+/)", line)
        assert address and address[1].startswith("http://127.0.0.1:"), line
        code, meta = call(address[1], "api/meta")
        assert code == 200 and "english" in meta["variants"]
    finally:
        process.terminate()
        process.wait(timeout=HANG)


def test_an_offered_spec_that_names_a_file_passes_the_gate(tmp_path: Path) -> None:
    spec = f"checkpoint:{tmp_path / 'missing.pt'}"
    with running(create_app(agents=[spec])) as address:
        code, meta = call(address, "api/meta")
        assert spec in meta["agents"]
        code, answer = call(address, "api/games", {"black": spec})
        assert code == 400 and "names a file" not in answer["error"], answer
        assert "missing.pt" in answer["error"]
        refused(call(address, "api/games", {"black": spec + ",sims=2"}), 400, "names a file")


def test_a_long_pdn_game_replays_its_first_plies(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(games, "MAX_REPLAY_PLIES", 3)
    code, opened = call(url, "api/pdn", {"text": arena_pdn()})
    code, view = call(url, f"api/pdn/{opened['id']}/0")
    assert len(view["frames"]) == 4 and "the first 3 are shown" in view["error"]


def test_the_oldest_game_goes_when_more_are_kept(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "MAX_KEPT", 2)
    keys = [new(url, white="human", black="human")["id"] for _ in range(3)]
    refused(call(url, f"api/games/{keys[0]}"), 404, "keeps the last 2")
    assert all(call(url, f"api/games/{key}")[0] == 200 for key in keys[1:])


@pytest.mark.parametrize(
    "text",
    [
        "* " * 30_000,  # a game per two characters
        "1-2* " * 30_000,
        '[Event "x"]\n1. 11-15\n' * 11_000,
        "1. 11-15 1-0 " * 30_000,
    ],
)
def test_a_pdn_text_of_too_many_games_is_refused_before_it_is_read(url: str, text: str) -> None:
    refused(call(url, "api/pdn", {"text": text}), 413, f"more than {server.MAX_PDN_GAMES} games")


PDN_PIECES = ["1.", "11-15", "x", "*", "1-0", "1/2-1/2", "0-0", "2-0", "!", " ", "\n", "\t"]
PDN_PIECES += ['[Event "x"]\n', '[Result "*"]', "{c}", "{", "}", "(", ")", ";", "$1"]


@given(st.lists(st.sampled_from(PDN_PIECES), max_size=40).map("".join))
def test_the_bound_of_games_holds_for_any_pdn_text(text: str) -> None:
    try:
        found = len(read_pdn(text))
    except NotationError:
        return
    assert found <= pdn_games_bound(text)


@pytest.mark.parametrize("games", [1, 50])
def test_the_bound_of_games_is_an_upper_bound(games: int) -> None:
    text = arena_pdn() * games + '1. 11-15 * 9-13 1. 22-18 1/2-1/2\n[Event "x"]\n1. 11-15\n'
    found = len(read_pdn(text))
    assert found <= pdn_games_bound(text) <= 3 * found + 1


@pytest.mark.parametrize("variant", ruleset_names())
def test_every_ruleset_is_played_from_the_page(url: str, variant: str) -> None:
    game = new(url, variant=variant, white="human", black="human")
    assert len(game["cells"]) == Engine.for_rules(get_ruleset(variant)).geometry.squares
    route = game["routes"][-1]
    code, game = call(url, f"api/games/{game['id']}/move", {"squares": route["squares"]})
    assert code == 200 and game["frames"][-1]["squares"] == route["squares"], game


def test_the_arena_s_pdn_replays_move_for_move(url: str) -> None:
    match = play_match("random", "greedy", "website_checkers", games=2, seed=4, progress=False)
    code, opened = call(url, "api/pdn", {"text": match.pdn()})
    assert [g["plies"] for g in opened["games"]] == [r.plies for r in match.records]
    for i, record in enumerate(match.records):
        code, view = call(url, f"api/pdn/{opened['id']}/{i}")
        assert view["error"] == "" and view["variant"] == "website_checkers"
        assert len(view["frames"]) == record.plies + 1
