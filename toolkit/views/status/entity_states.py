"""The state of processes and feeds on a cluster, as `toolkit status --cluster C` (without --process) lists them and
`toolkit entity-status` tells one: Falcon's entity status read from the repo and the cluster's ledger, and
Falcon's `-list`/`-search` filters (tags, pipelines, name subsequence, state).

The states keep Falcon's names (AbstractEntityManager.EntityStatus):
- SUSPENDED: `toolkit suspend` set the entity's switch in the cluster's ledger; its actions exit 4.
- COMPLETED: the entity's validity on the cluster has ended (its end is at or before now): no instance is left.
- RUNNING: otherwise (also before its validity starts, as a scheduled Falcon coordinator waits for its start).
Falcon's SUBMITTED (defined, not scheduled) has no counterpart: what the scheduler calls is the schedule's to say.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.control import Switch
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.views.ledger_access import Now
from toolkit.views.status.instance_rows import instance_rows

SUSPENDED, COMPLETED, RUNNING = "SUSPENDED", "COMPLETED", "RUNNING"
STATES = (RUNNING, SUSPENDED, COMPLETED)
KINDS = ("process", "feed")


@dataclass(frozen=True)
class LastInstance:
    """The newest instance the ledger knows of (at or before now): a process's record, a feed's dataset event."""

    time: datetime
    status: str  # a process: its status as `toolkit status` shows it; a feed: its last event's kind

    def to_json(self) -> dict[str, object]:
        return {"time": format_timestamp(self.time), "status": self.status}


@dataclass(frozen=True)
class EntityState:
    kind: str
    name: str
    cluster: str
    state: str
    validity: tuple[datetime, datetime]
    suspension: Switch
    tags: tuple[tuple[str, str], ...]
    pipelines: tuple[str, ...]
    last: LastInstance | None

    def to_json(self) -> dict[str, object]:
        switch = self.suspension
        return {"kind": self.kind, "name": self.name, "cluster": self.cluster, "state": self.state,
                "validity": {"start": format_timestamp(self.validity[0]), "end": format_timestamp(self.validity[1])},
                "suspended": {"since": switch.since, "by": switch.by, "reason": switch.reason} if switch.on else None,
                "tags": dict(self.tags), "pipelines": list(self.pipelines),
                "last_instance": self.last.to_json() if self.last is not None else None}


@dataclass(frozen=True)
class Filters:
    """Falcon's `-list`/`-search` filters; an empty one lets everything through."""

    kinds: tuple[str, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()  # every one must be the entity's (Falcon: all tags)
    pipelines: tuple[str, ...] = ()  # one of them must be the process's (Falcon: any pipeline)
    name: str | None = None  # a subsequence of the name, case ignored (Falcon's -nameseq)
    states: tuple[str, ...] = ()

    @classmethod
    def of(cls, kind: str | None, tags: Sequence[str], pipelines: Sequence[str], name: str | None,
           states: Sequence[str]) -> Filters:
        """The filters of the command line: values may repeat the option or be comma-separated (Falcon's)."""
        if kind is not None and kind not in KINDS:
            raise UsageError(f"Unknown --kind {kind!r}: use process or feed.")
        pairs = []
        for item in _split(tags):
            key, equals, value = item.partition("=")
            if not equals or not key.strip():
                raise UsageError(f"--tags {item!r} is not key=value: give a tag as the entity's YAML has it, "
                                 "e.g. --tags owner=web-analytics.")
            pairs.append((key.strip(), value.strip()))
        wanted_states = tuple(state.upper() for state in _split(states))
        unknown = [state for state in wanted_states if state not in STATES]
        if unknown:
            hint = (" (Falcon's SUBMITTED has no counterpart: every entity of the repo is scheduled by its schedule)"
                    if "SUBMITTED" in unknown else "")
            raise UsageError(f"Unknown --state {', '.join(unknown)}: use {', '.join(STATES)}{hint}.")
        if name is not None and not name.strip():
            raise UsageError("--name is empty: give letters of the entity's name.")
        return cls((kind,) if kind else (), tuple(pairs), tuple(_split(pipelines)), name, wanted_states)

    @property
    def given(self) -> bool:
        return bool(self.kinds or self.tags or self.pipelines or self.name is not None or self.states)

    def admits(self, entity: Process | Feed) -> bool:
        """Whether the entity passes every filter but the state (which needs the ledger)."""
        kind = entity.kind.value
        if self.kinds and kind not in self.kinds:
            return False
        if any(entity.tags.get(key) != value for key, value in self.tags):
            return False
        if self.pipelines and not (isinstance(entity, Process) and set(self.pipelines) & set(entity.pipelines)):
            return False  # a feed has no pipelines (Falcon refuses the filter for feeds; here they are left out)
        return self.name is None or is_subsequence(self.name.lower(), entity.name.lower())


def _split(values: Iterable[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def is_subsequence(letters: str, name: str) -> bool:
    """`letters` appear in `name` in order, not necessarily adjacent (Falcon's matchesNameSubsequence)."""
    remaining = iter(name)
    return all(letter in remaining for letter in letters)


def entity_state(config: ConfigRepo, entity: Process | Feed, cluster: Cluster, ledger: Ledger, now: Now) \
        -> EntityState:
    """The entity's state on `cluster` (a UsageError when it is not defined there)."""
    on = require_on_cluster(entity, cluster.name)
    kind = entity.kind.value
    suspension = ledger.control.suspension(kind, entity.name)
    state = SUSPENDED if suspension.on else COMPLETED if on.validity.end <= now.time else RUNNING
    last = _last_process_instance(config, entity, cluster, ledger, now) if isinstance(entity, Process) else \
        _last_feed_instance(entity, ledger, now)
    pipelines = entity.pipelines if isinstance(entity, Process) else ()
    return EntityState(kind, entity.name, cluster.name, state, (on.validity.start, on.validity.end), suspension,
                       tuple(sorted(entity.tags.items())), pipelines, last)


def _last_process_instance(config: ConfigRepo, process: Process, cluster: Cluster, ledger: Ledger, now: Now) \
        -> LastInstance | None:
    times = [t for t in ledger.recorded_times(process.name) if t <= now.time]
    if not times:
        return None
    row = instance_rows(config, process, cluster, ledger, [max(times)], now.seconds, with_missing=False)[0]
    return LastInstance(row.time, row.status)


def _last_feed_instance(feed: Feed, ledger: Ledger, now: Now) -> LastInstance | None:
    times = [t for t in ledger.feed_event_times(feed.name) if t <= now.time]
    if not times:
        return None
    events = ledger.events(feed.name, max(times))
    return LastInstance(max(times), events[-1].kind if events else "-")


def cluster_entities(config: ConfigRepo, cluster: Cluster, filters: Filters) -> list[Process | Feed]:
    """The processes, then the feeds, defined on the cluster that pass the filters (but the state), by name."""
    processes: list[Process | Feed] = [p for _, p in sorted(config.processes.items())
                                       if p.cluster(cluster.name) is not None and filters.admits(p)]
    feeds = [f for _, f in sorted(config.feeds.items()) if f.cluster(cluster.name) is not None and filters.admits(f)]
    return processes + feeds


def list_states(config: ConfigRepo, cluster: Cluster, ledger: Ledger, now: Now, filters: Filters) \
        -> list[EntityState]:
    entities = cluster_entities(config, cluster, filters)
    states = (entity_state(config, entity, cluster, ledger, now) for entity in entities)
    return [state for state in states if not filters.states or state.state in filters.states]
