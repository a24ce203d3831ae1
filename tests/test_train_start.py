"""How ``damas train`` starts: the optional packages checked first, the first line on stderr,
compile notes that never collide with the progress bar, and the worked examples of its help.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import tiny_training
from numba.core import event

from damas_agents.command import main as damas_main
from damas_agents.extras import MissingExtraError
from damas_agents.models.config import config_from_dict, load_config
from damas_agents.players.make import make_agent
from damas_agents.training import train
from damas_agents.training.alphazero import AlphaZeroTrainer
from damas_env import kernels as K
from damas_env.draughts_v0 import raw_env
from damas_env.rules import get_ruleset

#: Runs ``damas`` as if torch were not installed: ``import torch`` raises ModuleNotFoundError
#: and ``importlib.util.find_spec("torch")`` returns None, as they do without it.
WITHOUT_TORCH = """
import sys
sys.modules["torch"] = None
from damas_agents.command import main
sys.exit(main(sys.argv[1:]))
"""

COMPILE_NOTE = "damas-env: compiling "


def fake_compile(module: str) -> None:
    """Sends the compile event numba sends when it starts compiling a kernel of `module`."""
    dispatcher = SimpleNamespace(py_func=SimpleNamespace(__module__=module))
    with event.trigger_event("numba:compile", data={"dispatcher": dispatcher}):
        pass


@pytest.fixture
def notes_again(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Lets the compile note be written again for every module, and checks that the run put
    its writer back."""
    monkeypatch.setattr(K.NOTICE, "noted", set())
    writer = K.NOTICE.write
    yield
    assert K.NOTICE.write is writer


def tiny_file(tmp_path: Path, **sections: object) -> str:
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(tiny_training(**sections)), encoding="utf-8")
    return str(path)


# --- Optional packages ----------------------------------------------------------------------


def test_training_without_torch_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    """Without torch, ``damas train quickstart`` says which extra to install in one line and
    exits 2, having compiled nothing (a fresh numba cache stays empty: a compile would also
    print its note) and written nothing."""
    cache, work = tmp_path / "numba-cache", tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH, "train", "quickstart"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        "damas train: training needs PyTorch, which is not installed: "
        "pip install 'damas-env[train]'"
    ]
    assert list(work.iterdir()) == []  # no runs/
    assert not cache.exists() or not any(cache.rglob("*.nbi")), list(cache.rglob("*"))


@pytest.mark.parametrize(
    ("module", "sections", "extra"),
    [
        ("ray", {"distributed": {"backend": "ray", "workers": 1}}, "ray"),
        ("tqdm", {}, "train"),
    ],
)
def test_a_missing_package_the_run_needs_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    module: str,
    sections: dict,
    extra: str,
) -> None:
    """Ray for ``distributed.backend: ray``, tqdm for the progress bar: checked before
    anything is written, in one line that names the extra."""
    monkeypatch.setitem(sys.modules, module, None)
    config, run = tiny_file(tmp_path, **sections), tmp_path / "run"
    assert damas_main(["train", config, "--out", str(run)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"pip install 'damas-env[{extra}]'" in err[0], err
    assert not run.exists()
    with pytest.raises(MissingExtraError, match=rf"damas-env\[{extra}\]"):
        train.run_training(config_from_dict(tiny_training(**sections)), run_dir=run)
    assert not run.exists()


# --- What comes on stderr, in order ---------------------------------------------------------


def test_setting_up_is_the_first_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    notes_again: None,
) -> None:
    """``setting up`` comes before the first compile: checking the evaluation opponents
    plays their first hop, which is where a first run compiles the rules kernels."""
    from damas_agents.players import base

    play_hop = base.play_hop

    def compiling(*args: object) -> object:
        fake_compile("damas_env.kernels")
        return play_hop(*args)

    monkeypatch.setattr(base, "play_hop", compiling)
    config = tiny_file(tmp_path, train={"iterations": 1}, eval={"every": 1, "games": 2})
    assert damas_main(["train", config, "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"damas train: setting up tiny in {tmp_path / 'r'} ")
    assert err[1].startswith(f"{COMPILE_NOTE}the rules kernels "), err


def test_a_compile_under_the_progress_bar_gets_a_line_of_its_own(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    notes_again: None,
) -> None:
    """A kernel compiled while the bar is on screen: tqdm clears the bar, writes the note on
    a line of its own and draws the bar again below it (a plain print would continue the
    bar's line). The note's writer is put back when the run ends."""
    step = AlphaZeroTrainer.step

    def compiling(self: AlphaZeroTrainer) -> dict[str, float]:
        fake_compile("damas_env.vector")
        return step(self)

    monkeypatch.setattr(AlphaZeroTrainer, "step", compiling)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the bar is for a terminal
    config = config_from_dict(tiny_training(train={"iterations": 1}))
    train.run_training(config, run_dir=tmp_path / "r", progress=True, out=io.StringIO())
    err = capsys.readouterr().err
    assert "iter/s]" in err  # the bar was drawn
    pieces = err.replace("\r", "\n").split("\n")
    assert any(p.startswith(f"{COMPILE_NOTE}the batch environment") for p in pieces), err


def test_progress_false_is_silent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``run_training(progress=False)`` writes nothing on stderr (but numba's first-compile
    notes, which the library writes for any use)."""
    config = config_from_dict(tiny_training(train={"iterations": 1}))
    out = io.StringIO()
    train.run_training(config, run_dir=tmp_path / "r", progress=False, out=out)
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if not line.startswith(COMPILE_NOTE)] == []
    assert out.getvalue().startswith("training tiny (alphazero, english)")


def test_a_bundled_config_loads_by_name_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's snippet: ``load_config("quickstart")`` from any working directory."""
    monkeypatch.chdir(tmp_path)
    assert load_config("quickstart").name == "quickstart"


# --- The worked examples of damas train --help ----------------------------------------------

#: Overrides that make any bundled config's run one tiny iteration.
TINY_BUDGET = [
    "train.iterations=1",
    "eval.every=0",
    "env.num_envs=2",
    "env.max_plies=12",
    "network.channels=8",
    "network.blocks=1",
    "network.device=cpu",
    "train.batch_size=8",
    "train.replay_size=64",
    "train.updates_per_iteration=1",
    "mcts.simulations=2",
    "mcts.leaves_per_game=1",
    "mcts.steps_per_iteration=1",
    "ppo.rollout_steps=2",
    "nnue.games_per_iteration=1",
    "nnue.workers=1",
    "nnue.depth=1",
]


@pytest.mark.parametrize(("what", "command"), train.EXAMPLES, ids=[c for _, c in train.EXAMPLES])
def test_each_worked_example_trains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, command: str
) -> None:
    """Each command line of the help trains (one tiny iteration), its run is named after its
    variant, and the checkpoint it prints plays that variant."""
    argv = shlex.split(command)
    assert argv[:2] == ["damas", "train"]
    run = tmp_path / "run"
    argv += ["--set", *TINY_BUDGET, "--out", str(run), "--no-progress"]
    assert damas_main(argv[1:]) == 0, capsys.readouterr().err
    config = load_config(run / "config.yaml")
    variant = config.env.variant
    assert variant in what.lower() and (variant == "english" or variant in config.name)
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"play it: damas play --variant {variant} --opponent checkpoint:"
        f"{run / 'checkpoints' / 'latest.pt'}"
    )
    agent = make_agent(f"checkpoint:{run / 'checkpoints' / 'latest.pt'}", rules=variant)
    env = raw_env(get_ruleset(variant))
    env.reset()
    from damas_agents.players.base import play_hop

    play_hop(agent, env)
