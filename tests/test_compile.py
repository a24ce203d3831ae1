"""Compile time: no kernel is compiled twice, nor for a literal argument.

numba compiles a callee once for each argument type it is called with, literal constants
included (``Literal[int](0)``, ``Literal[bool](True)``): ``f(x, 0)`` and ``f(x, n)`` are two
builds of ``f``. A cold first run waits for every build, so the engine's first call took
15 s instead of 10 (``generate_moves`` was built three times), and a literal build of the
recursive alpha-beta crashed when loaded from the cache. This runs the engine, both envs and
the searches in a fresh process with an empty cache (about a minute and a half) and asks
``benchmarks/cold_start.py --specialisations`` which kernels were built more than once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.xdist_group("cold")
def test_every_kernel_is_compiled_once_for_one_type() -> None:
    script = ROOT / "benchmarks" / "cold_start.py"
    stages = ["engine", "env", "batch", "search"]
    result = subprocess.run(
        [sys.executable, str(script), "--specialisations", "--verbose", "--stages", *stages],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1] == (
        "0 kernels compiled more than once or for a literal"
    ), result.stdout
