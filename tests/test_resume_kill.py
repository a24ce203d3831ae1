"""A training run resumes to completion after a kill at any moment.

``damas train`` runs in a subprocess and is SIGKILLed: before it wrote anything, before its
first checkpoint, during iterations and as it writes a file; ``--resume`` then takes it to the
end every time, each iteration logged once (metrics.jsonl, train.log, TensorBoard). The
in-process tests set up what such kills leave behind (temporary files, a directory with only
config.yaml, a snapshot missing under its ``latest.pt``).
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import crafted_checkpoint, tiny_training

from damas_agents.models.checkpoint import CheckpointError, read_checkpoint, save_checkpoint
from damas_agents.models.config import config_from_dict, config_to_yaml
from damas_agents.training.train import run_training
from damas_agents.training.trainer import make_trainer

ROOT = Path(__file__).resolve().parents[1]
TOTAL, EVERY = 12, 3

#: A run of a few seconds once started: tiny network, few games and simulations, no eval.
TINY = tiny_training(
    env={"max_plies": 8},
    train={
        "iterations": TOTAL,
        "batch_size": 16,
        "updates_per_iteration": 2,
        "replay_size": 500,
        "checkpoint_every": EVERY,
        "torch_threads": 1,
    },
    mcts={"simulations": 4, "leaves_per_game": 2, "steps_per_iteration": 4},
)


def snapshot(run: Path, iteration: int) -> Path:
    return run / "checkpoints" / f"iter_{iteration:06d}.pt"


def start(run: Path, config: Path) -> subprocess.Popen:
    """Starts ``damas train``: ``--resume`` once config.yaml is there, the first command before."""
    if (run / "config.yaml").exists():
        args = ["--resume", str(run)]
    else:
        args = [str(config), "--out", str(run)]
    log = (run.parent / "train.out").open("ab")
    return subprocess.Popen(
        [sys.executable, "-m", "damas_agents.command", "train", *args, "--no-progress"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip


def kill_when(process: subprocess.Popen, ready: Callable[[], bool], limit: float = 120) -> None:
    """SIGKILLs the process as soon as `ready()` (polled every millisecond) says so."""
    deadline = time.monotonic() + limit
    while process.poll() is None and time.monotonic() < deadline:
        if ready():
            os.kill(process.pid, signal.SIGKILL)
            break
        time.sleep(0.001)
    process.wait(timeout=60)
    assert process.returncode in (0, -signal.SIGKILL), process.returncode


def after(seconds: float) -> Callable[[], bool]:
    t0 = time.monotonic()
    return lambda: time.monotonic() - t0 >= seconds


def iterations_logged(run: Path) -> int:
    path = run / "metrics.jsonl"
    return path.read_text().count("\n") if path.exists() else 0


def temporaries(folder: Path) -> set[str]:
    return {n for n in os.listdir(folder) if n.endswith(".tmp")} if folder.is_dir() else set()


def writing(folder: Path) -> Callable[[], bool]:
    """Says when a new temporary file is in `folder`: a file there is being written."""
    stale = temporaries(folder)
    return lambda: bool(temporaries(folder) - stale)


def check_consistent(run: Path) -> int:
    """Checks what a kill left: latest.pt whole, and the snapshot of its iteration there."""
    latest = run / "checkpoints" / "latest.pt"
    if not latest.exists():
        return 0
    i = read_checkpoint(latest)["iteration"]
    if i > 0 and (i % EVERY == 0 or i == TOTAL):
        assert snapshot(run, i).exists(), f"latest.pt is at {i} but iter_{i:06d}.pt is missing"
    return i


def finish(run: Path) -> str:
    """Resumes the run to the end and checks everything it should hold; returns its output."""
    done = subprocess.run(
        [
            sys.executable, "-m", "damas_agents.command", "train", "--resume", str(run),
            "--no-progress",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_checkpoint(run / "checkpoints" / "latest.pt")["iteration"] == TOTAL
    expected = [snapshot(run, i) for i in range(EVERY, TOTAL + 1, EVERY)]
    assert sorted((run / "checkpoints").glob("iter_*.pt")) == expected
    for i, path in zip(range(EVERY, TOTAL + 1, EVERY), expected, strict=True):
        assert read_checkpoint(path)["iteration"] == i
    assert not list(run.rglob("*.tmp"))
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == list(range(1, TOTAL + 1))
    log = (run / "train.log").read_text().splitlines()
    summaries = [int(x.split()[1].split("/")[0]) for x in log if x.startswith("iter ")]
    assert summaries == list(range(1, TOTAL + 1))
    if importlib.util.find_spec("tensorboard"):
        points = tensorboard_points(run / "tb")
        assert len(points) == len(set(points))
        assert sorted(step for tag, step in points if tag == "positions") == summaries
    return done.stdout


def tensorboard_points(folder: Path) -> list[tuple[str, int]]:
    """Returns the (tag, step) of every TensorBoard point in the event files, read raw."""
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

    return [
        (value.tag, event.step)
        for path in sorted(folder.glob("events.out.tfevents.*"))
        for event in LegacyEventFileLoader(str(path)).Load()
        for value in event.summary.value
    ]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(config_to_yaml(config_from_dict(TINY)))
    return path


def test_killed_before_the_first_checkpoint(tmp_path: Path, config: Path) -> None:
    run = tmp_path / "run"
    process = start(run, config)
    kill_when(process, lambda: (run / "config.yaml").exists())  # before latest.pt exists
    assert not (run / "checkpoints" / "latest.pt").exists()
    out = finish(run)  # --resume with no checkpoint yet: from iteration 0
    assert "resuming tiny (alphazero, english) at iteration 0" in out


@pytest.mark.slow
def test_killed_at_random_moments(tmp_path: Path, config: Path) -> None:
    """Kills before anything is written, at random times, mid-iterations and mid-write; the
    invariants hold after every kill and the last resume completes the run."""
    rng = random.Random(12)
    run = tmp_path / "run"
    triggers: list[Callable[[], Callable[[], bool]]] = [
        lambda: after(0.5),
        lambda: after(rng.uniform(0.5, 12)),
        lambda: writing(run),  # config.yaml, or metrics.jsonl cut back
        lambda: writing(run / "checkpoints"),
        lambda: (lambda n: lambda: iterations_logged(run) > n)(iterations_logged(run)),
    ]
    for cycle in range(8):
        trigger = triggers[0] if cycle == 0 else rng.choice(triggers[1:])
        process = start(run, config)
        kill_when(process, trigger())
        saved = check_consistent(run)
        if process.returncode == 0:
            break  # the run ended first
    out = finish(run)
    assert f"at iteration {saved} in {run}" in out


# --- What kills leave, set up in-process ----------------------------------------------------


def test_start_removes_stale_temporary_files(tmp_path: Path) -> None:
    run = tmp_path / "run"
    stale = [run / ".config.yaml.k1.tmp", run / "checkpoints" / ".latest.pt.k2.tmp"]
    stale.append(run / "checkpoints" / ".iter_000003.pt.k3.tmp")
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"torn")
    config = config_from_dict({**TINY, "train": {**TINY["train"], "iterations": 1}})
    run_training(config, run_dir=run, progress=False, out=io.StringIO())
    assert not any(path.exists() for path in stale)


def test_a_directory_with_only_its_config_resumes_from_the_start(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    config = config_from_dict({**TINY, "train": {**TINY["train"], "iterations": EVERY}})
    (run / "config.yaml").write_text(config_to_yaml(config))
    out = io.StringIO()
    result = run_training(resume=run, progress=False, out=out)
    assert "resuming tiny (alphazero, english) at iteration 0" in out.getvalue()
    assert read_checkpoint(result.checkpoint)["iteration"] == EVERY
    assert snapshot(run, EVERY).exists()


def test_resume_writes_the_missing_snapshot_of_its_iteration(tmp_path: Path) -> None:
    """latest.pt at a snapshot's iteration without the snapshot (an older damas, or Ctrl-C)."""
    run = tmp_path / "run"
    config = config_from_dict({**TINY, "train": {**TINY["train"], "iterations": 2 * EVERY}})
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text(config_to_yaml(config))
    trainer = make_trainer(config)
    for _ in range(EVERY):
        trainer.step()
    save_checkpoint(run / "checkpoints" / "latest.pt", trainer)
    run_training(resume=run, progress=False, out=io.StringIO())
    assert read_checkpoint(snapshot(run, EVERY))["iteration"] == EVERY
    assert read_checkpoint(snapshot(run, 2 * EVERY))["iteration"] == 2 * EVERY


def test_a_fresh_run_saves_iteration_0_before_self_play(tmp_path: Path, monkeypatch) -> None:
    from damas_agents.training.alphazero import AlphaZeroTrainer

    run = tmp_path / "run"
    seen = []

    def step(self: AlphaZeroTrainer) -> dict[str, float]:
        seen.append(read_checkpoint(run / "checkpoints" / "latest.pt")["iteration"])
        raise KeyboardInterrupt

    monkeypatch.setattr(AlphaZeroTrainer, "step", step)
    with pytest.raises(KeyboardInterrupt):
        run_training(config_from_dict(TINY), run_dir=run, progress=False, out=io.StringIO())
    assert seen == [0]


def test_config_yaml_is_written_before_torch_is_imported(tmp_path: Path) -> None:
    """A fresh CPU run writes config.yaml before it imports torch (seconds, a minute on a busy
    machine): the process ends at its first import of torch, and the directory is resumable
    by then."""
    config = tmp_path / "tiny.yaml"
    config.write_text(config_to_yaml(config_from_dict(TINY)))
    run = tmp_path / "run"
    code = (
        "import builtins, os, sys\n"
        "real = builtins.__import__\n"
        "def watch(name, *args, **kwargs):\n"
        "    if name == 'torch' or name.startswith('torch.'):\n"
        f"        print('config.yaml:', os.path.exists({str(run / 'config.yaml')!r}), flush=True)\n"
        "        os._exit(0)\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = watch\n"
        "from damas_agents.command import main\n"
        f"sys.exit(main(['train', {str(config)!r}, '--out', {str(run)!r}, '--no-progress']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and "config.yaml: True" in done.stdout, done.stdout + done.stderr
    assert config_from_dict(TINY) == config_from_dict(
        __import__("yaml").safe_load((run / "config.yaml").read_text())
    )


# --- A refused resume changes nothing ---------------------------------------------------------

#: A three-iteration nnue run (no worker processes), logged and saved at every iteration.
NNUE_RUN = tiny_training(
    algorithm="nnue",
    env={"max_plies": 40, "opening_plies": 2},
    nnue={"hidden": 8, "hidden2": 4, "depth": 2, "games_per_iteration": 2, "workers": 1},
    train={"iterations": 3, "batch_size": 8, "updates_per_iteration": 1, "replay_size": 256},
)


@pytest.fixture(scope="module")
def nnue_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("nnue") / "run"
    run_training(config_from_dict(NNUE_RUN), run_dir=run, progress=False, out=io.StringIO())
    return run


def files_in(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Returns every file under `folder` with its bytes and time of change."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _board(code: int) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["trainer"]["boards"][0, 5] = code

    return change


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_board(127), "trainer.boards"),
        (_board(-128), "trainer.boards"),
        (_board(3), "trainer.boards"),
        (_board(-5), "trainer.boards"),
        (lambda d: d["trainer"]["sides"].fill_(7), "trainer.sides"),
        (lambda d: d["trainer"].update(cursor=10**9), "trainer.cursor"),
        (lambda d: d["trainer"]["results"].fill_(5.0), "trainer.results"),
        (lambda d: d["history"][0].update(loss=math.nan), "history[0].loss: nan"),
        (lambda d: d["optimizer"]["param_groups"][0].update(lr=1e30), "lr: 1e+30"),
        (lambda d: d["model"]["w1"].fill_(5e5), "model: the network's first-layer weights are"),
        (
            lambda d: d.update(history=d["history"] * 50),
            "history: 50 entries, more than its 1 iteration",
        ),
        (lambda d: d["history"].insert(0, d["history"][0]), "history: 2 entries, more than its 1"),
    ],
)
def test_a_refused_resume_changes_nothing(
    nnue_run: Path, tmp_path: Path, change: Callable[[dict], None], field: str
) -> None:
    """A checkpoint at iteration 1 of a run logged to iteration 3: a resume would cut the logs
    back to 1, but every field is checked first (that the search can compute with the
    network in integers included), so the run is left as it was."""
    run = tmp_path / "run"
    shutil.copytree(nnue_run, run)
    latest = run / "checkpoints" / "latest.pt"
    assert iterations_logged(run) == 3 and read_checkpoint(latest)["trainer"]["filled"] > 0

    def older_and_bad(data: dict) -> None:
        data["iteration"], data["history"] = 1, data["history"][:1]
        change(data)

    crafted_checkpoint(latest, latest, older_and_bad)
    before = files_in(run)
    with pytest.raises(CheckpointError, match=re.escape(field)):
        run_training(resume=run, progress=False, out=io.StringIO())
    assert files_in(run) == before
