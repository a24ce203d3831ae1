"""The compiled kernels' disk cache follows every source they use: a kernel that inlined a
value from another module is compiled again when that module changes (damas_env.kernel_cache).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import damas_agents
from damas_env import kernel_cache

ROOT = Path(__file__).resolve().parents[1]

LOW = """
from damas_env.kernels import kernel

COLUMN = {column}


@kernel(inline=True)
def read(row):
    return row[COLUMN]
"""

HIGH = """
import numpy as np

from damas_env.kernels import kernel

import low


@kernel()
def use(row):
    return low.read(row)


print(use(np.arange(10)), use.stats.cache_hits and "cached" or "compiled")
"""

MAIN = """
import sys
from pathlib import Path

from damas_env import kernel_cache

here = Path(__file__).parent
sys.path.insert(0, str(here))
kernel_cache.register(here, [here / "low.py", here / "high.py"])
import high
"""


def _run(folder: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_CACHE_DIR", None)  # the cache beside the modules, in the test's folder
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, str(folder / "main.py")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    return done.stdout.strip()


def test_a_kernel_is_compiled_again_when_a_module_it_inlined_from_changes(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "high.py").write_text(HIGH)
    (tmp_path / "low.py").write_text(LOW.format(column=3))
    assert _run(tmp_path) == "3 compiled"
    assert _run(tmp_path) == "3 cached"  # the cache is used while nothing changes
    (tmp_path / "low.py").write_text(LOW.format(column=7))  # high.py itself is unchanged
    assert _run(tmp_path) == "7 compiled"
    assert _run(tmp_path) == "7 cached"


def test_a_stamp_covers_its_tree_and_the_trees_below(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernel_cache, "_TREES", [])
    monkeypatch.setattr(kernel_cache, "_STAMPS", {})
    low, high = tmp_path / "low", tmp_path / "high"
    for folder in (low, high):
        folder.mkdir()
        (folder / "a.py").write_text("A = 1\n")
    kernel_cache.register(low, [low / "a.py"])
    kernel_cache.register(high, [high / "a.py"])
    assert kernel_cache.sources_stamp(tmp_path / "elsewhere.py") is None
    before = kernel_cache.sources_stamp(low / "a.py"), kernel_cache.sources_stamp(high / "a.py")
    assert before[0] != before[1]

    (high / "a.py").write_text("A = 2\n")
    kernel_cache._STAMPS.clear()  # computed once a process: a new process sees the change
    assert kernel_cache.sources_stamp(low / "a.py") == before[0]  # the tree below: unchanged
    assert kernel_cache.sources_stamp(high / "a.py") != before[1]

    (low / "a.py").write_text("A = 3\n")
    kernel_cache._STAMPS.clear()
    after = kernel_cache.sources_stamp(low / "a.py"), kernel_cache.sources_stamp(high / "a.py")
    assert after[0] != before[0] and after[1] not in before  # the tree above follows


def _defines_kernels(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(call, ast.Name | ast.Attribute) and ast.unparse(call).endswith(
                    ("kernel", "njit")
                ):
                    return True
    return False


def test_every_module_with_kernels_is_a_kernel_source() -> None:
    """A module of the agents that defines kernels and is missing from KERNEL_SOURCES would
    keep stale copies of what it inlines (the engine's modules are all covered)."""
    package = Path(damas_agents.__file__).parent
    with_kernels = {p.resolve() for p in package.rglob("*.py") if _defines_kernels(p)}
    assert with_kernels  # the search, the MCTS tree, the NNUE self-play
    assert with_kernels <= {p.resolve() for p in damas_agents.KERNEL_SOURCES}
