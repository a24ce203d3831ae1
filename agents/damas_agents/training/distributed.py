"""Distributed self-play on Ray: workers play, one learner learns.

    damas train alphazero_english --set distributed.backend=ray distributed.workers=4

Each iteration of :class:`RaySelfPlay` sends the learner's weights to the workers (Ray
actors, each with its own trainer and seed), runs their ``collect`` in parallel and
``learn`` on all payloads. A worker that dies loses that iteration's payload and is
replaced, up to ``distributed.max_restarts``. ``distributed.address: ""`` starts a local Ray,
``auto`` joins this machine's cluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any

from damas_agents.models.config import Config, DistributedConfig, config_from_dict, config_to_dict
from damas_env.checks import shown

__all__ = ["RaySelfPlay", "RayStartError", "WorkersLostError"]


class WorkersLostError(RuntimeError):
    """More workers died than ``distributed.max_restarts`` allows."""


def _worker_config(config: Config, index: int, restart: int) -> Config:
    """Returns a worker's config: its own seed, no replay buffer of its own, no Ray."""
    seed = config.train.seed + 1000 * (index + 1) + 100_003 * restart
    train = dataclasses.replace(config.train, seed=seed, replay_size=1)
    distributed = dataclasses.replace(config.distributed, backend="none")
    return dataclasses.replace(config, train=train, distributed=distributed)


class _Worker:
    """A self-play worker: a trainer used only for ``collect`` (a Ray actor class)."""

    def __init__(self, config: dict[str, Any], threads: int) -> None:
        import torch

        from damas_agents.training.trainer import make_trainer

        torch.set_num_threads(threads)
        self.trainer = make_trainer(config_from_dict(config))

    def collect(self, state: dict[str, Any]) -> dict[str, Any]:
        self.trainer.load_worker_state(state)
        payload: dict[str, Any] = self.trainer.collect()
        return payload

    def pid(self) -> int:
        return os.getpid()


class RayStartError(RuntimeError):
    """Ray did not start here (a local node that timed out) or could not join its cluster."""


def _start_ray(ray: Any, d: DistributedConfig) -> None:
    """Starts a local Ray, or joins the cluster at ``distributed.address``.

    Raises:
        RayStartError: Ray failed to start or connect; the message is its first line.
    """
    try:
        if d.address:
            ray.init(address=d.address, log_to_driver=False)
        else:
            cpus = max(os.cpu_count() or 1, int(d.workers * d.worker_cpus) + 1)
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    except Exception as error:  # Ray's node startup raises a bare Exception
        with contextlib.suppress(Exception):
            ray.shutdown()  # what a half-started node left
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
        where = f"join the Ray cluster at {shown(d.address)}" if d.address else "start a local Ray"
        raise RayStartError(f"could not {where}: {reason}") from error


class RaySelfPlay:
    """Runs a trainer's self-play in Ray actors (see the module docstring).

    Args:
        trainer: the learner (its ``collect`` is not used; ``learn`` is).
        config: the run's config (``distributed`` section).

    Raises:
        ImportError: Ray is not installed (``pip install damas-env[ray]``).
        RayStartError: Ray did not start, or did not join its cluster.
    """

    def __init__(self, trainer: Any, config: Config) -> None:
        import ray

        self.ray = ray
        self.trainer = trainer
        self.config = config
        d = config.distributed
        self._started_ray = not ray.is_initialized()
        if self._started_ray:
            _start_ray(ray, d)
        self._actor = ray.remote(num_cpus=d.worker_cpus, max_restarts=0)(_Worker)
        self.restarts = 0
        self._restarts_of = [0] * d.workers
        self.workers = [self._start(k) for k in range(d.workers)]

    def _start(self, index: int) -> Any:
        config = _worker_config(self.config, index, self._restarts_of[index])
        threads = max(1, self.config.train.torch_threads or 1)
        return self._actor.remote(config_to_dict(config), threads)

    def step(self) -> dict[str, float]:
        """Runs one distributed iteration; returns the learner's metrics plus
        ``distributed/workers`` and ``distributed/restarts``."""
        ray = self.ray
        state = ray.put(self.trainer.worker_state())
        futures = [w.collect.remote(state) for w in self.workers]
        payloads = []
        for k, future in enumerate(futures):
            try:
                payloads.append(ray.get(future))
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as error:
                self._replace(k, error)
        if not payloads:  # every worker died this iteration: try once more with new ones
            return self.step()
        metrics = self.trainer.learn(payloads)
        metrics["distributed/workers"] = float(len(payloads))
        metrics["distributed/restarts"] = float(self.restarts)
        return metrics

    def _replace(self, index: int, error: BaseException) -> None:
        """Replaces a dead worker (its payload is dropped), or raises past max_restarts."""
        self.restarts += 1
        limit = self.config.distributed.max_restarts
        if self.restarts > limit:
            raise WorkersLostError(
                f"self-play worker {index} died ({type(error).__name__}); {self.restarts} "
                f"deaths exceed distributed.max_restarts={limit}"
            ) from error
        self.ray.kill(self.workers[index], no_restart=True)
        self._restarts_of[index] += 1
        self.workers[index] = self._start(index)

    def worker_pids(self) -> list[int]:
        """Returns the process id of each worker (for tests and monitoring)."""
        return [int(p) for p in self.ray.get([w.pid.remote() for w in self.workers])]

    def close(self) -> None:
        """Stops the workers, and the local Ray if this object started it."""
        for worker in self.workers:
            self.ray.kill(worker, no_restart=True)
        self.workers = []
        if self._started_ray:
            self.ray.shutdown()
