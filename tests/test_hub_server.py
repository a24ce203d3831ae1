"""``damas hub``: the Hub-protocol server, driven in-process line by line, and as a subprocess
that the arena plays through ``hub:`` (our client against our server)."""

from __future__ import annotations

import importlib.abc
import importlib.util
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from damas_agents.arena import hub, play_match
from damas_agents.arena.hub import (
    HubServer,
    build_parser,
    level_options,
    library,
    move_seconds,
    position_from_hub,
)
from damas_agents.command import COMMANDS
from damas_agents.players.external import hub_position, parse_hub_line, parse_hub_move
from damas_agents.players.make import make_agent
from damas_env import Position, get_ruleset

ROOT = Path(__file__).resolve().parent.parent
HUB_FILE = ROOT / "agents" / "damas_agents" / "arena" / "hub.py"
ENGLISH_START = hub_position(Position.start("english"))


def serve(lines: list[str], spec: str = "greedy", variant: str = "english", **kw: Any) -> list[str]:
    """Returns what a server answers to lines (its input then ends)."""
    out: list[str] = []
    server = HubServer(spec, variant, 0, out.append, **kw)
    server.serve(lines)
    server.close()
    return out


def commands(out: list[str]) -> list[str]:
    return [parse_hub_line(line)[0] for line in out]


def done_move(out: list[str]) -> str:
    (line,) = [line for line in out if line.startswith("done")]
    return parse_hub_line(line)[1]["move"]


# --- The protocol, in-process ---------------------------------------------------------------


def test_handshake_declares_the_variant_and_waits_then_is_ready() -> None:
    out = serve(["hub", "set-param name=variant value=english", "init"], spec="random")
    assert commands(out) == ["id", "param", "wait", "ready"]
    ident = parse_hub_line(out[0])[1]
    assert ident["name"] == "damas random" and ident["version"]
    param = parse_hub_line(out[1])[1]
    assert param["name"] == "variant" and param["value"] == "english"
    assert {"english", "international", "frisian"} <= set(param["values"].split())


def test_go_think_answers_a_legal_move_of_the_position() -> None:
    position = Position.start("english").play("11-15")
    out = serve([f"pos pos={hub_position(position)}", "level depth=2", "go think"], "alphabeta")
    assert commands(out) == ["done"]
    parse_hub_move(done_move(out), position)  # raises unless legal


def test_pos_moves_are_played_from_the_position() -> None:
    """``moves=`` (the game's last moves, for repetition) are played before the search."""
    start = Position.start("english")
    after = start.play("11-15").play("22-18")
    captures = {m.key for m in after.legal_moves()}  # black must take on 18
    out = serve([f'pos pos={hub_position(start)} moves="11-15 22-18"', "go think"])
    assert parse_hub_move(done_move(out), after).key in captures


def test_pos_start_and_no_pos_mean_the_start_position() -> None:
    start = Position.start("english")
    for lines in (["pos start", "go think"], ["go think"]):
        parse_hub_move(done_move(serve(lines)), start)


def test_a_capture_is_written_with_its_captured_squares() -> None:
    position = Position.from_fen("B:W18:B15", "english")  # black's 15x22 takes 18
    out = serve([f"pos pos={hub_position(position)}", "go think"])
    assert done_move(out) == "15x22x18"


def test_ping_is_answered_also_during_a_search_and_stop_is_harmless() -> None:
    """(tests/test_hub_halt.py: stop and quit end a search that would not end by itself.)"""
    out = serve(["ping", "pos start", "level depth=3", "go think", "ping", "stop", "ponder-hit"])
    assert sorted(commands(out)) == ["done", "pong", "pong"]
    assert out[0] == "pong"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("fly away", "bad command 'fly'"),
        ("", "missing command"),
        ('pos pos="Wbbb', "malformed Hub line"),
        ("pos pos=Wbbbb", "english needs W or B, then one of w b W B e for each of its 32"),
        ("pos pos=X" + "e" * 32, "needs W or B"),
        ("pos pos=W" + "w" * 4 + "e" * 28, "stands on its crowning row"),
        ("pos start moves=22-18", "is not a legal move"),
        ("pos start moves=99-98", "off the board"),
        ("level depth=two", "level depth= must be an integer"),
        ("level move-time=-1", "level move-time= must be a number of at least 0"),
        ("level move-time=nan", "level move-time= must be a number"),
        ("set-param name=hash value=64", "unknown parameter 'hash'"),
        ("set-param value=64", "missing name"),
        ("set-param name=variant value=killer", "unknown variant 'killer'"),
        ("level depth=3 speed=9", "level has no key 'speed'; it takes depth, nodes"),
        ("level depth=3 depth=4", "key 'depth' given twice"),
        ("pos start moves=11-15 moves=22-18", "key 'moves' given twice"),
        ("pos =x", "a key without a name"),
        ("pos start moves=11x15", "move '11x15' takes nothing: write it with '-'"),
        ("pos pos=W" + "e" * 32, "the board has no piece"),
    ],
)
def test_a_bad_line_is_one_error_line_and_the_engine_reads_on(line: str, message: str) -> None:
    out = serve([line, "ping", "pos start", "go think"])
    assert commands(out) == ["error", "pong", "done"]
    assert message in parse_hub_line(out[0])[1]["message"]


def test_a_refused_line_leaves_the_position_and_the_level_as_they_were() -> None:
    position = Position.from_fen("B:W18:B15", "english")  # black's only move: 15x22
    server = HubServer("alphabeta", "english", 0, print)
    for line in (f"pos pos={hub_position(position)}", "level depth=2"):
        server.handle(line)
    out: list[str] = []
    server._send = out.append
    for line in ("pos =x", "pos start start", "level depth=3 speed=9", "level nodes=1 nodes=2"):
        server.handle(line)
    assert commands(out) == ["error"] * 4
    assert server.level == {"depth": 2}
    server.handle("go think")
    server.wait()
    assert out[-1] == "done move=15x22x18"


def test_a_history_that_passed_a_draw_is_searched_after() -> None:
    """The kings' moves repeat the position three times (a draw under the game's rules) and
    go on: the server searches the position they reach."""
    start = Position.from_fen("W:WK29:BK4", "english")
    history = "29-25 4-8 25-29 8-4 " * 2 + "29-25"
    after = start
    for text in history.split():
        after = after.play(parse_hub_move(text, after))
    out = serve([f'pos pos={hub_position(start)} moves="{history}"', "go think"], "alphabeta")
    assert commands(out) == ["done"], out
    parse_hub_move(done_move(out), after)


def test_the_seed_is_an_integer_in_its_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert build_parser().parse_args(["--seed", "4294967295", "greedy"]).seed == 2**32 - 1
    for bad in ("-1", "1e23", "4294967296", "seven"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["--seed", bad, "greedy"])
        assert "argument --seed: must be an integer from 0 to 4294967295" in capsys.readouterr().err


def test_a_failed_pos_leaves_nothing_to_search() -> None:
    """A go after a bad pos is an error, never a move for the position before it."""
    out = serve(["pos pos=Wxx", "go think", "pos start", "go think"])
    assert commands(out) == ["error", "error", "done"]
    assert "nothing to search" in parse_hub_line(out[1])[1]["message"]


def test_go_in_a_finished_game_is_an_error() -> None:
    lost = Position.from_fen("W:W:B1", "english")  # white has no piece
    out = serve([f"pos pos={hub_position(lost)}", "go think"])
    assert commands(out) == ["error"] and "no legal move" in out[0]


def test_a_line_too_long_is_an_error() -> None:
    out = serve([None, "ping"])  # type: ignore[list-item]
    assert commands(out) == ["error", "pong"]


def test_quit_ends_the_serving_and_later_lines_are_not_read() -> None:
    out = serve(["ping", "quit", "ping"])
    assert out == ["pong"]


def test_quit_during_a_search_returns_at_once_and_drops_its_move() -> None:
    release = threading.Event()
    greedy = make_agent("greedy")

    class Slow:
        name = "slow"

        def reset(self) -> None:
            pass

        def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
            release.wait(60)
            return int(greedy.act(observation, position, hops))

    lib = library()
    lib.make_agent = lambda spec, seed, rules: Slow()
    out: list[str] = []
    server = HubServer("greedy", "english", 0, out.append, lib=lib)
    server.serve(["pos start", "go think", "ping", "quit", "ping"])
    assert server.searching() and out == ["pong"]
    release.set()
    server.wait()
    assert out == ["pong"]


def test_the_end_of_the_input_waits_for_the_search_move() -> None:
    out = serve(["pos start", "level move-time=0.05", "go think"], "alphabeta")
    assert commands(out) == ["done"]


def test_the_variant_parameter_takes_scan_names() -> None:
    start = Position.start("international")
    out = serve(["set-param name=variant value=normal", "go think"], variant="english")
    parse_hub_move(done_move(out), start)
    out = serve(["set-param name=variant value=english", f"pos pos={ENGLISH_START}", "go think"])
    assert commands(out) == ["done"]


class _FailingAgent:
    name = "failing"

    def reset(self) -> None:
        pass

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        raise RuntimeError("the agent broke")


def test_an_agent_that_fails_is_an_error_line_and_the_engine_reads_on() -> None:
    lib = library()
    real = lib.make_agent
    lib.make_agent = lambda spec, seed, rules: (
        _FailingAgent() if "depth=3" in spec else real(spec, seed, rules=rules)
    )
    lines = ["level depth=3", "go think", "new-game", "ping", "go think"]  # new-game waits
    out = serve(lines, "alphabeta:depth=2", lib=lib)
    assert commands(out) == ["done", "pong", "done"]  # a fixed spec ignores the level
    out = serve(lines, "alphabeta", lib=lib)
    assert commands(out) == ["error", "pong", "done"]
    assert "the agent broke" in out[0]


def test_an_agent_that_cannot_play_a_variant_refuses_it_and_keeps_its_own() -> None:
    lib = library()
    real = lib.make_agent

    def english_only(spec: str, seed: int | None, rules: Any) -> Any:
        if rules.name != "english":
            raise ValueError(f"{spec} plays english only")
        return real(spec, seed, rules=rules)

    lib.make_agent = english_only
    out = serve(
        ["set-param name=variant value=normal", f"pos pos={ENGLISH_START}", "go think"], lib=lib
    )
    assert commands(out) == ["error", "done"] and "plays english only" in out[0]
    with pytest.raises(ValueError, match="plays english only"):
        HubServer("greedy", "international", 0, print, lib=lib)


# --- Levels and agents ----------------------------------------------------------------------


def test_level_options() -> None:
    assert level_options({"depth": "7"}) == {"depth": 7}
    assert level_options({"depth": "0"}) == {"depth": 1}
    assert level_options({"depth": "999"}) == {"depth": 64}
    assert level_options({"nodes": "5000"}) == {"nodes": 5000}
    assert level_options({"move-time": "2.5"}) == {"time": 2.5}
    assert level_options({"move-time": "0"}) == {"time": 0.001}
    assert level_options({"time": "60"}) == {"time": 2.0}  # 60 s over 30 moves
    assert level_options({"time": "60", "moves": "10", "inc": "1"}) == {"time": 7.0}
    assert level_options({"infinite": ""}) == {}


def test_move_seconds_never_takes_more_than_half_the_time_left() -> None:
    assert move_seconds(10.0, inc=0.0, moves=1) == 5.0
    assert move_seconds(1.0, inc=5.0) == 0.5
    assert move_seconds(30.0) == 1.0


def test_the_level_is_given_as_the_option_the_kind_takes() -> None:
    server = HubServer("alphabeta", "english", 0, print)
    assert server._agent({}).name == "alphabeta:time=1.0"  # the default when none is given
    assert server._agent({"depth": 3}).name == "alphabeta:depth=3"
    assert server._agent({"time": 0.5, "depth": 2}).name == "alphabeta:depth=2,time=0.5"
    greedy = HubServer("greedy", "english", 0, print)
    assert greedy._agent({"depth": 3}) is greedy._default  # greedy takes no limit
    fixed = HubServer("alphabeta:depth=2", "english", 0, print)
    assert fixed._agent({"time": 9.0}) is fixed._default  # the spec's limit wins


def test_position_from_hub_inverts_hub_position() -> None:
    lib = library()
    for variant in ("english", "international", "frisian"):
        rules = get_ruleset(variant)
        position = Position.start(rules)
        for move in ("", *[m.key for m in position.legal_moves()][:1]):
            if move:
                position = position.play(position.legal_moves()[0])
            again = position_from_hub(hub_position(position), rules, lib)
            assert again == position


def test_hub_is_a_damas_command_whose_parser_takes_a_spec() -> None:
    assert COMMANDS["hub"][1] == "damas_agents.arena.hub:main"
    args = build_parser().parse_args(["--variant", "english", "pretrained:english,depth=4"])
    assert (args.spec, args.variant, args.seed) == ("pretrained:english,depth=4", "english", 0)


def test_library_takes_each_name_from_the_first_module_of_the_package_that_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older layout (the name in another module) is found; a module offered from outside
    the imported package (as an editable install of another checkout offers) is not."""
    package = tmp_path / "tree" / "oldpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "specs.py").write_text("make_agent = 'old layout'\n")
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("make_agent = 'another checkout'\n")

    class Elsewhere(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
            if name == "oldpkg.make":
                return importlib.util.spec_from_file_location(name, elsewhere)
            return None

    monkeypatch.syspath_prepend(str(tmp_path / "tree"))
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Elsewhere()])
    monkeypatch.setattr(hub, "PLACES", {"make_agent": ("oldpkg.make", "oldpkg.specs")})
    assert library().make_agent == "old layout"
    monkeypatch.setattr(hub, "PLACES", {"make_agent": ("oldpkg.make",)})
    with pytest.raises(ImportError, match="no make_agent in oldpkg.make"):
        library()


# --- As a subprocess: stdout, and a match through hub: ---------------------------------------


def test_the_command_writes_only_protocol_lines_and_refuses_a_bad_spec() -> None:
    lines = f"hub\ninit\npos pos={ENGLISH_START}\nlevel depth=2\ngo think\nbogus\nquit\n"
    out = subprocess.run(
        [sys.executable, "-m", "damas_agents.command", "hub", "--variant", "english", "greedy"],
        input=lines,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    answers = out.stdout.splitlines()
    assert commands(answers) == ["id", "param", "wait", "ready", "done", "error"], out.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "damas_agents.command", "hub", "alphabeta:depth=0"],
        input="hub\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("damas hub: error: option depth")


def test_the_file_runs_on_its_own() -> None:
    """hub.py run as a file (as over an older checkout's packages) serves the same."""
    out = subprocess.run(
        [sys.executable, str(HUB_FILE), "--variant", "english", "random"],
        input="hub\npos start\ngo think\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert commands(out.stdout.splitlines()) == ["id", "param", "wait", "done"], out.stderr


def test_the_arena_plays_an_agent_through_damas_hub() -> None:
    """Our Hub client against our Hub server: two English games, colours swapped."""
    args = "-m damas_agents.command hub --variant english alphabeta"
    spec = f"hub:{sys.executable},args={args},depth=2,timeout=600,init_timeout=600"
    result = play_match(spec, "greedy", variant="english", games=2, seed=1, progress=False)
    assert result.games == 2
    assert {r.a_colour for r in result.records} == {"white", "black"}
    assert all(r.reason != "illegal_action" for r in result.records)
