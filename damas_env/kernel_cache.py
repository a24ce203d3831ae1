"""numba's on-disk cache of compiled kernels, kept in step with every source a kernel uses.

numba stores a kernel's machine code with a stamp of its own module's source and reuses it
while that one file is unchanged. A kernel's code also holds what it inlined from other
modules (other kernels, the move row's columns, the rules array's fields), so after a change
to one of those, such as a ``git pull`` in an editable install, it would run the old
version beside the new one. Here every kernel's stamp also covers the source of each module
that kernels are drawn from: the package's own (``register``) and, for a package built on
another, the one below. Any change to one of them recompiles every kernel that could have
used it, once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from numba.core import caching

__all__ = ["register", "sources_stamp"]

#: The registered source trees, in registration order: (root folder, its kernel sources).
_TREES: list[tuple[Path, tuple[Path, ...]]] = []
_STAMPS: dict[Path, bytes] = {}


def register(root: Path, sources: Iterable[Path]) -> None:
    """Makes the cached kernels of the modules under `root` depend on `sources` (the
    modules under it that hold kernels or values kernels read) and on every tree registered
    before it. A package registers itself when it is imported, after the packages it
    builds on, so the order is the same in every process."""
    root = root.resolve()
    if any(known == root for known, _ in _TREES):
        return
    _TREES.append((root, tuple(sorted(p.resolve() for p in sources))))
    _STAMPS.clear()


def sources_stamp(py_file: str | Path) -> bytes | None:
    """Returns the digest of the sources a kernel in `py_file` may have compiled in: its tree's
    and those of the trees registered before it (None: the file is in no registered tree).
    Computed once a process: the sources do not change under a running program."""
    path = Path(py_file).resolve()
    for i, (root, _) in enumerate(_TREES):
        if path.is_relative_to(root):
            if root not in _STAMPS:
                digest = hashlib.sha256()
                for _, files in _TREES[: i + 1]:
                    for file in files:
                        digest.update(str(file.name).encode())
                        digest.update(file.read_bytes())
                _STAMPS[root] = digest.digest()
            return _STAMPS[root]
    return None


class _SourcesLocator(caching._CacheLocator):
    """The locator numba would use for a kernel (same folder, same files), with a stamp
    that also covers the kernel sources of its tree (:func:`sources_stamp`)."""

    def __init__(self, inner: Any, stamp: bytes) -> None:
        self._inner = inner
        self._stamp = stamp

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return str(self._inner.get_cache_path())

    def get_source_stamp(self) -> Any:
        return (self._inner.get_source_stamp(), self._stamp)

    def get_disambiguator(self) -> str:
        return str(self._inner.get_disambiguator())

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        stamp = sources_stamp(py_file)
        if stamp is None:
            return None
        others: list[Any] = caching.CacheImpl._locator_classes
        for other in others:
            if other is not cls:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, stamp)
        return None


def _install() -> None:
    """Puts the locator first in numba's list (once)."""
    classes = caching.CacheImpl._locator_classes
    if _SourcesLocator not in classes:
        classes.insert(0, _SourcesLocator)


_install()
register(Path(__file__).parent, Path(__file__).parent.glob("*.py"))
