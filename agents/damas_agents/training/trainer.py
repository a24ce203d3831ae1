"""The Trainer protocol: what the training loop asks of an algorithm.

    trainer = make_trainer(config)          # picks the class by config.algorithm
    metrics = trainer.step()                # {"games": 12, "positions": 840, ...}

An iteration is self-play then learning, ``step() == learn([collect()])``, so that self-play
can run in Ray workers. ``step`` returns plain floats; these keys have fixed meanings::

    games           self-play games finished this iteration
    positions       positions (hops) the learner got from self-play this iteration
    game_length     mean plies of the games finished this iteration
    loss/total      the loss minimised, mean over the iteration's gradient steps
    loss/policy     its policy part (loss/value: its value part)
    entropy         mean entropy of the network's masked policy on the trained positions
    value_error     mean squared error of the value head against its targets
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol, TypeVar, runtime_checkable

import numpy as np
import torch

from damas_agents.extras import import_target
from damas_agents.models.config import Config, ConfigError
from damas_agents.models.network import DraughtsNet, device_from

__all__ = [
    "ALGORITHMS",
    "Learner",
    "Trainer",
    "check_device",
    "gradient_steps",
    "make_learner",
    "make_trainer",
]

Batch = TypeVar("Batch")

#: Where each ``config.algorithm`` is implemented (``module:Class``).
ALGORITHMS = {
    "alphazero": "damas_agents.training.alphazero:AlphaZeroTrainer",
    "ppo": "damas_agents.training.ppo:PPOTrainer",
    "nnue": "damas_agents.training.nnue:NNUETrainer",
}


@runtime_checkable
class Trainer(Protocol):
    """One training algorithm: built by ``Class(config)``, stepped one iteration at a time.

    Attributes:
        config: the run's config.
        network: the network being trained (what checkpoints save and the arena plays).
        optimizer: its optimiser (saved in checkpoints, restored on resume).
        device: where the network runs.
        iteration: iterations completed so far (0 for a fresh trainer; restored on resume).
    """

    config: Config
    network: torch.nn.Module
    optimizer: torch.optim.Optimizer
    device: torch.device
    iteration: int

    def step(self) -> dict[str, float]:
        """Runs one iteration (self-play, then updates), increments ``iteration`` and returns
        its metrics (see the module docstring for the fixed keys)."""
        ...

    def collect(self) -> dict[str, Any]:
        """Plays one iteration's self-play; returns what the learner needs from it (plain
        values and CPU tensors, picklable). ``step()`` is ``learn([collect()])``."""
        ...

    def learn(self, payloads: list[dict[str, Any]]) -> dict[str, float]:
        """Learns from :meth:`collect` payloads (this trainer's, or several workers'),
        increments ``iteration`` and returns the metrics."""
        ...

    def worker_state(self) -> dict[str, Any]:
        """Returns what a self-play worker needs at each iteration (the weights...)."""
        ...

    def load_worker_state(self, state: dict[str, Any]) -> None:
        """Loads :meth:`worker_state` into a trainer used as a self-play worker."""
        ...

    def extra_state(self) -> dict[str, Any]:
        """Returns what a resume needs beyond the network, optimiser, iteration and global RNG
        state: replay buffer, opponent pool, the algorithm's own random generators.

        Only tensors, numbers, strings, bools, None and lists/tuples/dicts of them, so the
        checkpoint loads with ``torch.load(weights_only=True)``.
        """
        ...

    def load_extra_state(self, state: dict[str, Any]) -> None:
        """Restores what :meth:`extra_state` returned (games in progress restart fresh)."""
        ...


def make_trainer(config: Config) -> Trainer:
    """Returns the trainer of ``config.algorithm``, built from the config."""
    cls = import_target(ALGORITHMS[config.algorithm])
    trainer: Trainer = cls(config)
    return trainer


class Learner(NamedTuple):
    """What every trainer starts from: its generator, device, network and optimiser."""

    rng: np.random.Generator
    device: torch.device
    network: DraughtsNet
    optimizer: torch.optim.Optimizer


def check_device(config: Config) -> None:
    """Raises ConfigError if ``network.device`` asks for CUDA and torch has no CUDA device.

    A check at start-up, not when a config is read: a checkpoint trained on a GPU still
    loads (and plays in the arena) on a machine without one.
    """
    if config.network.device == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            f"network.device is 'cuda' but torch {torch.__version__} sees no CUDA device; "
            "use network.device=auto or cpu (--set network.device=cpu)"
        )


def make_learner(config: Config) -> Learner:
    """Seeds torch with ``train.seed`` and returns the run's numpy generator (same seed), the
    device, a fresh network for the ruleset (eval mode) and its AdamW optimiser.

    Raises:
        ConfigError: the config asks for CUDA and there is none.
    """
    check_device(config)
    torch.manual_seed(config.train.seed)
    device = device_from(config.network)
    network = DraughtsNet(config.network, config.env.ruleset()).to(device).eval()
    optimizer = torch.optim.AdamW(
        network.parameters(), lr=config.train.lr, weight_decay=config.train.weight_decay
    )
    return Learner(np.random.default_rng(config.train.seed), device, network, optimizer)


def gradient_steps(
    network: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batches: Iterable[Batch],
    losses: Callable[[Batch], dict[str, torch.Tensor]],
    max_grad_norm: float,
) -> dict[str, float]:
    """Takes one gradient step per batch and returns each loss term's mean over the steps
    ({} when there is no batch).

    A step: the batch's loss terms (``losses(batch)``, a dict whose ``"total"`` is
    minimised), gradients zeroed, ``total`` backpropagated, their norm clipped to
    `max_grad_norm` (0: not clipped), one optimiser step. The network is in train mode during
    the steps and back in eval mode after. Batches are taken one step at a time, so a
    generator that draws them at random draws them in step order.
    """
    network.train()
    sums: dict[str, float] = {}
    count = 0
    for batch in batches:
        terms = losses(batch)
        optimizer.zero_grad(set_to_none=True)
        terms["total"].backward()
        if max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(network.parameters(), max_grad_norm)
        optimizer.step()
        for key, value in terms.items():
            sums[key] = sums.get(key, 0.0) + float(value.detach())
        count += 1
    network.eval()
    return {key: value / count for key, value in sums.items()}
