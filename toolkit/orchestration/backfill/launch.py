"""Starting a backfill's instances: `spark-submit [the cluster's submit arguments] entrypoints/<step>.py --repo R
...`, each in a session of its own (a backfill killed with -9 leaves its running instances to finish under their
own leases; a stopped one stops them), its output in a log file and its status line in a file beside it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.core.el.timestamps import instance_key
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.orchestration.backfill.graph import Node
from toolkit.orchestration.backfill.steps import entrypoint_call, step_cluster
from toolkit.orchestration.triggers.launch import new_log
from toolkit.services.runtime.submit import entrypoint, submit_arguments


@dataclass
class Started:
    node: Node
    child: subprocess.Popen[bytes]
    log: Path
    status_file: Path

    def poll(self) -> int | None:
        return self.child.poll()

    def wait(self) -> int:
        return self.child.wait()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Signal the run's whole session (spark-submit, its JVM and Python driver)."""
        with contextlib.suppress(ProcessLookupError):  # ended meanwhile
            os.killpg(self.child.pid, sig)

    def reason(self) -> str | None:
        """What the run's status line says went wrong (its `error`) or is missing, when it wrote one."""
        try:
            line = json.loads(self.status_file.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(line, dict):
            return None
        error, missing = line.get("error"), line.get("missing")
        if isinstance(error, str):
            return error
        if isinstance(missing, list) and missing:
            return "missing " + ", ".join(str(item) for item in missing)
        return None


@dataclass
class Launcher:
    """`submit_args`: the option's text, else each cluster's `trigger.submit-args`; `lease`: the runs' `--lease`;
    `repos`: the config repo of an instance run as it first ran (else `repo_path`)."""

    repo: ConfigRepo
    repo_path: str
    program: str
    submit_args: str | None
    log_dir: Path
    run_id: str
    lease: float | None = None
    repos: dict[Node, str] = field(default_factory=dict)  # `--as-ran`: an instance's repo at the commit that ran it
    commands: dict[Node, list[str]] = field(default_factory=dict)

    def command(self, node: Node) -> list[str]:
        if node not in self.commands:
            name, arguments = entrypoint_call(node.step, self.repo, node.time)
            cluster = self.repo.cluster(step_cluster(node.step))
            lease = [] if self.lease is None else ["--lease", f"{self.lease:g}"]
            self.commands[node] = [self.program, *submit_arguments(self.submit_args, cluster), entrypoint(name),
                                   "--repo", self.repos.get(node, self.repo_path), *arguments, *lease]
        return self.commands[node]

    def start(self, node: Node) -> Started:
        stem = f"{node.step.KIND}-{node.step.name}-{step_cluster(node.step)}-{instance_key(node.time)}-{self.run_id}"
        log, out = new_log(self.log_dir, stem)
        status_file = log.with_suffix(".status.json")
        environment = {"PYSPARK_PYTHON": sys.executable, **os.environ}
        command = [*self.command(node), "--status-file", str(status_file)]
        with out:
            try:
                child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=environment, start_new_session=True)
            except OSError as err:
                raise UsageError(f"Cannot start {command[0]} ({err.strerror}): give --spark-submit a program this "
                                 "host can run.") from None
        return Started(node, child, log, status_file)

