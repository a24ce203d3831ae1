"""Self-play in Ray workers: a local two-worker run trains, and survives a killed worker."""

from __future__ import annotations

import io
import os
import signal
from pathlib import Path

import pytest

from damas_agents.models.checkpoint import read_checkpoint
from damas_agents.models.config import config_from_dict
from damas_agents.training.distributed import RaySelfPlay, WorkersLostError, _worker_config
from damas_agents.training.train import run_training
from damas_agents.training.trainer import make_trainer

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")  # one local Ray per test run (--dist loadgroup)

BASE = {
    "env": {"variant": "english", "num_envs": 3, "max_plies": 40},
    "network": {"channels": 8, "blocks": 1, "value_hidden": 8, "device": "cpu"},
    "train": {"iterations": 3, "batch_size": 16, "updates_per_iteration": 1},
    "mcts": {"simulations": 4, "leaves_per_game": 2, "steps_per_iteration": 12},
    "ppo": {"rollout_steps": 24, "num_minibatches": 2, "update_epochs": 1},
    "eval": {"every": 0},
    "distributed": {"backend": "ray", "workers": 2},
}


def config(algorithm: str, **distributed: object):
    data = {**BASE, "name": f"ray-{algorithm}", "algorithm": algorithm}
    data["distributed"] = {**BASE["distributed"], **distributed}
    return config_from_dict(data)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module (starting one takes seconds)."""
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_workers_get_their_own_seeds() -> None:
    c = config("alphazero")
    seeds = {_worker_config(c, k, r).train.seed for k in range(3) for r in range(3)}
    assert len(seeds) == 9 and c.train.seed not in seeds
    assert _worker_config(c, 0, 0).distributed.backend == "none"


@pytest.mark.parametrize("algorithm", ["alphazero", "ppo"])
def test_two_workers_train_end_to_end(tmp_path: Path, algorithm: str) -> None:
    result = run_training(config(algorithm), run_dir=tmp_path, progress=False, out=io.StringIO())
    assert read_checkpoint(result.checkpoint)["iteration"] == 3
    last = result.history[-1]
    assert last["distributed/workers"] == 2 and last["distributed/restarts"] == 0
    assert last["positions"] > 0
    # The same metrics as a single-process iteration, in kind.
    single = make_trainer(config(algorithm, backend="none")).step()
    assert set(single) <= set(last)


def test_a_killed_worker_is_replaced_and_the_run_goes_on() -> None:
    trainer = make_trainer(config("alphazero"))
    workers = RaySelfPlay(trainer, config("alphazero"))
    try:
        workers.step()
        os.kill(workers.worker_pids()[0], signal.SIGKILL)
        metrics = workers.step()  # the dead worker's share of this iteration is dropped
        assert metrics["distributed/workers"] == 1 and metrics["distributed/restarts"] == 1
        replay = trainer.replay.added
        metrics = workers.step()  # a fresh worker plays from the next iteration
        assert metrics["distributed/workers"] == 2
        assert trainer.iteration == 3 and trainer.replay.added >= replay
        assert len(set(workers.worker_pids())) == 2
    finally:
        workers.close()


def test_too_many_deaths_stop_the_run() -> None:
    c = config("alphazero", max_restarts=0)
    trainer = make_trainer(c)
    workers = RaySelfPlay(trainer, c)
    try:
        os.kill(workers.worker_pids()[1], signal.SIGKILL)
        with pytest.raises(WorkersLostError, match="max_restarts=0"):
            workers.step()
    finally:
        workers.close()
