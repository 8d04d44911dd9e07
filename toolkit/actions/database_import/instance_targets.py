"""Where an import writes an instance and how it is published, through the same staging as a process's outputs
(toolkit/services/staged_outputs/): a file feed's rows in a hidden staging folder beside the instance, swapped into
place with its availability flag; a table feed's rows in the partition of a staging table like the feed's, switched into
the feed's table. Beside the rows, the import's marker (`_toolkit_import.json`, hidden from every reader): what
the published instance holds, which the next run reads back after a kill."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Column, Feed
from toolkit.core.instances.feed_locations import FeedLocations
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget, file_output, staging_key, table_output
from toolkit.core.ledger.database_transfers import MARKER
from toolkit.core.ledger.records import PublishedOutput
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem
from toolkit.core.storage.tree import join
from toolkit.services.staged_outputs import file_outputs
from toolkit.services.staged_outputs import table_outputs as tables

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from toolkit.core.ledger.quality_results import GateResult
    from toolkit.core.storage.publish import Publication
    from toolkit.services.quality.gate import QualityGate

OUTPUT_NAME = "import"  # the name staging and records give the instance an import writes
ATTEMPT = 1  # one attempt per run: a failed import is called again by the scheduler


def import_key(feed: str, t: datetime) -> str:
    """The staging key of an import of `feed` at `t`: a killed run's staging is found by the next (which holds the
    import's lock), and nothing of a process writing the feed."""
    return staging_key(f"import:{feed}", t)


@dataclass
class FileTarget:
    """A file feed's instance."""

    fs: FileSystem
    output: FileOutput
    run_id: str

    def columns(self) -> tuple[Column, ...]:
        return self.output.feed.columns

    def clear(self) -> None:
        file_outputs.clear_leftovers(self.fs, self.output)

    def stage(self, spark: SparkSession, frame: DataFrame) -> None:
        frame.write.format(self.output.feed.storage_format).mode("overwrite").save(
            self.output.staging(self.run_id, ATTEMPT))

    def mark(self, marker: bytes) -> None:
        """The import's marker beside the staged rows."""
        self.fs.write_atomically(join(self.output.staging(self.run_id, ATTEMPT), MARKER), marker)

    def check(self, spark: SparkSession, gate: QualityGate) -> list[GateResult]:
        from toolkit.core.entities.model import quality_gates
        from toolkit.services.quality.frames import file_instance

        staging = self.output.staging(self.run_id, ATTEMPT)
        feed = self.output.feed
        return gate.check(feed, self.output.time, quality_gates(feed), staging,
                          lambda: file_instance(spark, self.fs, feed, staging))

    def publish(self, publication: Publication) -> PublishedOutput:
        return file_outputs.publish(self.fs, self.output, self.run_id, ATTEMPT, publication)

    def discard(self) -> None:
        file_outputs.discard(self.fs, self.output, self.run_id, ATTEMPT)

    def published_marker(self) -> bytes | None:
        return self.fs.read_if_exists(join(self.output.path, MARKER))


@dataclass
class TableTarget:
    """A table feed's partition: its columns are the table's data columns."""

    fs: FileSystem
    catalog: Catalog
    target: TableOutputTarget
    run_id: str

    def columns(self) -> tuple[Column, ...]:
        description = self.catalog.describe_table(self.target.database, self.target.table)
        return tuple(Column(name=column.name, type=column.type) for column in description.columns)

    def clear(self) -> None:
        """A killed run's staging table and folder go when the next stages (`prepare` drops them first)."""

    def stage(self, spark: SparkSession, frame: DataFrame) -> None:
        staged = tables.prepare(self.catalog, self.fs, self.target)
        view = f"feed_toolkit_import_{self.target.key}"
        frame.createOrReplaceTempView(view)
        try:
            spec = ", ".join(f"`{key}` = '{value}'" for key, value in self.target.partition.items())
            spark.sql(f"INSERT OVERWRITE TABLE `{staged.database}`.`{staged.table}` PARTITION ({spec}) "
                      f"SELECT * FROM `{view}`")
        finally:
            spark.catalog.dropTempView(view)

    def mark(self, marker: bytes) -> None:
        """The import's marker beside the staged partition's files."""
        _, directory, _ = tables.staged_partition(self.catalog, self.fs, self.target)
        self.fs.write_atomically(join(directory, MARKER), marker)

    def check(self, spark: SparkSession, gate: QualityGate) -> list[GateResult]:
        from toolkit.core.entities.model import quality_gates
        from toolkit.services.quality.frames import table_partition

        values, directory, table_format = tables.staged_partition(self.catalog, self.fs, self.target)
        qualified = f"{self.target.database}.{self.target.staging_table}"
        feed = self.target.feed
        return gate.check(feed, self.target.time, quality_gates(feed), directory,
                          lambda: table_partition(spark, self.fs, table_format, qualified, directory, values))

    def publish(self, publication: Publication) -> PublishedOutput:
        return tables.publish(self.catalog, self.fs, self.target, self.run_id, publication)

    def discard(self) -> None:
        tables.discard(self.catalog, self.fs, self.target)

    def published_marker(self) -> bytes | None:
        from toolkit.core.storage.partition_specs import full_spec

        info = self.catalog.table_info(self.target.database, self.target.table)
        where = self.catalog.partition_location(self.target.database, self.target.table,
                                                full_spec(info, self.target.partition))
        return self.fs.read_if_exists(join(where, MARKER)) if where else None


ImportTarget = FileTarget | TableTarget


def import_target(feed: Feed, where: FeedLocations, t: datetime, fs: FileSystem, catalog: Catalog | None,
                  run_id: str) -> ImportTarget:
    """The instance `t` of `feed` as an import writes it (`catalog`: the cluster's, for a table feed)."""
    key = import_key(feed.name, t)
    if where.is_table:
        assert catalog is not None
        return TableTarget(fs, catalog, table_output(OUTPUT_NAME, feed, where, t, key), run_id)
    return FileTarget(fs, file_output(OUTPUT_NAME, feed, where, t, key), run_id)
