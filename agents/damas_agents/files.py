"""Files a run writes: atomic replacement, the temporary files a kill leaves behind, and
the error for a checkpoint file that cannot be used.

Torch-free on purpose: ``damas train`` writes ``config.yaml`` with it before torch is
imported, so the run directory is resumable within a second of the start.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["CheckpointError", "remove_temporaries", "write_atomically"]


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, unsafe, or does not fit the config or game."""


def write_atomically(path: str | Path, data: bytes) -> None:
    """Writes `data` to `path` so that the file is either the old one or the new one.

    The bytes go to a temporary file ``.NAME.*.tmp`` in the same directory, are fsynced,
    and the temporary file is renamed over `path` (an atomic replace on POSIX and Windows).
    A kill part-way leaves the temporary file; :func:`remove_temporaries` deletes it.
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


def remove_temporaries(folder: Path) -> None:
    """Deletes the ``.*.tmp`` files that writes cut short by a kill left in `folder`."""
    if folder.is_dir():
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
