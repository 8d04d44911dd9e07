"""OpenLineage run events as JSON objects, built with the client's own facet classes (so the spec's names and
schema URLs are the client's), plus the toolkit's custom facets (facets.py).

A feed used by a run is one dataset (naming.py); the instances it read or wrote are the spec's subset facet of
it (their locations, or their table partitions) and the toolkit's `feedToolkit_instances` facet (times and
fingerprints). Outputs carry output statistics; a retention's deletions carry the lifecycle change DROP; instances
checked by data-quality gates carry the spec's data quality assertions (on the output dataset's `facets`, which
describe its data, or an input's `inputFacets` when a check reads published data). A failed run's errorMessage is
masked (toolkit/secrets_masking.py): a password the error quotes is never sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from toolkit import __version__
from toolkit.core.ledger.records import iso_instant
from toolkit.secrets_masking import masked
from toolkit.services.openlineage.facets import INSTANCES_FACET, RUN_FACET, custom_facet
from toolkit.services.openlineage.facts import DatasetUse, RunFacts

ASSERTIONS_FACET = "dataQualityAssertions"
PRODUCER = f"https://github.com/feed-toolkit/feed-toolkit/tree/v{__version__}"
START, COMPLETE, FAIL, ABORT = "START", "COMPLETE", "FAIL", "ABORT"


def run_event(facts: RunFacts, state: str, when: datetime, inputs: Sequence[DatasetUse],
              outputs: Sequence[DatasetUse], *, status: str | None = None, error: str | None = None) -> dict[str, Any]:
    """One event of the run `facts` describes, in the spec's JSON. Each facet is made JSON as it is built, so the
    event is never walked whole again. START names the input datasets and the output instances it will write; the
    run's end carries every instance with its time and fingerprint, once: a backend merges the two."""
    run_facets = _run_facets(facts, status, error)
    return {
        "eventType": state, "eventTime": iso_instant(when), "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": facts.run_uuid, "facets": run_facets},
        "job": {"namespace": facts.job.namespace, "name": facts.job.name, "facets": _job_facets(facts)},
        "inputs": [_input(use, state) for use in inputs],
        "outputs": [_output(use, state) for use in outputs],
    }


def _run_facets(facts: RunFacts, status: str | None, error: str | None) -> dict[str, Any]:
    from openlineage.client.facet_v2 import error_message_run, nominal_time_run, parent_run, processing_engine_run
    from openlineage.client.serde import Serde

    facets: dict[str, Any] = {
        "processing_engine": processing_engine_run.ProcessingEngineRunFacet(
            version=__version__, name="feed-toolkit", openlineageAdapterVersion=_client_version(),
            producer=PRODUCER),
        RUN_FACET: custom_facet("FeedToolkitRunRunFacet", PRODUCER, runId=facts.run_id, action=facts.action,
                                entity=facts.entity, cluster=facts.cluster, attempt=facts.attempt, status=status,
                                **facts.extra),
    }
    if facts.nominal is not None:
        facets["nominalTime"] = nominal_time_run.NominalTimeRunFacet(
            nominalStartTime=iso_instant(facts.nominal),
            nominalEndTime=iso_instant(facts.nominal_end) if facts.nominal_end else None, producer=PRODUCER)
    if facts.parent is not None:
        root = facts.parent.root
        facets["parent"] = parent_run.ParentRunFacet(
            run=parent_run.Run(runId=facts.parent.run_id),
            job=parent_run.Job(namespace=facts.parent.namespace, name=facts.parent.name),
            root=parent_run.Root(run=parent_run.RootRun(runId=root.run_id),
                                 job=parent_run.RootJob(namespace=root.namespace, name=root.name))
            if root is not None else None, producer=PRODUCER)
    if error is not None:
        facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
            message=masked(error), programmingLanguage="python", producer=PRODUCER)
    return {key: Serde.to_dict(value) if not isinstance(value, dict) else value for key, value in facets.items()}


def _job_facets(facts: RunFacts) -> dict[str, Any]:
    from openlineage.client.facet_v2 import job_type_job, sql_job
    from openlineage.client.serde import Serde

    facets: dict[str, Any] = {"jobType": job_type_job.JobTypeJobFacet(
        processingType="BATCH", integration="FEED_TOOLKIT", jobType=facts.action.upper().replace("-", "_"),
        producer=PRODUCER)}
    if facts.sql is not None:
        facets["sql"] = sql_job.SQLJobFacet(query=facts.sql, producer=PRODUCER)
    return {key: Serde.to_dict(value) for key, value in facets.items()}


def _input(use: DatasetUse, state: str) -> dict[str, Any]:
    """START names the dataset; the run's end says which instances, with their fingerprints as read, and the
    data-quality assertions checked against them."""
    from openlineage.client.generated import base_subset_dataset as subset

    facets: dict[str, Any] = {}
    if state != START and use.instances:  # a dataset of no feed (a database table) has no instances to name
        facets = {"subset": _subset(subset.InputSubsetInputDatasetFacet._get_schema(), "inputCondition", use),
                  INSTANCES_FACET: _instances("FeedToolkitInstancesInputDatasetFacet", use)}
    if state != START and use.assertions:
        facets[ASSERTIONS_FACET] = _assertions(use)
    return {"namespace": use.dataset.namespace, "name": use.dataset.name, "facets": {}, "inputFacets": facets}


def _output(use: DatasetUse, state: str) -> dict[str, Any]:
    from openlineage.client.facet_v2 import lifecycle_state_change_dataset as lifecycle
    from openlineage.client.facet_v2 import output_statistics_output_dataset as statistics
    from openlineage.client.generated import base_subset_dataset as subset
    from openlineage.client.serde import Serde

    output_facets: dict[str, Any] = {}
    if use.instances:  # a dataset of no feed (a database table) has no instances to name
        output_facets["subset"] = _subset(subset.OutputSubsetOutputDatasetFacet._get_schema(), "outputCondition", use)
        if state != START:
            output_facets[INSTANCES_FACET] = _instances("FeedToolkitInstancesOutputDatasetFacet", use)
    if state == COMPLETE and (use.rows, use.bytes, use.files) != (None, None, None):
        output_facets["outputStatistics"] = Serde.to_dict(statistics.OutputStatisticsOutputDatasetFacet(
            rowCount=use.rows, size=use.bytes, fileCount=use.files, producer=PRODUCER))
    facets: dict[str, Any] = {}
    if use.dropped:
        facets["lifecycleStateChange"] = Serde.to_dict(lifecycle.LifecycleStateChangeDatasetFacet(
            lifecycleStateChange=lifecycle.LifecycleStateChange.DROP, producer=PRODUCER))
    if use.columns is not None and state == COMPLETE:
        facets["columnLineage"] = dict(use.columns)
    if use.assertions and state != START:  # what the gates found, whether they let the instances through or not
        facets[ASSERTIONS_FACET] = _assertions(use)
    return {"namespace": use.dataset.namespace, "name": use.dataset.name, "facets": facets,
            "outputFacets": output_facets}


def _assertions(use: DatasetUse) -> dict[str, Any]:
    """The spec's data quality assertions facet of the gates' expectations."""
    from openlineage.client.generated import data_quality_assertions_dataset as quality
    from openlineage.client.serde import Serde

    return dict(Serde.to_dict(quality.DataQualityAssertionsDatasetFacet(assertions=[
        quality.Assertion(assertion=item.assertion, success=item.success, column=item.column,
                          severity=item.severity, name=item.name, actual=item.actual,
                          params=dict(item.params) if item.params else None)
        for item in use.assertions], producer=PRODUCER)))


def _subset(schema: str, key: str, use: DatasetUse) -> dict[str, Any]:
    """The spec's subset facet, written as JSON directly (a run may read thousands of instances: the client's
    classes would be walked once more to make them JSON): table partitions as its partition condition, anything
    else as locations."""
    partitions = [instance.partition for instance in use.instances]
    if use.instances and all(partitions):
        condition: dict[str, Any] = {"type": "partition", "partitions": [
            {"dimensions": dict(values or {}), "identifier": instance.location}
            for instance, values in zip(use.instances, partitions, strict=True)]}
    else:
        condition = {"type": "location", "locations": [instance.location for instance in use.instances]}
    return {"_producer": PRODUCER, "_schemaURL": schema, key: condition}


def _instances(facet: str, use: DatasetUse) -> dict[str, Any]:
    return custom_facet(facet, PRODUCER, feed=use.feed, instances=[
        {"time": i.time, "location": i.location, **({"fingerprint": i.fingerprint.to_json()} if i.fingerprint else {})}
        for i in use.instances])


def _client_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openlineage-python")
    except PackageNotFoundError:  # a vendored client: the events say so rather than guess
        return "unknown"


