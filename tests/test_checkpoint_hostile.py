"""Hostile checkpoints: damaged bytes and crafted fields are CheckpointErrors, never tracebacks.

A checkpoint is verified in full (its size and the end of its archive before it is read
whole, every zip record against its CRC, finite tensors, field types and ranges, finite but
absurd values, the weights against the config's network, whose shape is bounded and built on
the meta device) before anything is built from it; a refused read leaves the file as it was,
and a refused restore leaves the trainer exactly as it was. The property tests replace one
field at a time with random values, and flip or cut the file's bytes.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import io
import math
import os
import pathlib
import random
import struct
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest
import torch
from helpers import Exploit, crafted_checkpoint, tiny_training
from helpers import tiny_config as tiny
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import damas_agents.models.checkpoint
import damas_agents.models.network
from damas_agents.models.checkpoint import (
    MAX_CHECKPOINT_BYTES,
    CheckpointError,
    load_network,
    read_checkpoint,
    save_checkpoint,
)
from damas_agents.models.config import config_from_dict
from damas_agents.players.load import load_agent
from damas_agents.training.alphazero import AlphaZeroTrainer
from damas_agents.training.nnue import NNUETrainer
from damas_agents.training.ppo import PPOTrainer
from damas_agents.training.resume import restore_trainer
from damas_env import Position
from damas_env.rules import get_ruleset

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def trained(trainer: Any) -> Any:
    """Returns `trainer` after one optimiser step on random gradients, at iteration 1 (fast:
    no self-play), so that its optimiser has per-parameter state to save."""
    for param in trainer.network.parameters():
        param.grad = torch.randn_like(param)
    trainer.optimizer.step()
    trainer.optimizer.zero_grad(set_to_none=True)
    trainer.iteration = 1
    return trainer


def alphazero() -> AlphaZeroTrainer:
    trainer = trained(AlphaZeroTrainer(tiny()))
    n, actions = trainer.network.board_size, trainer.network.num_actions
    rng = np.random.default_rng(0)
    trainer.replay.add(
        rng.random((5, 8, n, n)), np.ones((5, actions), bool), np.full((5, actions), 1 / actions),
        rng.uniform(-1, 1, 5),
    )  # fmt: skip
    return trainer


class Saved(NamedTuple):
    """A valid checkpoint: its file, bytes and contents."""

    path: Path
    raw: bytes
    data: dict[str, Any]

    def __repr__(self) -> str:  # hypothesis prints fixtures of a failing example
        return f"Saved({self.path})"


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # conftest.py


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    path = tmp_path_factory.mktemp("good") / "latest.pt"
    save_checkpoint(path, alphazero(), [{"iteration": 1.0, "loss/total": 0.5}])
    raw = path.read_bytes()
    return Saved(path, raw, torch.load(io.BytesIO(raw), weights_only=True))


@pytest.fixture(scope="module")
def target() -> AlphaZeroTrainer:
    """The trainer every crafted checkpoint is restored into (built from the same config)."""
    return AlphaZeroTrainer(tiny())


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crafted") / "crafted.pt"


def write(data: Any, path: Path) -> Path:
    torch.save(data, path)
    return path


def crafted(saved: Saved, scratch: Path, change: Callable[[dict[str, Any]], Any]) -> Path:
    """Writes the valid checkpoint with `change` applied to a copy of its contents."""
    return crafted_checkpoint(saved.data, scratch, change)


# --- Comparing states -----------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Says whether two nests of dicts, lists and tensors are equal (tensors bit for bit)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return bool(a == b)


def state_of(trainer: Any) -> tuple[Any, ...]:
    """Returns everything a restore may change: the trainer's parts and the global RNGs."""
    return (
        {k: v.clone() for k, v in trainer.network.state_dict().items()},
        copy.deepcopy(trainer.optimizer.state_dict()),
        trainer.extra_state(),
        trainer.iteration,
        torch.get_rng_state(),
        np.random.get_state(legacy=False),
        random.getstate(),
    )


def refused(path: Path, field: str) -> CheckpointError:
    """Returns the CheckpointError of reading `path`, checking it names the file and field,
    and that the file is as it was."""
    before = file_state(path)
    with pytest.raises(CheckpointError) as error:
        read_checkpoint(path)
    message = str(error.value)
    assert str(path) in message and field in message, message
    assert file_state(path) == before
    return error.value


def file_state(path: Path) -> tuple[Any, ...]:
    """Returns a file's size, time of change and, unless it is large, its bytes."""
    info = path.stat()
    small = info.st_size <= 1 << 24
    return info.st_size, info.st_mtime_ns, path.read_bytes() if small else None


@contextlib.contextmanager
def peak_memory() -> Iterator[list[int]]:
    """Yields a list that holds, after the block, the most memory Python allocated in it."""
    peak: list[int] = []
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()


# --- corrupt checkpoints ------------------------------------------------------------


def test_the_valid_checkpoint_reads_plays_and_restores(saved: Saved) -> None:
    data = read_checkpoint(saved.path)
    assert data["iteration"] == 1 and data["config_obj"] == tiny()
    network, _ = load_network(data)
    logits, value = network(torch.zeros(1, 8, 8, 8))
    assert torch.isfinite(logits).all() and torch.isfinite(value).all()
    trainer = AlphaZeroTrainer(tiny())
    restore_trainer(trainer, data, saved.path)
    assert trainer.iteration == 1 and trainer.replay.size == 5
    assert same(trainer.optimizer.state_dict(), saved.data["optimizer"])


def test_flipped_bytes_in_the_optimiser_state_are_refused(saved: Saved, scratch: Path) -> None:
    """64 flipped bytes inside one optimiser tensor: the zip CRC catches them, so neither the
    arena nor --resume takes the file."""
    states = saved.data["optimizer"]["state"].values()
    exp_avg = next(s["exp_avg"] for s in states if s["exp_avg"].dim() == 1)  # no strides
    at = saved.raw.find(exp_avg.numpy().tobytes())
    assert at > 0
    raw = bytearray(saved.raw)
    for i in range(at, at + 64):
        raw[i] ^= 0x5A
    scratch.write_bytes(raw)
    error = refused(scratch, "CRC")
    assert "corrupt" in str(error)
    with pytest.raises(CheckpointError, match="CRC"):
        load_agent(scratch)


@pytest.mark.parametrize(
    "part",
    [
        lambda d: d["model"]["stem.0.0.weight"],
        lambda d: d["model"]["value_mlp.2.bias"],
        lambda d: d["optimizer"]["state"][3]["exp_avg_sq"],
        lambda d: d["trainer"]["replay"]["values"],
    ],
)
def test_nan_tensors_are_refused(saved: Saved, scratch: Path, part: Callable) -> None:
    path = crafted(saved, scratch, lambda d: part(d).fill_(math.nan))
    refused(path, "NaN or infinite")
    with pytest.raises(CheckpointError, match="NaN or infinite"):
        load_agent(path)


def test_all_nan_weights_never_reach_the_arena(saved: Saved, scratch: Path) -> None:
    def poison(data: dict[str, Any]) -> None:
        for tensor in data["model"].values():
            if tensor.is_floating_point():
                tensor.fill_(math.nan)

    path = crafted(saved, scratch, poison)
    with pytest.raises(CheckpointError, match="model.*NaN"):
        load_agent(path)


def test_random_bytes_are_not_a_checkpoint(scratch: Path) -> None:
    scratch.write_bytes(np.random.default_rng(1).bytes(100_000))
    error = refused(scratch, "not a zip archive")
    assert "run code" not in str(error)


def test_a_compressed_record_is_refused_unread(saved: Saved, scratch: Path) -> None:
    """torch.save stores records as they are: a deflated one could be a zip bomb."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(saved.raw)) as source:
        records = [(info.filename, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(scratch, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in records:
            archive.writestr(name, content)
    refused(scratch, "compressed")


# --- files too large, or not ending as an archive ------------------------------------------


@pytest.mark.parametrize("size", [MAX_CHECKPOINT_BYTES + 1, 20 << 30])
def test_a_file_larger_than_any_checkpoint_is_refused_unread(tmp_path: Path, size: int) -> None:
    """A sparse file: its size is all that is looked at."""
    path = tmp_path / "huge.pt"
    with path.open("wb") as file:
        file.truncate(size)
    with peak_memory() as peak:
        refused(path, f"{size:,} bytes, larger than any checkpoint (at most 8,589,934,592)")
    assert peak[0] < 1 << 20
    with pytest.raises(CheckpointError, match="larger than any checkpoint"):
        load_agent(path)


def test_a_large_file_is_refused_from_its_end(saved: Saved, tmp_path: Path) -> None:
    """256 MiB that start as a checkpoint and end as nothing are refused from the last 64 KiB,
    never read whole."""
    path = tmp_path / "large.pt"
    with path.open("wb") as file:
        file.write(saved.raw[: len(saved.raw) // 2])
        file.truncate(256 << 20)
    with peak_memory() as peak:
        refused(path, "not a zip archive as torch.save writes (no end record at the end")
    assert peak[0] < 1 << 20


def _end_record(entries: int, directory: int, offset: int) -> bytes:
    """Returns a zip end record (APPNOTE.TXT 4.3.16) with these counts and no comment."""
    return struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, entries, entries, directory, offset, 0)


def test_an_archive_of_no_records_is_refused_unread(tmp_path: Path) -> None:
    """64 MiB of nothing that end in an end record listing no records (an empty archive as
    far as its end says): refused from the end record, never read whole."""
    path = tmp_path / "empty.pt"
    size = 64 << 20
    with path.open("wb") as file:
        file.truncate(size - 22)
        file.seek(size - 22)
        file.write(_end_record(0, 0, size - 22))
    with peak_memory() as peak:
        refused(path, "its archive lists 0 records in 0 bytes, not the records of a checkpoint")
    assert peak[0] < 1 << 20


def test_an_archive_padded_between_its_records_is_refused_unread(
    saved: Saved, tmp_path: Path
) -> None:
    """A checkpoint's records moved 64 MiB into the file (its central directory rewritten to
    match, its zip64 end records dropped): every record and its CRC would read, but the 64 MiB
    before them belong to no record, which the central directory shows before the file is
    read whole."""
    pad = 64 << 20
    archive = bytearray(saved.raw)
    end = archive.rindex(b"PK\x05\x06")
    _, _, _, entries, _, directory, offset, _ = struct.unpack_from("<4s4H2LH", archive, end)
    at = offset
    for _ in range(entries):  # each directory entry's local header offset moves by `pad`
        names = struct.unpack_from("<3H", archive, at + 28)
        (local,) = struct.unpack_from("<L", archive, at + 42)
        struct.pack_into("<L", archive, at + 42, local + pad)
        at += 46 + sum(names)
    archive[archive.rindex(b"PK\x06\x06") :] = _end_record(entries, directory, offset + pad)
    path = tmp_path / "padded.pt"
    with path.open("wb") as file:
        file.truncate(pad)
        file.seek(pad)
        file.write(archive)
    with peak_memory() as peak:
        refused(path, f"records do not follow one another (bytes 0 to {pad:,} belong to none)")
    assert peak[0] < 1 << 20


def _zip64_end(raw: bytearray) -> int:
    return raw.rindex(b"PK\x06\x06")


def _set(raw: bytearray, at: int, value: int) -> None:
    struct.pack_into("<Q", raw, at, value)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: _set(r, _zip64_end(r) + 32, 2**40), "lists 1,099,511,627,776 records"),
        (lambda r: _set(r, _zip64_end(r) + 40, 2**40), "in 1,099,511,627,776 bytes"),
        (lambda r: _set(r, _zip64_end(r) + 48, 5), "central directory is not where"),
        (lambda r: _set(r, _zip64_end(r) + 48, 2**63), "central directory is not where"),
        (lambda r: _set(r, len(r) - 34, 2**62), "zip64 end record is not where its locator"),
        (lambda r: _set(r, len(r) - 34, 0), "zip64 end record is not where its locator"),
        (lambda r: r.extend(b"x"), "no end record at the end"),
        (lambda r: r.__setitem__(slice(-2, None), b"\x01\x00"), "no end record at the end"),
    ],
)
def test_crafted_end_records_are_refused(
    saved: Saved, scratch: Path, change: Callable, problem: str
) -> None:
    """The end records say where the central directory is and how large: one that points
    elsewhere or claims millions of records is refused before the directory is read."""
    raw = bytearray(saved.raw)
    change(raw)
    scratch.write_bytes(raw)
    error = refused(scratch, problem)
    assert "corrupt or truncated" in str(error)


# --- crafted fields -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(model=[1, 2]), "model: [1, 2], not a state dict"),
        (lambda d: d.update(history=5), "history: 5"),
        (lambda d: d.update(iteration="abc"), "iteration: 'abc', not an int from 0 to 4"),
        (lambda d: d.update(iteration=10**12), "iteration: 1000000000000"),
        (lambda d: d.update(iteration=-5), "iteration: -5"),
        (lambda d: d.update(iteration=True), "iteration: True"),
        (lambda d: d.update(iteration=2.0), "iteration: 2.0"),
        (lambda d: d.update(rng={"torch": 1, "numpy": 2, "python": 3}), "rng.torch"),
        (lambda d: d["rng"].update(torch=torch.zeros(5056, dtype=torch.uint8)), "rng.torch"),
        (lambda d: d["rng"]["numpy"]["state"].update(key=[-1] * 624), "rng.numpy"),
        (lambda d: d["rng"].update(python=(3, (1, 2), None)), "rng.python"),
        (lambda d: d["optimizer"].pop("param_groups"), "optimizer: ['state'], not an optimiser"),
        (lambda d: d["optimizer"].update(param_groups=[{"lr": 1}]), "optimizer.param_groups"),
        (lambda d: d.update(fingerprint=[1]), "fingerprint"),
        (
            lambda d: d["fingerprint"]["network"].update(channels=200000, blocks=50),
            "fingerprint disagrees with its own config: network.blocks: checkpoint has 50, "
            "config has 1 (and 1 more)",
        ),
        (lambda d: d["fingerprint"].pop("rules"), "fingerprint disagrees with its own config"),
        (lambda d: d.update(algorithm="ppo"), "algorithm: 'ppo', but its config has"),
        (lambda d: d.update(version=True), "checkpoint version True"),
        (lambda d: d.update(extra=1), "unknown field(s) ['extra']"),
        (lambda d: d.pop("rng"), "checkpoint lacks rng"),
        (lambda d: d["model"].pop("policy.bias"), "missing ['policy.bias']"),
        (lambda d: d["model"].update(x=torch.zeros(1)), "unexpected ['x']"),
        (lambda d: d["model"].update(**{"policy.bias": torch.zeros(3)}), "model.policy.bias"),
        (lambda d: d["model"]["policy.bias"].resize_(27).zero_(), "model.policy.bias"),
        (lambda d: d["model"].update(square_cells=d["model"]["square_cells"] * 99), "computes"),
        (lambda d: d["model"].update(**{"value_mlp.2.bias": torch.zeros(1).double()}), "float64"),
        (lambda d: d["trainer"].update(replay=[d["model"]] * 2000), "over and over"),
        (lambda d: d.update(history=nested(40)), "nested more than"),
        (lambda d: d.update(history=[{"loss": "x"}]), "history[0]"),
        (lambda d: d["config"]["network"].update(channels=200000, blocks=50), "network.c"),
        (lambda d: d["config"]["train"].update(iterations="many"), "train.iterations"),
        (lambda d: d.update(config=None), "config: None, not a mapping"),
        (lambda d: d.update(trainer=[]), "trainer: [], not a mapping"),
        # Finite but absurd values.
        (lambda d: d["config"]["train"].update(lr=1e30), "train.lr must be from 1e-10 to 10.0"),
        (lambda d: d["model"]["stem.0.0.weight"].fill_(1e38), "stem.0.0.weight: holds 1e+38"),
        (lambda d: d["model"]["value_mlp.2.bias"].fill_(-2e6), "value_mlp.2.bias: holds 2e+06"),
        (lambda d: d["model"]["stem.0.1.running_var"].fill_(1e30), "running_var: holds 1e+30"),
        (lambda d: d.update(history=[{"loss/total": math.nan}]), "history[0].loss/total: nan"),
        (lambda d: d.update(history=[{"x": 1.0}, {"x": -math.inf}]), "history[1].x: -inf"),
        (lambda d: d.update(history=[{"x": 10**400}]), "history[0].x: 1000"),
        (lambda d: d.update(history=[{"x": 1e308}]), "history[0].x: 1e+308, beyond +-1e+15"),
        (lambda d: d["history"][0].update(seconds=-1e300), "history[0].seconds: -1e+300"),
        (
            lambda d: d.update(history=d["history"] * 50),
            "history: 50 entries, more than its 1 iteration (a run logs each iteration at most",
        ),
        (
            lambda d: d.update(iteration=3, history=[{"iteration": 1.0}, {"iteration": 1.0}]),
            "history[1].iteration: 1.0, not a whole number from 2 to 3 (each logged iteration "
            "once, in order)",
        ),
        (lambda d: d["history"][0].update(iteration=2.0), "history[0].iteration: 2.0"),
        (lambda d: d["history"][0].update(iteration=0.5), "history[0].iteration: 0.5"),
        (lambda d: d["history"][0].pop("iteration"), "history[0].iteration: None"),
        (
            lambda d: d["config"]["train"].update(lr=1e-320),
            "train.lr must be from 1e-10 to 10.0, not 1e-320",
        ),
    ],
)
def test_crafted_fields_are_refused_naming_the_field(
    saved: Saved, scratch: Path, change: Callable, field: str
) -> None:
    refused(crafted(saved, scratch, change), field)


def test_a_huge_network_is_refused_before_anything_is_built(
    saved: Saved, scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config asking for 200000 channels and 50 blocks (1.4 TB) is refused by the config's
    bounds; one within the bounds that does not fit the weights is built on the meta device
    only, and refused there."""
    built = []
    real = damas_agents.models.network.DraughtsNet

    def spy(*args: Any) -> Any:
        built.append(torch.empty(0).device.type)
        return real(*args)

    monkeypatch.setattr(damas_agents.models.network, "DraughtsNet", spy)
    refused(
        crafted(saved, scratch, lambda d: d["config"]["network"].update(channels=200000)), "512"
    )
    assert built == []
    big = {"channels": 512, "blocks": 40}

    def grow(data: dict[str, Any]) -> None:
        data["config"]["network"].update(big)
        data["fingerprint"]["network"].update(big)

    path = crafted(saved, scratch, grow)
    refused(path, "model")
    assert built == ["meta"]


def test_a_snapshot_cannot_be_resumed(saved: Saved, scratch: Path, target: Any) -> None:
    snapshot = crafted(saved, scratch, lambda d: d.update(optimizer={}, trainer={}))
    load_agent(snapshot)  # it plays
    before = state_of(target)
    with pytest.raises(CheckpointError, match="optimizer: empty: a snapshot to play"):
        restore_trainer(target, read_checkpoint(snapshot), snapshot)
    assert same(state_of(target), before)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["optimizer"]["state"][0].pop("exp_avg"), "optimizer.state[0]: keys"),
        (lambda d: d["optimizer"]["state"][0]["exp_avg_sq"].fill_(-1), "exp_avg_sq: negative"),
        (lambda d: d["optimizer"]["state"][0]["step"].fill_(-3), "step: negative"),
        (
            lambda d: d["optimizer"]["state"][0]["step"].fill_(1e30),
            "optimizer.state[0].step: 1e+30, not a whole number of steps from 0 to 2**53",
        ),
        (lambda d: d["optimizer"]["state"][0]["step"].fill_(2.5), "step: 2.5, not a whole"),
        (lambda d: d["optimizer"]["param_groups"][0].update(lr=1e-320), "lr: 1e-320"),
        (lambda d: d["optimizer"]["state"][0].update(exp_avg=torch.zeros(3)), "exp_avg"),
        (lambda d: d["optimizer"]["state"].update({99: {}}), "numbers [99] are not"),
        (lambda d: d["optimizer"]["param_groups"][0].update(betas=(0.9, 1.0)), "betas[1]"),
        (lambda d: d["optimizer"]["param_groups"][0].update(lr=-1.0), "lr: -1.0"),
        (lambda d: d["optimizer"]["param_groups"][0].update(lr=1e30), "lr: 1e+30"),
        (lambda d: d["optimizer"]["param_groups"][0].update(lr=10**400), "lr: 1000"),
        (lambda d: d["optimizer"]["param_groups"][0].update(weight_decay=1e30), "weight_decay"),
        (lambda d: d["optimizer"]["param_groups"][0].update(eps=1e30), "eps: 1e+30"),
        (lambda d: d["optimizer"]["state"][0]["exp_avg"].fill_(1e38), "exp_avg: holds 1e+38"),
        (lambda d: d["optimizer"]["state"][0]["exp_avg_sq"].fill_(1e30), "exp_avg_sq: holds"),
        (lambda d: d["optimizer"]["param_groups"][0].update(eps=0.0), "eps: 0.0"),
        (lambda d: d["optimizer"]["param_groups"][0].update(amsgrad="yes"), "amsgrad"),
        (lambda d: d["optimizer"]["param_groups"][0].update(amsgrad=True), "state[0]: keys"),
        (lambda d: d["optimizer"]["param_groups"][0].update(capturable=True), "cannot step"),
        (lambda d: d["optimizer"]["param_groups"][0]["params"].pop(), "params"),
        (lambda d: d["optimizer"]["param_groups"].append({"params": []}), "2 groups"),
        (lambda d: d["trainer"]["rng"].update(state=5), "trainer.rng: not a PCG64"),
        (lambda d: d["trainer"]["rng"].update(bit_generator="MT19937"), "trainer.rng"),
        (lambda d: d["trainer"]["replay"]["values"].fill_(5.0), "replay.values: holds values"),
        (lambda d: d["trainer"]["replay"]["values"].fill_(-3.0), "outside [-1, 1]"),
        (lambda d: d["trainer"]["replay"]["policies"].fill_(2.0), "replay.policies: holds"),
        (lambda d: d["trainer"]["replay"]["obs"].fill_(-1.0), "replay.obs: holds values"),
        (lambda d: d["trainer"]["replay"].update(added=2), "added: 2, not an int from 5"),
        (lambda d: d["trainer"]["replay"].update(added=-5), "added: -5"),
        (lambda d: d["trainer"]["replay"].update(added="x"), "trainer.replay.added"),
        (
            lambda d: d["trainer"]["replay"].update(obs=torch.zeros(3, 8, 8)),
            "replay.obs: a float32",
        ),
        (
            lambda d: d["trainer"]["replay"].update(masks=torch.ones(4, 896, dtype=torch.bool)),
            "4 rows",
        ),
        (lambda d: d["trainer"].pop("search_rng"), "trainer: ['replay', 'rng']"),
    ],
)
def test_a_refused_restore_changes_nothing(
    saved: Saved, scratch: Path, target: Any, change: Callable, field: str
) -> None:
    """Parts that only a trainer can check (the optimiser against its parameters, the
    algorithm's extra state) are all checked before any part is loaded."""
    restore_refused(crafted(saved, scratch, change), target, field)


def restore_refused(path: Path, trainer: Any, field: str) -> None:
    """Checks that `path` reads, that restoring it into `trainer` is refused naming the file
    and `field`, and that neither the trainer nor the file changed."""
    data = read_checkpoint(path)
    before, file_before = state_of(trainer), file_state(path)
    with pytest.raises(CheckpointError) as error:
        restore_trainer(trainer, data, path)
    message = str(error.value)
    assert str(path) in message and "cannot restore" in message and field in message, message
    assert same(state_of(trainer), before) and file_state(path) == file_before


def test_a_failure_after_the_checks_is_undone(
    saved: Saved, target: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence: a part that fails to load although it was checked puts the
    parts loaded before it back."""
    before = state_of(target)
    real = target.load_extra_state
    calls = []

    def fail_once(state: dict[str, Any]) -> None:
        calls.append(state)
        if len(calls) == 1:
            raise RuntimeError("unforeseen")
        real(state)

    monkeypatch.setattr(target, "load_extra_state", fail_once)
    with pytest.raises(CheckpointError, match="unforeseen"):
        restore_trainer(target, read_checkpoint(saved.path), saved.path)
    monkeypatch.undo()
    assert same(state_of(target)[:4], before[:4])


def test_a_ppo_checkpoint_with_its_pool_round_trips(tmp_path: Path) -> None:
    data = tiny_training(algorithm="ppo", ppo={"rollout_steps": 4, "pool_size": 2})
    trainer = trained(PPOTrainer(config_from_dict(data)))
    trainer.pool.add(trainer.network)
    save_checkpoint(tmp_path / "ppo.pt", trainer)
    resumed = PPOTrainer(config_from_dict(data))
    restore_trainer(resumed, read_checkpoint(tmp_path / "ppo.pt"), tmp_path / "ppo.pt")
    assert resumed.pool.ids == trainer.pool.ids and resumed.iteration == 1
    bad = torch.load(tmp_path / "ppo.pt", weights_only=True)
    bad["trainer"]["pool"]["weights"][0]["policy.bias"] = torch.zeros(3)
    fresh = PPOTrainer(config_from_dict(data))
    restore_refused(write(bad, tmp_path / "bad.pt"), fresh, "pool.weights[0]: model.policy.bias")
    assert fresh.pool.ids == []


@pytest.fixture(scope="module")
def ppo_saved(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    """A PPO checkpoint whose pool holds two snapshots (ids 1 and 2)."""
    data = tiny_training(algorithm="ppo", ppo={"rollout_steps": 4, "pool_size": 2})
    trainer = trained(PPOTrainer(config_from_dict(data)))
    for _ in range(3):
        trainer.pool.add(trainer.network)
    path = tmp_path_factory.mktemp("ppo") / "ppo.pt"
    save_checkpoint(path, trainer)
    raw = path.read_bytes()
    return Saved(path, raw, torch.load(io.BytesIO(raw), weights_only=True))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.update(next_id=-5), "trainer.pool.next_id: -5"),
        (lambda p: p.update(next_id=10**9, ids=[1, 10**9 + 3]), "not increasing ids below"),
        (lambda p: p.update(ids=[2, 1]), "ids: [2, 1], not increasing ids below 3"),
        (lambda p: p.update(ids=[1, 1]), "not increasing ids"),
        (lambda p: p.update(ids=[0, 1, 2], weights=p["weights"] * 2), "at most 2 ids"),
        (lambda p: p.update(weights=p["weights"][:1]), "weights: [{"),
        (lambda p: p["weights"][1]["policy.weight"].fill_(1e38), "weights[1]: model.policy.w"),
    ],
)
def test_crafted_opponent_pools_are_refused(
    ppo_saved: Saved, ppo_target: PPOTrainer, scratch: Path, change: Callable, field: str
) -> None:
    pool = crafted(ppo_saved, scratch, lambda d: change(d["trainer"]["pool"]))
    restore_refused(pool, ppo_target, field)


@pytest.mark.parametrize("variant", ["/etc/passwd", "../x.yaml"])
def test_a_checkpoint_variant_never_reads_a_file(
    saved: Saved, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """A checkpoint's config.env.variant is a ruleset name, never a file to open.
    Here ../x.yaml exists and holds a valid ruleset."""
    (tmp_path / "x.yaml").write_text("board_size: 8\n", encoding="utf-8")
    (tmp_path / "run").mkdir()
    monkeypatch.chdir(tmp_path / "run")
    data = copy.deepcopy(saved.data)
    data["config"]["env"]["variant"] = variant
    path = write(data, tmp_path / "run" / "crafted.pt")
    opened: list[str] = []

    def watch(real: Callable) -> Callable:
        def opener(file: Any, *args: Any, **kwargs: Any) -> Any:
            name = os.fspath(file) if isinstance(file, str | os.PathLike) else ""
            if name.endswith(("passwd", "x.yaml")):
                opened.append(name)
            return real(file, *args, **kwargs)

        return opener

    monkeypatch.setattr(builtins, "open", watch(builtins.open))
    monkeypatch.setattr(io, "open", watch(io.open))
    monkeypatch.setattr(pathlib.Path, "open", watch(pathlib.Path.open))
    monkeypatch.setattr(pathlib.Path, "read_text", watch(pathlib.Path.read_text))
    with pytest.raises(CheckpointError, match="variant"):
        read_checkpoint(path)
    assert opened == []


def nnue_trainer(**train: Any) -> NNUETrainer:
    """Returns an nnue trainer whose replay ring holds 20 positions (no self-play: rows of the
    start position, scored and decided) and whose optimiser has stepped."""
    config = tiny(algorithm="nnue", nnue={"hidden": 8, "hidden2": 4}, train=train)
    trainer = trained(NNUETrainer(config))
    start = Position.start(get_ruleset("english"))
    n = 20
    trainer.learn(
        [
            {
                "boards": np.tile(np.asarray(start.board, np.int8), (n, 1)),
                "sides": np.arange(n, dtype=np.int8) % 2,
                "scores": np.arange(n, dtype=np.int32) * 50 - 500,
                "results": np.full(n, 0.5, np.float32),
                "games": 2,
                "plies": n,
                "nodes": 1000,
            }
        ]
    )
    return trainer


@pytest.fixture(scope="module")
def nnue_saved(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    path = tmp_path_factory.mktemp("nnue") / "nnue.pt"
    save_checkpoint(path, nnue_trainer(replay_size=64))
    raw = path.read_bytes()
    return Saved(path, raw, torch.load(io.BytesIO(raw), weights_only=True))


def _piece(code: int) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        state["boards"][3, 7] = code

    return change


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_piece(127), "trainer.boards: holds values outside [-2, 2]"),
        (_piece(-128), "trainer.boards: holds values outside [-2, 2]"),
        (_piece(3), "trainer.boards: holds values outside [-2, 2]"),
        (_piece(-5), "trainer.boards: holds values outside [-2, 2]"),
        (lambda t: t["sides"].fill_(7), "trainer.sides: holds values outside [0, 1]"),
        (lambda t: t["results"].fill_(5.0), "trainer.results: holds values outside [0, 1]"),
        (lambda t: t["results"].fill_(-3.0), "trainer.results: holds values outside [0, 1]"),
        (lambda t: t["scores"].fill_(10**6), "trainer.scores: holds values outside"),
        (lambda t: t.update(cursor=10**9), "trainer.cursor: 1000000000, not an int from 0 to 63"),
        (lambda t: t.update(cursor=-5), "trainer.cursor: -5, not an int from 0 to 63"),
        (lambda t: t.update(cursor=3), "trainer.cursor: 3, not the next free row (20)"),
        (lambda t: t.update(filled=65), "trainer.filled: 65, not an int from 0 to 64"),
        (lambda t: t.update(filled=-1), "trainer.filled: -1"),
        (lambda t: t.update(filled=19, cursor=19), "trainer.boards: 20 rows, where the buffer"),
        (lambda t: t.update(sides=t["sides"][:5]), "trainer.sides: 5 rows"),
        (lambda t: t.update(boards=t["boards"][:, :8]), "trainer.boards: an int8 tensor of sh"),
        (lambda t: t.update(scores=t["scores"].long()), "trainer.scores: an int64 tensor"),
        (lambda t: t.pop("cursor"), "trainer: ['boards', 'filled'"),
    ],
)
def test_crafted_nnue_replay_is_refused(
    nnue_saved: Saved, nnue_target: NNUETrainer, scratch: Path, change: Callable, field: str
) -> None:
    restore_refused(
        crafted(nnue_saved, scratch, lambda d: change(d["trainer"])), nnue_target, field
    )


@pytest.fixture(scope="module")
def nnue_target() -> NNUETrainer:
    return nnue_trainer(replay_size=64)


def test_an_nnue_replay_too_large_for_the_trainer_is_refused_unchanged(nnue_saved: Saved) -> None:
    """A resume into a smaller replay ring than the checkpoint's filled one."""
    small = nnue_trainer(replay_size=10)
    restore_refused(nnue_saved.path, small, "trainer.filled: 20, not an int from 0 to 10")


def test_a_valid_nnue_checkpoint_restores(nnue_saved: Saved) -> None:
    trainer = NNUETrainer(tiny(algorithm="nnue", nnue={"hidden": 8, "hidden2": 4}, train={
        "replay_size": 64}))  # fmt: skip
    restore_trainer(trainer, read_checkpoint(nnue_saved.path), nnue_saved.path)
    assert trainer.filled == 20 and trainer.cursor == 20 and trainer.iteration == 2


# --- Property tests -------------------------------------------------------------------------

#: Fields replaced one at a time, as key paths into the checkpoint dict.
FIELDS = [
    ("format",),
    ("version",),
    ("algorithm",),
    ("config",),
    ("config", "name"),
    ("config", "env"),
    ("config", "env", "variant"),
    ("config", "env", "rules"),
    ("config", "network", "channels"),
    ("config", "network", "blocks"),
    ("config", "network", "norm"),
    ("config", "train", "iterations"),
    ("config", "train", "lr"),
    ("fingerprint",),
    ("fingerprint", "network"),
    ("fingerprint", "rules"),
    ("iteration",),
    ("model",),
    ("model", "stem.0.0.weight"),
    ("model", "stem.0.1.running_var"),
    ("model", "stem.0.1.num_batches_tracked"),
    ("model", "square_cells"),
    ("model", "value_mlp.2.bias"),
    ("optimizer",),
    ("optimizer", "state"),
    ("optimizer", "state", 0),
    ("optimizer", "state", 0, "step"),
    ("optimizer", "state", 0, "exp_avg"),
    ("optimizer", "state", 0, "exp_avg_sq"),
    ("optimizer", "param_groups"),
    ("optimizer", "param_groups", 0),
    ("optimizer", "param_groups", 0, "lr"),
    ("optimizer", "param_groups", 0, "betas"),
    ("optimizer", "param_groups", 0, "params"),
    ("optimizer", "param_groups", 0, "foreach"),
    ("trainer",),
    ("trainer", "replay"),
    ("trainer", "replay", "obs"),
    ("trainer", "replay", "masks"),
    ("trainer", "replay", "values"),
    ("trainer", "replay", "added"),
    ("trainer", "rng"),
    ("trainer", "rng", "state"),
    ("trainer", "search_rng", "state", "inc"),
    ("rng",),
    ("rng", "torch"),
    ("rng", "numpy"),
    ("rng", "numpy", "state", "key"),
    ("rng", "numpy", "gauss"),
    ("rng", "python"),
    ("history",),
    ("history", 0),
    ("history", 0, "loss/total"),
]
DTYPES = [torch.float32, torch.float16, torch.float64, torch.int64, torch.uint8, torch.bool]


@st.composite
def tensors(draw: st.DrawFn) -> torch.Tensor:
    shape = draw(st.lists(st.integers(0, 4), max_size=3))
    tensor = torch.full(shape, draw(st.integers(-3, 3))).to(draw(st.sampled_from(DTYPES)))
    if tensor.is_floating_point() and tensor.numel() and draw(st.booleans()):
        tensor.view(-1)[0] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    return tensor


LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([-5, -1, 0, 2**31, 2**63, 2**64, 10**12, 10**400]),
    st.integers(4400, 4500).map(lambda digits: -(10**digits)),  # too long for repr()
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    tensors(),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.integers(-2, 20), inner, max_size=4)
    ),
    max_leaves=8,
)


def mutations(original: Any) -> st.SearchStrategy[Any]:
    """Returns values close to `original`: NaN, wrong dtype or shape, a key more or fewer."""
    near: list[Any] = [None, [original], {"x": original}]
    if isinstance(original, torch.Tensor):
        near += [original.double(), original.long(), original.unsqueeze(0), original.flatten()]
        near += [original.reshape(-1)[:0], -original.long() - 1, original.float() * 1e30]
        if original.is_floating_point():
            near += [torch.full_like(original, math.nan), torch.full_like(original, -math.inf)]
    elif isinstance(original, dict):
        near += [{}, {**original, "extra": 1}, dict(list(original.items())[1:]), list(original)]
    elif isinstance(original, list | tuple):
        near += [[], original[:-1], [*original, original[0] if original else 0], tuple(original)]
    elif isinstance(original, str):
        near += ["", original + "x", original.upper(), original * 1000]
    elif isinstance(original, bool | int | float):
        near += [-original - 1, original * 10**9, float(original), str(original), not original]
    return st.sampled_from(near)


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def get(data: Any, keys: tuple[Any, ...]) -> Any:
    for key in keys:
        data = data[key]
    return data


@FUZZ
@given(draw=st.data())
def test_one_fuzzed_field_is_refused_or_loads_cleanly(
    saved: Saved, target: Any, scratch: Path, draw: st.DataObject
) -> None:
    """Any field replaced with any value: read_checkpoint, load_agent and restore_trainer
    either refuse it with a CheckpointError naming the file, or load it; and a refused
    restore changes nothing."""
    keys = draw.draw(st.sampled_from(FIELDS), label="field")
    data = copy.deepcopy(saved.data)
    parent = get(data, keys[:-1])
    if draw.draw(st.integers(0, 9), label="delete?") == 0:
        del parent[keys[-1]]
    else:
        parent[keys[-1]] = draw.draw(VALUES | mutations(parent[keys[-1]]), label="value")
    write(data, scratch)
    try:
        checkpoint = read_checkpoint(scratch)
    except CheckpointError as error:
        assert str(scratch) in str(error)
        return
    try:
        load_agent(scratch)
    except CheckpointError as error:
        assert str(scratch) in str(error)
    before = state_of(target)
    try:
        restore_trainer(target, checkpoint, scratch)
    except CheckpointError as error:
        assert str(scratch) in str(error)
        assert same(state_of(target), before)


#: The fields of the nnue replay ring and of the PPO opponent pool, fuzzed as FIELDS are.
NNUE_FIELDS = [("trainer", k) for k in ("cursor", "filled", "boards", "sides", "scores", "results")]
PPO_FIELDS = [("trainer", "pool", k) for k in ("next_id", "ids", "weights")] + [
    ("trainer", "pool", "ids", 0),
    ("trainer", "pool", "weights", 0),
    ("trainer", "pool", "weights", 1, "policy.bias"),
]


@pytest.fixture(scope="module")
def ppo_target(ppo_saved: Saved) -> PPOTrainer:
    return PPOTrainer(config_from_dict(ppo_saved.data["config"]))


def fuzz_restore(
    saved: Saved, target: Any, scratch: Path, fields: list[tuple[Any, ...]], draw: st.DataObject
) -> None:
    """Replaces or deletes one of `fields`; reading the file, then restoring it into `target`,
    either works or is refused naming the file, with the trainer as it was."""
    keys = draw.draw(st.sampled_from(fields), label="field")
    data = copy.deepcopy(saved.data)
    parent = get(data, keys[:-1])
    if draw.draw(st.integers(0, 9), label="delete?") == 0:
        del parent[keys[-1]]
    else:
        parent[keys[-1]] = draw.draw(VALUES | mutations(parent[keys[-1]]), label="value")
    try:
        checkpoint = read_checkpoint(write(data, scratch))
    except CheckpointError as error:  # a value no checkpoint holds (an int of 4000 digits)
        assert str(scratch) in str(error)
        return
    before = state_of(target)
    try:
        restore_trainer(target, checkpoint, scratch)
    except CheckpointError as error:
        assert str(scratch) in str(error)
        assert same(state_of(target), before)


@FUZZ
@given(draw=st.data())
def test_a_fuzzed_nnue_replay_is_refused_or_restores(
    nnue_saved: Saved, nnue_target: Any, scratch: Path, draw: st.DataObject
) -> None:
    fuzz_restore(nnue_saved, nnue_target, scratch, NNUE_FIELDS, draw)


@FUZZ
@given(draw=st.data())
def test_a_fuzzed_opponent_pool_is_refused_or_restores(
    ppo_saved: Saved, ppo_target: Any, scratch: Path, draw: st.DataObject
) -> None:
    fuzz_restore(ppo_saved, ppo_target, scratch, PPO_FIELDS, draw)


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 2**40), st.integers(1, 255)), min_size=1))
def test_flipped_bytes_are_refused_or_read_the_same(
    saved: Saved, scratch: Path, flips: list[tuple[int, int]]
) -> None:
    """Flipped bytes are caught (by the zip CRCs or the checks) or fell on bytes that mean
    nothing (a record's timestamp, alignment padding): the contents read are the original."""
    raw = bytearray(saved.raw)
    for at, mask in flips:
        raw[at % len(raw)] ^= mask
    scratch.write_bytes(raw)
    try:
        data = read_checkpoint(scratch)
    except CheckpointError as error:
        assert str(scratch) in str(error)
        return
    del data["config_obj"]
    assert same(data, saved.data)


@FUZZ
@given(draw=st.data())
def test_a_cut_file_is_refused(saved: Saved, scratch: Path, draw: st.DataObject) -> None:
    size = draw.draw(st.integers(0, len(saved.raw) - 1), label="size")
    scratch.write_bytes(saved.raw[:size])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        read_checkpoint(scratch)


def test_a_pickle_that_could_run_code_is_refused_in_our_words(saved: Saved, scratch: Path) -> None:
    """The refusal names the global it would call, and never quotes torch's advice to load the
    file again with weights_only=False."""
    error = refused(crafted(saved, scratch, lambda d: d.update(history=[Exploit()])), "")
    message = str(error)
    assert "holds objects other than tensors and plain values (it names '" in message
    assert "print" in message and message.endswith("; refused unread, it could run code")
    assert "weights_only" not in message and "Re-running" not in message
