"""What ``damas train`` promises about time, the terminal and the disk: the time budget leaves
out the setup and the first compile; the progress bar is drawn only on a terminal (with a
budget, in its seconds); NNUE's workers announce a compile once; a full disk is an error that
names the file and loses nothing on disk; resuming a finished run rewrites nothing.

A full disk is simulated by an ``os.write`` that fails with ENOSPC for one file: every file a
run writes goes through ``damas_agents.files``, which writes with ``os.write``.
"""

from __future__ import annotations

import errno
import io
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from helpers import tiny_training
from numba.core import event

from damas_agents.files import WriteError, append_text, write_atomically
from damas_agents.models.checkpoint import CheckpointError, read_checkpoint, save_checkpoint
from damas_agents.models.config import config_from_dict, save_config
from damas_agents.training import nnue, train
from damas_agents.training.alphazero import AlphaZeroTrainer
from damas_agents.training.nnue import NNUETrainer
from damas_agents.training.train import main as train_main
from damas_agents.training.train import run_training
from damas_env import kernels as K

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # conftest.py

NO_PROC = not Path("/proc/self/fd").is_dir()


def tiny(**train_section: Any) -> Any:
    return config_from_dict(tiny_training(train={"iterations": 1, **train_section}))


def fake_compile(module: str, during: Callable[[], None] = lambda: None) -> None:
    """Sends the events numba sends around compiling a kernel of `module`, calling `during`
    between them."""
    dispatcher = SimpleNamespace(py_func=SimpleNamespace(__module__=module))
    with event.trigger_event("numba:compile", data={"dispatcher": dispatcher}):
        during()


# --- The time budget ------------------------------------------------------------------------


class FakeClock:
    """A perf_counter that moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize(("step_seconds", "iterations"), [(1.0, 3), (60.0, 2)])
def test_the_time_budget_leaves_out_the_first_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step_seconds: float, iterations: int
) -> None:
    """The first iteration compiles for 1000 s (on a fake clock), then each takes
    `step_seconds`: a budget of 100 s counts only the iterations, so the run trains all 3 of
    them, or stops at the second once 120 s are spent."""
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    monkeypatch.setattr(event, "timer", clock)
    step = AlphaZeroTrainer.step

    def timed_step(self: AlphaZeroTrainer) -> dict[str, float]:
        if self.iteration == 0:
            fake_compile("tests.kernels", lambda: clock.advance(1000))
        clock.advance(step_seconds)
        return step(self)

    monkeypatch.setattr(AlphaZeroTrainer, "step", timed_step)
    out = io.StringIO()
    result = run_training(
        tiny(iterations=3), run_dir=tmp_path / "r", progress=False, out=out, time_budget=100
    )
    assert read_checkpoint(result.checkpoint)["iteration"] == iterations
    assert result.history[0]["compile_s"] == 1000
    spent = "time budget of 100 s spent at iteration 2"
    assert (spent in out.getvalue()) == (iterations == 2), out.getvalue()


def test_the_help_says_what_the_budget_counts() -> None:
    text = " ".join(train._parser().format_help().split())
    assert "seconds of training" in text
    assert "the setup and the first compile of the kernels are not counted" in text


# --- The progress bar -----------------------------------------------------------------------


def test_no_progress_bar_when_stderr_is_not_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """stderr to a file or a pipe: no bar, so no carriage-return redraws in a log."""
    run_training(tiny(), run_dir=tmp_path / "r", progress=True, out=io.StringIO())
    err = capsys.readouterr().err
    assert "\r" not in err and "iter/s" not in err, err
    assert err.startswith("damas train: setting up tiny")


def test_with_a_time_budget_the_bar_counts_its_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """NNUE runs (iterations: 100000) end by their budget: the bar shows the budget's seconds
    and the iteration beside them, not 0/100000 iterations."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    config = tiny(iterations=100_000)
    result = run_training(
        config, run_dir=tmp_path / "r", progress=True, out=io.StringIO(), time_budget=2
    )
    assert read_checkpoint(result.checkpoint)["iteration"] >= 1
    err = capsys.readouterr().err
    assert "| 0/2 s of training, iter 0/100000" in err, err
    assert "iter 1/100000" in err and "0/100000 [" not in err and "iter/s" not in err


def test_nnue_workers_announce_a_compile_once(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Two self-play workers: the kernels are compiled in the trainer's process before the
    workers start, so the first-compile note is written once, not once per worker."""
    monkeypatch.setattr(K.NOTICE, "noted", set())
    play_game = nnue.play_game

    def compiling(*args: Any) -> Any:
        fake_compile("damas_agents.training.nnue")  # the note, if not written yet
        return play_game(*args)

    monkeypatch.setattr(nnue, "play_game", compiling)
    config = config_from_dict(
        tiny_training(
            algorithm="nnue",
            env={"max_plies": 6, "opening_plies": 2},
            nnue={"hidden": 8, "hidden2": 4, "depth": 1, "games_per_iteration": 2, "workers": 2},
            train={"iterations": 1, "batch_size": 8, "replay_size": 64},
        )
    )
    trainer = NNUETrainer(config)
    try:
        assert trainer.collect()["games"] == 2
    finally:
        trainer.close()
    err = capfd.readouterr().err
    assert err.count("compiling the NNUE self-play kernels") == 1, err


# --- A full disk ----------------------------------------------------------------------------


def disk_full_for(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Makes every ``os.write`` to a file whose name holds `name` (its temporary file too)
    fail as on a full disk."""
    real = os.write

    def write(fd: int, data: Any) -> int:
        if name in os.path.basename(os.readlink(f"/proc/self/fd/{fd}")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.skipif(NO_PROC, reason="needs /proc to tell the files apart")
def test_a_full_disk_names_the_file_and_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, log = tmp_path / "config.yaml", tmp_path / "train.log"
    save_config(tiny(), target)
    append_text(log, "first line\n")
    before = target.read_bytes()
    disk_full_for(monkeypatch, "config.yaml")
    with pytest.raises(WriteError) as error:
        save_config(tiny(iterations=2), target)
    assert str(error.value) == (
        f"cannot write {target}: No space left on device (the file there is as it was)"
    )
    assert error.value.errno == errno.ENOSPC and error.value.filename == str(target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml", "train.log"]
    disk_full_for(monkeypatch, "train.log")
    with pytest.raises(OSError, match=f"cannot write {log}: No space left on device"):
        append_text(log, "second line\n")
    with pytest.raises(OSError, match=f"cannot write {log}"):
        write_atomically(log, b"replaced")
    assert log.read_text() == "first line\n"


@pytest.mark.skipif(NO_PROC, reason="needs /proc to tell the files apart")
@pytest.mark.parametrize("name", ["latest.pt", "metrics.jsonl", "train.log", "config.yaml"])
def test_a_full_disk_during_training_names_the_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    """A run of one iteration, then a resume to two on a disk full for one file: exit status
    1, one line naming the file, and the checkpoint and the metrics of the first iteration
    intact (config.yaml, the log's lines and the metrics are written before latest.pt)."""
    run = tmp_path / "run"
    run_training(tiny(), run_dir=run, progress=False, out=io.StringIO())
    latest = run / "checkpoints" / "latest.pt"
    kept = {p: p.read_bytes() for p in (latest, run / "metrics.jsonl", run / "config.yaml")}
    disk_full_for(monkeypatch, name)
    argv = ["--resume", str(run), "--set", "train.iterations=2", "--no-progress"]
    assert train_main(argv) == 1
    (path,) = [p for p in run.rglob(name) if p.parent.name in ("run", "checkpoints")]
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"damas train: cannot write {path}: No space left on device " + (
        "(the lines before are kept)" if name in ("metrics.jsonl", "train.log") else
        "(the file there is as it was)"
    )  # fmt: skip
    assert latest.read_bytes() == kept[latest]  # each of these comes before latest.pt moves on
    if name == "config.yaml":
        assert (run / "config.yaml").read_bytes() == kept[run / "config.yaml"]
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert lines[0] == json.loads(kept[run / "metrics.jsonl"])
    assert not list(run.rglob("*.tmp"))


# --- Resuming a finished run ----------------------------------------------------------------


def test_resuming_a_finished_run_rewrites_no_file_but_its_log(tmp_path: Path) -> None:
    """Nothing trains, so config.yaml (even with other settings given), the checkpoints and
    the metrics stay the very files they were; train.log gains the resume's lines."""
    run = tmp_path / "run"
    run_training(tiny(), run_dir=run, progress=False, out=io.StringIO())

    def files() -> dict[str, tuple[int, int, bytes]]:
        return {
            str(p.relative_to(run)): (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(run.rglob("*"))
            if p.is_file() and p.name != "train.log"
        }

    before = files()
    argv = ["--resume", str(run), "--set", "eval.games=4", "--no-progress"]
    assert train_main(argv) == 0
    assert files() == before
    assert "already finished its 1 iteration" in (run / "train.log").read_text()


# --- An NNUE network the search cannot compute with -----------------------------------------


def test_init_refuses_a_network_too_large_for_integers(tmp_path: Path) -> None:
    """Weights within the checkpoint's bounds that overflow the search's integers: refused
    before the run writes anything (a resume refuses them too: tests/test_resume_kill.py)."""
    config = config_from_dict(
        tiny_training(algorithm="nnue", nnue={"hidden": 8, "hidden2": 4, "workers": 1})
    )
    trainer = NNUETrainer(config)
    with torch.no_grad():
        trainer.network.w1.fill_(5e5)
    source = tmp_path / "large.pt"
    save_checkpoint(source, trainer)
    with pytest.raises(CheckpointError) as error:
        run_training(config, run_dir=tmp_path / "r", progress=False, init=str(source))
    assert str(error.value) == (
        f"--init {source}: model: the network's first-layer weights are too large to compute "
        "in integers"
    )
    assert not (tmp_path / "r").exists()
