"""Worker processes end with their trainer or arena, however it ends (kill -9 included).

A trainer runs in a subprocess until its workers are busy, is SIGKILLed, and every worker
must be gone within a generous deadline (a hang guard, not a speed test). The watch a worker
keeps on its parent is also tested on its own with a fake parent, deterministically.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from damas_agents.workers import watch_parent

ROOT = Path(__file__).resolve().parents[1]
#: Hang guards: a first run compiles the self-play kernels in each worker (minutes on a busy
#: machine); a worker's end after its trainer's is a matter of a second.
START_LIMIT, EXIT_LIMIT = 900.0, 60.0

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="lists processes through /proc"
)

#: An nnue trainer with two self-play workers, training until it is killed; with "thread" as
#: its argument it trains from a thread other than the main one.
TRAINER = textwrap.dedent(
    """
    import sys, threading
    from damas_agents.models.config import config_from_dict
    from damas_agents.training.nnue import NNUETrainer

    config = config_from_dict({
        "name": "orphans", "algorithm": "nnue",
        "env": {"variant": "english", "max_plies": 60, "opening_plies": 4},
        "nnue": {"hidden": 8, "hidden2": 4, "depth": 3, "games_per_iteration": 8,
                 "workers": 2, "tt_bits": 12},
        "train": {"iterations": 1000000, "batch_size": 16, "updates_per_iteration": 1,
                  "replay_size": 256},
        "eval": {"every": 0},
    })

    def train():
        trainer = NNUETrainer(config)
        while True:
            trainer.step()
            print("stepped", flush=True)

    if sys.argv[1:] == ["thread"]:
        thread = threading.Thread(target=train)
        thread.start()
        thread.join()
    else:
        train()
    """
)


def children(pid: int) -> list[int]:
    """Returns the process ids whose parent is `pid` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


def _stat(pid: int) -> list[str] | None:
    """Returns the fields of /proc/PID/stat after the command's name, or None if no process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def alive(pid: int) -> bool:
    """Says whether a process runs (a zombie, dead and waiting for its parent, does not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def wait_for(condition, limit: float, what: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert process.poll() is None, f"the trainer ended on its own ({process.returncode})"
        assert time.monotonic() < deadline, f"{what} not within {limit} s"
        time.sleep(0.05)


@pytest.mark.parametrize("where", ["main", "thread"])
def test_killing_the_nnue_trainer_ends_its_workers(tmp_path: Path, where: str) -> None:
    """From the main thread the kernel ends the workers with the trainer (mid-game); from
    another thread, their own watch does (between games)."""
    log = (tmp_path / "trainer.out").open("w+b")
    process = subprocess.Popen(
        [sys.executable, "-c", TRAINER, where], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )
    workers: list[int] = []
    try:
        # Two iterations: the workers have played once and are playing the next games.
        steps = lambda: (tmp_path / "trainer.out").read_bytes().count(b"stepped")  # noqa: E731
        wait_for(lambda: steps() >= 2, START_LIMIT, "two iterations", process)
        workers = children(process.pid)
        assert len(workers) >= 2, workers
        assert not outliving(process, workers), f"workers outlived their trainer by {EXIT_LIMIT} s"
    finally:
        clean_up(process, workers)
        log.close()


def outliving(process: subprocess.Popen, workers: list[int], limit: float = EXIT_LIMIT) -> list:
    """Kills `process` (SIGKILL) and returns those of its `workers` still alive `limit`
    seconds later."""
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    deadline = time.monotonic() + limit
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in workers if alive(pid)]


def clean_up(process: subprocess.Popen, workers: list[int]) -> None:
    """Kills what a failure left behind."""
    if process.poll() is None:
        process.kill()
        process.wait()
    for pid in workers:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


#: A learner with two Ray self-play workers (a local Ray of its own), stepping until killed;
#: it prints the workers' process ids once they have played.
RAY_LEARNER = textwrap.dedent(
    """
    from damas_agents.models.config import config_from_dict
    from damas_agents.training.distributed import RaySelfPlay
    from damas_agents.training.trainer import make_trainer

    config = config_from_dict({
        "name": "orphans", "algorithm": "alphazero",
        "env": {"variant": "english", "num_envs": 3, "max_plies": 40},
        "network": {"channels": 8, "blocks": 1, "value_hidden": 8, "device": "cpu"},
        "train": {"iterations": 1000000, "batch_size": 16, "updates_per_iteration": 1},
        "mcts": {"simulations": 4, "leaves_per_game": 2, "steps_per_iteration": 12},
        "eval": {"every": 0},
        "distributed": {"backend": "ray", "workers": 2},
    })
    workers = RaySelfPlay(make_trainer(config), config)
    workers.step()
    print("workers", *workers.worker_pids(), flush=True)
    while True:
        workers.step()
    """
)


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_killing_a_ray_learner_ends_its_self_play_workers(tmp_path: Path) -> None:
    """Ray's own fate sharing: the local Ray a learner started goes with it (its workers
    within a minute; two helper agents of Ray's may take a minute more)."""
    pytest.importorskip("ray")
    out = tmp_path / "learner.out"
    with out.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", RAY_LEARNER], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
    workers: list[int] = []
    try:
        wait_for(lambda: b"workers" in out.read_bytes(), START_LIMIT, "Ray workers", process)
        line = next(x for x in out.read_text().splitlines() if x.startswith("workers"))
        workers = [int(pid) for pid in line.split()[1:]]
        assert not outliving(process, workers, 2 * EXIT_LIMIT)
    finally:
        clean_up(process, workers)


class FakeParent:
    """A parent process id that changes after `lives` looks, with the sleeps counted."""

    def __init__(self, lives: int) -> None:
        self.lives, self.sleeps = lives, []

    def __call__(self) -> int:
        self.lives -= 1
        return 100 if self.lives >= 0 else 1

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def test_a_worker_leaves_once_its_parent_is_gone() -> None:
    parent, left = FakeParent(lives=3), []
    watch_parent(100, 0.5, parent, parent.sleep, left.append)
    assert parent.sleeps == [0.5] * 3 and left == [1]


def test_a_worker_whose_parent_died_before_the_watch_leaves_at_once() -> None:
    parent, left = FakeParent(lives=0), []
    watch_parent(100, 0.5, parent, parent.sleep, left.append)
    assert parent.sleeps == [] and left == [1]


#: An arena match on two worker processes, long enough to be killed mid-match; it prints a
#: line once the workers have finished a game.
ARENA = textwrap.dedent(
    """
    from damas_agents.arena import play_match

    if __name__ == "__main__":
        play_match("alphabeta:depth=5", "alphabeta:depth=5", variant="english", games=400,
                   seed=1, workers=2, progress=True)
    """
)


def test_killing_the_arena_ends_its_game_workers(tmp_path: Path) -> None:
    """The arena's spawned game workers end with it: before, they played on after kill -9."""
    script = tmp_path / "arena.py"
    script.write_text(ARENA)
    log = (tmp_path / "arena.out").open("w+b")
    process = subprocess.Popen(
        [sys.executable, str(script)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )
    workers: list[int] = []
    try:
        busy = lambda: [  # noqa: E731 - workers that have started playing (not the tracker)
            pid for pid in children(process.pid) if b"resource_tracker" not in _cmdline(pid)
        ]
        wait_for(lambda: len(busy()) >= 2, START_LIMIT, "two game workers", process)
        time.sleep(1.0)  # inside their first games
        workers = busy()
        assert not outliving(process, workers), f"workers outlived their arena by {EXIT_LIMIT} s"
    finally:
        clean_up(process, workers)
        log.close()


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
