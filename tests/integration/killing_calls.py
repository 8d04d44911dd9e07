"""A real call killed with SIGKILL at the moment a test waits for (its temporary file appears, its output changes):
the kill tests of the commands that replace a file atomically share this."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable


def killed_when(argv: list[str], caught: Callable[[int], bool]) -> bool:
    """Start `argv`; SIGKILL it as soon as `caught(its pid)` holds, polled every 0.2 ms. True when it was killed
    that way: `caught` still holds once it is dead. False when it ended first (a write of microseconds may be missed
    by the poll), or when it got past what `caught` saw between the poll and the signal (a write finished and its
    temporary file renamed: on a busy machine the signal can come that late)."""
    call = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while call.poll() is None:
            if caught(call.pid):
                os.kill(call.pid, signal.SIGKILL)
                call.wait()
                return caught(call.pid)
            time.sleep(0.0002)
        return False
    finally:
        if call.poll() is None:
            call.kill()
            call.wait()
