"""The lineage of one entrypoint call: its runs' events built, sent and kept.

    lineage = Lineage.open(fs, cluster, run_id, parent)      # off (and free) unless the client is configured
    run = lineage.run(RunSubject("process", name, nominal=t, instance=key), attempt=2)
    run.start(inputs)                    # START
    run.complete(inputs, outputs)        # COMPLETE; or run.fail(error, ...) / run.abort(reason, ...)
    unsent = lineage.close()             # the events not sent (`lineage_unsent` in the status line)

Lineage never fails an action: a backend that does not answer, or a ledger that cannot keep the record, is a
line on stderr and a count in the status line.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import ToolkitError
from toolkit.services.openlineage.events import ABORT, COMPLETE, FAIL, START, run_event
from toolkit.services.openlineage.facts import DatasetUse, ParentRun, RunFacts, RunSubject
from toolkit.services.openlineage.naming import instance_run_id, job_name
from toolkit.services.openlineage.settings import LineageSettings, lineage_settings
from toolkit.services.openlineage.store import LineageBook, LineageRecord
from toolkit.services.openlineage.transport import Emitter
from toolkit.statuses import Status


class Lineage:
    def __init__(self, settings: LineageSettings | None, book: LineageBook | None, run_id: str, cluster: str,
                 parent: ParentRun | None = None, emitter: Emitter | None = None) -> None:
        self.settings, self.book, self.run_id, self.cluster, self.parent = settings, book, run_id, cluster, parent
        self.emitter = emitter if emitter is not None or settings is None else Emitter(settings.config)
        self.unsent = 0
        self._sending = threading.Lock()  # a catch-up replication runs instances in threads: one send at a time

    @classmethod
    def open(cls, fs: FileSystem, cluster: Cluster, run_id: str, parent: ParentRun | None = None,
             environ: Mapping[str, str] | None = None) -> Lineage:
        settings = lineage_settings(cluster, environ)
        book = LineageBook(fs, LedgerLayout.of(cluster)) if settings is not None else None
        return cls(settings, book, run_id, cluster.name, parent)

    @classmethod
    def off(cls) -> Lineage:
        return cls(None, None, "", "")

    @property
    def enabled(self) -> bool:
        return self.settings is not None

    def run(self, subject: RunSubject, *, attempt: int | None = None, sql: str | None = None,
            extra: Mapping[str, Any] | None = None, definition: Provenance | None = None) -> RunLineage:
        """One run (an attempt) of `subject`. Its instance (a time or a batch) is its parent, unless the call came
        with a parent of its own (Airflow's task): then the instance's run id is in the toolkit's facet.
        `definition` (the one the run ran: core/entities/provenance.py) is in the toolkit's facet too."""
        if self.settings is None:
            return RunLineage(self, None)
        from openlineage.client.uuid import generate_new_uuid

        job = job_name(self.settings.namespace, subject.action, subject.entity)
        instance = subject.instance
        parent, details = self.parent, dict(extra or {})
        if definition is not None:
            details.update(configCommit=definition.commit, configDirty=definition.dirty,
                           definitionHash=definition.definition)
        if instance is not None:
            shared = instance_run_id(job, instance)
            details.update(instance=instance, instanceRunId=shared)
            if parent is None:
                parent = ParentRun(job.namespace, job.name, shared)
        facts = RunFacts(job, str(generate_new_uuid()), self.run_id, subject.action, subject.entity, self.cluster,
                         subject.nominal, subject.nominal_end, attempt, parent, sql, details)
        return RunLineage(self, facts)

    def deliver(self, record: LineageRecord, event: dict[str, Any], last: bool) -> LineageRecord:
        """Send `event`, keep it in the run's record, count it when it was not sent. The record is written at the
        run's `last` event, and before it only when an event was not sent: a run killed in between leaves in the
        ledger every event the backend did not take."""
        assert self.emitter is not None and self.book is not None
        with self._sending:
            sent = self.emitter.send(event)
            self.unsent += 0 if sent else 1
        record = record.with_event(event, sent)
        if not last and sent:
            return record
        try:
            self.book.save(record)
        except (ToolkitError, OSError) as err:
            print(f"lineage: the ledger could not keep the events of run {record.run}: {err}", file=sys.stderr,
                  flush=True)
        return record

    def close(self) -> int | None:
        """Wait for the events in flight; how many the backend did not take, None when lineage is off."""
        if self.emitter is None:
            return None
        self.emitter.close()
        return self.unsent


class RunLineage:
    """The events of one run; every method does nothing when lineage is off."""

    def __init__(self, lineage: Lineage, facts: RunFacts | None) -> None:
        self.lineage, self.facts = lineage, facts
        self.record = LineageRecord(facts.run_uuid, _now()) if facts is not None else None

    def start(self, inputs: Sequence[DatasetUse] = (), outputs: Sequence[DatasetUse] = ()) -> None:
        self._event(START, inputs, outputs, Status.RUNNING)

    def complete(self, inputs: Sequence[DatasetUse], outputs: Sequence[DatasetUse],
                 status: Status = Status.SUCCEEDED) -> None:
        self._event(COMPLETE, inputs, outputs, status)

    def fail(self, error: str, inputs: Sequence[DatasetUse] = (), outputs: Sequence[DatasetUse] = (),
             status: Status = Status.FAILED) -> None:
        self._event(FAIL, inputs, outputs, status, error)

    def abort(self, reason: str, inputs: Sequence[DatasetUse] = (), outputs: Sequence[DatasetUse] = (),
              status: Status = Status.KILLED) -> None:
        self._event(ABORT, inputs, outputs, status, reason)

    def _event(self, state: str, inputs: Sequence[DatasetUse], outputs: Sequence[DatasetUse], status: Status,
               error: str | None = None) -> None:
        if self.facts is None or self.record is None:
            return
        event = run_event(self.facts, state, _now(), inputs, outputs, status=status, error=error)
        self.record = self.lineage.deliver(self.record, event, last=state != START)


def _now() -> datetime:
    return datetime.now(timezone.utc)
