"""What a standalone cluster did for one spark-submit: the applications the master completed (its web UI's JSON)
and the tasks their executors ran (each executor's stderr in its worker's work folder). A run in local mode leaves
neither, so tests that assert them fail when an entrypoint did not reach the cluster."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from toolkit.devtools.standalone_spark import StandaloneCluster

_TASK = re.compile(r"Executor: Running task \S+ in stage \S+ \(TID \d+\)")
_FETCHED = re.compile(r"Fetching \S+/jars/([^/\s]+) with timestamp")


@dataclass
class ClusterApp:
    """One application the master ran: its id, name, the cores it was granted, per executor (worker-N/exec id)
    how many tasks it ran, and the names of the jars each executor fetched from the driver (spark.jars)."""

    id: str
    name: str
    cores: int
    tasks: dict[str, int] = field(default_factory=dict)
    jars: dict[str, set[str]] = field(default_factory=dict)


def _master_state(cluster: StandaloneCluster) -> dict:  # type: ignore[type-arg]
    with urllib.request.urlopen(f"http://127.0.0.1:{cluster.ui_port}/json/", timeout=10) as answer:
        return json.load(answer)  # type: ignore[no-any-return]


def completed_apps(cluster: StandaloneCluster) -> dict[str, ClusterApp]:
    """The master's completed applications by id, with the tasks their executors logged. An application the
    master still lists as active (its driver's goodbye is a message, not a call) is waited for, up to 20 s."""
    deadline = time.monotonic() + 20
    state = _master_state(cluster)
    while state["activeapps"] and time.monotonic() < deadline:
        time.sleep(0.5)
        state = _master_state(cluster)
    apps = {app["id"]: ClusterApp(app["id"], app["name"], int(app["cores"])) for app in state["completedapps"]}
    for app in apps.values():
        for stderr in cluster.folder.glob(f"worker-*/{app.id}/*/stderr"):
            executor = f"{stderr.parent.parent.parent.name}/{stderr.parent.name}"
            log = stderr.read_text(errors="replace")
            app.tasks[executor] = len(_TASK.findall(log))
            app.jars[executor] = set(_FETCHED.findall(log))
    return apps


@contextmanager
def apps_of(cluster: StandaloneCluster) -> Iterator[dict[str, ClusterApp]]:
    """The applications completed while the block ran, by name (filled in when it ends); two of one name fail."""
    before = set(completed_apps(cluster))
    ran: dict[str, ClusterApp] = {}
    yield ran
    for app_id, app in sorted(completed_apps(cluster).items()):
        if app_id not in before:
            assert app.name not in ran, f"two applications named {app.name}: {ran[app.name]}, {app}"
            ran[app.name] = app
