"""The OpenLineage run of one attempt of a process (an instance or a batch): started with what it reads and plans to
write, completed with what it published, its quality gates' assertions and a SQL workflow's column lineage."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.actions.process_runner.lineage_uses import planned_output_uses, published_output_uses, sql_columns
from toolkit.actions.process_runner.quality_checks import OutputChecks
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.provenance import Provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.instances.grids import process_grid
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget
from toolkit.core.instances.plan import InstancePlan
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import PublishedOutput
from toolkit.services.openlineage.facts import DatasetUse, RunSubject
from toolkit.services.openlineage.run import Lineage, RunLineage


@dataclass(frozen=True)
class AttemptLineage:
    """The lineage runs of a process's attempts on `cluster`, each carrying the `definition` and the workflow's `sql`
    (None for a workflow that is not SQL)."""

    lineage: Lineage
    repo: ConfigRepo
    process: Process
    cluster: Cluster
    sql: str | None
    definition: Provenance
    checks: OutputChecks

    def start(self, t: datetime, attempt: int, instance: str, inputs: Callable[[], list[DatasetUse]],
              targets: Sequence[FileOutput | TableOutputTarget]) -> tuple[RunLineage, list[DatasetUse]]:
        """The lineage of one attempt, started with the `inputs` it reads (computed only when lineage is on) and
        the `targets` it writes: the run, and those inputs."""
        lineage = self.run(t, attempt, instance)
        if not self.lineage.enabled:
            return lineage, []
        read = inputs()
        lineage.start(read, planned_output_uses(targets, self.cluster))
        return lineage, read

    def complete(self, lineage: RunLineage, inputs: list[DatasetUse], published: list[PublishedOutput],
                 fingerprints: Mapping[tuple[str, str], Fingerprint | None], plan: InstancePlan | None = None,
                 quality: Sequence[GateResult] = ()) -> None:
        """COMPLETE with what was published and what its quality gates found; with the instance's `plan`, a SQL
        workflow's column lineage too."""
        if self.lineage.enabled:
            columns = sql_columns(self.sql, plan, self.cluster) if plan is not None and self.sql is not None else None
            uses = published_output_uses(self.repo, self.cluster, published, fingerprints, columns)
            lineage.complete(inputs, self.checks.with_assertions(uses, quality))

    def run(self, t: datetime, attempt: int, instance: str) -> RunLineage:
        """The lineage of one attempt (of an instance at `t`, or of a batch named `instance`)."""
        grid = None if self.process.is_batch_consumer else process_grid(self.process, self.cluster.name)
        index = grid.index_of(t) if grid is not None else None
        step = grid.time_of(index + 1) if grid is not None and index is not None else None
        return self.lineage.run(RunSubject("process", self.process.name, nominal=t, nominal_end=step,
                                           instance=instance), attempt=attempt, sql=self.sql,
                                definition=self.definition)
