"""Worker processes that end with the process that started them, however it ends.

A pool's worker would outlive a parent killed by ``kill -9``: :func:`exit_with_parent`, run
as the pool's initializer, ends it once its parent is gone. Torch-free.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["PARENT_CHECK_INTERVAL", "exit_with_parent", "watch_parent"]

#: How often a worker checks that its parent is still there (seconds).
PARENT_CHECK_INTERVAL = 0.5


def exit_with_parent(parent: int, parent_is_main_thread: bool) -> None:
    """Ends this process when process `parent` (the one that started it) ends, even by kill -9.

    A daemon thread watches: once this process's parent is no longer `parent`, it exits at
    once (between two compiled calls, which hold the interpreter). On Linux the kernel also
    kills it when its parent dies, mid-call, if the parent started it from its main thread:
    the signal follows the thread that forked, and a pool made in another thread would
    lose its workers when that thread ended.
    """
    if parent_is_main_thread:
        _kill_on_parent_death()
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)
    watch = threading.Thread(target=watch_parent, args=(parent,), daemon=True)
    watch.start()


def watch_parent(
    parent: int,
    interval: float = PARENT_CHECK_INTERVAL,
    parent_of: Callable[[], int] = os.getppid,
    sleep: Callable[[float], None] = time.sleep,
    leave: Callable[[int], None] = os._exit,
) -> None:
    """Waits until this process's parent is no longer `parent` (an orphan is taken over by
    another process), then leaves (``os._exit``: a dying worker has nothing to write).
    The arguments after `parent` are for the tests."""
    while parent_of() == parent:
        sleep(interval)
    leave(1)


def _kill_on_parent_death() -> None:
    """Asks Linux to SIGKILL this process when the thread that forked it ends (prctl
    PR_SET_PDEATHSIG); does nothing elsewhere or where it is refused."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no libc to load, or no prctl in it
        pass


_PR_SET_PDEATHSIG = 1  # linux/prctl.h
