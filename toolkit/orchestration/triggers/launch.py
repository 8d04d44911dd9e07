"""Starting the runs a sweep finds due: `spark-submit [submit args] entrypoints/process.py ...` in a session of
its own (a sweep that returns does not take its runs with it), output to a log file per run."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from toolkit.core.el.timestamps import format_timestamp, instance_key
from toolkit.services.runtime.submit import process_entrypoint, spark_submit


@dataclass(frozen=True)
class Run:
    """One run to start: an instance (`time`) or a batch (`time` None) of a process."""

    process: str
    time: datetime | None = None
    # Set when the instance had succeeded: it runs again only if that success started before this instant (the
    # newest input event's), so that a second start for the same event does nothing.
    force_if_started_before: datetime | None = None

    def arguments(self) -> list[str]:
        if self.time is None:
            return ["--process", self.process, "--batch"]
        before = self.force_if_started_before
        return ["--process", self.process, "--time", format_timestamp(self.time), "--no-wait",
                *(["--force-if-started-before", f"{before:%Y-%m-%dT%H:%M:%SZ}"] if before is not None else [])]

    @property
    def label(self) -> str:
        return f"{self.process} " + ("batch" if self.time is None else format_timestamp(self.time))


@dataclass
class Launcher:
    """Builds and starts the commands. `submit_args` go before the entrypoint (--master, --conf ...); `lease`, when
    set, is the runs' `--lease` (else the entrypoint's default)."""

    repo: str
    cluster: str
    submit_args: list[str]
    log_dir: Path
    program: str = field(default_factory=spark_submit)
    lease: float | None = None
    started: list[tuple[Run, subprocess.Popen[bytes], Path]] = field(default_factory=list)

    def command(self, run: Run) -> list[str]:
        lease = [] if self.lease is None else ["--lease", f"{self.lease:g}"]
        return [self.program, *self.submit_args, process_entrypoint(), "--repo", self.repo,
                "--cluster", self.cluster, *run.arguments(), *lease]

    def describe(self, run: Run) -> str:
        return shlex.join(self.command(run))

    def start(self, run: Run, run_id: str) -> Path:
        """Start the run; its output goes to a log file (returned)."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        key = "batch" if run.time is None else instance_key(run.time)
        environment = {"PYSPARK_PYTHON": sys.executable, **os.environ}
        log, out = new_log(self.log_dir, f"{run.process}-{key}-{run_id}")
        with out:
            child = subprocess.Popen(self.command(run), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=environment, start_new_session=True)
        self.started.append((run, child, log))
        return log

    def wait(self) -> list[tuple[Run, int, Path]]:
        """Wait for every run started; their exit codes."""
        return [(run, child.wait(), log) for run, child, log in self.started]


def new_log(folder: Path, stem: str) -> tuple[Path, BinaryIO]:
    """A log file created for this run alone (`<stem>.log`, else `<stem>-2.log`, ...): one sweep starts several
    batch runs of a process, and another sweep may reuse a run id; no run's log truncates another's."""
    number = 1
    while True:
        log = folder / (f"{stem}.log" if number == 1 else f"{stem}-{number}.log")
        try:
            return log, log.open("xb")
        except FileExistsError:
            number += 1
