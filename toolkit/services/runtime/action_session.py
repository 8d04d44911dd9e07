"""What every entrypoint that acts on a cluster opens, built one way: the Spark session named after the action,
the cluster's file system through it with the cluster's root protected (no action deletes it, nor a folder above
it), the cluster's catalog connected on first use (a file feed never talks to a metastore), the ledger, the call's
lineage and its notifiers on that file system; at the end, whatever happened, the status line counts the lineage
events not sent and the messages of the notifiers it was asked to count, and the catalog is closed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.services.runtime.session import build_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.clock import Clock
    from toolkit.core.entities.model import Cluster
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.catalog import Catalog
    from toolkit.core.storage.filesystem import FileSystem
    from toolkit.services.notifications.notifier import Notifier
    from toolkit.services.openlineage.run import Lineage
    from toolkit.services.runtime.run_context import RunContext
    from toolkit.services.runtime.status import StatusLine


class ActionSession:
    """One action's Spark session on one cluster (none for an action that needs no Spark: `storage_session`), its
    protected file system, its lazily connected catalog, and the call's lineage and notifiers, reported in its
    status line when the session ends."""

    def __init__(self, spark: SparkSession | None, fs: FileSystem, cluster: Cluster, status: StatusLine) -> None:
        self._spark, self.fs, self.cluster, self.status = spark, fs, cluster, status
        self._catalog: Catalog | None = None
        self._lineage: Lineage | None = None
        self._counted: list[Notifier] = []

    @property
    def spark(self) -> SparkSession:
        """The Spark session; a session opened without Spark has none, and asking is a bug of the action."""
        if self._spark is None:
            raise RuntimeError(f"the {self.status.action} session on cluster '{self.cluster.name}' has no Spark")
        return self._spark

    def catalog(self) -> Catalog:
        """The cluster's catalog (its `registry` metastore, else Spark's), connected when first asked for."""
        if self._catalog is None:
            from toolkit.core.storage.catalog_factory import catalog_for

            self._catalog = catalog_for(self.spark, self.cluster.registry_endpoint)
        return self._catalog

    def ledger(self, lease_seconds: float) -> Ledger:
        """This cluster's ledger, its locks leased for `lease_seconds`."""
        from toolkit.core.ledger.store import Ledger

        return Ledger.of(self.fs, self.cluster, lease_seconds=lease_seconds)

    def lineage(self) -> Lineage:
        """The call's lineage, kept in this cluster's ledger, under the parent run a scheduler passed to Spark;
        opened once (off and free unless the client is configured)."""
        if self._lineage is None:
            from toolkit.services.runtime.lineage import open_lineage

            self._lineage = open_lineage(self.fs, self.cluster, self.status.run_id, self._spark)
        return self._lineage

    def notifier(self, *, counted: bool) -> Notifier:
        """A notifier of this cluster's channels, recording each notice in its ledger; `counted`: its messages are
        counted in the status line (for an entity that declares `notification`)."""
        from toolkit.services.notifications.notifier import Notifier

        notifier = Notifier(self.fs, self.cluster)
        if counted:
            self.count(notifier)
        return notifier

    def context(self, *, catalog: bool, lease_seconds: float = DEFAULT_LEASE_SECONDS,
                notifier: Notifier | None = None, clock: Clock | None = None) -> RunContext:
        """The run context of the call on this session: its file system, run id and lineage, the catalog when a
        table feed needs it (`catalog`), `notifier`, leases of `lease_seconds`, and `clock` (default: the wall
        clock; a rerun's `--now` moves it)."""
        from toolkit.clock import WallClock
        from toolkit.services.runtime.run_context import RunContext

        return RunContext(self.fs, self.status.run_id, catalog=self.catalog() if catalog else None,
                          lineage=self.lineage(), notifier=notifier, lease_seconds=lease_seconds,
                          clock=clock or WallClock())

    def sharing(self, status: StatusLine) -> AbstractContextManager[ActionSession]:
        """A session on this one's Spark and file system that reports to another status line (a feed of a call for
        a whole cluster), with its own catalog connection, lineage and notifiers, closed at its end."""
        return _opened(self._spark, self.fs, self.cluster, status)

    def count(self, notifier: Notifier) -> None:
        """Count the messages of `notifier` (one an action made itself) in the status line at the end."""
        self._counted.append(notifier)

    def close(self) -> None:
        """The status line's counts of the lineage and the notifiers, then the catalog closed."""
        from toolkit.services.runtime.lineage import report_lineage

        try:
            if self._lineage is not None:
                report_lineage(self._lineage, self.status)
            for notifier in self._counted:
                self.status.add(**notifier.counters())
        finally:
            if self._catalog is not None:
                self._catalog.close()


@contextmanager
def action_session(action: str, subject: str | None, cluster: Cluster, status: StatusLine, *, hive: bool,
                   launcher: Mapping[str, str]) -> Iterator[ActionSession]:
    """The session `toolkit-<action>-<subject>-<cluster>` (with Hive support when `hive`; `launcher`: the entity's
    YARN queue and priority, toolkit/core/entities/launcher_settings.py), closed with its catalog at the end. Call it
    after the checks that need no JVM, so that a bad call costs none."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    name = "-".join(("toolkit", action, *((subject,) if subject else ()), cluster.name))
    spark = build_session(name, cluster, hive=hive, launcher=launcher)
    with _opened(spark, HadoopFileSystem(spark), cluster, status) as session:
        yield session


@contextmanager
def storage_session(cluster: Cluster, status: StatusLine) -> Iterator[ActionSession]:
    """The session of an action Spark has nothing to do with (retention of a file feed): the cluster's file system
    without a JVM (toolkit/services/runtime/cluster_files.py: local, or HDFS through WebHDFS), its root protected, and
    the same ledger, lineage, notifiers and status line as `action_session`'s; no Spark and no catalog."""
    from toolkit.services.runtime.cluster_files import cluster_file_system

    with _opened(None, cluster_file_system(cluster), cluster, status) as session:
        yield session


@contextmanager
def _opened(spark: SparkSession | None, fs: FileSystem, cluster: Cluster, status: StatusLine
            ) -> Iterator[ActionSession]:
    """The session on `fs` with the cluster's root protected, closed (its counts in the status line) at the end."""
    if cluster.write_endpoint is not None:
        fs.protect(cluster.write_endpoint)
    session = ActionSession(spark, fs, cluster, status)
    try:
        yield session
    finally:
        session.close()
