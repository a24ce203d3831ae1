"""External opponents: OpenSpiel MCTS, dame-rs and Hub engines (each skipped when absent).

The Hub protocol code is exercised with a tiny fake engine (a Python script written here)
that answers with the first legal move damas_env gives it, or fails in the way its ``mode``
parameter (or ``crash_after``, or the ``exit-at-start`` and ``stderr-blob`` arguments) asks
for.

No test here depends on the machine being quiet: a timeout that a test relies on runs out
because its engine never answers, and every other limit is a generous guard against a hang.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import textwrap
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from agent_play import RandomHops, play_game

from damas_agents.arena.cli import main as arena_main
from damas_agents.extras import MissingExtraError
from damas_agents.players import external
from damas_agents.players.external import (
    DameAgent,
    HubAgent,
    HubError,
    HubWarning,
    OpenSpielMCTSAgent,
    hub_move,
    hub_position,
    parse_hub_line,
    parse_hub_move,
)
from damas_agents.players.peers import OpenSpielCheckersPeer, PydraughtsPeer
from damas_env import Position, draughts_v0
from damas_env.encoding import move_to_actions

HAS_OPENSPIEL = importlib.util.find_spec("pyspiel") is not None
HAS_DAME = importlib.util.find_spec("dame") is not None
needs_openspiel = pytest.mark.skipif(not HAS_OPENSPIEL, reason="pip install open_spiel")
needs_dame = pytest.mark.skipif(not HAS_DAME, reason="pip install dame-rs")


def play_moves(position: Position, moves: list[str]) -> Position:
    for move in moves:
        position = position.play(move)
    return position


# --- Missing engines ------------------------------------------------------------------------


def test_missing_openspiel_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    message = r"needs OpenSpiel.*damas-env\[openspiel\]. .or: pip install open_spiel"
    with pytest.raises(MissingExtraError, match=message):
        OpenSpielMCTSAgent()
    with pytest.raises(MissingExtraError, match=message):
        OpenSpielCheckersPeer()


def test_missing_dame_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "dame", None)
    with pytest.raises(
        MissingExtraError, match=r"needs dame-rs.*damas-env\[dame\]. .or: pip install dame-rs"
    ):
        DameAgent()


def test_missing_pydraughts_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "draughts", None)
    with pytest.raises(
        MissingExtraError,
        match=r"needs pydraughts.*damas-env\[peers\]. .or: pip install pydraughts",
    ):
        PydraughtsPeer("english")


def test_the_other_dame_package_is_told_apart(monkeypatch):
    monkeypatch.setitem(sys.modules, "dame", types.ModuleType("dame"))
    with pytest.raises(ImportError, match="another package"):
        DameAgent()


def test_missing_hub_engine_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="Hub engine .* not found"):
        HubAgent(str(tmp_path / "no-such-engine"))


# --- OpenSpiel ------------------------------------------------------------------------------


@needs_openspiel
def test_openspiel_plays_a_whole_english_game_against_random():
    agent = OpenSpielMCTSAgent(sims=20, seed=0)
    assert agent.name == "openspiel-mcts:sims=20"
    assert OpenSpielMCTSAgent().name == "openspiel-mcts:sims=1000"
    env = draughts_v0.env("english")
    for seats in (("player_0", "player_1"), ("player_1", "player_0")):
        rewards = play_game(env, {seats[0]: agent, seats[1]: RandomHops(1)})
        assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])


@needs_openspiel
def test_openspiel_stays_in_step_after_a_ballot_and_replies():
    start = Position.start("english")
    ballot = play_moves(start, ["9-13", "22-18", "10-15"])  # three plies it did not see
    agent = OpenSpielMCTSAgent(sims=10, seed=0)
    agent.act({}, ballot)
    assert agent.in_step and agent._peer is not None
    assert agent._peer.fen() == ballot.fen()
    mine = ballot.play(ballot.legal_moves()[-1])  # its move (any) and the reply
    reply = mine.play(mine.legal_moves()[0])
    agent.act({}, reply)
    assert agent._peer.fen() == reply.fen()
    agent.act({}, start)  # back at the start: a new game
    assert agent._peer.fen() == start.fen()


def game_to_a_double_capture(seed: int = 0) -> tuple[list[str], Position]:
    """Returns random English moves from the start that lead to a two-piece capture."""
    rng = np.random.default_rng(seed)
    while True:
        position, moves = Position.start("english"), []
        while position.legal_moves():
            if any(len(m.captures) >= 2 for m in position.legal_moves()):
                return moves, position
            move = position.legal_moves()[rng.integers(len(position.legal_moves()))]
            moves.append(str(move))
            position = position.play(move)


@needs_openspiel
def test_openspiel_plays_mid_capture_hops():
    moves, position = game_to_a_double_capture()
    agent = OpenSpielMCTSAgent(sims=10, seed=0)
    agent.set_history(moves)
    assert agent._peer is not None and agent._peer.fen() == position.fen()
    route = next(m for m in position.capture_routes() if len(m.captures) >= 2)
    first = move_to_actions(route, position.turn, 8)[0]
    after_first = agent._legal_hops(position, (first,))
    assert agent.act({}, position, (first,)) in after_first
    assert agent.in_step


@needs_openspiel
def test_openspiel_refuses_positions_it_cannot_reach():
    agent = OpenSpielMCTSAgent(sims=5, seed=0)
    with pytest.raises(ValueError, match="set_history"):
        agent.act({}, Position.from_fen("B:W27:B5", "english"))
    with pytest.raises(ValueError, match="english rules only"):
        agent.act({}, Position.start("international"))


@needs_openspiel
def test_openspiel_falls_back_to_random_when_its_game_is_over(monkeypatch):
    agent = OpenSpielMCTSAgent(sims=5, seed=0)
    start = Position.start("english")
    agent.act({}, start)
    assert agent._peer is not None
    monkeypatch.setattr(agent._peer, "is_terminal", lambda: True)  # its 40-ply draw
    position = play_moves(start, ["9-13", "22-18"])
    action = agent.act({}, position)
    assert not agent.in_step
    assert action in agent._legal_hops(position, ())


# --- dame-rs --------------------------------------------------------------------------------


@needs_dame
def test_dame_plays_legal_international_moves():
    agent = DameAgent(depth=2)
    assert agent.name == "dame:depth=2" and DameAgent().name == "dame:depth=6"
    env = draughts_v0.env("international", max_plies=40)
    play_game(env, {"player_0": agent, "player_1": RandomHops(0)})
    # A majority capture of three pieces: dame's move is one of ours.
    position = Position.from_fen("W:WK46,38:B41,32,22,13,K5,20", "international")
    assert agent.choose(position) in position.legal_moves()


@needs_dame
def test_dame_refuses_other_rules():
    with pytest.raises(ValueError, match="international rules only"):
        DameAgent(depth=1).choose(Position.start("english"))


# --- Hub protocol ---------------------------------------------------------------------------

FAKE_ENGINE = textwrap.dedent(
    """\
    import os, shlex, sys, time
    from damas_env import Colour, Position
    from damas_env.rules import get_ruleset

    if "exit-at-start" in sys.argv:
        sys.exit("fake engine cannot find its data")
    if "stderr-blob" in sys.argv:  # five megabytes of stderr without a line break
        sys.stderr.write("e" * 5_000_000)
        sys.exit(4)
    PIECES = {"e": 0, "w": 1, "W": 2, "b": -1, "B": -2}
    params = {"mode": "normal", "variant": "", "crash_after": "1000000", "mark": ""}
    position, searches = None, 0

    def say(line):
        print(line, flush=True)

    def hub_move(m):
        squares = (m.origin, m.destination, *sorted(m.captures))
        return ("x" if m.captures else "-").join(str(s + 1) for s in squares)

    for line in sys.stdin:
        words = shlex.split(line)
        if not words:
            continue
        command, args = words[0], dict(w.partition("=")[::2] for w in words[1:])
        if command == "hub":
            say(f'id name=fake version=1.0 author="Test Suite" cwd="{os.getcwd()}"')
            modes = "normal crash silent garbage nomove error slow bad-utf8 endless nopong"
            say(f'param name=mode value=normal type=enum values="{modes}"')
            say("wait")
        elif command == "set-param":
            params[args["name"]] = args["value"]
        elif command == "init":
            say("some banner the GUI ignores")
            say("ready")
        elif command == "new-game" and params["mark"]:  # prepares a while, then says so
            time.sleep(0.5)
            with open(params["mark"], "a") as mark:
                mark.write("new-game done\\n")
        elif command == "ping" and params["mode"] != "nopong":
            say("pong")
        elif command == "pos":
            text = args["pos"]
            variant = params["variant"] or ("english" if len(text) == 33 else "international")
            board = [PIECES[c] for c in text[1:]]
            side = Colour.WHITE if text[0] == "W" else Colour.BLACK
            position = Position(get_ruleset(variant), board, side)
        elif command == "go":
            mode, searches = params["mode"], searches + 1
            if mode == "crash" or searches > int(params["crash_after"]):
                print("fake engine crashed", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "silent":
                continue
            if mode == "error":
                say('error message="cannot think today"')
                continue
            if mode == "endless":  # output without a line break, for ever
                while True:
                    sys.stdout.write("x" * 65536)
            move = position.legal_moves()[0]
            if mode == "slow":  # thinks until told to stop
                while sys.stdin.readline().strip() not in ("stop", ""):
                    pass
            if mode == "bad-utf8":  # Latin-1, not UTF-8
                sys.stdout.buffer.write(b"info depth=1 score=0.0 author=L\\xe9on\\n")
                sys.stdout.flush()
            say("info depth=1 score=0.0 pv=\\"" + hub_move(move) + "\\"")
            if mode == "garbage":
                say("done move=1-2")
            elif mode == "nomove":
                say("done ponder=1-2")
            else:
                say("done move=" + hub_move(move))
        elif command == "quit":
            break
    """
)


#: A guard against a hang, never a limit a test expects to reach: an engine that answers at all
#: answers within it, however busy the machine.
GUARD = 600


@pytest.fixture
def fake_engine(tmp_path):
    script = tmp_path / "fake_hub.py"
    script.write_text(f"#!{sys.executable}\n" + FAKE_ENGINE)
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("variant", ["international", "english"])
def test_hub_fake_engine_plays_legal_moves(fake_engine, variant):
    with HubAgent(fake_engine, depth=1, timeout=GUARD) as agent:
        assert agent.name == "hub:fake_hub.py"
        env = draughts_v0.env(variant, max_plies=40)
        play_game(env, {"player_0": agent, "player_1": RandomHops(0)})
        assert agent.engine_id["name"] == "fake" and agent.engine_id["author"] == "Test Suite"
        assert "mode" in agent.engine_params


def test_hub_engine_follows_a_multi_capture(fake_engine):
    position = Position.from_fen("W:WK46,38:B41,32,22,13,K5,20", "international")
    with HubAgent(fake_engine, time=0.1, timeout=GUARD) as agent:
        move = agent.choose(position)
    assert move == position.legal_moves()[0] and len(move.captures) == 3


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", "died .*exit code 3.*fake engine crashed"),
        ("garbage", "fake_hub.py: Hub move '1-2' is not a legal move"),
        ("nomove", "without a move"),
        ("error", "cannot think today"),
        ("silent", "no 'done' within"),
    ],
)
def test_hub_engine_failures_are_clear(fake_engine, mode, message):
    with (
        HubAgent(
            fake_engine, mode=mode, time=0.05, timeout=0.2 if mode == "silent" else GUARD
        ) as agent,
        pytest.raises(HubError, match=message),
    ):
        agent.choose(Position.start("international"))


def test_hub_engine_that_is_not_an_engine_is_refused_when_built(tmp_path):
    script = tmp_path / "mute.py"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\n")
    script.chmod(0o755)
    with pytest.raises(HubError, match="no 'wait' within"):
        HubAgent(str(script), init_timeout=0.3)
    exits = tmp_path / "exits.py"
    exits.write_text(f"#!{sys.executable}\n")
    exits.chmod(0o755)
    with pytest.raises(HubError, match="died"):
        HubAgent(str(exits))
    exits.chmod(0o644)
    with pytest.raises(HubError, match="cannot start .*exits.py.*Permission denied"):
        HubAgent(str(exits))


def test_hub_engine_that_closes_its_pipes_is_not_said_to_have_died(tmp_path, monkeypatch):
    monkeypatch.setattr(external, "_EXIT_GRACE", 0.5)  # it sleeps ten minutes: never sooner
    script = tmp_path / "closes.sh"
    script.write_text("#!/bin/sh\nexec sleep 600 >&- <&-\n")
    script.chmod(0o755)
    with pytest.raises(HubError, match="closed its pipes while .*, yet runs") as error:
        HubAgent(str(script), init_timeout=GUARD)
    assert "died" not in str(error.value)


def test_hub_engine_that_crashes_at_start_is_refused_when_built(fake_engine):
    with pytest.raises(HubError, match="died while waiting for 'wait'.*cannot find its data"):
        HubAgent(fake_engine, args="hub exit-at-start")


# --- Hub: working directory -----------------------------------------------------------------


def test_hub_engine_starts_in_its_cwd(fake_engine, tmp_path, monkeypatch):
    data = tmp_path / "engine data"
    data.mkdir()
    with HubAgent(fake_engine, cwd=str(data)) as agent:
        assert agent.engine_id["cwd"] == str(data)
    monkeypatch.chdir(tmp_path)  # a relative path is found from cwd, not from here
    (data / "engine.py").write_text((tmp_path / "fake_hub.py").read_text())
    (data / "engine.py").chmod(0o755)
    with HubAgent("engine.py", cwd="engine data") as agent:
        assert agent.path == str(data / "engine.py")
        assert agent.engine_id["cwd"] == str(data)


def test_hub_cwd_must_be_a_directory(fake_engine, tmp_path):
    with pytest.raises(NotADirectoryError, match="cwd='.*nowhere' is not an existing directory"):
        HubAgent(fake_engine, cwd=str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="not found .looked on PATH and in"):
        HubAgent("fake_hub.py", cwd=str(tmp_path / ".."))


# --- Hub: a depth cut by the timeout --------------------------------------------------------


def test_hub_depth_cut_by_its_timeout_is_reported(fake_engine, monkeypatch):
    # The "slow" engine thinks until it is sent 'stop', so its timeout always runs out, on a
    # quiet machine or a busy one; its answer to 'stop' is waited for as long as it takes.
    monkeypatch.setattr(external, "_STOP_GRACE", GUARD)
    position = Position.start("english")
    with HubAgent(fake_engine, mode="slow", depth=40, timeout=0.2) as agent:
        with pytest.warns(HubWarning, match="did not reach depth 40 within its timeout of 0.2s"):
            assert agent.choose(position) in position.legal_moves()
        assert agent.stopped == 1
    with HubAgent(fake_engine, mode="slow", time=0.1, timeout=0.1) as agent:
        with pytest.warns(HubWarning, match="move time of 0.1s and its timeout of 0.1s"):
            agent.choose(position)
        assert agent.stopped == 1


def test_hub_search_within_its_time_is_not_reported(fake_engine):
    with warnings.catch_warnings(), HubAgent(fake_engine, depth=40, timeout=GUARD) as agent:
        warnings.simplefilter("error")
        agent.choose(Position.start("english"))
        assert agent.stopped == 0


# --- Hub: a new game ------------------------------------------------------------------------


def test_hub_reset_waits_until_the_engine_is_ready(fake_engine, tmp_path):
    # The fake engine takes half a second over 'new-game', then writes the mark: reset must
    # not return before (its 'pong' comes after), or that work lands in the first move.
    mark = tmp_path / "mark.txt"
    with HubAgent(fake_engine, depth=1, timeout=GUARD, mark=str(mark)) as agent:
        agent.reset()
        assert mark.read_text() == "new-game done\n"
        agent.reset()
        assert mark.read_text() == "new-game done\n" * 2
        position = Position.start("english")
        assert agent.choose(position) in position.legal_moves()


def test_hub_reset_without_pong_is_a_clear_error(fake_engine):
    with HubAgent(fake_engine, mode="nopong") as agent:
        agent.init_timeout = 0.2  # it never answers: the wait always runs out
        with pytest.raises(HubError, match="no 'pong' within 0.2s after 'new-game' and 'ping'"):
            agent.reset()


# --- Hub: bounded options -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"init_timeout": 1e300}, "option init_timeout must be a number from 0.001 to 3600"),
        ({"time": -3}, "option time must be a number from 0.001 to 3600, not -3"),
        ({"time": 5e-324}, "option time must be a number from 0.001 to 3600, not 5e-324"),
        ({"timeout": float("nan")}, "option timeout must be a number from 0.001 to 3600"),
        ({"depth": -5}, "option depth must be an integer from 1 to 64, not -5"),
        ({"depth": "abc"}, "option depth must be an integer from 1 to 64, not 'abc'"),
        ({"book": "false\nquit"}, "parameter 'book'='false\\nquit' cannot be sent"),
        ({"name": 'a"b'}, "cannot be sent on a Hub line"),
        ({"args": 'hub "'}, "cannot split args='hub \"'"),
    ],
)
def test_hub_options_are_checked_before_the_engine_starts(
    fake_engine, monkeypatch, options, message
):
    monkeypatch.setattr(external, "_HubProcess", pytest.fail)
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        HubAgent(fake_engine, **options)
    assert str(error.value).startswith("hub:fake_hub.py")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("init_timeout=1e300", "init_timeout in agent spec"),
        ("time=-3", "must be a number from 0.001 to 3600, not -3"),
        ("depth=-5", "must be an integer from 1 to 64, not -5"),
        ("depth=abc", "must be an integer from 1 to 64, not 'abc'"),
    ],
)
def test_arena_refuses_unbounded_hub_options_in_one_line(fake_engine, capsys, option, message):
    argv = ["--agents", f"hub:{fake_engine},{option}", "random", "--no-progress"]
    assert arena_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("damas arena: error: option"), err
    assert message in err


# --- Hub: engines that say too much ---------------------------------------------------------

KEEPS_TALKING = """\
import resource, sys
from damas_agents.players.external import HubAgent, HubError
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    HubAgent(sys.argv[1], init_timeout=3)
except HubError as error:
    print(error)
print("grown MiB:", (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


@pytest.mark.skipif(shutil.which("yes") is None, reason="no 'yes' program")
def test_hub_engine_that_keeps_talking_is_timed_out_in_bounded_memory(tmp_path):
    # 'yes hub' prints 'hub' lines as fast as it can, and never 'wait': the deadline must
    # hold while lines keep coming, and the lines must not pile up.
    script = tmp_path / "keeps_talking.py"
    script.write_text(KEEPS_TALKING)
    run = subprocess.run(
        [sys.executable, str(script), shutil.which("yes")],
        capture_output=True,
        text=True,
        timeout=GUARD,
    )
    error, grown = run.stdout.splitlines()
    assert re.fullmatch(
        r"hub:yes: no 'wait' within 3s \(it sent \d+ other lines, the last 'hub'\)", error
    )
    assert int(grown.split()[-1]) < 64, run.stdout  # it grew by about 30 MB a second


def test_hub_line_without_end_is_refused(fake_engine):
    with (
        HubAgent(fake_engine, mode="endless", time=0.05, timeout=GUARD) as agent,
        pytest.raises(HubError, match=r"sent a line longer than 16384 bytes: b'xxxx") as error,
    ):
        agent.choose(Position.start("english"))
    assert "died" not in str(error.value) and len(str(error.value)) < 200


def test_hub_stderr_without_line_breaks_is_cut(fake_engine):
    with pytest.raises(HubError, match="exit code 4") as error:
        HubAgent(fake_engine, args="hub stderr-blob")  # 5 MB of stderr in one line
    message = str(error.value)
    assert f"stderr: {'e' * 300}" in message and len(message) < 1000


def test_hub_invalid_utf8_is_reported_as_such(fake_engine):
    with (
        HubAgent(fake_engine, mode="bad-utf8", time=0.05, timeout=GUARD) as agent,
        pytest.raises(HubError) as error,
    ):
        agent.choose(Position.start("english"))
    assert str(error.value) == (
        "hub:fake_hub.py sent a line that is not UTF-8 text (invalid continuation byte at "
        "byte 31): b'info depth=1 score=0.0 author=L\\xe9on'"
    )


def test_hub_handshake_keeps_a_bounded_number_of_lines(tmp_path):
    script = tmp_path / "chatty.py"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.stdin.readline()\n"
        "for i in range(3000):\n    print(f'info line={i}')\n"  # dropped: not id or param
        "for i in range(1100):\n    print(f'param name=p{i}')\n"
        "print('wait', flush=True)\nsys.stdin.read()\n"
    )
    script.chmod(0o755)
    with pytest.raises(HubError, match="sent more than 1024 'param' lines before 'wait'"):
        HubAgent(str(script), init_timeout=GUARD)


# --- Hub: the end of an engine --------------------------------------------------------------

LEFT_OPEN = """\
from damas_agents.players.external import HubAgent
from damas_env import Position
played = HubAgent({path!r}, depth=1)
played.choose(Position.start("english"))
idle = HubAgent({path!r})
"""


@pytest.mark.parametrize(("translator", "runs"), [(False, 3), (True, 1)])
def test_hub_agents_left_open_at_exit_do_not_abort_python(fake_engine, tmp_path, translator, runs):
    path = fake_engine
    if translator:  # a Hub-1 translator's engine may outlive it, holding the pipes open
        path = str(tmp_path / "translator.sh")
        Path(path).write_text(f'#!/bin/sh\nsleep 30 &\nexec "{fake_engine}" "$@"\n')
        Path(path).chmod(0o755)
    script = tmp_path / "left_open.py"
    script.write_text(LEFT_OPEN.format(path=path))
    runs = [
        subprocess.Popen([sys.executable, str(script)], stderr=subprocess.PIPE, text=True)
        for _ in range(runs)  # it aborted 3 times out of 3
    ]
    for run in runs:
        _, err = run.communicate(timeout=GUARD)
        assert run.returncode == 0 and "Fatal" not in err, err


def test_hub_close_is_idempotent_and_restartable(fake_engine):
    agent = HubAgent(fake_engine, depth=1, timeout=GUARD)
    agent.close()
    agent.close()
    position = Position.start("international")
    assert agent.choose(position) in position.legal_moves()  # a new engine
    agent.close()
    agent.reset()  # a new engine again, started by reset: not in the first move's time
    assert agent._engine is not None and agent._engine.is_running()
    assert agent.choose(position) in position.legal_moves()
    agent.close()


# --- Hub in the arena -----------------------------------------------------------------------


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_arena_reports_an_engine_that_dies_mid_game_in_one_line(fake_engine, capsys, workers):
    spec = f"hub:{fake_engine},depth=1,timeout={GUARD},crash_after=3"
    argv = ["--agents", spec, "random", "--games", "2", "--workers", workers, "--no-progress"]
    assert arena_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("damas arena: error: hub:fake_hub.py: the engine died while waiting")
    assert "fake engine crashed" in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("args=hub exit-at-start", "the engine died while waiting for 'wait'"),
        ("cwd=/no/such/dir", "cwd='/no/such/dir' is not an existing directory"),
    ],
)
def test_arena_refuses_a_misconfigured_engine_before_any_game(
    fake_engine, capsys, monkeypatch, option, message
):
    monkeypatch.setattr("damas_agents.arena.match.play_match", pytest.fail)
    argv = ["--agents", f"hub:{fake_engine},{option}", "random", "--no-progress"]
    assert arena_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_hub_formats():
    start = Position.start("international")
    assert hub_position(start) == "W" + "b" * 20 + "e" * 10 + "w" * 20
    assert parse_hub_line('id name=Scan version=3.0 author="Fabien Letouzey" flag') == (
        "id",
        {"name": "Scan", "version": "3.0", "author": "Fabien Letouzey", "flag": ""},
    )
    position = Position.from_fen("W:WK46,38:B41,32,22,13,K5,20", "international")
    for move in position.legal_moves():
        assert parse_hub_move(hub_move(move), position) == move
        assert parse_hub_move("x".join(str(s + 1) for s in move.squares), position) == move
    assert hub_move(start.find_move("32-28")) == "32-28"
    with pytest.raises(HubError, match="malformed"):
        parse_hub_move("32 28", start)
    with pytest.raises(HubError, match="off the board"):
        parse_hub_move("32-99", start)


@pytest.mark.skipif(shutil.which("dame") is None, reason="pip install dame-rs (the dame program)")
def test_hub_drives_dame_rs():
    with HubAgent("dame", depth=2, timeout=GUARD) as agent:
        env = draughts_v0.env("international", max_plies=20)
        play_game(env, {"player_0": agent, "player_1": RandomHops(0)})
        assert agent.engine_id["name"] == "dame"
