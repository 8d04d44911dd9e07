"""Opening a cluster's ledger from the command line, without Spark (through toolkit/services/runtime/cluster_files.py: a
`file://` cluster locally, an HDFS one through WebHDFS, any other refused naming the cluster), and the clock the
ledger commands read.
"""

from __future__ import annotations

import getpass
import os
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timezone

from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import to_local_path
from toolkit.services.runtime.cluster_files import cluster_file_system

NOW_HELP = ("The current time, yyyy-MM-ddTHH:mmZ (UTC), for tests and reruns: instances after it are not listed "
            "and leases are judged live or expired at it. Default: the wall clock.")


@dataclass(frozen=True)
class Now:
    """The current time of one call: `time` for instance arithmetic, `seconds` (since the epoch) for leases."""

    time: datetime
    seconds: float

    @classmethod
    def of(cls, text: str | None) -> Now:
        """`--now` when given (its instant is also the lease clock), else the wall clock."""
        if text is None:
            seconds = time.time()
            return cls(datetime.fromtimestamp(seconds, timezone.utc), seconds)
        given = parse_timestamp(text, "--now")
        return cls(given, given.timestamp())


def open_ledger(cluster: Cluster, now: Now) -> Ledger:
    """The cluster's ledger on its file system; its lease clock is `now` (a fixed instant)."""
    fs = cluster_file_system(cluster)
    return Ledger.of(fs, cluster, clock=lambda: now.seconds)


def open_present_ledger(cluster: Cluster, now: Now) -> Ledger:
    """`open_ledger`, once the cluster's root is known to be there: for the commands that report on a whole cluster
    (`metrics`, `report`), where storage that is not there (not mounted, a wrong endpoint) would read as a cluster
    where nothing has run yet. StorageError (exit 1) naming the root."""
    ledger = open_ledger(cluster, now)
    root = cluster.write_endpoint
    if root is not None and not ledger.fs.exists(root):
        raise StorageError(f"The root {root} of cluster '{cluster.name}' does not exist: its storage is not there (not "
                           "mounted?) or its write endpoint is wrong; nothing is reported from a place that is not "
                           "there.")
    if root is not None and root.startswith("file:") and not os.path.isdir(to_local_path(root)):
        # the operator's root may be a link to a folder; a dangling one, or a file, holds nothing to report
        raise StorageError(f"The root {root} of cluster '{cluster.name}' is not a folder (a file, or a link to "
                           "nothing): its storage is not there (not mounted?) or its write endpoint is wrong; nothing "
                           "is reported from a place that is not there.")
    return ledger


def wall_clock_now() -> str:
    """The real current UTC time as switches record it: `2026-11-21T10:00:05Z`."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def operator() -> str:
    """Who sets a switch: `user@host`."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name and no USER/LOGNAME in the environment
        user = "unknown"
    return f"{user}@{socket.gethostname()}"
