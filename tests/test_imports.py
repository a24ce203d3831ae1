"""Modules import one another one way: no circle in either package, not even through a lazy
import; and the import-linter contracts of ``pyproject.toml`` hold (the library never imports
the application; the application's layers import only downwards), and break on a planted
import.

Every ``import`` statement counts, wherever it stands: at the top, inside a function, or under
``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import damas_agents
import damas_env

PACKAGE = Path(damas_env.__file__).parent
APPLICATION = Path(damas_agents.__file__).parent
ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path, package: Path) -> str:
    """Returns the dotted name of a module file of a package."""
    return ".".join(path.relative_to(package.parent).with_suffix("").parts)


def imported(path: Path, name: str, known: set[str]) -> set[str]:
    """Returns the package modules a module's import statements name (submodules included)."""
    package = name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m in known and m != name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Returns each module of a package with the package's modules it imports.

    Packages (``__init__``) are left out: Python imports a package before its modules, and
    a package's ``__init__`` importing its own modules makes no circle of its own.
    """
    files = package.rglob("*.py")
    paths = {module_name(p, package): p for p in files if p.name != "__init__.py"}
    known = set(paths)
    return {name: imported(path, name, known) for name, path in paths.items()}


def test_the_graph_sees_the_modules_and_their_imports() -> None:
    graph = import_graph()
    assert {"damas_env.engine", "damas_env.notation", "damas_env.render"} <= set(graph)
    assert "damas_env.moves" in graph["damas_env.notation"]
    assert "damas_env.notation" in graph["damas_env.engine"]


def test_no_module_imports_itself_through_others() -> None:
    try:
        order = list(TopologicalSorter(import_graph()).static_order())
    except CycleError as e:
        raise AssertionError(f"import circle: {' -> '.join(e.args[1])}") from None
    assert order.index("damas_env.moves") < order.index("damas_env.notation")
    assert order.index("damas_env.notation") < order.index("damas_env.render")
    assert order.index("damas_env.render") < order.index("damas_env.engine")


def test_no_application_module_imports_itself_through_others() -> None:
    graph = import_graph(APPLICATION)
    assert "damas_agents.models.checkpoint" in graph["damas_agents.players.load"]
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        raise AssertionError(f"import circle: {' -> '.join(e.args[1])}") from None
    assert order.index("damas_agents.models.checkpoint") < order.index("damas_agents.players.load")


# --- The import-linter contracts (pyproject.toml), which CI runs as ``lint-imports`` --------


def _lint_imports(folder: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Runs ``lint-imports`` on this checkout's contracts, with `folder` first on the path
    (where a test may put a changed copy of damas_env)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import sys, importlinter.cli as c; sys.exit(c.lint_imports_command())"
    config = str(ROOT / "pyproject.toml")
    argv = [sys.executable, "-c", code, "--config", config]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_the_import_contracts_hold() -> None:
    pytest.importorskip("importlinter")
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_an_import_of_the_application_from_the_library_breaks_a_contract(tmp_path: Path) -> None:
    """A copy of the library with one planted upward import, found first on the path."""
    pytest.importorskip("importlinter")
    copy = tmp_path / "damas_env"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    geometry = copy / "geometry.py"
    geometry.write_text(geometry.read_text() + "\nimport damas_agents.arena  # planted\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout and "damas_env.geometry -> damas_agents.arena" in result.stdout


@pytest.mark.parametrize(
    ("module", "planted"),
    [
        ("players/base.py", "damas_agents.training.train"),  # a player importing training
        ("models/checkpoint.py", "damas_agents.players.load"),  # the format importing players
        ("search/nnue.py", "damas_agents.models.evalnet"),  # the search importing a model
    ],
)
def test_an_upward_import_in_the_application_breaks_a_contract(
    tmp_path: Path, module: str, planted: str
) -> None:
    """A copy of the application with one planted upward import, found first on the path."""
    pytest.importorskip("importlinter")
    copy = tmp_path / "damas_agents"
    shutil.copytree(APPLICATION, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text() + f"\nimport {planted}  # planted\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    importer = "damas_agents." + module.removesuffix(".py").replace("/", ".")
    assert "BROKEN" in result.stdout and f"{importer} -> {planted}" in result.stdout
