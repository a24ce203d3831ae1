"""Checkpoints: one ``.pt`` file of plain values and tensors, written atomically, read verified.

    save_checkpoint(path, trainer, history)      # a kill leaves the old file or the new one
    checkpoint = read_checkpoint(path)           # verified; CheckpointError if not usable

Read with ``torch.load(weights_only=True)`` and checked in full (size, zip CRCs, every field)
before anything is built from it. Fields::

    format, version    "damas-env checkpoint", 1
    algorithm          "alphazero" | "ppo" | "nnue"
    config             the run's config (a plain dict)
    fingerprint        Config.fingerprint(): ruleset switches and network shape
    iteration          iterations completed
    model, optimizer   the state_dicts of the network and the optimiser
    trainer            the algorithm's extra state (replay buffer, opponent pool, generators)
    rng                torch, numpy and Python global random states
    history            one dict of metrics per logged iteration (the learning curve)
"""

from __future__ import annotations

import io
import math
import os
import pickle
import random
import re
import struct
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np
import torch

from damas_agents.files import CheckpointError, write_atomically
from damas_agents.models.config import (
    MAX_LR,
    Config,
    config_from_dict,
    config_to_dict,
    fingerprint_mismatches,
)
from damas_agents.models.network import build_network
from damas_env.checks import shown

__all__ = [
    "FORMAT",
    "MAX_CHECKPOINT_BYTES",
    "MAX_LR",
    "MAX_METRIC",
    "MAX_WEIGHT",
    "VERSION",
    "CheckpointError",
    "Saved",
    "checkpoint_dict",
    "load_network",
    "network_tensors",
    "read_checkpoint",
    "save_checkpoint",
]

FORMAT = "damas-env checkpoint"
VERSION = 1
_KEYS = (
    "algorithm",
    "config",
    "fingerprint",
    "iteration",
    "model",
    "optimizer",
    "trainer",
    "rng",
    "history",
)


# --- Writing --------------------------------------------------------------------------------


class Saved(Protocol):
    """What a checkpoint saves: a trainer (:class:`damas_agents.training.trainer.Trainer`)."""

    config: Config
    network: torch.nn.Module
    optimizer: torch.optim.Optimizer
    iteration: int

    def extra_state(self) -> dict[str, Any]:
        """Returns the algorithm's own state (replay buffer, opponent pool, generators)."""
        ...


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


def checkpoint_dict(
    trainer: Saved, history: Sequence[dict[str, float]] = (), with_trainer: bool = True
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
    trainer: Saved,
    history: Sequence[dict[str, float]] = (),
    with_trainer: bool = True,
) -> None:
    """Writes a trainer's checkpoint to `path` atomically (see :func:`checkpoint_dict`)."""
    buffer = io.BytesIO()
    torch.save(checkpoint_dict(trainer, history, with_trainer), buffer)
    write_atomically(path, buffer.getvalue())


# --- Reading --------------------------------------------------------------------------------

#: Deepest nesting of dicts, lists and tuples in a checkpoint (ours go 4 deep).
_MAX_DEPTH = 16
#: Plain values a checkpoint may hold besides containers and tensors.
_LEAVES = (type(None), bool, int, float, str)
_GLOBAL = re.compile(r"GLOBAL ([A-Za-z0-9_.]{1,200})")  # the weights-only unpickler's refusal
#: Largest magnitude of a network's weight (a trained network's stay within a few hundred;
#: 1e38 overflows float32 at the first layer). Optimiser moments, which are squared
#: gradients, are bounded by its square.
MAX_WEIGHT = 1e6


class FieldError(ValueError):
    """A checkpoint field that fails a check; the message starts with the field's name."""


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Returns a checkpoint's contents, verified in full before anything is built from them.

    The file's size, the records that end its zip archive (in its last 64 KiB) and its
    central directory (records that follow one another from the file's start) are checked
    before it is read whole; then every record of the archive is read back against its CRC
    before the pickle is loaded with ``weights_only=True``. Then every field is checked: its
    type and range, finite tensors everywhere (weights and optimiser state included), finite
    metrics within :data:`MAX_METRIC` (one entry per logged iteration, in order), weights
    within :data:`MAX_WEIGHT`, a learning rate within :data:`MAX_LR`, random
    states that load (tried on fresh generators), and the weights against the config's
    network, whose shape is
    bounded by the config's checks and then built on the meta device, so nothing is
    allocated. The run's :class:`Config` is added as ``checkpoint["config_obj"]``.

    Raises:
        CheckpointError: the file is missing, larger than :data:`MAX_CHECKPOINT_BYTES`, is not
            a torch zip archive or is damaged (corrupt or truncated), holds objects other than
            tensors and plain values (refused unread), is not a damas-env checkpoint of a
            known version, or has a field of the wrong type, out of range or not finite. The
            message names the file and the field.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint file at {str(path)!r}")
    try:
        raw = _read_archive(path)
    except OSError as error:
        raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {error.strerror}") from error
    data = _unpickle(raw, path)
    try:
        config = _verify(data, budget=len(raw))
    except FieldError as error:
        raise CheckpointError(f"{path}: {error}") from None
    data["config_obj"] = config
    return data


#: Largest checkpoint file read: far above any run's (the config's largest network, 190 M
#: parameters, takes 2.3 GB with its optimiser state; a replay buffer of 100,000 positions on
#: the largest board about 1.2 GB). A larger file is refused unread.
MAX_CHECKPOINT_BYTES = 8 << 30
#: Most records a checkpoint's archive may list (one per tensor's storage, ours hold hundreds)
#: and the largest central directory: the zip reader holds both in memory.
MAX_RECORDS = 1 << 18
_MAX_DIRECTORY_BYTES = 64 << 20
#: The zip records that end an archive, each with its signature (APPNOTE.TXT 4.3.14-4.3.16):
#: end of central directory (disks, entries on this disk, entries, directory size and
#: offset, comment length); zip64 locator (disk, zip64 end offset, disks); zip64 end of
#: central directory (size, versions, disks, entries on this disk, entries, directory size
#: and offset).
_END = struct.Struct("<4s4H2LH")
_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")
_END_SIGNATURE, _DIRECTORY_ENTRY = b"PK\x05\x06", b"PK\x01\x02"
#: The fixed part of a record's entry in the central directory (APPNOTE.TXT 4.3.12).
_DIRECTORY_ENTRY_BYTES = 46
#: The most bytes of a record besides its data: its header (30), name and extra field (at
#: most 65,535 each) and a zip64 data descriptor (24).
_MAX_RECORD_OVERHEAD = 30 + 2 * 0xFFFF + 24


def _read_archive(path: Path) -> bytes:
    """Returns a checkpoint file's bytes, read whole only once its size and the records that
    end its zip archive check out (see :func:`_end_problem`).

    Raises:
        CheckpointError: the file is larger than :data:`MAX_CHECKPOINT_BYTES`, or does not end
            as a zip archive that torch.save writes.
        OSError: the file cannot be read.
    """
    with path.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > MAX_CHECKPOINT_BYTES:
            raise CheckpointError(
                f"{path}: {size:,} bytes, larger than any checkpoint (at most "
                f"{MAX_CHECKPOINT_BYTES:,}); refused unread"
            )
        problem = _end_problem(file, size)
        if problem is not None:
            raise CheckpointError(
                f"{path}: not a readable checkpoint (corrupt or truncated?): {problem}"
            )
        file.seek(0)
        return file.read(size)  # a file changed since is caught by the records' CRCs


def _end_problem(file: BinaryIO, size: int) -> str | None:
    """Returns what is wrong with the end of a zip archive of `size` bytes, or None: read from
    its last 64 KiB (and the zip64 record they point to), the end records must locate a
    central directory of at most :data:`MAX_RECORDS` records and
    ``_MAX_DIRECTORY_BYTES`` bytes that ends where they start, as torch.save writes them."""
    tail_size = min(size, _END.size + 0xFFFF)  # the record and the longest comment
    file.seek(size - tail_size)
    tail = file.read(tail_size)
    at = tail.rfind(_END_SIGNATURE)
    while at >= 0 and at + _END.size + _comment_length(tail, at) != len(tail):
        at = tail.rfind(_END_SIGNATURE, 0, at)
    if at < 0:
        return "not a zip archive as torch.save writes (no end record at the end of the file)"
    end = size - tail_size + at  # where the end records start in the file
    _, _, _, _, entries, directory, offset, _ = _END.unpack_from(tail, at)
    if at >= _LOCATOR.size and tail[at - _LOCATOR.size : at].startswith(b"PK\x06\x07"):
        found = _zip64_end(file, tail, at, end)
        if isinstance(found, str):
            return found
        entries, directory, offset, end = found
    if entries > MAX_RECORDS or directory > _MAX_DIRECTORY_BYTES:
        return (
            f"its archive lists {entries:,} records in {directory:,} bytes, more than a "
            f"checkpoint's (at most {MAX_RECORDS:,} in {_MAX_DIRECTORY_BYTES:,})"
        )
    if entries == 0 or directory < entries * _DIRECTORY_ENTRY_BYTES:
        return (
            f"its archive lists {entries:,} records in {directory:,} bytes, not the records "
            "of a checkpoint"
        )
    if offset + directory != end:
        return "its archive's central directory is not where its end record says"
    file.seek(offset)
    if file.read(len(_DIRECTORY_ENTRY)) != _DIRECTORY_ENTRY:
        return "its archive's central directory is not where its end record says"
    return _layout_problem(file, offset)


def _layout_problem(file: BinaryIO, directory: int) -> str | None:
    """Returns what is wrong with the places of an archive's records, read from its central
    directory (which starts at `directory`), or None: as torch.save writes them, the records
    follow one another from the file's start to the directory, each its header, name, data
    and descriptor, so no stretch of the file is left to no record (a file padded to gigabytes
    is refused unread)."""
    try:
        with zipfile.ZipFile(file) as archive:
            records = sorted((i.header_offset, i.compress_size) for i in archive.infolist())
    except Exception as error:  # zipfile raises several kinds for a damaged directory
        return f"its archive's central directory is damaged ({first_line(error)})"
    reached = 0  # where the previous record's data ends, up to its descriptor
    for start, size in [*records, (directory, 0)]:
        if not 0 <= start - reached <= _MAX_RECORD_OVERHEAD:
            return (
                f"its archive's records do not follow one another (bytes {reached:,} to "
                f"{start:,} belong to none)"
            )
        reached = start + size
    return None


def _comment_length(tail: bytes, at: int) -> int:
    return int.from_bytes(tail[at + _END.size - 2 : at + _END.size], "little")


def _zip64_end(file: BinaryIO, tail: bytes, at: int, end: int) -> tuple[int, int, int, int] | str:
    """Returns (entries, directory size, directory offset, start) of the zip64 end record the
    locator before the end record at `at` points to, or what is wrong with it."""
    _, _, where, _ = _LOCATOR.unpack_from(tail, at - _LOCATOR.size)
    if where + _END64.size > end - _LOCATOR.size:
        return "its archive's zip64 end record is not where its locator says"
    file.seek(where)
    record = file.read(_END64.size)
    signature, _, _, _, _, _, _, entries, directory, offset = _END64.unpack(record)
    if signature != b"PK\x06\x06":
        return "its archive's zip64 end record is not where its locator says"
    return entries, directory, offset, where


def _unpickle(raw: bytes, path: Path) -> Any:
    """Returns what a checkpoint's bytes hold, once every record of its archive checks out."""
    problem = _zip_problem(raw)
    if problem is not None:
        raise CheckpointError(
            f"{path}: not a readable checkpoint (corrupt or truncated?): {problem}"
        )
    try:
        return torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        raise CheckpointError(
            f"{path}: holds objects other than tensors and plain values{_named_global(error)}; "
            "refused unread, it could run code"
        ) from error
    except Exception as error:  # a crafted archive can fail anywhere in torch's reader
        raise CheckpointError(
            f"{path}: not a readable checkpoint (corrupt or truncated?): {first_line(error)}"
        ) from error


def _zip_problem(raw: bytes) -> str | None:
    """Returns what is wrong with a checkpoint's zip archive, or None if every record is stored
    as torch.save stores them (uncompressed, so reading cannot blow up) and matches its CRC.

    torch's own reader does not check every CRC, so each record is read through here first.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except Exception as error:  # zipfile raises several kinds for bytes that are no archive
        return f"not a zip archive as torch.save writes ({first_line(error)})"
    with archive:
        for info in archive.infolist():
            name = show_value(info.filename)
            if info.compress_type != zipfile.ZIP_STORED:
                return f"record {name} is compressed, which torch.save never does"
            try:
                with archive.open(info) as record:
                    while record.read(1 << 20):
                        pass
            except Exception as error:  # a damaged record fails anywhere in the zip reader
                return f"record {name} is damaged ({first_line(error)})"
    return None


def _named_global(error: BaseException) -> str:
    """Returns `` (it names module.attr)`` for the global the weights-only unpickler refused,
    or nothing: torch's own text (advice to load the file unsafely) is never quoted."""
    found = _GLOBAL.search(str(error))
    return f" (it names {shown(found.group(1))})" if found else ""


def first_line(error: BaseException | str) -> str:
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else type(error).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def show_value(value: Any) -> str:
    """Returns a short description of a value read from a file (a long one is cut)."""
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        article = "an" if dtype.startswith("i") else "a"  # an int8, a float32, a uint8
        return f"{article} {dtype} tensor of shape {tuple(value.shape)}"
    return shown(value)


def child_field(where: str, key: Any) -> str:
    """Returns the name of item `key` of the field named `where`."""
    if isinstance(key, str):
        return f"{where}.{key if len(key) <= 60 else key[:57] + '...'}"
    return f"{where}[{show_value(key)}]"


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite(number: float) -> bool:
    """Says whether a number is finite as a float (an int too large for one is not)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


# --- Checking the fields --------------------------------------------------------------------


def _verify(data: Any, budget: int) -> Config:
    """Returns the config of a loaded checkpoint once every field checks out.

    Args:
        data: what the file held.
        budget: the file's size: a bound on the values it can hold, each tensor element
            and each other value counting for a byte.
    """
    _check_header(data)
    left = [budget]
    for key, value in data.items():
        _check_tree(value, key, left)
    config = _check_config(data["config"])
    _check_run(data, config)
    check_model(data["model"], network_tensors(config))
    _check_optimizer_form(data["optimizer"])
    if not isinstance(data["trainer"], dict):
        raise FieldError(
            f"trainer: {show_value(data['trainer'])}, not a mapping (empty in snapshots)"
        )
    _check_rng(data["rng"])
    _check_history(data["history"], data["iteration"])
    return config


def _check_header(data: Any) -> None:
    """Checks the format marker, the version and the set of fields."""
    marker = data.get("format") if isinstance(data, dict) else None
    if not (isinstance(marker, str) and marker == FORMAT):
        raise FieldError(f"not a damas-env checkpoint (no {FORMAT!r} marker)")
    version = data.get("version")
    if not (is_int(version) and version == VERSION):
        raise FieldError(
            f"checkpoint version {show_value(version)}; this damas-env reads {VERSION}"
        )
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise FieldError(f"checkpoint lacks {', '.join(missing)}")
    unknown = [key for key in data if key not in (*_KEYS, "format", "version")]
    if unknown:
        raise FieldError(f"unknown field(s) {show_value(unknown)}")


def _check_tree(value: Any, where: str, left: list[int], depth: int = 0) -> None:
    """Raises FieldError unless `value` holds only plain values, dicts (keyed by str or int),
    lists, tuples and finite dense tensors, at most _MAX_DEPTH deep, and no more of them than
    the file has bytes (pickle can refer to one object many times: a small file must not
    stand for a huge tree)."""
    left[0] -= 1 + (value.numel() * value.element_size() if isinstance(value, torch.Tensor) else 0)
    if left[0] < 0:
        raise FieldError(
            f"{where}: refers to the same values over and over (more than the file holds)"
        )
    if isinstance(value, torch.Tensor):
        _check_tensor(value, where)
    elif isinstance(value, dict | list | tuple):
        if depth >= _MAX_DEPTH:
            raise FieldError(f"{where}: nested more than {_MAX_DEPTH} deep")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if not (isinstance(key, str) or is_int(key)):
                raise FieldError(f"{where}: a key {show_value(key)}, not a str or an int")
            _check_tree(item, child_field(where, key), left, depth + 1)
    elif not isinstance(value, _LEAVES):
        raise FieldError(f"{where}: a {type(value).__name__}, not a plain value or a tensor")


def _check_tensor(tensor: torch.Tensor, where: str) -> None:
    if tensor.layout != torch.strided or tensor.is_quantized or tensor.device.type != "cpu":
        raise FieldError(
            f"{where}: a {tensor.layout} tensor on {tensor.device}; only dense CPU ones"
        )
    if (tensor.is_floating_point() or tensor.is_complex()) and not torch.isfinite(tensor).all():
        raise FieldError(f"{where}: {show_value(tensor)} holding NaN or infinite values")


def _check_config(value: Any) -> Config:
    """Returns the checkpoint's config, checked like a config file (which bounds the network's
    shape, :data:`damas_agents.models.config.MAX_CHANNELS` and the like)."""
    if not isinstance(value, dict):
        raise FieldError(f"config: {show_value(value)}, not a mapping")
    try:
        config = config_from_dict(value)
    except (ValueError, TypeError) as error:  # ConfigError is a ValueError
        raise FieldError(f"config: not valid here: {first_line(error)}") from None
    return config


def _check_run(data: dict[str, Any], config: Config) -> None:
    """Checks the fields that describe the run against its config: algorithm, fingerprint (the
    config's own, so a file cannot say one network to --resume and build another in the arena)
    and iteration (an int from 0 to ``train.iterations``)."""
    algorithm = data["algorithm"]
    if not (isinstance(algorithm, str) and algorithm == config.algorithm):
        raise FieldError(
            f"algorithm: {show_value(algorithm)}, but its config has {config.algorithm!r}"
        )
    fingerprint = data["fingerprint"]
    sections = fingerprint.values() if _is_str_mapping(fingerprint) else [None]
    if not all(_is_str_mapping(s) for s in sections) or _holds_tensor(fingerprint):
        raise FieldError(f"fingerprint: {show_value(fingerprint)}, not sections of plain values")
    problems = fingerprint_mismatches(fingerprint, config.fingerprint())
    if problems:  # the arena builds from the config, --resume compares the fingerprint
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise FieldError(
            f"fingerprint disagrees with its own config: {first_line(problems[0])}{more}"
        )
    iteration, total = data["iteration"], config.train.iterations
    if not (is_int(iteration) and 0 <= iteration <= total):
        raise FieldError(
            f"iteration: {show_value(iteration)}, not an int from 0 to {total} (train.iterations)"
        )


def _is_str_mapping(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_tensor(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_tensor(v) for v in value)
    return isinstance(value, torch.Tensor)


def network_tensors(config: Config) -> dict[str, torch.Tensor]:
    """Returns the state dict of the config's network built on the meta device: names, shapes
    and dtypes without memory (only buffers computed from the board, the squares' cells, are
    real). The config's shape was bounded first, so building it is quick."""
    with torch.device("meta"):
        network = build_network(config)
    return network.state_dict()


def check_model(model: Any, expected: dict[str, torch.Tensor]) -> None:
    """Raises FieldError unless `model` holds the tensors of `expected` (a network's state dict):
    the same names, shapes and dtypes, and the same values for the integer buffers the network
    computes itself (BatchNorm's batch counters aside)."""
    if not isinstance(model, dict):
        raise FieldError(f"model: {show_value(model)}, not a state dict of tensors")
    missing = sorted(set(expected) - set(model))
    unexpected = [key for key in model if key not in expected]
    if missing or unexpected:
        raise FieldError(
            f"model: not the tensors of its config's network (missing {show_value(missing)}, "
            f"unexpected {show_value(unexpected)})"
        )
    for name, want in expected.items():
        value, where = model[name], f"model.{name}"
        fits = isinstance(value, torch.Tensor) and value.shape == want.shape
        if not (fits and value.dtype == want.dtype):
            raise FieldError(
                f"{where}: {show_value(value)}, where its network has {show_value(want)}"
            )
        counter = name.endswith("num_batches_tracked")  # BatchNorm's count of batches seen
        computed = not (want.is_meta or want.is_floating_point() or counter)
        if computed and not torch.equal(value, want.cpu()):
            raise FieldError(f"{where}: not the values its network computes for this board")
        check_magnitude(value, where, MAX_WEIGHT)


def check_magnitude(tensor: torch.Tensor, where: str, bound: float) -> None:
    """Raises FieldError if a float tensor holds a value beyond +-`bound`."""
    if tensor.is_floating_point() and tensor.numel():
        largest = float(tensor.abs().max())
        if largest > bound:
            raise FieldError(f"{where}: holds {largest:.3g}, beyond +-{bound:.0e}")


def _check_optimizer_form(value: Any) -> None:
    """Raises FieldError unless `value` is empty (a snapshot) or has the form of an optimiser's
    state dict: ``state`` maps parameter numbers to dicts, ``param_groups`` is a list of
    dicts, each listing its parameter numbers under ``params``."""
    if isinstance(value, dict) and not value:
        return
    if not (isinstance(value, dict) and set(value) == {"state", "param_groups"}):
        what = show_value(sorted(map(str, value))) if isinstance(value, dict) else show_value(value)
        raise FieldError(
            f"optimizer: {what}, not an optimiser state dict (keys 'state', 'param_groups')"
        )
    groups, state = value["param_groups"], value["state"]
    if not (isinstance(groups, list) and all(_is_group(g) for g in groups)):
        raise FieldError(
            "optimizer.param_groups: not a list of parameter groups, each a dict listing its "
            "parameter numbers under 'params'"
        )
    entries = state.items() if isinstance(state, dict) else [(None, None)]
    if not all(is_int(k) and isinstance(v, dict) for k, v in entries):
        raise FieldError("optimizer.state: not a mapping of parameter numbers to their state")


def _is_group(group: Any) -> bool:
    params = group.get("params") if isinstance(group, dict) else None
    return isinstance(params, list) and all(is_int(p) for p in params)


def _numpy_state(state: Any) -> dict[str, Any]:
    """Returns numpy's global generator state from its checkpoint form (key as a list)."""
    numpy_state = dict(state)
    inner = dict(numpy_state["state"])
    inner["key"] = np.array(inner["key"], dtype=np.uint32)
    return {**numpy_state, "state": inner}


def _python_state(state: Any) -> tuple[Any, ...]:
    """Returns Python's global generator state from its checkpoint form."""
    version, internal, gauss = state
    return version, tuple(internal), gauss


#: How each global random state of a checkpoint is tried on a fresh generator.
_RNG_TRIALS = {
    "torch": lambda state: torch.Generator().set_state(state),
    "numpy": lambda state: np.random.RandomState().set_state(_numpy_state(state)),
    "python": lambda state: random.Random().setstate(_python_state(state)),
}


def _check_rng(value: Any) -> None:
    """Raises FieldError unless `value` holds torch, numpy and Python random states that load
    (tried on fresh generators, so the global ones stay as they are)."""
    if not (isinstance(value, dict) and set(value) == set(_RNG_TRIALS)):
        raise FieldError(f"rng: {show_value(value)}, not the states of {', '.join(_RNG_TRIALS)}")
    for name, trial in _RNG_TRIALS.items():
        try:
            trial(value[name])
        except Exception as error:  # any failure of the setter means the state is bad
            raise FieldError(f"rng.{name}: not a random state ({first_line(error)})") from None


def set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(_numpy_state(state["numpy"]))
    random.setstate(_python_state(state["python"]))


#: Largest magnitude of a logged metric: far above any count, rate or time a run logs, and
#: far below where sums and plots of the learning curve overflow.
MAX_METRIC = 1e15


def _check_history(value: Any, iteration: int) -> None:
    """Raises FieldError unless `value` is the learning curve of a run at `iteration`: one
    mapping of metric names to finite numbers within :data:`MAX_METRIC` per logged
    iteration, each naming its ``iteration``, increasing, from 1 to `iteration`."""
    if not isinstance(value, list):
        raise FieldError(f"history: {show_value(value)}, not a list of metrics")
    for i, entry in enumerate(value):
        _check_metrics(entry, f"history[{i}]")
    if len(value) > iteration:
        iterations = f"{iteration} iteration{'' if iteration == 1 else 's'}"
        raise FieldError(
            f"history: {len(value):,} entries, more than its {iterations} (a run logs each "
            "iteration at most once)"
        )
    logged = 0
    for i, entry in enumerate(value):
        logged = _check_logged_iteration(entry.get("iteration"), f"history[{i}]", logged, iteration)


def _check_metrics(entry: Any, where: str) -> None:
    """Raises FieldError unless `entry` maps metric names to finite numbers within
    :data:`MAX_METRIC`."""
    metrics = entry.items() if isinstance(entry, dict) else [(None, None)]
    if not all(isinstance(k, str) and is_number(v) for k, v in metrics):
        raise FieldError(f"{where}: {show_value(entry)}, not metric names and numbers")
    for name, number in entry.items():
        if not is_finite(number):
            raise FieldError(f"{child_field(where, name)}: {show_value(number)}, not finite")
        if abs(number) > MAX_METRIC:
            raise FieldError(
                f"{child_field(where, name)}: {show_value(number)}, beyond +-{MAX_METRIC:.0e}"
            )


def _check_logged_iteration(logged: Any, where: str, previous: int, iteration: int) -> int:
    """Returns the iteration an entry of the history names, once it is a whole number after
    `previous` (the entry before's) and at most `iteration`."""
    if not (is_number(logged) and float(logged).is_integer() and previous < logged <= iteration):
        raise FieldError(
            f"{where}.iteration: {show_value(logged)}, not a whole number from {previous + 1} "
            f"to {iteration} (each logged iteration once, in order)"
        )
    return int(logged)


def load_network(
    checkpoint: dict[str, Any] | str | Path, device: str | torch.device = "cpu"
) -> tuple[torch.nn.Module, Config]:
    """Returns the trained network of a checkpoint (in eval mode) and the run's config: a
    :class:`DraughtsNet`, or an :class:`~damas_agents.models.evalnet.EvalNet` for ``nnue``.

    Raises:
        CheckpointError: the file is not a usable checkpoint (see :func:`read_checkpoint`).
    """
    data = checkpoint if isinstance(checkpoint, dict) else read_checkpoint(checkpoint)
    config: Config = data["config_obj"]
    network = build_network(config)
    try:  # read_checkpoint checked them against the meta network; this one is real
        check_model(data["model"], network.state_dict())
    except FieldError as error:
        raise CheckpointError(f"the checkpoint's weights do not fit its network: {error}") from None
    network.load_state_dict(data["model"])
    return network.to(device).eval(), config
