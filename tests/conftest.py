"""Shared pytest fixtures and hooks: a deterministic Hypothesis profile without deadlines, one
torch thread for tiny networks, and the differential tally printed at the end of a run.

Helpers that tests import (variant lists from the registry, a tiny training config,
hostile checkpoints, env snapshots) live in ``tests/helpers.py``.

Hypothesis runs derandomized (the examples follow from each test's name, with no example
database), so CI runs the same examples every time; ``HYPOTHESIS_PROFILE=explore`` draws
fresh ones, e.g. to hunt for bugs locally.

``tests/test_differential.py`` counts the positions it compared against each peer, by
variant. Under pytest-xdist each worker sends its counts back through
``config.workeroutput``; the controller adds them up and prints one table.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest
from hypothesis import settings

# No deadline: an example slowed by a busy machine (or by a kernel's first compile) is not a
# failure. Speed is measured by benchmarks/, never asserted by tests.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_TALLY: Counter[str] = Counter()


@pytest.fixture
def one_torch_thread() -> Any:
    """Runs a test on one torch thread: tiny networks run fastest there, and two threads
    crawl on a busy machine. Skips nothing when torch is not installed."""
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _local_tally() -> Counter[str]:
    import sys

    module = sys.modules.get("test_differential") or sys.modules.get("tests.test_differential")
    return Counter(getattr(module, "COMPARED", {}))


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the counts to the controller
        workeroutput["differential"] = dict(_local_tally())
    else:
        _TALLY.update(_local_tally())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    _TALLY.update(getattr(node, "workeroutput", {}).get("differential", {}))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _TALLY:
        return
    terminalreporter.section("differential positions compared")
    for key in sorted(_TALLY):
        peer, variant = key.split(" ", 1)
        terminalreporter.write_line(f"{peer:>10} {variant:<14} {_TALLY[key]:>9,}")
    terminalreporter.write_line(f"{'total':>25} {sum(_TALLY.values()):>9,}")
