"""Worker processes for a call that runs many independent units at once (a cluster's feeds in `retain --all`).

Threads do not make such a call faster: each unit's bookkeeping is Python, and Python runs one thread at a time.
The workers are forked from the call once its configuration is loaded, so each starts with it in memory and pays no
start-up of its own; each dies with the call (SIGKILL on its parent's death, Linux), so a call killed at any moment
leaves no worker behind holding a lease or still deleting, as it would leave no thread. Where a platform cannot fork,
`can_fork()` is False and the caller runs its units one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from toolkit.forked_map import die_with


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


@contextmanager
def worker_pool(workers: int, initializer: Callable[..., None], *initargs: object) -> Iterator[ProcessPoolExecutor]:
    """`workers` processes forked from this one (call it from the main thread, before any other thread starts: a
    fork copies only the calling thread), each running `initializer(*initargs)` first. Leaving the block waits for
    the work submitted."""
    sys.stdout.flush()  # a forked worker flushes its copy of the buffers when it ends: empty them first
    sys.stderr.flush()
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_started,
                             initargs=(os.getpid(), initializer, initargs)) as pool:
        yield pool


def _started(parent: int, initializer: Callable[..., None], initargs: tuple[object, ...]) -> None:
    die_with(parent)
    initializer(*initargs)
