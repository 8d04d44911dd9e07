"""The stderr of a process instance's attempt, kept beside its attempt record (`attempt-NNN.stderr` next to
`attempt-NNN.json`) for `toolkit logs`: size-capped and rotated, secrets masked.

`CappedLog` holds what an attempt writes: the first `HEAD_BYTES` (how the run started: its sentences, spark-submit's
first lines) and the newest `TAIL_BYTES` in segments of `SEGMENT_BYTES`, the oldest segment rotated out whenever the
tail outgrows its cap; what was rotated out is counted, and one line in the kept log says how much is missing there.
An attempt's log is therefore never larger than the cap, however much the run writes, and its end (where the error
is) is always kept. Before it is written, `mask_secrets` replaces the value of every `key=value` or `key: value`
whose key names a password, secret, token, credential or key, and the password of a URL's user info.
"""

from __future__ import annotations

import re
import threading
from collections import deque

HEAD_BYTES = 64 * 1024
TAIL_BYTES = 448 * 1024
SEGMENT_BYTES = 16 * 1024
CAP_BYTES = HEAD_BYTES + TAIL_BYTES  # what an attempt's log holds at most, besides the one line marking a cut
MASK = "***"

_SECRET_KEY = r"[\w.\-]*(?:password|passwd|pwd|secret|token|credential|api[_\-.]?key|access[_\-.]?key)[\w.\-]*"
_KEY_VALUE = re.compile(rf"(?i)(\b{_SECRET_KEY}[\"']?\s*[=:]\s*[\"']?)([^\s\"',;&]+)")
_AUTHORIZATION = re.compile(r"(?i)(\bauthorization[\"']?\s*[=:]\s*[\"']?(?:basic|bearer|negotiate)?\s*)(\S+)")
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s/:@]+:)([^\s/@]+)(@)")


def mask_secrets(text: str) -> str:
    """`text` with the values of secret-looking settings and URL passwords replaced by `***`."""
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + MASK + m.group(3), text)
    text = _AUTHORIZATION.sub(lambda m: m.group(1) + MASK, text)
    return _KEY_VALUE.sub(lambda m: m.group(1) + MASK, text)


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
        with self._lock:
            self._write(text.encode("utf-8", "replace"))

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
        return mask_secrets(b"".join(parts).decode("utf-8", "replace")).encode("utf-8")
