"""The records one run of a process writes of an instance and its attempts: an attempt's record is written whole
from `AttemptFacts`; an instance's from `InstanceFacts`, keeping from the record before what they leave out (the
last success's time, inputs and definition, the start of the run), and a dead run's records closed KILLED."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone

from toolkit.actions.process_runner.attempt_facts import AttemptFacts, InstanceFacts
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.provenance import Provenance
from toolkit.core.instances.plan import InstancePlan
from toolkit.core.ledger.locks import Lease
from toolkit.core.ledger.records import (
    AttemptRecord,
    InstanceRecord,
    PublishedOutput,
    ReadInput,
    Written,
    wall_clock_stamp,
)
from toolkit.core.ledger.store import Ledger
from toolkit.statuses import Status


@dataclass(frozen=True)
class InstanceRecords:
    """The writer of a process's instance and attempt records for one run (`run_id`, of `kind` RUN or
    LATE_RERUN): its attempts name the `definition` it ran, and so does the instance once it succeeds."""

    ledger: Ledger
    process: str
    cluster: str
    run_id: str
    kind: str
    definition: Provenance

    def attempt(self, t: datetime, plan: InstancePlan, facts: AttemptFacts) -> None:
        """The attempt's record of the instance `t`: what it read (once it ran) and what `facts` say."""
        self.ledger.write_attempt(AttemptRecord(
            process=self.process, cluster=self.cluster, time=format_timestamp(t), attempt=facts.attempt,
            run_id=self.run_id, kind=self.kind, status=facts.status, started=facts.started_stamp,
            ended=facts.ended_stamp, error=facts.error,
            inputs=inputs_written(plan) if facts.status != Status.RUNNING else Written(ReadInput),
            outputs=facts.outputs_written(), counters=facts.counters(), quality=facts.quality_written(), job=facts.job,
            definition=self.definition))

    def instance(self, t: datetime, facts: InstanceFacts, plan: InstancePlan | None = None) -> None:
        """The instance's record as `facts` say, what they leave out kept from the record before (a success's inputs
        and definition from `plan`)."""
        previous = self.ledger.instance(self.process, t)
        now = _stamp(real_now())
        succeeded = previous.succeeded if previous is not None else None
        inputs = previous.inputs if previous is not None else Written(ReadInput)
        definition = previous.definition if previous is not None else None  # the last success's
        if facts.status == Status.SUCCEEDED and plan is not None:
            succeeded, inputs = now, inputs_written(plan)
            definition = self.definition
        self.ledger.write_instance(InstanceRecord(
            process=self.process, cluster=self.cluster, time=format_timestamp(t), status=facts.status,
            attempts=facts.attempts, run_id=self.run_id, updated=now,
            started=_stamp(facts.started) if facts.started else (previous.started if previous is not None else None),
            ended=_stamp(facts.ended) if facts.ended else None, error=facts.error, missing=list(facts.missing),
            inputs=inputs, outputs=Written.of(PublishedOutput, facts.outputs) if facts.outputs
            else previous.outputs if previous is not None else Written(PublishedOutput), succeeded=succeeded,
            definition=definition))

    def killed(self, t: datetime, lease: Lease) -> None:
        """A run that held the lock died (its lease expired): its open attempt and the instance become KILLED."""
        ended = wall_clock_stamp(lease.expires)
        for record in self.ledger.attempts(self.process, t):
            if record.run_id == lease.run_id and record.status == Status.RUNNING:
                self.ledger.write_attempt(replace(record, status=Status.KILLED, ended=ended, error=(
                    f"the run {lease.run_id} on {lease.holder} stopped renewing its lock; taken over by "
                    f"run {self.run_id}")))
        instance = self.ledger.instance(self.process, t)
        if instance is not None and instance.run_id == lease.run_id \
                and instance.status in (Status.RUNNING, Status.WAITING):
            self.ledger.write_instance(replace(instance, status=Status.KILLED, ended=ended, updated=ended))


def inputs_written(plan: InstancePlan) -> Written[ReadInput]:
    """What the plan's inputs read, as an attempt's record keeps it (`InputPlan.to_json`: the instances and their
    fingerprints, which ReadInput types)."""
    return Written(ReadInput, [item.to_json() for item in plan.inputs])


def real_now() -> datetime:
    """Records carry real instants (when an attempt started and ended), whatever clock measures timeouts."""
    return datetime.now(timezone.utc)


def _stamp(value: datetime) -> str:
    return wall_clock_stamp(value.timestamp())
