"""The library's modules import one another one way: no circle, not even through a lazy import.

Every ``import`` statement of a damas_env module counts, wherever it stands: at the top, inside
a function, or under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import damas_env

PACKAGE = Path(damas_env.__file__).parent


def module_name(path: Path) -> str:
    """Returns the dotted name of a module file of the package."""
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


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


def import_graph() -> dict[str, set[str]]:
    """Returns each damas_env module with the damas_env modules it imports.

    Packages (``__init__``) are left out: Python imports a package before its modules, and
    a package's ``__init__`` importing its own modules makes no circle of its own.
    """
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"}
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
