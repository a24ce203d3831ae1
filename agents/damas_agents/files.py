"""Files a run writes: atomic replacement, appended lines, the temporary files a kill leaves
behind, and the errors for a file that cannot be written or a checkpoint that cannot be used.

Torch-free on purpose: ``damas train`` writes ``config.yaml`` with it before torch is
imported, so the run directory is resumable within a second of the start.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = [
    "CheckpointError",
    "WriteError",
    "append_text",
    "remove_temporaries",
    "write_atomically",
]


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, unsafe, or does not fit the config or game."""


class WriteError(OSError):
    """A file could not be written (a full disk, a lost permission); the message names it.

    It keeps the error's number and the file's name (``errno``, ``filename``), and says what
    became of the file: left as it was by an atomic write, or a last line cut short.
    """

    def __init__(self, path: str | Path, error: OSError, outcome: str) -> None:
        reason = error.strerror or str(error) or type(error).__name__
        super().__init__(error.errno, reason, str(path))
        self.message = f"cannot write {path}: {reason} ({outcome})"

    def __str__(self) -> str:
        return self.message


def write_atomically(path: str | Path, data: bytes) -> None:
    """Writes `data` to `path` so that the file is either the old one or the new one.

    The bytes go to a temporary file ``.NAME.*.tmp`` in the same directory, are fsynced,
    and the temporary file is renamed over `path` (an atomic replace on POSIX and Windows).
    A kill part-way leaves the temporary file; :func:`remove_temporaries` deletes it.

    Raises:
        WriteError: the file could not be written (a full disk...); it is left as it was.
    """
    path = Path(path)
    try:
        _replace(path, data)
    except OSError as error:
        raise WriteError(path, error, "the file there is as it was") from error


def _replace(path: Path, data: bytes) -> None:
    """Writes `data` to a temporary file beside `path` and renames it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            if hasattr(os, "fchmod"):  # mkstemp makes 0600 files; give the usual permissions
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(fd, 0o666 & ~umask)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
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


def _write_all(fd: int, data: bytes) -> None:
    """Writes every byte of `data` to the file descriptor `fd` (os.write may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_text(path: str | Path, text: str) -> None:
    """Appends `text` (UTF-8) to the file at `path`, creating it if needed.

    Raises:
        WriteError: the text could not be written (a full disk...): the lines before it are
            kept, and a last line may be cut short (``--resume`` drops such a line).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            _write_all(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as error:
        raise WriteError(path, error, "the lines before are kept") from error


def remove_temporaries(folder: Path) -> None:
    """Deletes the ``.*.tmp`` files that writes cut short by a kill left in `folder`."""
    if folder.is_dir():
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
