"""A process's workflow run into its outputs' staging places, then every output published atomically, all or none,
each step after a check of the lease, and a dataset event recorded for each: shared by instances and batches. A
failed attempt's staging is discarded here too."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from toolkit.actions.process_runner.quality_checks import OutputChecks
from toolkit.actions.process_runner.run_results import InstanceResult
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.provenance import Provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget
from toolkit.core.instances.plan import InstancePlan
from toolkit.core.ledger.locks import LeaseKeeper
from toolkit.core.ledger.records import PublicationFacts, PublishedOutput
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.publish import Publication
from toolkit.errors import ToolkitError
from toolkit.extensions.workflow_engines.context import (
    TableInput,
    TableOutput,
    WorkflowContext,
    evaluate_properties,
    falcon_properties,
    workflow_inputs,
)
from toolkit.extensions.workflow_engines.preparation import JobJournal, PreparedWorkflow, RemoteJobWorkflow
from toolkit.services.quality.gate import require_passing
from toolkit.services.staged_outputs import table_outputs as tables
from toolkit.services.staged_outputs.file_outputs import NothingWrittenError, discard, missing_staging, publish

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class Publishing:
    """The workflow of `process` on `cluster` run by this run (`run_id`) and its outputs published through `fs`
    and `catalog` (opened only for a table output), recorded in `ledger` with the run's `definition`."""

    repo: ConfigRepo
    process: Process
    cluster: Cluster
    fs: FileSystem
    spark: SparkSession | None
    catalog: Callable[[], Catalog]
    ledger: Ledger
    workflow: PreparedWorkflow | RemoteJobWorkflow
    checks: OutputChecks
    run_id: str
    definition: Provenance
    zone: ZoneInfo
    log: Callable[[str], None]

    @property
    def owner(self) -> str:
        return f"process '{self.process.name}'"

    def run_and_publish(self, attempt: int, targets: tuple[FileOutput | TableOutputTarget, ...],
                        make_context: Callable[[dict[str, str | TableOutput]], WorkflowContext], keeper: LeaseKeeper,
                        result: InstanceResult, *, staged: tuple[str, int],
                        journal: JobJournal) -> list[PublishedOutput]:
        """Run the workflow with the context `make_context` gives for the outputs' staging places, then publish
        every output atomically, all or none, each step after a check of the lease; the published outputs. Raises
        what failed (the caller discards the staging). `staged`: the run and attempt whose staging the workflow
        writes (this run's `attempt`; a followed job's is its killed run's); `journal`: where a workflow that runs
        as another server's job records it; `result` is told the workflow's time and the gates' results."""
        run_id, staged_attempt = staged
        if self.spark is None:
            raise ToolkitError("process.py needs a Spark session to run a workflow.")
        file_outputs = [o for o in targets if isinstance(o, FileOutput)]
        table_outputs = [o for o in targets if isinstance(o, TableOutputTarget)]
        began = time.perf_counter()
        result.quality = []
        outputs: dict[str, str | TableOutput] = {output.name: output.staging(run_id, staged_attempt)
                                                 for output in file_outputs}
        for target in table_outputs:
            outputs[target.name] = tables.prepare(self.catalog(), self.fs, target)
        if isinstance(self.workflow, RemoteJobWorkflow):
            self.workflow.run_job(make_context(outputs), journal)
        else:
            self.workflow.run(self.spark, make_context(outputs))
        result.workflow_seconds += time.perf_counter() - began
        keeper.ensure_held()
        problems = [p for p in (*(missing_staging(self.fs, o, run_id, staged_attempt) for o in file_outputs),
                                *(tables.missing_partition(self.catalog(), self.fs, o) for o in table_outputs)) if p]
        if problems:  # every output is checked before any is published
            raise NothingWrittenError(problems[0])
        result.quality = self.checks.check(self.spark, file_outputs, table_outputs, run_id, staged_attempt)
        require_passing(result.quality)  # a `block` failure publishes nothing
        keeper.ensure_held()
        with Publication(self.fs, guard=keeper.ensure_held) as publication:  # all or none
            published = [publish(self.fs, output, run_id, staged_attempt, publication) for output in file_outputs]
            published += [tables.publish(self.catalog(), self.fs, target, f"{self.run_id}-{attempt}-{target.name}",
                                         publication) for target in table_outputs]
        return published

    def record_events(self, outputs: Sequence[PublishedOutput], run_id: str,
                      missing_only: bool = False) -> dict[tuple[str, str], Fingerprint | None]:
        """One dataset event per published output instance, with its fingerprint as it is now. `missing_only`
        (an instance found SUCCEEDED): only the events a run killed after its success record did not write.
        The fingerprints recorded, by (feed, time)."""
        recorded_fingerprints: dict[tuple[str, str], Fingerprint | None] = {}
        for output in outputs:
            feed, instance = self.repo.feed(output.feed), output.instance
            recorded = [event for event in self.ledger.events(feed.name, instance)
                        if event.run_id == run_id] if missing_only else []
            if recorded:
                for event in recorded:  # its journal entry may be what the killed run did not write
                    self.ledger.journal.ensure(event)
                continue
            where = feed_locations(feed, self.cluster)
            state = probe_instance(self.fs, where, feed.availability_flag, self.catalog, instance)
            if missing_only and not state.available:
                continue  # gone since (evicted, or replaced by hand): nothing of that publication to record
            fingerprint = state.fingerprint
            recorded_fingerprints[(feed.name, output.time)] = fingerprint
            self.ledger.record_publication(PublicationFacts(feed.name, self.cluster.name, instance,
                                                            producer=f"process:{self.process.name}", run_id=run_id,
                                                            location=where.event_location(instance),
                                                            fingerprint=fingerprint,
                                                            definition=self.definition), unless_recorded=missing_only)
        return recorded_fingerprints

    def discard(self, targets: tuple[FileOutput | TableOutputTarget, ...], attempt: int,
                staged: tuple[str, int] | None = None) -> None:
        """Best effort: a failed attempt leaves no staging behind (what remains, the next attempt clears);
        `staged` as in `run_and_publish`."""
        run_id, staged_attempt = staged or (self.run_id, attempt)
        for output in (o for o in targets if isinstance(o, FileOutput)):
            try:
                discard(self.fs, output, run_id, staged_attempt)
            except StorageError as err:
                self.log(f"process: could not delete the staging of output '{output.name}': {err}")
        for target in (o for o in targets if isinstance(o, TableOutputTarget)):
            try:
                tables.discard(self.catalog(), self.fs, target)
            except ToolkitError as err:
                self.log(f"process: could not drop the staging table of output '{target.name}': {err}")

    def context(self, t: datetime, attempt: int, plan: InstancePlan,
                outputs: dict[str, str | TableOutput]) -> WorkflowContext:
        """What the workflow of the instance `t` is given: its inputs, its outputs' staging places, its properties."""
        inputs = workflow_inputs(plan)
        return WorkflowContext(self.process.name, self.cluster.name, t, self.run_id, attempt, inputs, outputs,
                               self.properties(t, inputs, outputs))

    def properties(self, t: datetime, inputs: Mapping[str, tuple[str, ...] | TableInput],
                   outputs: Mapping[str, str | TableOutput]) -> dict[str, str]:
        """Falcon's names, then the cluster's properties, then the process's, EL evaluated at `t`."""
        properties = {**evaluate_properties(self.cluster.properties, t, self.zone, f"cluster '{self.cluster.name}'"),
                      **evaluate_properties(self.process.properties, t, self.zone, self.owner)}
        return {**falcon_properties(inputs, outputs, t), **properties}
