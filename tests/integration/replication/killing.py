"""A replication spark-submit killed with SIGKILL (the whole process group: the Python driver and its JVM) once a
condition holds, while a reader polls the target folder and notes every partial instance it sees. Shared by the
kill tests of the driver's copier and of the distributed one."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.integration.spark_submit import environment


def kill_when(command: list[str], cwd: Path, ready: Callable[[], bool], target: Path, files: int,
              timeout: float = 240) -> tuple[int, list[int]]:
    """Run `command`, SIGKILL it once `ready()`; (its return code, the file counts of the partial `target`s seen,
    the flag `_SUCCESS` not counted; a complete one with `files` files is not partial)."""
    seen: list[int] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            if target.exists():
                found = len([p for p in target.iterdir() if p.name != "_SUCCESS"])
                if found != files:
                    seen.append(found)
            time.sleep(0.002)

    polling = threading.Thread(target=reader)
    polling.start()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd,
                               env=environment(), start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            if ready():
                os.killpg(process.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
        process.wait(timeout=60)
    finally:
        stop.set()
        polling.join()
    return process.returncode, seen
