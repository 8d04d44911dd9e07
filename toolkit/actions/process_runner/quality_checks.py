"""The data-quality gates of a process's outputs (toolkit/services/quality/): every output the workflow staged is
checked against its feed's suite and its own, after the workflow and before any output is published, so that a `block`
failure publishes nothing (the attempt fails and the retry policy applies). Outputs without a gate are not read
and Great Expectations is not imported."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from toolkit.actions.process_runner.lineage_uses import planned_output_uses
from toolkit.core.entities.model import Cluster, Process, Quality, quality_gates
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.quality.assertions import assertions_of
from toolkit.services.quality.frames import file_instance, table_partition
from toolkit.services.quality.gate import QualityGate
from toolkit.services.staged_outputs import table_outputs as tables

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class OutputChecks:
    def __init__(self, repo: ConfigRepo, process: Process, fs: FileSystem, catalog: Callable[[], Catalog],
                 log: Callable[[str], None]) -> None:
        self.fs, self.catalog = fs, catalog
        self.gate = QualityGate(repo.root, log)
        self.gates: dict[str, tuple[Quality, ...]] = {
            output.name: quality_gates(repo.feed(output.feed), output) for output in process.outputs}
        for gates in self.gates.values():  # a missing or broken suite is exit 2 before the workflow runs
            for gate in gates:
                self.gate.suite(gate.suite)

    def check(self, spark: SparkSession, file_outputs: Sequence[FileOutput],
              table_outputs: Sequence[TableOutputTarget], run_id: str, attempt: int) -> list[GateResult]:
        """Every gate of every staged output, all of them run (a report names every failure, not the first)."""
        results: list[GateResult] = []
        for output in file_outputs:
            staging = output.staging(run_id, attempt)
            results += self.gate.check(output.feed, output.time, self.gates.get(output.name, ()), staging,
                                       partial(file_instance, spark, self.fs, output.feed, staging))
        for target in table_outputs:
            gates = self.gates.get(target.name, ())
            if not gates:
                continue
            values, directory, table_format = tables.staged_partition(self.catalog(), self.fs, target)
            qualified = f"{target.database}.{target.staging_table}"
            results += self.gate.check(target.feed, target.time, gates, directory,
                                       partial(table_partition, spark, self.fs, table_format, qualified, directory,
                                               values))
        return results

    @staticmethod
    def with_assertions(uses: Sequence[DatasetUse], results: Sequence[GateResult]) -> list[DatasetUse]:
        """`uses` (one instance each), with the assertions of the gates their instance was checked against."""
        return [replace(use, assertions=assertions_of(
            result for result in results
            if result.feed == use.feed and result.time in {instance.time for instance in use.instances}))
            for use in uses]

    def checked_uses(self, targets: Sequence[FileOutput | TableOutputTarget], cluster: Cluster,
                     results: Sequence[GateResult]) -> list[DatasetUse]:
        """The outputs an attempt that failed its gates was to write, with what the gates found ([] when no gate
        ran: the failure was elsewhere)."""
        return self.with_assertions(planned_output_uses(targets, cluster), results) if results else []
