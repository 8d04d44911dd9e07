"""What a batch consumer's runs did with one batch (plan `seq` of its queue, consumption.py), beside its
instances' records:

    processes/<process>/batches/<seq>/attempt-NNN.json   one per attempt (from 001, across runs)
    processes/<process>/batches/<seq>/batch.json         the batch's current state: its last attempt's record

The plan and its commit (consumers/<process>/) decide what is consumed; these records say how each try went,
and `batch.json` SUCCEEDED tells a replay that the outputs were published (only the events and the commit are
left to write).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import (
    STATUSES,
    AttemptJob,
    Counters,
    PublishedOutput,
    ReadInput,
    Stamp,
    Written,
    inputs_read,
    nothing_written,
    parse_record,
    published_outputs,
    to_json,
)
from toolkit.core.ledger.store import Ledger
from toolkit.statuses import Status


@dataclass(frozen=True)
class BatchRecord:
    """One attempt at batch `seq`: `events` are the plan's event ids; `inputs` per input name its feed and the
    instances consumed (`time`, `event_id`, `location`); `outputs` as the process runner records them."""

    process: str
    cluster: str
    seq: int
    attempt: int
    run_id: str
    status: Annotated[Status, STATUSES]
    started: Stamp
    ended: Stamp | None = None
    error: str | None = None
    events: list[str] = field(default_factory=list)
    inputs: Written[ReadInput] = field(default_factory=nothing_written(ReadInput))  # typed by inputs_read()
    outputs: Written[PublishedOutput] = field(default_factory=nothing_written(PublishedOutput))  # typed: published()
    counters: Counters = field(default_factory=dict)
    quality: Written[GateResult] = field(default_factory=nothing_written(GateResult))  # the outputs' quality gates
    job: AttemptJob | None = None  # the job of another server the attempt runs as, as AttemptRecord.job
    definition: Provenance | None = None  # the definition it ran (core/entities/provenance.py); older: none

    def published(self) -> list[PublishedOutput]:
        return published_outputs(self.outputs, f"process '{self.process}', batch {self.seq} (attempt {self.attempt})")

    def inputs_read(self) -> list[ReadInput]:
        return inputs_read(self.inputs, f"process '{self.process}', batch {self.seq} (attempt {self.attempt})")



class BatchLog:
    """The batch records of one process in a ledger."""

    def __init__(self, ledger: Ledger, process: str) -> None:
        self.ledger, self.fs, self.process = ledger, ledger.fs, process

    def _read(self, path: str) -> BatchRecord | None:
        if not self.fs.exists(path):
            return None
        return parse_record(BatchRecord, self.fs.read(path), path)

    def state(self, seq: int) -> BatchRecord | None:
        return self._read(f"{self.ledger.layout.batch_folder(self.process, seq)}/batch.json")

    def attempts(self, seq: int) -> list[BatchRecord]:
        folder = self.ledger.layout.batch_folder(self.process, seq)
        if not self.fs.exists(folder):
            return []
        names = sorted(status.name for status in self.fs.list(folder)
                       if status.name.startswith("attempt-") and status.name.endswith(".json"))
        return [record for record in (self._read(f"{folder}/{name}") for name in names) if record is not None]

    def write(self, record: BatchRecord) -> str:
        """The attempt's record, then the batch's state (the same record): each written atomically."""
        folder = self.ledger.layout.batch_folder(self.process, record.seq)
        path = f"{folder}/attempt-{record.attempt:03d}.json"
        self.fs.write_atomically(path, to_json(record))
        self.fs.write_atomically(f"{folder}/batch.json", to_json(record))
        return path
