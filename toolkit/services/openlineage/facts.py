"""What a run did, in the toolkit's terms: the facts events.py turns into OpenLineage events. Immutable, so a
run's START and its end are built from the same job, run and parent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.services.openlineage.naming import DatasetName, JobName, feed_dataset, path_dataset
from toolkit.uris import normalize_uri


@dataclass(frozen=True)
class InstanceUse:
    """A feed instance read or written: its time (yyyy-MM-ddTHH:mmZ), where it is (a path URI, or
    `db.table/k=v` as dataset events write it) and its fingerprint when known."""

    time: str
    location: str
    fingerprint: Fingerprint | None = None

    @property
    def partition(self) -> dict[str, str] | None:
        """A table instance's partition values, from its `db.table/k1=v1/k2=v2` location."""
        if "://" in self.location or "/" not in self.location:
            return None
        return dict(part.split("=", 1) for part in self.location.split("/")[1:] if "=" in part)


@dataclass(frozen=True)
class QualityAssertion:
    """One expectation of a data-quality gate checked against the dataset's instances: the spec's assertion (its
    `assertion` the expectation's type, `severity` error for a blocking gate, warn otherwise)."""

    assertion: str
    success: bool
    column: str | None = None
    severity: str | None = None
    name: str | None = None  # the suite
    actual: str | None = None  # the observed value, or how many rows broke it
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class DatasetUse:
    """One feed on one cluster as a run used it: the instances, and for outputs what was written. `dropped`:
    the instances were deleted (retention)."""

    feed: str
    dataset: DatasetName
    instances: tuple[InstanceUse, ...]
    rows: int | None = None
    bytes: int | None = None
    files: int | None = None
    dropped: bool = False
    columns: Mapping[str, Any] | None = None  # the spec's column lineage facet's `fields`
    assertions: tuple[QualityAssertion, ...] = ()  # the data-quality gates it was checked against

    @classmethod
    def of(cls, feed: Feed, cluster: Cluster, instances: Iterable[InstanceUse], **written: Any) -> DatasetUse:
        return cls(feed.name, feed_dataset(feed, cluster), tuple(instances), **written)

    @classmethod
    def at(cls, feed: Feed, cluster: Cluster, times: Iterable[datetime],
           fingerprints: Mapping[datetime, Fingerprint | None] | None = None, **written: Any) -> DatasetUse:
        """`feed` on `cluster` with its instances at `times`, located as its dataset events locate them, with
        their `fingerprints` where known."""
        where = feed_locations(feed, cluster)
        known = fingerprints or {}
        return cls.of(feed, cluster, [InstanceUse(format_timestamp(t), where.event_location(t), known.get(t))
                                      for t in times], **written)

    @classmethod
    def table(cls, owner: str, dataset: DatasetName, **written: Any) -> DatasetUse:
        """A dataset that holds no feed's instances (a database table an import reads or an export writes), named
        by `owner` (its datasource) in the run's facets."""
        return cls(owner, dataset, (), **written)

    @classmethod
    def folder(cls, feed: str, uri: str, t: datetime | None, **written: Any) -> DatasetUse:
        """A folder outside the feed's locations that holds an instance of `feed` (a Hive export), named by its
        path; `t`: the instance's time when known."""
        return cls(feed, path_dataset(uri), (InstanceUse(format_timestamp(t) if t else "", normalize_uri(uri)),),
                   **written)


@dataclass(frozen=True)
class ParentRun:
    """The run that started this one (Airflow's task, or the instance of an attempt), and the root of the chain."""

    namespace: str
    name: str
    run_id: str
    root: ParentRun | None = None


@dataclass(frozen=True)
class RunSubject:
    """What a run is of: the toolkit's `action` (the job's prefix: `compact`, `process`) on `entity`, for the
    nominal time `nominal` (to `nominal_end` when the run covers a window), as the `instance` of it that its
    parent run names (its time, or a batch; None: a run of no instance, a retention's cadence)."""

    action: str
    entity: str
    nominal: datetime | None = None
    nominal_end: datetime | None = None
    instance: str | None = None


@dataclass(frozen=True)
class RunFacts:
    """One run (one attempt) of one action on one entity. `run_uuid` is the OpenLineage run id; `run_id` the
    toolkit's own (the status line's, the ledger's)."""

    job: JobName
    run_uuid: str
    run_id: str
    action: str
    entity: str
    cluster: str
    nominal: datetime | None = None
    nominal_end: datetime | None = None
    attempt: int | None = None
    parent: ParentRun | None = None
    sql: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # more of the toolkit's facet: a batch, an instance
