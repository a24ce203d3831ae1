"""The examples run as a user runs them: a quick mode of each script, its output checked.

Each test runs one script in a fresh interpreter (``python -W default``, so deprecation
warnings would show) with flags that make it short, and checks its progress lines, its
final line and that nothing in its output is a deprecation warning or a traceback. A test
skips when the script's library is not installed. ``tests/test_integrations.py`` checks,
in process, that the learners only play legal hops.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
INTEGRATIONS = ROOT / "examples" / "integrations"
PYGAME_GAME = ROOT / "examples" / "pygame_game.py"

# Hide pygame from the script's interpreter, as on an install without it.
NO_PYGAME = """
import sys

class _NoPygame:
    def find_spec(self, name, path=None, target=None):
        if name == "pygame" or name.startswith("pygame."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoPygame())
"""


def run(script: Path, *args: str, timeout: float = 300, **env: str) -> tuple[int, str, str]:
    """Runs a script as ``python -W default script args``; returns (rc, stdout, stderr)."""
    environ = {**os.environ, **env}
    proc = subprocess.run(
        [sys.executable, "-W", "default", str(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environ,
        cwd=ROOT,
    )
    return proc.returncode, proc.stdout, proc.stderr


def check_clean(rc: int, out: str, err: str) -> None:
    """Asserts the run ended well, with no deprecation warning and no traceback."""
    assert rc == 0, f"exit {rc}\n{out}\n{err}"
    text = out + err
    assert "Traceback" not in text, err
    assert "deprecat" not in text.lower(), [
        line for line in text.splitlines() if "deprecat" in line.lower()
    ]


PROGRESS = re.compile(
    r"^\s*[\d,]+ hops\s+\d+ s\s+(mean reward [+-]\d\.\d\d \(last \d+ games\)|no game)"
)


def check_saved_and_rated(lines: list[str], name: str, saved: Path) -> int:
    """Asserts the run saved its model (``--save``) and printed its rating on the English pool
    (``--rate --rate-games 2``); returns the index of the line saying where it saved."""
    assert saved.exists(), lines
    at = next(i for i, line in enumerate(lines) if line.startswith("saved the "))
    assert lines[at].endswith(f" to {saved}"), lines[at]
    assert re.fullmatch(rf"{name} on the english pool v1 \(random = 0\): Elo .+", lines[at + 1])
    assert lines[at + 2].startswith("2 games, score "), lines
    return at


def test_sb3_maskable_ppo_example(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    saved = tmp_path / "model.zip"
    rc, out, err = run(
        INTEGRATIONS / "sb3_maskable_ppo.py",
        *("--steps", "1024", "--eval-games", "2", "--every", "0"),
        *("--save", str(saved), "--rate", "--rate-games", "2"),
    )
    check_clean(rc, out, err)
    lines = out.splitlines()
    assert sum(bool(PROGRESS.match(line)) for line in lines) >= 2, out  # one per rollout here
    at = check_saved_and_rated(lines, "sb3-maskable-ppo", saved)
    assert re.fullmatch(
        r"MaskablePPO after 1,024 steps \(\d+ s\): mean reward [+-]\d\.\d\d vs random over 2 games",
        lines[at - 1],
    ), out


def test_sb3_maskable_ppo_batch_example(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    saved = tmp_path / "model.zip"
    rc, out, err = run(
        INTEGRATIONS / "sb3_maskable_ppo_batch.py",
        *("--steps", "1024", "--envs", "8", "--eval-games", "8", "--every", "0"),
        *("--save", str(saved), "--rate", "--rate-games", "2"),
    )
    check_clean(rc, out, err)
    lines = out.splitlines()
    assert sum(bool(PROGRESS.match(line)) for line in lines) >= 4, out  # 256 hops a rollout
    at = check_saved_and_rated(lines, "sb3-maskable-ppo-batch", saved)
    assert re.fullmatch(
        r"MaskablePPO \(batch\) after 1,024 steps \(\d+ s\): "
        r"mean reward [+-]\d\.\d\d vs random over 8 games",
        lines[at - 1],
    ), out


def test_tianshou_dqn_example(tmp_path: Path) -> None:
    pytest.importorskip("tianshou")
    saved = tmp_path / "dqn.pt"
    rc, out, err = run(
        INTEGRATIONS / "tianshou_dqn.py",
        *("--steps", "300", "--save", str(saved), "--rate", "--rate-games", "2"),
    )
    check_clean(rc, out, err)
    lines = out.splitlines()
    at = check_saved_and_rated(lines, "tianshou-dqn", saved)
    assert re.fullmatch(
        r"Tianshou DQN \(player_0\) after 300 steps: mean reward [+-]\d\.\d\d", lines[at - 1]
    ), out


def test_torchrl_ppo_example(tmp_path: Path) -> None:
    pytest.importorskip("torchrl")
    saved = tmp_path / "learner.pt"
    rc, out, err = run(
        INTEGRATIONS / "torchrl_ppo.py",
        *("--steps", "400", "--save", str(saved), "--rate", "--rate-games", "2"),
    )
    # Not check_clean: TorchRL's own Collector builds classes it deprecates (its weight
    # updaters), whatever the caller does, so -W default shows its notices.
    assert rc == 0 and "Traceback" not in out + err, f"exit {rc}\n{out}\n{err}"
    lines = out.splitlines()
    at = check_saved_and_rated(lines, "torchrl-ppo", saved)
    assert re.fullmatch(
        r"TorchRL PPO \(player_0\) after 400 steps: mean reward [+-]\d\.\d\d vs random",
        lines[at - 1],
    ), out


@pytest.mark.parametrize(
    ("script", "library"),
    [
        ("sb3_maskable_ppo.py", "sb3_contrib"),
        ("tianshou_dqn.py", "tianshou"),
        ("torchrl_ppo.py", "torchrl"),
    ],
)
def test_rate_refuses_a_variant_without_a_pool_before_training(script: str, library: str) -> None:
    pytest.importorskip(library)
    rc, out, err = run(INTEGRATIONS / script, "--variant", "russian", "--rate", timeout=600)
    assert rc == 2 and out == "", out
    assert "--rate: no rating pool for russian" in err, err


def test_rllib_ppo_example(tmp_path: Path) -> None:
    """About 30 s on a 2-core machine, mostly Ray's start and the algorithm's build."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError as error:  # also a ray whose RLlib lacks a dependency (pyarrow, dm-tree)
        pytest.skip(f"ray.rllib does not import: {error}")
    rc, out, err = run(
        INTEGRATIONS / "rllib_ppo.py",
        *("--steps", "400", "--batch", "200", "--eval-games", "2", "--progress-games", "2"),
        *("--save", str(tmp_path / "algo"), "--rate", "--rate-games", "2"),
    )
    check_clean(rc, out, err)
    lines = out.splitlines()
    assert re.fullmatch(r"before training: vs random [+-]\d\.\d\d \(2 games\)", lines[0]), out
    iterations = [
        line
        for line in lines
        if re.fullmatch(
            r"iteration +\d+ +[\d,]+ hops +\d+ s +game length +([\d.]+|-) +"
            r"vs random [+-]\d\.\d\d \(2 games\)",
            line,
        )
    ]
    assert len(iterations) >= 2, out
    at = check_saved_and_rated(lines, "rllib-ppo", tmp_path / "algo")
    assert re.fullmatch(
        r"RLlib PPO after 400 steps: mean reward [+-]\d\.\d\d vs random over 2 games "
        r"\(either side\)",
        lines[at - 1],
    ), out


def test_pygame_game_demo() -> None:
    pytest.importorskip("pygame")
    rc, out, err = run(PYGAME_GAME, "--demo", "6", timeout=120, SDL_VIDEODRIVER="dummy")
    check_clean(rc, out, err)
    lines = out.splitlines()
    moves = [  # complete moves in PDN: a capture with x, all its hops in one line
        line
        for line in lines
        if re.fullmatch(r" +\d+\. player_[01] \(\w+\) \d+(-\d+|(x\d+)+)", line)
    ]
    assert len(moves) == 6, out
    assert moves[0].split()[1:3] == ["player_0", "(black)"]  # English: black moves first
    assert lines[-1] == "demo over after 6 moves", out


def test_pygame_game_without_pygame(tmp_path: Path) -> None:
    """Without pygame the script stops with one line that says what to do, no traceback."""
    (tmp_path / "sitecustomize.py").write_text(NO_PYGAME)
    paths = [str(tmp_path), os.environ.get("PYTHONPATH", "")]
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    proc = subprocess.run(
        [sys.executable, str(PYGAME_GAME), "--variant", "english"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
        cwd=ROOT,
    )
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    lines = [  # a cold numba cache adds its "compiling" notes
        line for line in proc.stderr.splitlines() if not line.startswith("damas-env: compiling")
    ]
    assert lines == [
        "this example needs pygame: pip install pygame "
        "(or play in the terminal: damas play --variant english --text)"
    ]
