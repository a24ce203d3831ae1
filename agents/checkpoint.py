"""Checkpoints: written atomically, read with ``torch.load(weights_only=True)``, played in
the arena.

A checkpoint is one ``.pt`` file holding plain values and tensors only, so loading it runs
no code from the file (``weights_only=True`` refuses anything else)::

    format       "damas-env checkpoint"          what the file is
    version      1                               layout of this dict
    algorithm    "alphazero" | "ppo"
    config       the run's config (plain dict; agents.config.config_from_dict reads it)
    fingerprint  Config.fingerprint(): ruleset switches and network shape
    iteration    iterations completed
    model        the network's state_dict
    optimizer    the optimiser's state_dict
    trainer      the algorithm's extra state (replay buffer, opponent pool, generators)
    rng          torch, numpy and Python global random states
    history      one dict of metrics per logged iteration (the learning curve)

Writes go to a temporary file in the same directory, are flushed to disk, then renamed over
the target: a run killed at any moment leaves the previous checkpoint or the new one, never
a torn file.

    save_checkpoint(path, trainer, history)       # atomically
    checkpoint = read_checkpoint(path)           # checked; CheckpointError if not usable
    agent = load_agent("runs/x/checkpoints/latest.pt", sims=64)   # an arena agent
    # or from the command line:  damas arena checkpoint:runs/x/checkpoints/latest.pt greedy
"""

from __future__ import annotations

import io
import os
import pickle
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from damas_env import Position
from damas_env.rules import Ruleset
from damas_env.turn import HOP_ILLEGAL, Turn

from .base import Observation
from .config import Config, ConfigError, config_from_dict, config_to_dict, fingerprint_mismatches
from .network import DraughtsNet, NetworkEvaluator
from .puct import BatchedPUCT, select_action
from .trainer import Trainer

__all__ = [
    "FORMAT",
    "VERSION",
    "CheckpointError",
    "NetworkAgent",
    "check_compatible",
    "load_agent",
    "load_network",
    "read_checkpoint",
    "restore_trainer",
    "save_checkpoint",
    "write_atomically",
]

FORMAT = "damas-env checkpoint"
VERSION = 1
_KEYS = ("algorithm", "config", "fingerprint", "iteration", "model", "optimizer", "trainer")


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, unsafe, or does not fit the config or game."""


# --- Writing --------------------------------------------------------------------------------


def write_atomically(path: str | Path, data: bytes) -> None:
    """Writes `data` to `path` so that the file is either the old one or the new one.

    The bytes go to a temporary file in the same directory, are fsynced, and the temporary
    file is renamed over `path` (an atomic replace on POSIX and Windows).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600 files; give the usual permissions
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _rng_state() -> dict[str, Any]:
    return {
        "torch": torch.get_rng_state(),
        "numpy": _plain(np.random.get_state(legacy=False)),
        "python": random.getstate(),
    }


def _plain(state: dict[str, Any]) -> dict[str, Any]:
    """Returns numpy's global generator state with its key array as a list of ints."""
    inner = dict(state["state"])
    inner["key"] = [int(k) for k in inner["key"]]
    return {**state, "state": inner}


def _set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    numpy_state = dict(state["numpy"])
    inner = dict(numpy_state["state"])
    inner["key"] = np.array(inner["key"], dtype=np.uint32)
    np.random.set_state({**numpy_state, "state": inner})
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))


def checkpoint_dict(
    trainer: Trainer, history: Sequence[dict[str, float]] = (), with_trainer: bool = True
) -> dict[str, Any]:
    """Returns the checkpoint of a trainer as a dict of plain values and tensors.

    Args:
        trainer: the trainer to save.
        history: the metrics logged so far (the learning curve).
        with_trainer: include the algorithm's extra state (replay buffer...); snapshots that
            only need to play leave it out.
    """
    config = trainer.config
    return {
        "format": FORMAT,
        "version": VERSION,
        "algorithm": config.algorithm,
        "config": config_to_dict(config),
        "fingerprint": config.fingerprint(),
        "iteration": trainer.iteration,
        "model": {k: v.detach().cpu() for k, v in trainer.network.state_dict().items()},
        "optimizer": trainer.optimizer.state_dict() if with_trainer else {},
        "trainer": trainer.extra_state() if with_trainer else {},
        "rng": _rng_state(),
        "history": [dict(h) for h in history],
    }


def save_checkpoint(
    path: str | Path,
    trainer: Trainer,
    history: Sequence[dict[str, float]] = (),
    with_trainer: bool = True,
) -> None:
    """Writes a trainer's checkpoint to `path` atomically (see :func:`checkpoint_dict`)."""
    buffer = io.BytesIO()
    torch.save(checkpoint_dict(trainer, history, with_trainer), buffer)
    write_atomically(path, buffer.getvalue())


# --- Reading --------------------------------------------------------------------------------


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Returns a checkpoint's contents, loaded safely and checked.

    Raises:
        CheckpointError: the file is missing, is not a torch file (corrupt or truncated),
            holds objects other than tensors and plain values (refused unread), or is not a
            damas-env checkpoint of a known version. The message names the file.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint file at {str(path)!r}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        raise CheckpointError(
            f"{path}: refused: it holds objects other than tensors and plain values, which "
            f"could run code when loaded ({_first_line(error)})"
        ) from error
    except Exception as error:  # a torn file fails anywhere in the zip reader or unpickler
        raise CheckpointError(
            f"{path}: not a readable checkpoint (corrupt or truncated?): {_first_line(error)}"
        ) from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a damas-env checkpoint (no {FORMAT!r} marker)")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {data.get('version')!r}; this damas-env reads {VERSION}"
        )
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise CheckpointError(f"{path}: checkpoint lacks {', '.join(missing)}")
    try:
        data["config_obj"] = config_from_dict(data["config"])
    except ConfigError as error:
        raise CheckpointError(f"{path}: its config is not valid here: {error}") from error
    return data


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def check_compatible(checkpoint: dict[str, Any], config: Config, path: str | Path) -> None:
    """Raises CheckpointError if a checkpoint's ruleset, network shape or algorithm differ
    from the config's (what a resume or a warm start needs to be the same)."""
    problems = fingerprint_mismatches(checkpoint["fingerprint"], config.fingerprint())
    if checkpoint["algorithm"] != config.algorithm:
        problems.insert(
            0, f"algorithm: checkpoint has {checkpoint['algorithm']!r}, config has "
            f"{config.algorithm!r}"
        )  # fmt: skip
    if problems:
        raise CheckpointError(f"{path} does not fit this config:\n  " + "\n  ".join(problems))


def restore_trainer(trainer: Trainer, checkpoint: dict[str, Any], path: str | Path) -> None:
    """Loads a checkpoint into a trainer built from a compatible config (see --resume).

    Raises:
        CheckpointError: the checkpoint does not fit the trainer's config, or its tensors do
            not fit the network (the trainer is left as it was).
    """
    check_compatible(checkpoint, trainer.config, path)
    model = {k: v.clone() for k, v in trainer.network.state_dict().items()}
    try:
        trainer.network.load_state_dict(checkpoint["model"])
        trainer.optimizer.load_state_dict(checkpoint["optimizer"])
        trainer.load_extra_state(checkpoint["trainer"])
    except (RuntimeError, KeyError, ValueError, TypeError) as error:
        trainer.network.load_state_dict(model)
        raise CheckpointError(f"{path}: cannot restore the trainer: {error}") from error
    trainer.iteration = int(checkpoint["iteration"])
    _set_rng_state(checkpoint["rng"])


def load_network(
    checkpoint: dict[str, Any] | str | Path, device: str | torch.device = "cpu"
) -> tuple[DraughtsNet, Config]:
    """Returns the trained network of a checkpoint (in eval mode) and the run's config."""
    data = checkpoint if isinstance(checkpoint, dict) else read_checkpoint(checkpoint)
    config: Config = data["config_obj"]
    network = DraughtsNet(config.network, config.env.ruleset().board_size)
    try:
        network.load_state_dict(data["model"])
    except RuntimeError as error:
        problem = f"the checkpoint's weights do not fit its network: {error}"
        raise CheckpointError(problem) from error
    return network.to(device).eval(), config


# --- Playing --------------------------------------------------------------------------------


class NetworkAgent:
    """An arena agent that plays a policy-value network, alone or with PUCT search.

    With ``simulations=0`` it plays the most likely legal hop of the network's policy; with
    more it runs that many PUCT simulations per hop (:class:`agents.puct.BatchedPUCT`, no
    root noise) and plays the most visited hop.

    Args:
        network: the network (any device).
        rules: the ruleset it was trained on; a game under other rules is refused.
        simulations: PUCT simulations per hop (0: the raw policy).
        c_puct: PUCT's exploration constant.
        seed: seed of the search (ties are broken by the first hop).
        name: the agent's name in arena tables.
    """

    def __init__(
        self,
        network: DraughtsNet,
        rules: Ruleset,
        simulations: int = 0,
        c_puct: float = 1.5,
        seed: int | None = None,
        name: str = "network",
    ) -> None:
        self.network, self.rules, self.name = network, rules, name
        self.simulations = simulations
        self.evaluator = NetworkEvaluator(network, threads=1)  # a few positions per call
        self.search = (
            BatchedPUCT(self.evaluator, simulations, c_puct=c_puct, seed=seed)
            if simulations > 0
            else None
        )
        self.turn = Turn(rules)
        self._mask = np.zeros(self.turn.layout.num_actions, dtype=np.int8)
        n = rules.board_size
        self._obs = np.zeros((1, self.evaluator.planes, n, n), dtype=np.float32)

    def reset(self) -> None:
        """Nothing to forget: every hop is decided from the position."""

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the network's (or the search's) hop for the player to move.

        Raises:
            ValueError: no position was given, or it is played under other rules than the
                network was trained on.
        """
        if position is None:
            raise ValueError(f"{self.name} needs the engine position: act(obs, position, hops)")
        if position.rules != self.rules:
            raise ValueError(
                f"{self.name} was trained on {self.rules.name!r} rules and cannot play a "
                f"{position.rules.name!r} game"
            )
        if self.search is None and _planes_of(observation, self._obs.shape[1:]):
            self._obs[0] = observation["observation"]  # the env's planes keep its history
            self._mask[:] = observation["action_mask"]
            return self._policy_action()
        turn = self.turn
        turn.reset(position.board, position.turn)
        for hop in hops:
            if turn.play(int(hop)) == HOP_ILLEGAL:
                raise ValueError(f"hop {hop} of {list(hops)} is not legal in {position.fen()}")
        if self.search is not None:
            (visits,) = self.search.search([turn], add_noise=False)
            return select_action(visits, 0.0, self.search.rng)
        turn.write_planes(self._obs[0], turn.side)
        turn.write_mask(self._mask)
        return self._policy_action()

    def _policy_action(self) -> int:
        """Returns the legal hop of highest prior for the planes and mask in the buffers."""
        priors, _ = self.evaluator.evaluate(self._obs, self._mask[None])
        return int(np.argmax(np.where(self._mask > 0, priors[0], -1.0)))


def _planes_of(observation: Observation, shape: tuple[int, ...]) -> bool:
    """Says whether an env observation holds channels-first planes of `shape` and a mask."""
    try:
        return np.shape(observation["observation"]) == shape and "action_mask" in observation
    except (KeyError, TypeError, IndexError):
        return False


def load_agent(
    path: str | Path, seed: int | None = None, sims: int = 0, name: str | None = None
) -> NetworkAgent:
    """Returns an arena agent playing a checkpoint's network (``checkpoint:PATH[,sims=N]``).

    Raises:
        CheckpointError: the file is not a usable checkpoint.
    """
    data = read_checkpoint(path)
    network, config = load_network(data)
    label = name or f"checkpoint:{Path(path).name}" + (f",sims={sims}" if sims else "")
    return NetworkAgent(
        network, config.env.ruleset(), sims, c_puct=config.mcts.c_puct, seed=seed, name=label
    )
