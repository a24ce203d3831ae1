"""A person playing through the pygame window: drags turned into hops, headless."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
pygame = pytest.importorskip("pygame")

from damas_env import draughts_v0  # noqa: E402
from damas_env.render import square_centre  # noqa: E402


def drag(env: draughts_v0.raw_env, origin: int, target: int) -> None:
    """Posts the mouse events of dragging from one PDN square to another."""
    window = env.unwrapped._window
    px, n, flip = window.square_px, env.unwrapped.rules.board_size, env.unwrapped.flip
    down = square_centre(origin - 1, n, px, flip)
    up = square_centre(target - 1, n, px, flip)
    window.pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=down, button=1))
    window.pygame.event.post(
        pygame.event.Event(pygame.MOUSEMOTION, pos=up, rel=(0, 0), buttons=(1, 0, 0))
    )
    window.pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=up, button=1))


def test_a_capture_dragged_hop_by_hop() -> None:
    env = draughts_v0.env("english", render_mode="human")
    env.reset(options={"fen": "W:W27:B23,15"})  # White takes 23 then 15: 27x18x11
    raw = env.unwrapped
    raw.render()
    drag(env, 27, 11)  # an illegal drop (not one hop) is ignored ...
    drag(env, 27, 18)  # ... and the first hop is taken
    action = raw.wait_for_human()
    assert raw.decode_action(action) == (27, 18)
    env.step(action)
    assert env.agent_selection == "player_1" and raw._turn.hop == 1
    drag(env, 18, 11)
    action = raw.wait_for_human()
    env.step(action)
    assert env.terminations["player_1"] and env.rewards["player_1"] == 1.0
    env.close()


def test_flip_key_turns_the_board_and_closing_returns_none() -> None:
    env = draughts_v0.env("english", render_mode="human")
    env.reset()
    raw = env.unwrapped
    raw.render()
    window = raw._window
    window.pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_f, mod=0))
    window.pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert raw.wait_for_human() is None and raw.flip is True
    env.close()


def test_example_script_runs_headless() -> None:
    script = Path(__file__).parent.parent / "examples" / "pygame_game.py"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    done = subprocess.run(
        [sys.executable, str(script), "--variant", "international", "--demo", "12"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
