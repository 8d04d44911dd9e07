"""A process instance's, or a batch's, inputs and outputs as lineage datasets (toolkit/services/openlineage/): each
input feed with the instances the attempt read and their fingerprints as read (a batch: as their events recorded them),
each output feed with the instance it writes and, once published, what was written (files, bytes, the
fingerprint the dataset event recorded)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget
from toolkit.core.instances.plan import InstancePlan
from toolkit.core.ledger.batch_plan import BatchInput
from toolkit.core.ledger.records import PublishedOutput
from toolkit.services.openlineage.column_lineage import column_lineage
from toolkit.services.openlineage.events import PRODUCER
from toolkit.services.openlineage.facts import DatasetUse, InstanceUse
from toolkit.services.openlineage.naming import feed_dataset


def input_uses(plan: InstancePlan, cluster: Cluster) -> list[DatasetUse]:
    """One dataset per input feed, with its available instances (a missing optional one is not read)."""
    uses = []
    for item in plan.inputs:
        read = [InstanceUse(format_timestamp(state.time), state.location,
                            state.fingerprint)
                for state in item.checked_states if state.available]
        if read:
            uses.append(DatasetUse.of(item.feed, cluster, read))
    return uses


def batch_input_uses(repo: ConfigRepo, cluster: Cluster, inputs: Sequence[BatchInput]) -> list[DatasetUse]:
    """A batch's inputs: each feed with the instances the batch lists, as their events recorded them (location,
    fingerprint as published)."""
    return [DatasetUse.of(repo.feed(item.feed), cluster, [InstanceUse(event.time, event.location, event.fingerprint)
                                                          for event in item.events])
            for item in inputs if item.events]


def planned_output_uses(targets: Sequence[FileOutput | TableOutputTarget], cluster: Cluster) -> list[DatasetUse]:
    """The output instances an attempt is to write (an instance's plan's outputs, or a batch's targets)."""
    return [DatasetUse.at(output.feed, cluster, [output.time]) for output in targets]


def published_output_uses(repo: ConfigRepo, cluster: Cluster, published: Sequence[PublishedOutput],
                          fingerprints: Mapping[tuple[str, str], Fingerprint | None],
                          columns: Mapping[str, Mapping[str, Any]] | None = None) -> list[DatasetUse]:
    """`published`: the runner's published outputs; `fingerprints` by (feed, time) as recorded in their dataset
    events; `columns`: column lineage facets by output name."""
    uses = []
    for output in published:
        feed, t = repo.feed(output.feed), output.instance
        uses.append(DatasetUse.at(feed, cluster, [t], {t: fingerprints.get((feed.name, output.time))},
                                  bytes=output.bytes, files=output.files, columns=(columns or {}).get(output.name)))
    return uses


def sql_columns(source: str, plan: InstancePlan, cluster: Cluster) -> dict[str, dict[str, Any]]:
    """Column lineage of a spark-sql or hive workflow by output name
    (toolkit/services/openlineage/column_lineage.py)."""
    inputs = {item.name: feed_dataset(item.feed, cluster) for item in plan.inputs}
    outputs = {output.name: feed_dataset(output.feed, cluster) for output in plan.outputs}
    table_inputs = {item.name: f"{item.where.table.database}.{item.where.table.table}"
                    for item in plan.inputs if item.where.table is not None}
    table_outputs = {output.name: f"{output.database}.{output.table}" for output in plan.table_outputs}
    return column_lineage(source, inputs, outputs, table_inputs, table_outputs, producer=PRODUCER)
