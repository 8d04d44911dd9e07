"""The stderr of a process instance's attempt, kept beside its attempt record (`attempt-NNN.stderr` next to
`attempt-NNN.json`) for `toolkit logs`: size-capped and rotated, secrets masked.

`CappedLog` holds what an attempt writes: the first `HEAD_BYTES` (how the run started: its sentences, spark-submit's
first lines) and the newest `TAIL_BYTES` in segments of `SEGMENT_BYTES`, the oldest segment rotated out whenever the
tail outgrows its cap; what was rotated out is counted, and one line in the kept log says how much is missing there.
An attempt's log is therefore never larger than the cap, however much the run writes, and its end (where the error
is) is always kept. As each piece is kept (a rotation cuts anywhere), when the log is written, and when `toolkit
logs` reads it (a log kept by an older toolkit, a form masked since), the one masker of the toolkit
(toolkit/secrets_masking.py) replaces every secret in it: the value of every setting named for a secret (a command
line's `--password x` too), the password of a URL's user info (and Oracle's `user/password@`), an `Authorization`
header's credentials.
"""

from __future__ import annotations

import threading
from collections import deque

from toolkit.secrets_masking import masked

HEAD_BYTES = 64 * 1024
TAIL_BYTES = 448 * 1024
SEGMENT_BYTES = 16 * 1024
CAP_BYTES = HEAD_BYTES + TAIL_BYTES  # what an attempt's log holds at most, besides the one line marking a cut


class CappedLog:
    """What a run writes, kept within `CAP_BYTES`: the head, then the tail whose oldest segments rotate out."""

    def __init__(self, head_bytes: int = HEAD_BYTES, tail_bytes: int = TAIL_BYTES,
                 segment_bytes: int = SEGMENT_BYTES) -> None:
        self.head_bytes, self.tail_bytes, self.segment_bytes = head_bytes, tail_bytes, segment_bytes
        self.head = bytearray()
        self.tail: deque[bytearray] = deque()
        self.tail_size = 0
        self.rotated_out = 0  # bytes dropped between the head and the tail
        self._lock = threading.Lock()  # a run's threads (its lease keeper, Py4J callbacks) write to stderr too

    def write(self, text: str) -> None:
        """Keep `text`, masked as written: a rotation cuts anywhere, and could keep a password whose
        `scheme://user:` it dropped."""
        data = masked(text).encode("utf-8", "replace")
        with self._lock:
            self._write(data)

    def _write(self, data: bytes) -> None:
        room = self.head_bytes - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        while data:
            if not self.tail or len(self.tail[-1]) >= self.segment_bytes:
                self.tail.append(bytearray())
            room = self.segment_bytes - len(self.tail[-1])
            self.tail[-1] += data[:room]
            self.tail_size += len(data[:room])
            data = data[room:]
            while self.tail_size > self.tail_bytes and len(self.tail) > 1:
                dropped = self.tail.popleft()
                self.tail_size -= len(dropped)
                self.rotated_out += len(dropped)

    def render(self) -> bytes:
        """The kept log, secrets masked; a line where rotated-out bytes were."""
        with self._lock:
            head, tail = bytes(self.head), b"".join(self.tail)
        parts = [head]
        if self.rotated_out:
            parts.append(f"\n[... {self.rotated_out} bytes of this attempt's stderr rotated out (the log keeps the "
                         f"first {self.head_bytes} and the last {self.tail_bytes} bytes) ...]\n".encode())
        parts.append(tail)
        return masked_log(b"".join(parts))


def masked_log(data: bytes) -> bytes:
    """A log's bytes with every secret masked (a byte that is no UTF-8 is shown as the replacement character)."""
    return masked(data.decode("utf-8", "replace")).encode("utf-8")
