"""Kill points for the kill -9 tests: a child process calls `dies_at` on a module's or class's function before it
starts its work, and kills itself with SIGKILL at that function's `call`-th call, before it runs or (`after`)
once it returned, as a power cut or an OOM killer would."""

from __future__ import annotations

import os
import signal
from typing import Any


def dies_at(owner: Any, name: str, call: int, *, after: bool = False) -> None:
    real = getattr(owner, name)
    calls = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == call and not after:
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(*args, **kwargs)
        if calls[0] == call and after:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(owner, name, wrapped)
