"""``damas play``: the terminal game driven by scripted input, and the window headless."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from damas_agents.arena import play
from damas_agents.command import main as damas_main
from damas_env.game import Game

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


class ScriptedPerson:
    """Types the scripted lines, then plays on: ``moves``, then the first move it lists."""

    def __init__(self, out: io.StringIO, script: list[str], auto: bool = True) -> None:
        self.out, self.script, self.auto = out, list(script), auto
        self.asked = False

    def readline(self, size: int = -1) -> str:  # lines are short: size never cuts one
        if self.script:
            return self.script.pop(0) + "\n"
        if not self.auto:
            return ""  # end of input
        if not self.asked:
            self.asked = True
            return "moves\n"
        self.asked = False
        listed = re.findall(r"^(?:your move> )?legal moves: (.*)$", self.out.getvalue(), re.M)
        return listed[-1].split(", ")[0] + "\n"


def _text_game(script: list[str], auto: bool = False, **kwargs) -> tuple[Game, str, str]:
    out = io.StringIO()
    game, result = play.play_text(
        "english", "random", lines=ScriptedPerson(out, script, auto), out=out, seed=0, **kwargs
    )
    return game, result, out.getvalue()


class CtrlC(io.StringIO):
    """A person who presses Ctrl-C at the prompt."""

    def readline(self, size: int = -1) -> str:
        raise KeyboardInterrupt


def test_ctrl_c_at_the_prompt_ends_the_prompt_line() -> None:
    """The command line then prints "damas play: interrupted" on a line of its own."""
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        play.play_text("english", "random", lines=CtrlC(), out=out, seed=0)
    assert out.getvalue().endswith("your move> \n")


def test_invalid_entries_are_refused_with_the_legal_moves_then_a_move_is_played() -> None:
    game, result, text = _text_game(["hello", "1-5", "11-15", "quit"])
    assert "error: bad move 'hello'" in text
    assert "error: move '1-5' is not legal here; legal moves: 9-13, 9-14" in text
    assert text.count("error:") == 2
    assert game.ply == 2 and game.moves[0].origin == 10  # 11-15, then the opponent's reply
    assert result == "*" and "unfinished (stopped by the player)" in text


def test_undo_takes_back_the_move_pair_and_play_goes_on() -> None:
    game, _, text = _text_game(["11-15", "undo", "9-13"])
    assert "took back to ply 0" in text
    assert game.ply == 2 and game.moves[0].origin == 8  # 9-13 replaced 11-15


def test_undo_before_any_move_changes_nothing() -> None:
    game, _, text = _text_game(["undo"], human_first=False)
    assert "nothing to undo" in text and game.ply == 1  # the opponent's first move stays


def test_a_game_plays_to_the_end_and_its_pdn_reads_back() -> None:
    game, result, text = _text_game([], auto=True)
    outcome = game.outcome()
    assert outcome is not None and result == outcome.pdn_result(8)
    assert f"result {result}:" in text and f"({outcome.reason.label})" in text
    again = Game.from_pdn(play.game_pdn(game, result))
    assert again.position.fen() == game.position.fen() and again.ply == game.ply


def test_resign_gives_the_opponent_the_game() -> None:
    game, result, text = _text_game(["resign"])
    assert result == "1-0" and "black resigns" in text  # English: black moves first
    assert '[Result "1-0"]' in play.game_pdn(game, result)


def test_damas_play_text_saves_a_pdn_that_reads_back(monkeypatch, tmp_path: Path, capsys) -> None:
    games: list[Game] = []
    real = play.play_text

    def recorded(*args, **kwargs):
        game, result = real(*args, **kwargs)
        games.append(game)
        return game, result

    monkeypatch.setattr(play, "play_text", recorded)
    monkeypatch.setattr("sys.stdin", io.StringIO("11-15\n9-14\n"))  # then end of input
    pdn = tmp_path / "out.pdn"
    args = ["play", "--text", "--variant", "english", "--opponent", "random"]
    assert damas_main([*args, "--seed", "1", "--pdn", str(pdn)]) == 0
    assert "saved" in capsys.readouterr().out
    again = Game.from_pdn(pdn.read_text())
    assert again.position.fen() == games[0].position.fen() and again.ply == games[0].ply
    assert '[Black "you"]' in pdn.read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--text", "--opponent", "nonsense:x=1"], "damas play: error:"),
        (["--text", "--variant", "no-such-variant"], "damas play: error:"),
    ],
)
def test_errors_go_to_stderr_with_status_2(argv, message, capsys) -> None:
    assert play.main(argv) == 2
    assert message in capsys.readouterr().err


def test_window_closed_at_once_ends_the_game_cleanly() -> None:
    pytest.importorskip("pygame")
    import pygame

    pygame.display.init()
    pygame.event.post(pygame.event.Event(pygame.QUIT))  # waits in the queue for the window
    said: list[str] = []
    game, result = play.play_window("english", "random", seed=0, seconds=60, say=said.append)
    assert result == "*" and game.ply == 0
    assert said[-1] == "result *: unfinished (window closed)"


def test_window_plays_the_opponent_first_then_closes() -> None:
    pytest.importorskip("pygame")
    import pygame

    pygame.display.init()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_u, mod=0))
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    said: list[str] = []
    game, result = play.play_window("english", "random", human_first=False, say=said.append)
    assert game.ply == 1 and result == "*"
    assert "nothing to undo" in said  # the opponent's first move alone is not taken back


def test_window_undo_and_new_game(monkeypatch) -> None:
    """``u`` takes back the human's move and the reply, ``n`` starts over; the env follows."""
    pytest.importorskip("pygame")
    from damas_env import Position
    from damas_env.draughts_v0 import raw_env
    from damas_env.render import NEW_GAME, UNDO

    start = Position.start("english").fen()
    script = ["hop", UNDO, "hop", NEW_GAME, None]
    seen: list[tuple[str, int]] = []

    def scripted(self):  # stands in for the mouse: the first legal hop, or a key
        seen.append((self.position.fen(), len(self.legal_actions())))
        step = script.pop(0)
        return self.legal_actions()[0] if step == "hop" else step

    monkeypatch.setattr(raw_env, "wait_for_human", scripted)
    said: list[str] = []
    game, result = play.play_window("english", "random", seed=3, say=said.append)
    assert "took back to ply 0" in said and "new game" in said
    fens = [fen for fen, _ in seen]  # where the human was asked to move
    assert fens[0] == fens[2] == fens[4] == start  # after the undo and the new game
    assert fens[1] != start and fens[3] != start  # after a move and its reply
    assert game.ply == 0 and result == "*"


def test_window_undo_is_off_under_a_clock(monkeypatch) -> None:
    pytest.importorskip("pygame")
    from damas_env.draughts_v0 import raw_env
    from damas_env.render import UNDO

    script = ["hop", UNDO, None]

    def scripted(self):
        step = script.pop(0)
        return self.legal_actions()[0] if step == "hop" else step

    monkeypatch.setattr(raw_env, "wait_for_human", scripted)
    said: list[str] = []
    game, _ = play.play_window("english", "random", seed=3, seconds=60, say=said.append)
    assert any("time control" in line for line in said) and game.ply == 2


def test_env_gives_play_the_colours_and_the_window_title() -> None:
    """What the window game asks of the env: each agent's colour and the title bar."""
    pygame = pytest.importorskip("pygame")
    from damas_env import Colour, draughts_v0

    raw = draughts_v0.env("english", render_mode="human").unwrapped
    raw.reset(seed=0)
    assert raw.colour_of("player_0") == Colour.BLACK  # Black moves first in English draughts
    assert raw.colour_of("player_1") == Colour.WHITE
    with pytest.raises(ValueError, match="agent must be one of"):
        raw.colour_of("player_2")
    raw.set_caption("no window yet")  # nothing to write into
    raw.render()
    raw.set_caption("damas  black 1:00  white 0:59")
    assert pygame.display.get_caption()[0] == "damas  black 1:00  white 0:59"
    raw.close()


def test_without_pygame_play_falls_back_to_the_terminal(monkeypatch, capsys) -> None:
    """What ``damas train`` prints works on the [train] install, which may lack pygame."""
    monkeypatch.setattr(play, "has_pygame", lambda: False)
    monkeypatch.setattr("sys.stdin", io.StringIO("11-15\n"))  # then end of input
    assert damas_main(["play", "--variant", "english", "--opponent", "random", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == (
        "damas play: pygame is not installed (pip install pygame for the window), so the game "
        "is in the terminal\n"
    )
    assert "result" in out
    args = ["play", "--variant", "english", "--opponent", "random", "--time", "60"]
    assert damas_main(args) == 2
    assert "--time needs the window, and pygame is not installed" in capsys.readouterr().err


# --- The prompt's examples, no display, Ctrl-C -----------------------------------------------


@pytest.mark.parametrize("human_first", [True, False])
def test_help_gives_examples_from_the_legal_moves_of_the_person(human_first: bool) -> None:
    game, _, text = _text_game(["help", "quit"], human_first=human_first)
    helps = re.findall(r"^(?:your move> )?commands: .*, e\.g\. (.*)$", text, re.M)
    assert len(helps) == 2, text  # at the start (after the opponent's first move), on help
    legal = [m.squares for m in game.legal_moves()]  # the person's: quit changed nothing
    for examples in helps:
        for example in examples.split(" or "):
            assert game.position.find_move(example).squares in legal


def _without_display() -> dict[str, str]:
    """Returns this environment without a display, as on a server or over SSH."""
    hidden = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
    return {k: v for k, v in os.environ.items() if k not in hidden}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is how Linux finds one")
def test_without_a_display_play_falls_back_to_the_terminal_and_says_why() -> None:
    pytest.importorskip("pygame")  # without it the reason would be the missing pygame
    argv = ["-m", "damas_agents.command", "play", "--opponent", "random", "--seed", "1"]
    done = subprocess.run(  # the timeout only guards against a hang: the old window waited
        [sys.executable, *argv],
        input="11-15\n",  # then end of input
        env=_without_display(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("damas play:")]
    assert notes == [
        "damas play: there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set), "
        "so the game is in the terminal"
    ]
    assert "XDG_RUNTIME_DIR" not in done.stderr  # pygame's display probes never ran
    assert "result *: unfinished (end of input)" in done.stdout


class FakeDisplay:
    """Stands in for pygame where SDL, given no screen, picks a driver that shows nothing."""

    class error(RuntimeError):  # noqa: N801, N818 (pygame.error)
        pass

    def __init__(self, driver: str | None) -> None:
        self.driver, self.started = driver, False
        self.display = self

    def init(self) -> None:
        if self.driver is None:
            raise self.error("No available video device")
        self.started = True

    def get_driver(self) -> str:
        return str(self.driver)

    def quit(self) -> None:
        self.started = False


def test_a_driver_sdl_falls_back_to_is_no_display(monkeypatch) -> None:
    monkeypatch.setattr(play, "has_pygame", lambda: True)
    monkeypatch.setenv("DISPLAY", ":0")  # set, but no screen behind it
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    fake = FakeDisplay("offscreen")
    monkeypatch.setitem(sys.modules, "pygame", fake)
    assert play.window_unavailable() == "there is no display (SDL found only its offscreen driver)"
    assert not fake.started
    monkeypatch.setitem(sys.modules, "pygame", FakeDisplay(None))
    assert play.window_unavailable() == "the window could not open (No available video device)"
    monkeypatch.setitem(sys.modules, "pygame", FakeDisplay("x11"))
    assert play.window_unavailable() is None
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")  # asked for: respected
    monkeypatch.setitem(sys.modules, "pygame", FakeDisplay("offscreen"))
    assert play.window_unavailable() is None


def test_a_window_that_cannot_open_falls_back_to_the_terminal(monkeypatch, capsys) -> None:
    pygame = pytest.importorskip("pygame")
    from damas_env import render

    def no_window(*args, **kwargs):
        raise pygame.error("x11 not available")

    monkeypatch.setattr(render, "PygameBoard", no_window)
    monkeypatch.setattr("sys.stdin", io.StringIO("11-15\n"))  # then end of input
    assert damas_main(["play", "--opponent", "random", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert (
        "damas play: the window could not open (x11 not available), so the game is in the "
        "terminal\n" in err
    )
    assert "result *: unfinished (end of input)" in out
    assert damas_main(["play", "--opponent", "random", "--time", "60"]) == 2
    assert "--time needs the window, and the window could not open" in capsys.readouterr().err


# The window game; it says on stdout when it first waits for an event (the mouse).
WINDOW_GAME = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, whatever we inherit
import pygame
from damas_agents.command import main
wait, said = pygame.event.wait, []

def announced(*args):
    if not said:
        said.append(True)
        print("waiting for the person", flush=True)
    return wait(*args)

pygame.event.wait = announced
sys.exit(main(["play", "--opponent", "random", "--seed", "1"]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_ctrl_c_ends_a_window_game_that_waits_for_the_mouse() -> None:
    pytest.importorskip("pygame")
    proc = subprocess.Popen(
        [sys.executable, "-c", WINDOW_GAME],
        env=dict(os.environ, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    guard = threading.Timer(600, proc.kill)  # a hang guard only: the old loop never woke
    guard.start()
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "waiting for the person\n"
        time.sleep(0.5)  # into the wait itself, where the old loop slept until the next event
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate()
    finally:
        guard.cancel()
        proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "damas play: interrupted"
