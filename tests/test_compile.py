"""Compile time: no kernel is compiled twice, nor for a literal argument, nor again by a
second process.

numba compiles a callee once for each argument type it is called with, literal constants
included (``Literal[int](0)``, ``Literal[bool](True)``): ``f(x, 0)`` and ``f(x, n)`` are two
builds of ``f``. A cold first run waits for every build, so the engine's first call took
15 s instead of 10 (``generate_moves`` was built three times), and a literal build of the
recursive alpha-beta crashed when loaded from the cache. The first test runs the engine,
both envs and the searches in a fresh process with an empty cache (a few minutes on a busy
machine) and asks ``benchmarks/cold_start.py --specialisations`` which kernels were built
more than once.

numba caches what it compiles on disk, for the argument types of each first call. A second
process compiled again whatever the first had not called with the same types: Game.pop's
``undo_move`` in the middle of a game (no other Python code called it), the batch env's
serial build (the README's 256 games ran the threaded one, a Gymnasium view's opponent
stepping a few games the serial one), a read-only board's ``hash_position``. Each part now
calls each kernel with one set of types and loads them all at its first use in a process
(``damas_env.kernels.EntryPoints``). The second test runs, on the cache the first left,
another workload of each part (other variants, FENs, action dtypes, batch sizes, undo,
agent options: ``cold_start.OTHER``) in a process of its own, and asserts that none
compiled anything. The slow test does the same with each part alone on a fresh cache.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "cold_start.py"
STAGES = ["engine", "env", "batch", "search"]


def _cold_start(*args: str) -> str:
    """Returns the stdout of benchmarks/cold_start.py run with `args`."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=1800
    )  # a hang guard: a cold compile of every part takes minutes on a busy machine
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Returns a numba cache that every stage, run in one process, compiled into, and the
    specialisations that process counted."""
    cache = tmp_path_factory.mktemp("numba-cache")
    report = _cold_start(
        "--specialisations", "--verbose", "--cache", str(cache), "--stages", *STAGES
    )
    return cache, report


@pytest.mark.xdist_group("cold")
def test_every_kernel_is_compiled_once_for_one_type(warm_cache: tuple[Path, str]) -> None:
    _, report = warm_cache
    assert report.splitlines()[-1] == "0 kernels compiled more than once or for a literal", report


@pytest.mark.xdist_group("cold")
def test_a_second_process_compiles_nothing(warm_cache: tuple[Path, str]) -> None:
    cache, _ = warm_cache
    report = _cold_start("--reuse", "--cache", str(cache), "--stages", *STAGES)
    assert report.splitlines()[-1] == "0 kernels compiled by a second process", report


@pytest.mark.slow
@pytest.mark.xdist_group("cold")
def test_a_second_process_compiles_nothing_of_each_part_alone() -> None:
    """Each part warms a cache of its own (no other part's kernels in it), and the training
    quickstart is one more part: search, network, batch env and arena together."""
    report = _cold_start("--reuse", "--stages", *STAGES, "quickstart")
    assert report.splitlines()[-1] == "0 kernels compiled by a second process", report


def _thresholds_while_compiling(fn: object, sig: tuple[object, ...]) -> list[tuple[int, ...]]:
    """Compiles `fn` for `sig` and returns gc's thresholds as each compile started."""
    from numba.core import event

    seen: list[tuple[int, ...]] = []

    class Record(event.Listener):  # registered after the package's: sees what it set
        def on_start(self, ev: event.Event) -> None:
            seen.append(gc.get_threshold())

        def on_end(self, ev: event.Event) -> None:
            pass

    record = Record()
    event.register("numba:compile", record)
    try:
        fn.compile(sig)  # type: ignore[attr-defined]
    finally:
        event.unregister("numba:compile", record)
    return seen


def test_the_collector_waits_longer_while_numba_compiles_and_is_put_back() -> None:
    from numba import njit, types

    from damas_env import kernels as K

    @njit
    def inner(x):  # type: ignore[no-untyped-def]
        return x + 1

    @njit
    def outer(x):  # type: ignore[no-untyped-def]
        return inner(x) * 2  # compiled inside outer's compile: a nested event

    @njit
    def broken(x):  # type: ignore[no-untyped-def]
        return x.no_such_attribute

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 11, 12)
        seen = _thresholds_while_compiling(outer, (types.int64,))
        assert seen == [(K.COLLECTOR.YOUNG, 11, 12)] * 2  # outer, then inner within it
        assert gc.get_threshold() == (700, 11, 12)
        with pytest.raises(Exception, match="no_such_attribute"):
            _thresholds_while_compiling(broken, (types.int64,))
        assert gc.get_threshold() == (700, 11, 12) and K.COLLECTOR.depth == 0
        gc.set_threshold(0)  # a process that turned collection off keeps it off
        assert _thresholds_while_compiling(inner, (types.float64,)) == [(0, 11, 12)]
        assert gc.get_threshold() == (0, 11, 12)
    finally:
        gc.set_threshold(*before)


def test_cold_start_measures_the_tree_it_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older revision's copy of the script, run from another checkout, times that
    revision: its workloads import the packages beside the script, not those of the folder
    it is run from (``python -c`` puts that folder first on the path)."""
    import importlib.util

    decoy = tmp_path / "damas_env"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('the package of the working folder')\n")
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("cold_start_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = script._run("import damas_env; print(damas_env.__file__)", str(tmp_path / "cache"))
    assert Path(out.strip()) == ROOT / "damas_env" / "__init__.py"


def test_kernel_inlines_helpers_in_llvm_or_in_numba_ir_as_asked() -> None:
    """``inline=True``: the helper is compiled once, as its own unit that LLVM inlines into
    each caller (``alwaysinline``); ``inline="ir"``: numba inlines its IR and never compiles
    it alone. Anything else is refused."""
    import numpy as np

    from damas_env.kernels import kernel

    def twice(x):  # type: ignore[no-untyped-def]
        return 2 * x

    def thrice(x):  # type: ignore[no-untyped-def]
        return 3 * x

    llvm_inlined, ir_inlined = kernel(inline=True)(twice), kernel(inline="ir")(thrice)

    @kernel()
    def caller(x):  # type: ignore[no-untyped-def]
        return llvm_inlined(x) + llvm_inlined(x + 1) + ir_inlined(x) + ir_inlined(x + 1)

    assert caller(np.int64(5)) == 2 * 5 + 2 * 6 + 3 * 5 + 3 * 6
    assert len(llvm_inlined.signatures) == 1 and not ir_inlined.signatures
    assert llvm_inlined.targetoptions.get("forceinline") is True  # alwaysinline in LLVM
    assert ir_inlined.targetoptions.get("inline") == "always"
    for wrong in ("always", 1, "llvm"):
        with pytest.raises(ValueError, match="inline must be False, True or 'ir'"):
            kernel(inline=wrong)
