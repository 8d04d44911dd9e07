"""What a process instance's attempt writes to stderr, kept for its attempt's log (toolkit/core/ledger/attempt_logs.py)
while it still goes to the entrypoint's stderr as before.

`captured_stderr()` puts a tee in place of `sys.stderr` for the attempt: every write reaches the real stderr and a
`CappedLog`. That is what Python writes there: the runner's sentences, the workflow's prints and tracebacks, and an
`engine: spark` application's whole output (spark-submit's and, in client mode, its driver's: the runner copies
the child's output to `sys.stderr`). The log4j lines of the entrypoint's own JVM are written by Java to the
process's stderr and are not in it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from toolkit.core.ledger.attempt_logs import CappedLog


class _Tee:
    """A text stream writing to `stream` and to `log` (what is not a text stream's own is the stream's)."""

    def __init__(self, stream: TextIO, log: CappedLog) -> None:
        self._stream, self._log = stream, log

    def write(self, text: str) -> int:
        self._log.write(text)
        return self._stream.write(text)

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> object:  # fileno, isatty, encoding...: the real stream's
        return getattr(self._stream, name)


@contextmanager
def captured_stderr() -> Iterator[CappedLog]:
    """For the block: `sys.stderr` also writes into the log yielded; the previous stream is put back after it."""
    log = CappedLog()
    previous = sys.stderr
    sys.stderr = _Tee(previous, log)
    try:
        yield log
    finally:
        sys.stderr = previous
