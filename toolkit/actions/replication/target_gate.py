"""The feed's data-quality gate on a replication target: a feed's suite holds wherever it lands, so each
replicated instance is checked where it is staged on the target, in the run's SparkSession, before anything of it
is published there. Only the feed's own gate applies (replication has no process output).

Files: a source's staging folder (`.<name>.replicating`, complete and verified) read with the feed's `format`;
with several sources, each source's part is checked as it lands under its `partition`. Tables: the export's
`data/` folder on the target, read by path in the exported table's storage format (parquet, orc or avro: the
files carry their schema; other formats cannot be read without registering them, and are refused, exit 2).

A failing `block` gate: that source's part is not published, its staged copy is discarded, and the instance
fails as a timed-out source does (runner.py: no flag, no dataset event, exit 1, the feed's `notification`
told). A failing `warn` gate: published, recorded, told. Great Expectations is imported by the first check,
and only for a feed that declares a gate (toolkit/services/quality/gate.py).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Feed, quality_gates
from toolkit.core.entities.quality_suites import read_suite
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.storage.catalog_records import TableDescription
from toolkit.core.storage.filesystem import FileSystem
from toolkit.core.storage.tree import data_files
from toolkit.errors import UsageError
from toolkit.services.notifications.message import QUALITY_WARNING, Notice, rerun_command
from toolkit.services.notifications.notifier import Notifier
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from toolkit.services.quality.gate import QualityGate


def say(line: str) -> None:
    """A sentence for people: on stderr, apart from the status line."""
    print(line, file=sys.stderr)


class TargetGate:
    """The gate of one replication run of `feed` (its `quality` must be set). Checks are serialized: instances
    of a catch-up window copy in parallel, but Great Expectations' one context is not shared between threads."""

    def __init__(self, spark: SparkSession, repo: ConfigRepo, feed: Feed, fs: FileSystem,
                 log: Callable[[str], None] = say) -> None:
        if feed.quality is None:
            raise ValueError(f"feed '{feed.name}' declares no quality gate")
        self.spark, self.repo, self.feed, self.fs, self.log = spark, repo, feed, fs, log
        self.suite = feed.quality.suite
        read_suite(repo.root, self.suite)  # a missing or broken suite is exit 2 before anything is copied
        self._gate: QualityGate | None = None
        self._lock = threading.Lock()

    def _check(self, instance: datetime, location: str, frame: Callable[[], DataFrame]) -> tuple[GateResult, ...]:
        with self._lock:
            if self._gate is None:
                from toolkit.services.quality.gate import QualityGate

                self._gate = QualityGate(self.repo.root, self.log)
            return tuple(self._gate.check(self.feed, instance, quality_gates(self.feed), location, frame))

    def folder(self, instance: datetime, staged: str) -> tuple[GateResult, ...]:
        """The staged folder of a file feed's instance (or of one source's part of it)."""
        from toolkit.services.quality.frames import file_instance

        return self._check(instance, staged, lambda: file_instance(self.spark, self.fs, self.feed, staged))

    def partition(self, instance: datetime, table: TableDescription, directory: str, qualified_table: str,
                  values: Mapping[str, str]) -> tuple[GateResult, ...]:
        """The exported partition's files in `directory` (the export's `data/` on the target) of a table stored
        as `table` describes, with its partition `values` as columns; `qualified_table` names it on the target."""
        table_format = table.info.format
        from toolkit.services.quality.frames import SELF_DESCRIBING, table_partition

        if table_format not in SELF_DESCRIBING:
            raise UsageError(
                f"Feed '{self.feed.name}' declares a quality suite ({self.suite}), but its table "
                f"{table.qualified_name} is stored as {table_format}: replication checks a "
                f"partition's exported files before importing them, which it can for {', '.join(SELF_DESCRIBING)} "
                "tables only; store the table in one of these formats, or drop the feed's `quality` gate.")

        def frame() -> DataFrame:
            if data_files(self.fs, directory):
                return table_partition(self.spark, self.fs, table_format, qualified_table, directory, values)
            return _empty_partition(self.spark, table, values)  # the target table may not exist yet

        return self._check(instance, directory, frame)


def _empty_partition(spark: SparkSession, table: TableDescription, values: Mapping[str, str]) -> DataFrame:
    """An exported partition without data files: no rows, the exported columns and the partition's values."""
    from pyspark.sql import functions as F

    frame = spark.createDataFrame([], ", ".join(f"`{column.name}` {column.type}" for column in table.columns))
    return frame.select("*", *(F.lit(value).alias(key) for key, value in values.items()))


def warn_quality(notifier: Notifier, repo: ConfigRepo, feed: Feed, t: datetime, results: Sequence[GateResult],
                 run_id: str, log: Callable[[str], None] = say) -> None:
    """An instance published on the target although a `warn` gate failed: said on stdout, and told once to the
    feed's `notification` (event quality-warning)."""
    from toolkit.services.quality.gate import warnings_of

    warnings = warnings_of(results)
    if not warnings:
        return
    failures = "; ".join(warning.describe_failures() for warning in warnings)
    log(f"replication: published on '{notifier.cluster.name}' although {failures} (its on-failure is warn).")
    if feed.notification is not None:
        notifier.notify(feed.notification, Notice(
            QUALITY_WARNING, "feed", feed.name, notifier.cluster.name, t, "replication", Status.SUCCEEDED,
            run_id=run_id, error=failures,
            rerun=rerun_command("replication", str(repo.root), "feed", feed.name, notifier.cluster.name, t)))
