"""Checkpoints: written atomically, read with ``torch.load(weights_only=True)``, played in
the arena.

A checkpoint is one ``.pt`` file holding plain values and tensors only, so loading it runs
no code from the file (``weights_only=True`` refuses anything else)::

    format       "damas-env checkpoint"          what the file is
    version      1                               layout of this dict
    algorithm    "alphazero" | "ppo" | "nnue"
    config       the run's config (plain dict; training.config.config_from_dict reads it)
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

A checkpoint may come from someone else, so reading verifies it in full before anything is
built from it: its size (at most :data:`MAX_CHECKPOINT_BYTES`) and the records that end its
zip archive before the file is read whole, every zip record against its CRC, then every
field (types, ranges, finite tensors, weights within :data:`MAX_WEIGHT`, the weights against
the config's bounded network, built on the meta device). :func:`restore_trainer` also checks
the optimiser and the algorithm's state (replay buffers, opponent pool) against the
trainer's own and their bounds before loading any part, so a refused restore changes
nothing, and ``--resume`` changes nothing in the run before the restore succeeded.

    save_checkpoint(path, trainer, history)       # atomically
    checkpoint = read_checkpoint(path)           # verified; CheckpointError if not usable
    agent = load_agent("runs/x/checkpoints/latest.pt", sims=64)   # an arena agent
    # or from the command line:  damas arena checkpoint:runs/x/checkpoints/latest.pt greedy
"""

from __future__ import annotations

import copy
import io
import math
import os
import pickle
import random
import re
import struct
import zipfile
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

from damas_env.checks import shown

from ..files import CheckpointError, write_atomically
from ..players.alphabeta import INF as SCORE_BOUND
from ..players.classic import AlphaBetaAgent
from ..players.learned import NetworkAgent
from .config import (
    MAX_INT,
    MAX_LR,
    Config,
    config_from_dict,
    config_to_dict,
    fingerprint_mismatches,
)
from .evalnet import EvalNet
from .network import DraughtsNet, build_network
from .trainer import Trainer

__all__ = [
    "FORMAT",
    "MAX_CHECKPOINT_BYTES",
    "MAX_LR",
    "MAX_WEIGHT",
    "VERSION",
    "CheckpointError",
    "check_compatible",
    "load_agent",
    "load_network",
    "load_pretrained",
    "network_agent",
    "pretrained_path",
    "PRETRAINED",
    "read_checkpoint",
    "restore_trainer",
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

#: Deepest nesting of dicts, lists and tuples in a checkpoint (ours go 4 deep).
_MAX_DEPTH = 16
#: Plain values a checkpoint may hold besides containers and tensors.
_LEAVES = (type(None), bool, int, float, str)
_GLOBAL = re.compile(r"GLOBAL ([A-Za-z0-9_.]{1,200})")  # the weights-only unpickler's refusal
#: Largest magnitude of a network's weight (a trained network's stay within a few hundred;
#: 1e38 overflows float32 at the first layer). Optimiser moments, which are squared
#: gradients, are bounded by its square.
MAX_WEIGHT = 1e6


class _FieldError(ValueError):
    """A checkpoint field that fails a check; the message starts with the field's name."""


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Returns a checkpoint's contents, verified in full before anything is built from them.

    The file's size and the records that end its zip archive (in its last 64 KiB) are checked
    before it is read whole; then every record of the archive is read back against its CRC
    before the pickle is loaded with ``weights_only=True``. Then every field is checked: its
    type and range, finite tensors everywhere (weights and optimiser state included), finite
    metrics, weights within :data:`MAX_WEIGHT`, a learning rate within :data:`MAX_LR`, random
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
    except _FieldError as error:
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
    if offset + directory != end:
        return "its archive's central directory is not where its end record says"
    file.seek(offset)
    if entries and file.read(len(_DIRECTORY_ENTRY)) != _DIRECTORY_ENTRY:
        return "its archive's central directory is not where its end record says"
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
            f"{path}: not a readable checkpoint (corrupt or truncated?): {_first_line(error)}"
        ) from error


def _zip_problem(raw: bytes) -> str | None:
    """Returns what is wrong with a checkpoint's zip archive, or None if every record is stored
    as torch.save stores them (uncompressed, so reading cannot blow up) and matches its CRC.

    torch's own reader does not check every CRC, so each record is read through here first.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except Exception as error:  # zipfile raises several kinds for bytes that are no archive
        return f"not a zip archive as torch.save writes ({_first_line(error)})"
    with archive:
        for info in archive.infolist():
            name = _show(info.filename)
            if info.compress_type != zipfile.ZIP_STORED:
                return f"record {name} is compressed, which torch.save never does"
            try:
                with archive.open(info) as record:
                    while record.read(1 << 20):
                        pass
            except Exception as error:  # a damaged record fails anywhere in the zip reader
                return f"record {name} is damaged ({_first_line(error)})"
    return None


def _named_global(error: BaseException) -> str:
    """Returns `` (it names module.attr)`` for the global the weights-only unpickler refused,
    or nothing: torch's own text (advice to load the file unsafely) is never quoted."""
    found = _GLOBAL.search(str(error))
    return f" (it names {shown(found.group(1))})" if found else ""


def _first_line(error: BaseException | str) -> str:
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else type(error).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _show(value: Any) -> str:
    """Returns a short description of a value read from a file (a long one is cut)."""
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        article = "an" if dtype.startswith("i") else "a"  # an int8, a float32, a uint8
        return f"{article} {dtype} tensor of shape {tuple(value.shape)}"
    return shown(value)


def _child(where: str, key: Any) -> str:
    """Returns the name of item `key` of the field named `where`."""
    if isinstance(key, str):
        return f"{where}.{key if len(key) <= 60 else key[:57] + '...'}"
    return f"{where}[{_show(key)}]"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_finite(number: float) -> bool:
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
    _check_model(data["model"], _network_tensors(config))
    _check_optimizer_form(data["optimizer"])
    if not isinstance(data["trainer"], dict):
        raise _FieldError(f"trainer: {_show(data['trainer'])}, not a mapping (empty in snapshots)")
    _check_rng(data["rng"])
    _check_history(data["history"])
    return config


def _check_header(data: Any) -> None:
    """Checks the format marker, the version and the set of fields."""
    marker = data.get("format") if isinstance(data, dict) else None
    if not (isinstance(marker, str) and marker == FORMAT):
        raise _FieldError(f"not a damas-env checkpoint (no {FORMAT!r} marker)")
    version = data.get("version")
    if not (_is_int(version) and version == VERSION):
        raise _FieldError(f"checkpoint version {_show(version)}; this damas-env reads {VERSION}")
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise _FieldError(f"checkpoint lacks {', '.join(missing)}")
    unknown = [key for key in data if key not in (*_KEYS, "format", "version")]
    if unknown:
        raise _FieldError(f"unknown field(s) {_show(unknown)}")


def _check_tree(value: Any, where: str, left: list[int], depth: int = 0) -> None:
    """Raises _FieldError unless `value` holds only plain values, dicts (keyed by str or int),
    lists, tuples and finite dense tensors, at most _MAX_DEPTH deep, and no more of them than
    the file has bytes (pickle can refer to one object many times: a small file must not
    stand for a huge tree)."""
    left[0] -= 1 + (value.numel() * value.element_size() if isinstance(value, torch.Tensor) else 0)
    if left[0] < 0:
        raise _FieldError(
            f"{where}: refers to the same values over and over (more than the file holds)"
        )
    if isinstance(value, torch.Tensor):
        _check_tensor(value, where)
    elif isinstance(value, dict | list | tuple):
        if depth >= _MAX_DEPTH:
            raise _FieldError(f"{where}: nested more than {_MAX_DEPTH} deep")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if not (isinstance(key, str) or _is_int(key)):
                raise _FieldError(f"{where}: a key {_show(key)}, not a str or an int")
            _check_tree(item, _child(where, key), left, depth + 1)
    elif not isinstance(value, _LEAVES):
        raise _FieldError(f"{where}: a {type(value).__name__}, not a plain value or a tensor")


def _check_tensor(tensor: torch.Tensor, where: str) -> None:
    if tensor.layout != torch.strided or tensor.is_quantized or tensor.device.type != "cpu":
        raise _FieldError(
            f"{where}: a {tensor.layout} tensor on {tensor.device}; only dense CPU ones"
        )
    if (tensor.is_floating_point() or tensor.is_complex()) and not torch.isfinite(tensor).all():
        raise _FieldError(f"{where}: {_show(tensor)} holding NaN or infinite values")


def _check_config(value: Any) -> Config:
    """Returns the checkpoint's config, checked like a config file (which bounds the network's
    shape, :data:`damas_agents.training.config.MAX_CHANNELS` and the like)."""
    if not isinstance(value, dict):
        raise _FieldError(f"config: {_show(value)}, not a mapping")
    try:
        config = config_from_dict(value)
    except (ValueError, TypeError) as error:  # ConfigError is a ValueError
        raise _FieldError(f"config: not valid here: {_first_line(error)}") from None
    return config


def _check_run(data: dict[str, Any], config: Config) -> None:
    """Checks the fields that describe the run against its config: algorithm, fingerprint (the
    config's own, so a file cannot say one network to --resume and build another in the arena)
    and iteration (an int from 0 to ``train.iterations``)."""
    algorithm = data["algorithm"]
    if not (isinstance(algorithm, str) and algorithm == config.algorithm):
        raise _FieldError(f"algorithm: {_show(algorithm)}, but its config has {config.algorithm!r}")
    fingerprint = data["fingerprint"]
    sections = fingerprint.values() if _is_str_mapping(fingerprint) else [None]
    if not all(_is_str_mapping(s) for s in sections) or _holds_tensor(fingerprint):
        raise _FieldError(f"fingerprint: {_show(fingerprint)}, not sections of plain values")
    problems = fingerprint_mismatches(fingerprint, config.fingerprint())
    if problems:  # the arena builds from the config, --resume compares the fingerprint
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise _FieldError(
            f"fingerprint disagrees with its own config: {_first_line(problems[0])}{more}"
        )
    iteration, total = data["iteration"], config.train.iterations
    if not (_is_int(iteration) and 0 <= iteration <= total):
        raise _FieldError(
            f"iteration: {_show(iteration)}, not an int from 0 to {total} (train.iterations)"
        )


def _is_str_mapping(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_tensor(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_tensor(v) for v in value)
    return isinstance(value, torch.Tensor)


def _network_tensors(config: Config) -> dict[str, torch.Tensor]:
    """Returns the state dict of the config's network built on the meta device: names, shapes
    and dtypes without memory (only buffers computed from the board, the squares' cells, are
    real). The config's shape was bounded first, so building it is quick."""
    with torch.device("meta"):
        network = build_network(config)
    return network.state_dict()


def _check_model(model: Any, expected: dict[str, torch.Tensor]) -> None:
    """Raises _FieldError unless `model` holds the tensors of `expected` (a network's state dict):
    the same names, shapes and dtypes, and the same values for the integer buffers the network
    computes itself (BatchNorm's batch counters aside)."""
    if not isinstance(model, dict):
        raise _FieldError(f"model: {_show(model)}, not a state dict of tensors")
    missing = sorted(set(expected) - set(model))
    unexpected = [key for key in model if key not in expected]
    if missing or unexpected:
        raise _FieldError(
            f"model: not the tensors of its config's network (missing {_show(missing)}, "
            f"unexpected {_show(unexpected)})"
        )
    for name, want in expected.items():
        value, where = model[name], f"model.{name}"
        fits = isinstance(value, torch.Tensor) and value.shape == want.shape
        if not (fits and value.dtype == want.dtype):
            raise _FieldError(f"{where}: {_show(value)}, where its network has {_show(want)}")
        counter = name.endswith("num_batches_tracked")  # BatchNorm's count of batches seen
        computed = not (want.is_meta or want.is_floating_point() or counter)
        if computed and not torch.equal(value, want.cpu()):
            raise _FieldError(f"{where}: not the values its network computes for this board")
        _check_magnitude(value, where, MAX_WEIGHT)


def _check_magnitude(tensor: torch.Tensor, where: str, bound: float) -> None:
    """Raises _FieldError if a float tensor holds a value beyond +-`bound`."""
    if tensor.is_floating_point() and tensor.numel():
        largest = float(tensor.abs().max())
        if largest > bound:
            raise _FieldError(f"{where}: holds {largest:.3g}, beyond +-{bound:.0e}")


def _check_optimizer_form(value: Any) -> None:
    """Raises _FieldError unless `value` is empty (a snapshot) or has the form of an optimiser's
    state dict: ``state`` maps parameter numbers to dicts, ``param_groups`` is a list of
    dicts, each listing its parameter numbers under ``params``."""
    if isinstance(value, dict) and not value:
        return
    if not (isinstance(value, dict) and set(value) == {"state", "param_groups"}):
        what = _show(sorted(map(str, value))) if isinstance(value, dict) else _show(value)
        raise _FieldError(
            f"optimizer: {what}, not an optimiser state dict (keys 'state', 'param_groups')"
        )
    groups, state = value["param_groups"], value["state"]
    if not (isinstance(groups, list) and all(_is_group(g) for g in groups)):
        raise _FieldError(
            "optimizer.param_groups: not a list of parameter groups, each a dict listing its "
            "parameter numbers under 'params'"
        )
    entries = state.items() if isinstance(state, dict) else [(None, None)]
    if not all(_is_int(k) and isinstance(v, dict) for k, v in entries):
        raise _FieldError("optimizer.state: not a mapping of parameter numbers to their state")


def _is_group(group: Any) -> bool:
    params = group.get("params") if isinstance(group, dict) else None
    return isinstance(params, list) and all(_is_int(p) for p in params)


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
    """Raises _FieldError unless `value` holds torch, numpy and Python random states that load
    (tried on fresh generators, so the global ones stay as they are)."""
    if not (isinstance(value, dict) and set(value) == set(_RNG_TRIALS)):
        raise _FieldError(f"rng: {_show(value)}, not the states of {', '.join(_RNG_TRIALS)}")
    for name, trial in _RNG_TRIALS.items():
        try:
            trial(value[name])
        except Exception as error:  # any failure of the setter means the state is bad
            raise _FieldError(f"rng.{name}: not a random state ({_first_line(error)})") from None


def _set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(_numpy_state(state["numpy"]))
    random.setstate(_python_state(state["python"]))


def _check_history(value: Any) -> None:
    if not isinstance(value, list):
        raise _FieldError(f"history: {_show(value)}, not a list of metrics")
    for i, entry in enumerate(value):
        metrics = entry.items() if isinstance(entry, dict) else [(None, None)]
        if not all(isinstance(k, str) and _is_number(v) for k, v in metrics):
            raise _FieldError(f"history[{i}]: {_show(entry)}, not metric names and numbers")
        for name, number in entry.items():
            if not _is_finite(number):
                raise _FieldError(f"{_child(f'history[{i}]', name)}: {_show(number)}, not finite")


# --- The algorithms' own state --------------------------------------------------------------


def _check_trainer_state(value: Any, config: Config, network: dict[str, torch.Tensor]) -> None:
    """Raises _FieldError unless `value`, the algorithm's extra state, holds what the algorithm
    writes for a trainer of `config` whose network's state dict is `network`, within its
    bounds (one check per algorithm): replay rows of one length, legal piece codes and sides,
    targets in their range, ring counters in the buffer, opponent snapshots shaped as the
    network."""
    _TRAINER_CHECKS[config.algorithm](value, config, network)


def _check_keys(value: Any, keys: set[str], where: str) -> dict[str, Any]:
    if not (isinstance(value, dict) and set(value) == keys):
        what = _show(sorted(map(str, value))) if isinstance(value, dict) else _show(value)
        raise _FieldError(f"{where}: {what}, not a mapping with keys {sorted(keys)}")
    return value


def _check_count(value: Any, where: str, low: int, high: int) -> int:
    if not (_is_int(value) and low <= value <= high):
        raise _FieldError(f"{where}: {_show(value)}, not an int from {low} to {high}")
    return int(value)


def _check_rows(
    value: Any, where: str, rows: int, dtype: torch.dtype, low: float, high: float
) -> None:
    """Raises _FieldError unless `value` is a `dtype` tensor of `rows` rows, every value in
    [low, high]."""
    if not (isinstance(value, torch.Tensor) and value.dtype == dtype and value.dim() >= 1):
        raise _FieldError(f"{where}: {_show(value)}, not rows of {str(dtype)[6:]}")
    if value.shape[0] != rows:
        raise _FieldError(f"{where}: {value.shape[0]} rows, where the buffer holds {rows}")
    if value.numel() and not bool(((value >= low) & (value <= high)).all()):
        raise _FieldError(f"{where}: holds values outside [{low}, {high}]")


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
    if not (isinstance(ids, list) and len(ids) <= size and all(_is_int(i) for i in ids)):
        raise _FieldError(f"trainer.pool.ids: {_show(ids)}, not a list of at most {size} ids")
    if ids != sorted(set(ids)) or not all(0 <= i < next_id for i in ids):
        raise _FieldError(f"trainer.pool.ids: {_show(ids)}, not increasing ids below {next_id}")
    if not (isinstance(weights, list) and len(weights) == len(ids)):
        raise _FieldError(f"trainer.pool.weights: {_show(weights)}, not one per id")
    for i, snapshot in enumerate(weights):
        try:
            _check_model(snapshot, network)
        except _FieldError as error:
            raise _FieldError(f"trainer.pool.weights[{i}]: {error}") from None


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
        raise _FieldError(f"trainer.cursor: {cursor}, not the next free row ({filled})")
    _check_rows(state["boards"], "trainer.boards", filled, torch.int8, -2, 2)
    squares = config.env.ruleset().squares
    if state["boards"].shape[1:] != (squares,):
        raise _FieldError(f"trainer.boards: {_show(state['boards'])}, not boards of {squares}")
    _check_rows(state["sides"], "trainer.sides", filled, torch.int8, 0, 1)
    _check_rows(state["scores"], "trainer.scores", filled, torch.int32, -SCORE_BOUND, SCORE_BOUND)
    _check_rows(state["results"], "trainer.results", filled, torch.float32, 0, 1)


#: The check of each algorithm's extra state (see :func:`_check_trainer_state`).
_TRAINER_CHECKS: dict[str, Callable[[Any, Config, dict[str, torch.Tensor]], None]] = {
    "alphazero": _check_alphazero_state,
    "ppo": _check_ppo_state,
    "nnue": _check_nnue_state,
}


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
    tensors, the optimiser's groups and per-parameter state (settings and moments within
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
        _check_model(checkpoint["model"], own_network)
        _check_optimizer(checkpoint["optimizer"], trainer.optimizer)
        _check_trainer_state(checkpoint["trainer"], trainer.config, own_network)
        _check_like(checkpoint["trainer"], own_extra, "trainer")
    except _FieldError as error:
        raise CheckpointError(f"{path}: cannot restore the trainer: {error}") from None
    _load_parts(trainer, checkpoint, own_extra, path)
    trainer.iteration = checkpoint["iteration"]
    _set_rng_state(checkpoint["rng"])


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
        raise CheckpointError(
            f"{path}: cannot restore the trainer: {_first_line(error)}"
        ) from error


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
    "lr": lambda x: x <= MAX_LR,
    "weight_decay": lambda x: x <= MAX_LR,
}
#: Per-parameter optimiser state that is never negative: step counts, and second moments
#: (Adam takes their square root).
_NON_NEGATIVE_STATE = frozenset({"step", "exp_avg_sq", "max_exp_avg_sq"})


def _check_optimizer(saved: dict[str, Any], optimizer: torch.optim.Optimizer) -> None:
    """Raises _FieldError unless `saved` fits `optimizer`: groups over the same parameters with
    settings of the same kinds, and per-parameter state like the state one step with those
    settings makes (see :func:`_check_param_state`)."""
    if not saved:
        raise _FieldError(
            "optimizer: empty: a snapshot to play, not a checkpoint to resume "
            "(resume from checkpoints/latest.pt)"
        )
    own = optimizer.state_dict()["param_groups"]
    groups, state = saved["param_groups"], saved["state"]
    if len(groups) != len(own):
        raise _FieldError(
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
        raise _FieldError(
            f"optimizer.state: parameter numbers {_show(unknown)} are not the trainer's"
        )


def _check_group(group: dict[str, Any], own: dict[str, Any], where: str) -> None:
    if set(group) != set(own):
        raise _FieldError(f"{where}: keys {_show(sorted(map(str, group)))}, not {sorted(own)}")
    if group["params"] != own["params"]:
        raise _FieldError(f"{where}.params: {_show(group['params'])}, not {_show(own['params'])}")
    for key, mine in own.items():
        if key != "params":
            _check_setting(group[key], mine, f"{where}.{key}", _SETTING_RANGES.get(key))


def _check_setting(
    value: Any, own: Any, where: str, in_range: Callable[[float], bool] | None = None
) -> None:
    """Raises _FieldError unless an optimiser setting is of the kind of the trainer's own: a
    bool for a bool, a bool or None for None, a finite number >= 0 (and `in_range`) for a
    number, a sequence of such settings for a sequence."""
    if isinstance(own, list | tuple) and isinstance(value, list | tuple) and len(value) == len(own):
        for i, (item, mine) in enumerate(zip(value, own, strict=True)):
            _check_setting(item, mine, f"{where}[{i}]", in_range)
        return
    if own is None or isinstance(own, bool):
        ok = isinstance(value, bool) or (own is None and value is None)
    elif _is_number(own):
        ok = _is_number(value) and _is_finite(value) and value >= 0
        ok = ok and (in_range is None or in_range(value))
    else:
        ok = isinstance(own, str) and isinstance(value, str)
    if not ok:
        raise _FieldError(f"{where}: {_show(value)}, not a setting like {_show(own)}")


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
        raise _FieldError(f"{where}: its settings cannot step ({_first_line(error)})") from None
    return dict(trial.state[param])


def _check_param_state(
    entry: dict[Any, Any], shape: torch.Size, template: dict[str, Any], where: str
) -> None:
    """Raises _FieldError unless a parameter's optimiser state has the keys of `template`, each a
    float tensor of the parameter's shape (a scalar one where the template's is, such as the
    step count), a finite number or None where the template has those; step counts and
    second moments are >= 0."""
    if set(entry) != set(template):
        raise _FieldError(f"{where}: keys {_show(sorted(map(str, entry)))}, not {sorted(template)}")
    for name, mine in template.items():
        value, at = entry[name], _child(where, name)
        if isinstance(mine, torch.Tensor):
            want = shape if mine.dim() else mine.shape
            ok = (
                isinstance(value, torch.Tensor)
                and value.is_floating_point()
                and value.shape == want
            )
        else:
            ok = value is None if mine is None else _is_number(value) and _is_finite(value)
        if not ok:
            raise _FieldError(f"{at}: {_show(value)}, for a parameter of shape {tuple(shape)}")
        if name in _NON_NEGATIVE_STATE and not bool((torch.as_tensor(value) >= 0).all()):
            raise _FieldError(f"{at}: negative")
        if isinstance(value, torch.Tensor) and name != "step":
            _check_magnitude(value, at, MAX_WEIGHT**2)


def _check_like(value: Any, own: Any, where: str) -> None:
    """Raises _FieldError unless `value` has the form of `own`, the trainer's own extra state: the
    same keys, leaves of the same types, tensors of the same dtype and row shape (buffers fill
    up), list items like the first of its own list, numpy generator states that load."""
    if isinstance(own, dict):
        if not (isinstance(value, dict) and set(value) == set(own)):
            what = _show(sorted(map(str, value))) if isinstance(value, dict) else _show(value)
            raise _FieldError(f"{where}: {what}, not a mapping with keys {sorted(own)}")
        if "bit_generator" in own:
            _check_bit_generator(value, own["bit_generator"], where)
            return
        for key, item in own.items():
            _check_like(value[key], item, _child(where, key))
    elif isinstance(own, list | tuple):
        if not isinstance(value, list | tuple):
            raise _FieldError(f"{where}: {_show(value)}, not a list")
        for i, item in enumerate(value if own else ()):
            _check_like(item, own[0], f"{where}[{i}]")
    elif not _same_kind(value, own):
        raise _FieldError(f"{where}: {_show(value)}, not like {_show(own)}")


def _same_kind(value: Any, own: Any) -> bool:
    if isinstance(own, torch.Tensor):
        return (
            isinstance(value, torch.Tensor)
            and value.dtype == own.dtype
            and value.dim() == own.dim()
            and value.shape[1:] == own.shape[1:]
        )
    if _is_number(own) and not _is_int(own):
        return _is_number(value)
    return type(value) is type(own)


def _check_bit_generator(value: dict[str, Any], kind: str, where: str) -> None:
    """Raises _FieldError unless `value` loads into a fresh numpy bit generator of `kind` (the
    name in the trainer's own state, never one from the file)."""
    try:
        getattr(np.random, kind)().state = value
    except Exception as error:  # any failure of the setter means the state is bad
        raise _FieldError(f"{where}: not a {kind} generator state ({_first_line(error)})") from None


def load_network(
    checkpoint: dict[str, Any] | str | Path, device: str | torch.device = "cpu"
) -> tuple[torch.nn.Module, Config]:
    """Returns the trained network of a checkpoint (in eval mode) and the run's config: a
    :class:`DraughtsNet`, or an :class:`~damas_agents.training.evalnet.EvalNet` for ``nnue``.

    Raises:
        CheckpointError: the file is not a usable checkpoint (see :func:`read_checkpoint`).
    """
    data = checkpoint if isinstance(checkpoint, dict) else read_checkpoint(checkpoint)
    config: Config = data["config_obj"]
    network = build_network(config)
    try:  # read_checkpoint checked them against the meta network; this one is real
        _check_model(data["model"], network.state_dict())
    except _FieldError as error:
        raise CheckpointError(f"the checkpoint's weights do not fit its network: {error}") from None
    network.load_state_dict(data["model"])
    return network.to(device).eval(), config


# --- Playing --------------------------------------------------------------------------------


def load_agent(
    path: str | Path,
    seed: int | None = None,
    sims: int = 0,
    name: str | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    time: float | None = None,
) -> NetworkAgent | AlphaBetaAgent:
    """Returns an arena agent playing a checkpoint's network
    (``checkpoint:PATH[,sims=N|depth=N|nodes=N|time=S]``; see :func:`network_agent`).

    Raises:
        CheckpointError: the file is not a usable checkpoint.
        ValueError: an option the checkpoint's algorithm does not take.
    """
    data = read_checkpoint(path)
    network, config = load_network(data)
    options = {"sims": sims, "depth": depth, "nodes": nodes, "time": time}
    given = ",".join(f"{k}={v}" for k, v in options.items() if v)
    label = name or f"checkpoint:{Path(path).name}" + (f",{given}" if given else "")
    return network_agent(network, config, seed, label, sims, depth, nodes, time)


#: The agents shipped in the package, by name: their file in ``agents/pretrained/`` (snapshots
#: of the runs the README gives the commands of).
PRETRAINED = {"english": "english.pt", "international": "international.pt"}


def pretrained_path(name: str) -> Path:
    """Returns the file of a shipped agent.

    Raises:
        ValueError: `name` is not one of :data:`PRETRAINED` (a name, never a path).
    """
    if name not in PRETRAINED:
        raise ValueError(
            f"no pretrained agent {shown(name)}; the package has: {', '.join(PRETRAINED)}"
        )
    return Path(str(resources.files("damas_agents") / "pretrained" / PRETRAINED[name]))


def load_pretrained(
    name: str,
    seed: int | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    time: float | None = None,
) -> NetworkAgent | AlphaBetaAgent:
    """Returns a shipped agent (``pretrained:english[,depth=N|nodes=N|time=S]``): the
    alpha-beta search with its learned evaluation, by default to the depth it was shipped
    to play at. Reads only the package's own file: no network access.

    Raises:
        ValueError: no such pretrained agent.
        CheckpointError: the package's file is missing or damaged (reinstall the package).
    """
    options = {"depth": depth, "nodes": nodes, "time": time}
    given = ",".join(f"{k}={v}" for k, v in options.items() if v)
    label = f"pretrained:{name}" + (f",{given}" if given else "")
    return load_agent(pretrained_path(name), seed, 0, label, depth, nodes, time)


def network_agent(
    network: torch.nn.Module,
    config: Config,
    seed: int | None = None,
    name: str | None = None,
    sims: int = 0,
    depth: int | None = None,
    nodes: int | None = None,
    time: float | None = None,
) -> NetworkAgent | AlphaBetaAgent:
    """Returns the agent that plays a trained network.

    A policy-value network (AlphaZero, PPO) plays its policy, or ``sims`` PUCT simulations
    per hop. A learned evaluation (``nnue``) plays the alpha-beta search with it, limited by
    ``depth``, ``nodes`` and/or ``time`` (default: the config's ``nnue.play_depth``).

    Raises:
        ValueError: an option the network's algorithm does not take.
    """
    rules = config.env.ruleset()
    if isinstance(network, EvalNet):
        if sims:
            raise ValueError(
                "sims= is for policy networks; an nnue checkpoint takes depth=, nodes= or time="
            )
        if depth is None and nodes is None and time is None:
            depth = config.nnue.play_depth
        return AlphaBetaAgent(
            depth, nodes, time, seed=seed, weights=network.weights(), rules=rules, name=name
        )
    if depth is not None or nodes is not None or time is not None:
        raise ValueError(
            f"depth=, nodes= and time= are for nnue checkpoints; this one is "
            f"{config.algorithm} (it takes sims=N)"
        )
    assert isinstance(network, DraughtsNet)
    return NetworkAgent(
        network, rules, sims, c_puct=config.mcts.c_puct, seed=seed, name=name or config.name
    )
