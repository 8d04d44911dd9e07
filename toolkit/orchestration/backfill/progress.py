"""A backfill's progress on stderr: a line per instance started, ended, held by another caller or not started; on
a terminal, a bar under them, redrawn in place."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TextIO

from toolkit.orchestration.backfill.execution import Ended
from toolkit.orchestration.backfill.graph import Node
from toolkit.orchestration.backfill.launch import Started
from toolkit.statuses import Status

BAR_WIDTH = 30


@dataclass
class StderrProgress:
    stream: TextIO
    started_at: dict[Node, float] = field(default_factory=dict)
    bar_shown: bool = False

    def _say(self, text: str, done: int | None = None, total: int | None = None) -> None:
        terminal = self.stream.isatty()
        if terminal and self.bar_shown:
            self.stream.write("\r\033[K")
        self.stream.write(f"backfill: {text}\n")
        if terminal and done is not None and total:
            filled = BAR_WIDTH * done // total
            self.stream.write(f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}")
            self.bar_shown = True
        self.stream.flush()

    def started(self, node: Node, started: Started, done: int, total: int) -> None:
        self.started_at[node] = time.monotonic()
        self._say(f"started {node} (pid {started.child.pid}, log {started.log})", done, total)

    def held(self, node: Node, holder: str) -> None:
        self._say(f"{node} is {holder}: waiting for it to end")

    def ended(self, ended: Ended, done: int, total: int) -> None:
        seconds = time.monotonic() - self.started_at.pop(ended.node, time.monotonic())
        said = f"{ended.node} {ended.status} in {seconds:.0f} s"
        if ended.why:
            said += f": {ended.why}"
        if ended.status is not Status.SUCCEEDED and ended.log is not None:
            said += f" (log {ended.log})"
        self._say(said, done, total)

    def not_started(self, node: Node, why: str) -> None:
        self._say(f"not started: {node}: {why}")

    def done_meanwhile(self, node: Node) -> None:
        self._say(f"{node} was finished by the run it waited for: done")

    def stopping(self, by: str, running: int) -> None:
        self._say(f"stopped by {by}: stopping the {running} run(s) started; nothing more starts")

    def close(self) -> None:
        if self.bar_shown and self.stream.isatty():
            self.stream.write("\n")
            self.stream.flush()
