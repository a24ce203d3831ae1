"""Module docstrings say what a module is for and how to use it, in a few lines.

Every module of ``damas_env`` and ``damas_agents`` (and the ``configs`` package) has one. The
measure is the number of lines of the raw docstring (``ast.get_docstring(clean=False)``,
blank lines included): at most 12 on average over the modules, at most 25 in any one.
History (issue numbers, revision hashes) belongs in the changelog, never in a docstring.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import HISTORY

ROOT = Path(__file__).parent.parent
MODULES = sorted(
    path
    for folder in ("damas_env", "agents/damas_agents", "configs")
    for path in (ROOT / folder).rglob("*.py")
)
MAX_MEAN_LINES = 12
MAX_LINES = 25


def _docstring(path: Path) -> str | None:
    """Returns the module docstring of a file, unchanged (indentation and blank lines kept)."""
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)


def _lines(path: Path) -> int:
    """Returns the number of lines of a module's docstring (0 without one)."""
    return len((_docstring(path) or "").splitlines())


def _name(path: Path) -> str:
    """Returns a module's path from the repository root, for test ids and messages."""
    return path.relative_to(ROOT).as_posix()


def test_modules_found() -> None:
    names = {_name(path) for path in MODULES}
    assert {"damas_env/__init__.py", "agents/damas_agents/__init__.py"} <= names
    assert len(MODULES) >= 50


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_module_has_a_docstring(path: Path) -> None:
    assert (_docstring(path) or "").strip(), f"{_name(path)} has no module docstring"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_module_docstring_is_short(path: Path) -> None:
    assert _lines(path) <= MAX_LINES, f"{_name(path)}: {_lines(path)} lines (at most {MAX_LINES})"


def test_module_docstrings_are_short_on_average() -> None:
    mean = sum(_lines(path) for path in MODULES) / len(MODULES)
    assert mean <= MAX_MEAN_LINES, f"module docstrings average {mean:.1f} lines"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_module_docstring_has_no_history_references(path: Path) -> None:
    found = HISTORY.findall(_docstring(path) or "")
    assert not found, f"{_name(path)} mentions {found} (history goes in CHANGELOG.md)"


@pytest.mark.parametrize(
    "text", ["see issue 12", "fixed in #3", "from commit 0aa055bc", "rev 3f2a9c1d0b"]
)
def test_history_references_are_caught(text: str) -> None:
    assert HISTORY.search(text)


@pytest.mark.parametrize(
    "text", ["1 to 100000 games", "MAX_NODES 10**9", "the defaced board", "seed 2**32 - 1"]
)
def test_plain_text_is_not_a_history_reference(text: str) -> None:
    assert not HISTORY.search(text)
