"""Opening a cluster's ledger from the command line, without Spark, and the clock the ledger commands read.

A cluster whose `write` endpoint is `file://` is read through the pure-Python `LocalFileSystem`; an HDFS cluster
(`hdfs://`, `webhdfs://`, `swebhdfs://`) through WebHDFS at its `readonly` interface (toolkit/storage/webhdfs.py,
settings in toolkit/entities/webhdfs_access.py). Any other file system would need the Hadoop client in a Spark
JVM, which the CLI does not start: those calls are refused with a usage error naming the cluster.
"""

from __future__ import annotations

import getpass
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlsplit

from toolkit.el.timestamps import parse_timestamp
from toolkit.entities.model import Cluster
from toolkit.entities.webhdfs_access import is_webhdfs_cluster, webhdfs_access
from toolkit.errors import UsageError
from toolkit.ledger.store import Ledger
from toolkit.storage.filesystem import FileSystem, StorageError
from toolkit.storage.local import LocalFileSystem

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


def cluster_file_system(cluster: Cluster) -> FileSystem:
    """The cluster's file system: local (`file://`) or HDFS through WebHDFS, else a UsageError naming the cluster."""
    endpoint = cluster.write_endpoint
    if endpoint is None:
        raise UsageError(f"The cluster '{cluster.name}' has no write interface: add interfaces.write.endpoint, the "
                         "root of its file system, where the toolkit keeps its ledger.")
    scheme = urlsplit(endpoint).scheme.lower()
    if scheme == "file":
        return LocalFileSystem()
    if is_webhdfs_cluster(cluster):
        try:
            access = webhdfs_access(cluster)
        except ValueError as err:
            raise UsageError(str(err)) from None
        from toolkit.storage.webhdfs import connect  # requests and the hdfs client load for HDFS clusters only

        try:
            return connect(endpoint, access.url, access.user, access.kerberos)
        except StorageError as err:
            raise UsageError(str(err)) from None
    where = f"on {scheme}://" if scheme else f"at {endpoint!r} (no scheme)"
    raise UsageError(f"The command line cannot read the ledger of cluster '{cluster.name}' {where}: it reads "
                     "clusters whose write endpoint is file:// or hdfs:// (through WebHDFS at the readonly "
                     "interface); run the Spark entrypoints for other file systems.")


def open_ledger(cluster: Cluster, now: Now) -> Ledger:
    """The cluster's ledger on its file system; its lease clock is `now` (a fixed instant)."""
    fs = cluster_file_system(cluster)
    return Ledger.of(fs, cluster, clock=lambda: now.seconds)


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
