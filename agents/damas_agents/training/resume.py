"""Resuming a run: :func:`restore_trainer` loads a checkpoint into a trainer built from a
compatible config, after checking every part against the trainer's own (``damas train
--resume``). A refused restore leaves the trainer as it was.

    checkpoint = read_checkpoint(path)           # the file, verified (models.checkpoint)
    restore_trainer(trainer, checkpoint, path)   # CheckpointError if it does not fit
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from damas_agents.files import CheckpointError
from damas_agents.models.checkpoint import (
    MAX_WEIGHT,
    FieldError,
    check_magnitude,
    check_model,
    child_field,
    first_line,
    is_finite,
    is_int,
    is_number,
    set_rng_state,
    show_value,
)
from damas_agents.models.config import MAX_INT, MAX_LR, MIN_LR, Config, fingerprint_mismatches
from damas_agents.search.alphabeta import INF as SCORE_BOUND
from damas_agents.search.nnue import NetWeights, search_weights
from damas_agents.training.trainer import Trainer

__all__ = ["check_compatible", "check_searchable", "restore_trainer"]


# --- The algorithms' own state --------------------------------------------------------------


def _check_trainer_state(value: Any, config: Config, network: dict[str, torch.Tensor]) -> None:
    """Raises FieldError unless `value`, the algorithm's extra state, holds what the algorithm
    writes for a trainer of `config` whose network's state dict is `network`, within its
    bounds (one check per algorithm): replay rows of one length, legal piece codes and sides,
    targets in their range, ring counters in the buffer, opponent snapshots shaped as the
    network."""
    _TRAINER_CHECKS[config.algorithm](value, config, network)


def _check_keys(value: Any, keys: set[str], where: str) -> dict[str, Any]:
    if not (isinstance(value, dict) and set(value) == keys):
        what = show_value(sorted(map(str, value))) if isinstance(value, dict) else show_value(value)
        raise FieldError(f"{where}: {what}, not a mapping with keys {sorted(keys)}")
    return value


def _check_count(value: Any, where: str, low: int, high: int) -> int:
    if not (is_int(value) and low <= value <= high):
        raise FieldError(f"{where}: {show_value(value)}, not an int from {low} to {high}")
    return int(value)


def _check_rows(
    value: Any, where: str, rows: int, dtype: torch.dtype, low: float, high: float
) -> None:
    """Raises FieldError unless `value` is a `dtype` tensor of `rows` rows, every value in
    [low, high]."""
    if not (isinstance(value, torch.Tensor) and value.dtype == dtype and value.dim() >= 1):
        raise FieldError(f"{where}: {show_value(value)}, not rows of {str(dtype)[6:]}")
    if value.shape[0] != rows:
        raise FieldError(f"{where}: {value.shape[0]} rows, where the buffer holds {rows}")
    if value.numel() and not bool(((value >= low) & (value <= high)).all()):
        raise FieldError(f"{where}: holds values outside [{low}, {high}]")


def _check_alphazero_state(state: Any, config: Config, network: Any) -> None:
    """The replay buffer: planes and search policies in [0, 1], values (game results from the
    side to move's view) in [-1, 1], ``added`` at least the rows held."""
    replay = _check_keys(state, {"replay", "rng", "search_rng"}, "trainer")["replay"]
    replay = _check_keys(replay, {"obs", "masks", "policies", "values", "added"}, "trainer.replay")
    values = replay["values"]
    rows = values.shape[0] if isinstance(values, torch.Tensor) and values.dim() else -1
    _check_rows(replay["values"], "trainer.replay.values", rows, torch.float32, -1, 1)
    _check_rows(replay["obs"], "trainer.replay.obs", rows, torch.float16, 0, 1)
    _check_rows(replay["masks"], "trainer.replay.masks", rows, torch.bool, 0, 1)
    _check_rows(replay["policies"], "trainer.replay.policies", rows, torch.float16, 0, 1)
    _check_count(replay["added"], "trainer.replay.added", rows, 2**62)


def _check_ppo_state(state: Any, config: Config, network: dict[str, torch.Tensor]) -> None:
    """The opponent pool: at most ``ppo.pool_size`` snapshots, with increasing ids below
    ``next_id``, each the weights of the run's network."""
    pool = _check_keys(state, {"rng", "pool"}, "trainer")["pool"]
    pool = _check_keys(pool, {"next_id", "ids", "weights"}, "trainer.pool")
    next_id = _check_count(pool["next_id"], "trainer.pool.next_id", 0, MAX_INT)
    ids, weights, size = pool["ids"], pool["weights"], config.ppo.pool_size
    if not (isinstance(ids, list) and len(ids) <= size and all(is_int(i) for i in ids)):
        raise FieldError(f"trainer.pool.ids: {show_value(ids)}, not a list of at most {size} ids")
    if ids != sorted(set(ids)) or not all(0 <= i < next_id for i in ids):
        raise FieldError(f"trainer.pool.ids: {show_value(ids)}, not increasing ids below {next_id}")
    if not (isinstance(weights, list) and len(weights) == len(ids)):
        raise FieldError(f"trainer.pool.weights: {show_value(weights)}, not one per id")
    for i, snapshot in enumerate(weights):
        try:
            check_model(snapshot, network)
        except FieldError as error:
            raise FieldError(f"trainer.pool.weights[{i}]: {error}") from None


def _check_nnue_state(state: Any, config: Config, network: Any) -> None:
    """The replay ring: ``filled`` rows of legal boards (piece codes -2 to 2), sides 0 or 1,
    search scores within the search's bounds and results in [0, 1]; ``cursor`` the next row
    written (``filled`` until the ring is full)."""
    keys = {"rng", "cursor", "filled", "boards", "sides", "scores", "results"}
    state = _check_keys(state, keys, "trainer")
    size = config.train.replay_size
    filled = _check_count(state["filled"], "trainer.filled", 0, size)
    cursor = _check_count(state["cursor"], "trainer.cursor", 0, size - 1)
    if filled < size and cursor != filled:
        raise FieldError(f"trainer.cursor: {cursor}, not the next free row ({filled})")
    _check_rows(state["boards"], "trainer.boards", filled, torch.int8, -2, 2)
    squares = config.env.ruleset().squares
    if state["boards"].shape[1:] != (squares,):
        raise FieldError(f"trainer.boards: {show_value(state['boards'])}, not boards of {squares}")
    _check_rows(state["sides"], "trainer.sides", filled, torch.int8, 0, 1)
    _check_rows(state["scores"], "trainer.scores", filled, torch.int32, -SCORE_BOUND, SCORE_BOUND)
    _check_rows(state["results"], "trainer.results", filled, torch.float32, 0, 1)


#: The check of each algorithm's extra state (see :func:`_check_trainer_state`).
_TRAINER_CHECKS: dict[str, Callable[[Any, Config, dict[str, torch.Tensor]], None]] = {
    "alphazero": _check_alphazero_state,
    "ppo": _check_ppo_state,
    "nnue": _check_nnue_state,
}


def check_searchable(model: dict[str, torch.Tensor], config: Config) -> None:
    """Raises FieldError unless the compiled search can play the network `model` (a state dict
    checked against the config's network): an ``nnue`` network must compute in integers
    without overflow, as the search computes it; other networks need nothing more."""
    if config.algorithm != "nnue":
        return
    arrays = {name: model[name].detach().numpy().astype(np.float32) for name in NetWeights._fields}
    try:
        search_weights(NetWeights(**arrays))
    except ValueError as error:
        raise FieldError(f"model: {first_line(error)}") from None


# --- Loading --------------------------------------------------------------------------------


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
    """Loads a checkpoint (as :func:`read_checkpoint` returns it) into a trainer built from a
    compatible config (see --resume).

    Every part is checked against the trainer's own before any is loaded: the network's
    tensors (and that the search can compute with them: :func:`check_searchable`), the
    optimiser's groups and per-parameter state (settings and moments within
    bounds), and the algorithm's extra state (the same keys, types and tensor dtypes, numpy
    generator states tried on fresh ones, values within the algorithm's bounds: see
    :func:`_check_trainer_state`).

    Raises:
        CheckpointError: the checkpoint does not fit the trainer's config, or a part of it does
            not fit the trainer; the trainer is left as it was.
    """
    check_compatible(checkpoint, trainer.config, path)
    own_extra = trainer.extra_state()
    try:
        own_network = trainer.network.state_dict()
        check_model(checkpoint["model"], own_network)
        check_searchable(checkpoint["model"], trainer.config)
        _check_optimizer(checkpoint["optimizer"], trainer.optimizer)
        _check_trainer_state(checkpoint["trainer"], trainer.config, own_network)
        _check_like(checkpoint["trainer"], own_extra, "trainer")
    except FieldError as error:
        raise CheckpointError(f"{path}: cannot restore the trainer: {error}") from None
    _load_parts(trainer, checkpoint, own_extra, path)
    trainer.iteration = checkpoint["iteration"]
    set_rng_state(checkpoint["rng"])


def _load_parts(
    trainer: Trainer, checkpoint: dict[str, Any], own_extra: dict[str, Any], path: str | Path
) -> None:
    """Loads the checked network, optimiser and extra state into the trainer; if one fails
    all the same, puts the trainer's own back (`own_extra`: its extra state before)."""
    own = (
        {k: v.clone() for k, v in trainer.network.state_dict().items()},
        copy.deepcopy(trainer.optimizer.state_dict()),
        own_extra,
    )
    new = (checkpoint["model"], checkpoint["optimizer"], checkpoint["trainer"])
    try:
        _load(trainer, *new)
    except Exception as error:  # a failure the checks did not foresee: undo, then report it
        _load(trainer, *own)
        raise CheckpointError(f"{path}: cannot restore the trainer: {first_line(error)}") from error


def _load(trainer: Trainer, model: Any, optimizer: Any, extra: Any) -> None:
    trainer.network.load_state_dict(model)
    trainer.optimizer.load_state_dict(optimizer)
    trainer.load_extra_state(extra)


#: Optimiser settings with a narrower range than "finite and >= 0": Adam divides by
#: 1 - beta**step and by sqrt(v) + eps; a learning rate or a weight decay above
#: :data:`MAX_LR` throws the weights away in one step.
_SETTING_RANGES: dict[str, Callable[[float], bool]] = {
    "betas": lambda x: x < 1,
    "eps": lambda x: 0 < x <= 1,
    "lr": lambda x: MIN_LR <= x <= MAX_LR,
    "weight_decay": lambda x: x <= MAX_LR,
}
#: Per-parameter optimiser state that is never negative: step counts, and second moments
#: (Adam takes their square root).
_NON_NEGATIVE_STATE = frozenset({"step", "exp_avg_sq", "max_exp_avg_sq"})


def _check_optimizer(saved: dict[str, Any], optimizer: torch.optim.Optimizer) -> None:
    """Raises FieldError unless `saved` fits `optimizer`: groups over the same parameters with
    settings of the same kinds, and per-parameter state like the state one step with those
    settings makes (see :func:`_check_param_state`)."""
    if not saved:
        raise FieldError(
            "optimizer: empty: a snapshot to play, not a checkpoint to resume "
            "(resume from checkpoints/latest.pt)"
        )
    own = optimizer.state_dict()["param_groups"]
    groups, state = saved["param_groups"], saved["state"]
    if len(groups) != len(own):
        raise FieldError(
            f"optimizer.param_groups: {len(groups)} groups, the trainer's optimiser has {len(own)}"
        )
    for i, (group, mine) in enumerate(zip(groups, own, strict=True)):
        where = f"optimizer.param_groups[{i}]"
        _check_group(group, mine, where)
        template = _state_template(optimizer, group, where)
        params = optimizer.param_groups[i]["params"]
        for number, param in zip(mine["params"], params, strict=True):
            if number in state:
                where = f"optimizer.state[{number}]"
                _check_param_state(state[number], param.shape, template, where)
    numbers = {number for group in own for number in group["params"]}
    unknown = [key for key in state if key not in numbers]
    if unknown:
        raise FieldError(
            f"optimizer.state: parameter numbers {show_value(unknown)} are not the trainer's"
        )


def _check_group(group: dict[str, Any], own: dict[str, Any], where: str) -> None:
    if set(group) != set(own):
        raise FieldError(f"{where}: keys {show_value(sorted(map(str, group)))}, not {sorted(own)}")
    if group["params"] != own["params"]:
        raise FieldError(
            f"{where}.params: {show_value(group['params'])}, not {show_value(own['params'])}"
        )
    for key, mine in own.items():
        if key != "params":
            _check_setting(group[key], mine, f"{where}.{key}", _SETTING_RANGES.get(key))


def _check_setting(
    value: Any, own: Any, where: str, in_range: Callable[[float], bool] | None = None
) -> None:
    """Raises FieldError unless an optimiser setting is of the kind of the trainer's own: a
    bool for a bool, a bool or None for None, a finite number >= 0 (and `in_range`) for a
    number, a sequence of such settings for a sequence."""
    if isinstance(own, list | tuple) and isinstance(value, list | tuple) and len(value) == len(own):
        for i, (item, mine) in enumerate(zip(value, own, strict=True)):
            _check_setting(item, mine, f"{where}[{i}]", in_range)
        return
    if own is None or isinstance(own, bool):
        ok = isinstance(value, bool) or (own is None and value is None)
    elif is_number(own):
        ok = is_number(value) and is_finite(value) and value >= 0
        ok = ok and (in_range is None or in_range(value))
    else:
        ok = isinstance(own, str) and isinstance(value, str)
    if not ok:
        raise FieldError(f"{where}: {show_value(value)}, not a setting like {show_value(own)}")


def _state_template(
    optimizer: torch.optim.Optimizer, settings: dict[str, Any], where: str
) -> dict[str, Any]:
    """Returns the per-parameter state one step of the optimiser's class makes with a group's
    `settings`, on a one-element trial parameter on the optimiser's device."""
    device = optimizer.param_groups[0]["params"][0].device
    param = torch.zeros(1, device=device, requires_grad=True)
    param.grad = torch.zeros(1, device=device)
    kind: Any = type(optimizer)  # AdamW and the like take (params) with defaults
    trial = kind([param])
    trial.param_groups[0].update({k: v for k, v in settings.items() if k != "params"})
    try:
        trial.step()
    except Exception as error:  # the settings make every step fail (a flag for another device)
        raise FieldError(f"{where}: its settings cannot step ({first_line(error)})") from None
    return dict(trial.state[param])


def _check_param_state(
    entry: dict[Any, Any], shape: torch.Size, template: dict[str, Any], where: str
) -> None:
    """Raises FieldError unless a parameter's optimiser state has the keys of `template`, each a
    float tensor of the parameter's shape (a scalar one where the template's is, such as the
    step count), a finite number or None where the template has those; step counts and
    second moments are >= 0."""
    if set(entry) != set(template):
        raise FieldError(
            f"{where}: keys {show_value(sorted(map(str, entry)))}, not {sorted(template)}"
        )
    for name, mine in template.items():
        value, at = entry[name], child_field(where, name)
        if isinstance(mine, torch.Tensor):
            want = shape if mine.dim() else mine.shape
            ok = (
                isinstance(value, torch.Tensor)
                and value.is_floating_point()
                and value.shape == want
            )
        else:
            ok = value is None if mine is None else is_number(value) and is_finite(value)
        if not ok:
            raise FieldError(f"{at}: {show_value(value)}, for a parameter of shape {tuple(shape)}")
        if name in _NON_NEGATIVE_STATE and not bool((torch.as_tensor(value) >= 0).all()):
            raise FieldError(f"{at}: negative")
        if name == "step":
            _check_step_count(value, at)
        if isinstance(value, torch.Tensor) and name != "step":
            check_magnitude(value, at, MAX_WEIGHT**2)


#: Most optimiser steps a checkpoint may count (each learns from a minibatch): beyond 2**53
#: a float no longer counts one by one.
MAX_STEPS = 2**53


def _check_step_count(value: Any, where: str) -> None:
    """Raises FieldError unless an optimiser's step count is a whole number of steps within
    :data:`MAX_STEPS`."""
    step = float(value)
    if not (step.is_integer() and step <= MAX_STEPS):
        raise FieldError(f"{where}: {step:.6g}, not a whole number of steps from 0 to 2**53")


def _check_like(value: Any, own: Any, where: str) -> None:
    """Raises FieldError unless `value` has the form of `own`, the trainer's own extra state: the
    same keys, leaves of the same types, tensors of the same dtype and row shape (buffers fill
    up), list items like the first of its own list, numpy generator states that load."""
    if isinstance(own, dict):
        if not (isinstance(value, dict) and set(value) == set(own)):
            what = (
                show_value(sorted(map(str, value)))
                if isinstance(value, dict)
                else show_value(value)
            )
            raise FieldError(f"{where}: {what}, not a mapping with keys {sorted(own)}")
        if "bit_generator" in own:
            _check_bit_generator(value, own["bit_generator"], where)
            return
        for key, item in own.items():
            _check_like(value[key], item, child_field(where, key))
    elif isinstance(own, list | tuple):
        if not isinstance(value, list | tuple):
            raise FieldError(f"{where}: {show_value(value)}, not a list")
        for i, item in enumerate(value if own else ()):
            _check_like(item, own[0], f"{where}[{i}]")
    elif not _same_kind(value, own):
        raise FieldError(f"{where}: {show_value(value)}, not like {show_value(own)}")


def _same_kind(value: Any, own: Any) -> bool:
    if isinstance(own, torch.Tensor):
        return (
            isinstance(value, torch.Tensor)
            and value.dtype == own.dtype
            and value.dim() == own.dim()
            and value.shape[1:] == own.shape[1:]
        )
    if is_number(own) and not is_int(own):
        return is_number(value)
    return type(value) is type(own)


def _check_bit_generator(value: dict[str, Any], kind: str, where: str) -> None:
    """Raises FieldError unless `value` loads into a fresh numpy bit generator of `kind` (the
    name in the trainer's own state, never one from the file)."""
    try:
        getattr(np.random, kind)().state = value
    except Exception as error:  # any failure of the setter means the state is bad
        raise FieldError(f"{where}: not a {kind} generator state ({first_line(error)})") from None
