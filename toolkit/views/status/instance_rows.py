"""The rows of `toolkit status`, `summary` and `rerun`: one per instance of a process on a cluster in a
window, with the status an operator should see.

- An instance with a ledger record shows the record's status, except a record that says RUNNING whose
  instance lock has no live lease: that run died, and the row says KILLED (the next call takes it over).
- An instance without a record whose time has come is WAITING; instances after now are not listed.
- A WAITING row lists the input instances it waits for: the record's `missing` when it has one, else (for
  the newest `MISSING_LIMIT` of them) the real resolution of the inputs against the local file system.
  Table inputs need the metastore, which the CLI does not open: such instances say so instead.
- A held instance (`toolkit suspend --time`) is SUSPENDED, Falcon's name, whatever its record says (the record's
  status stays in `recorded`), with who held it, when and why (`hold`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import NamedTuple

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.provenance import Provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.plan import plan_instance
from toolkit.core.ledger.instance_states import InstanceState, run_seconds, seconds_between
from toolkit.core.ledger.records import stamp_seconds
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import ToolkitError, UsageError
from toolkit.statuses import Status

# The window is refused (ask for a smaller one) beyond this many listed instances.
MAX_ROWS = 10_000
# Without --from, the window is this many instances up to now (or up to --to).
DEFAULT_INSTANCES = 24
# Missing inputs are resolved against the file system for at most this many never-run WAITING instances,
# the newest ones.
MISSING_LIMIT = 50

TABLE_NOT_CHECKED = "not checked (table input)"
SUSPENDED = "SUSPENDED"  # a held instance's row (Falcon's instance status); no run records it


class TableInputNotChecked(ToolkitError):
    """Raised by the catalog the CLI hands to the planner: it never opens a metastore."""


def no_catalog() -> Catalog:
    raise TableInputNotChecked("The missing partitions of table inputs are not checked without the metastore.")


def window_times(grid: InstanceGrid, now: datetime, from_: str | None, to: str | None, owner: str) -> list[datetime]:
    """The instances of `grid` to list, oldest first: from --from (default: `DEFAULT_INSTANCES` instances
    back) to --to (default: now), never after now, at most `MAX_ROWS` of them."""
    first = parse_timestamp(from_, "--from") if from_ is not None else None
    last = parse_timestamp(to, "--to") if to is not None else None
    if first is not None and last is not None and last < first:
        raise UsageError(f"--to {to} is before --from {from_}: give a window that runs forward.")
    upper = min(last, now) if last is not None else now
    if first is None:
        newest = grid.at_or_before(upper)
        if newest is None:
            return []
        first = grid.time_of(max(grid.floor_index(newest) - DEFAULT_INSTANCES + 1, 0))
    if upper < first:
        return []
    count = grid.count_between(first, upper)
    if count > MAX_ROWS:
        raise UsageError(f"The window {format_timestamp(first)} .. {format_timestamp(upper)} holds {count} instances "
                         f"of {owner}, more than {MAX_ROWS} rows: give a smaller window with --from and --to.")
    return list(grid.between(first, upper))


class InstanceRow(NamedTuple):
    """Immutable; a named tuple rather than a frozen dataclass: a window of a thousand processes builds one per
    instance, and a tuple is built four times faster."""

    time: datetime
    status: str
    recorded: str | None  # the ledger's status (None: no record)
    attempts: int = 0
    run_id: str | None = None
    started: str | None = None
    ended: str | None = None
    duration_seconds: int | None = None
    missing: tuple[str, ...] | None = None  # WAITING rows: what they wait for; None when not known
    missing_note: str | None = None  # why `missing` is not known
    error: str | None = None
    hold: str | None = None  # SUSPENDED rows: who held the instance, when and why (`toolkit suspend --time`)
    definition: Provenance | None = None  # the definition of its last success (None: none, or not recorded)

    def to_json(self) -> dict[str, object]:
        known = self.definition
        return {"time": format_timestamp(self.time), "status": self.status, "recorded_status": self.recorded,
                "attempts": self.attempts, "run_id": self.run_id, "started": self.started, "ended": self.ended,
                "duration_seconds": self.duration_seconds,
                "missing": list(self.missing) if self.missing is not None else None,
                "missing_note": self.missing_note, "error": self.error, "hold": self.hold,
                "commit": known.commit if known else None, "dirty": known.dirty if known else None,
                "definition_hash": known.definition if known else None}


def _recorded_row(ledger: Ledger, process: str, t: datetime, record: InstanceState, now_seconds: float) \
        -> InstanceRow:
    status, duration = record.status, run_seconds(record)
    if status == Status.RUNNING:
        lease = ledger.instance_lock(process, t).current()
        if lease is not None and lease.live(now_seconds):
            duration = seconds_between(record.started, now_seconds)
        else:
            status = Status.KILLED  # the run died without recording it; the next call takes the lock over
            duration = seconds_between(record.started, stamp_seconds(record.ended))
    missing = tuple(record.missing) if status == Status.WAITING else None
    return InstanceRow(t, status, record.status, record.attempts, record.run_id, record.started, record.ended,
                       duration, missing, None, record.error, definition=record.definition)


def missing_inputs(repo: ConfigRepo, process: Process, cluster: Cluster, t: datetime, fs: FileSystem) \
        -> tuple[tuple[str, ...] | None, str | None]:
    """The required input instances the instance at `t` lacks now (resolved as process.py resolves them),
    or None and why they are not known."""
    try:
        plan = plan_instance(repo, process, cluster, t, fs, no_catalog)
    except TableInputNotChecked:
        return None, TABLE_NOT_CHECKED
    except ToolkitError as err:
        return None, f"not checked: {err}"
    return tuple(plan.missing_required), None


def instance_rows(repo: ConfigRepo, process: Process, cluster: Cluster, ledger: Ledger, times: Sequence[datetime],
                  now_seconds: float, *, with_missing: bool) -> list[InstanceRow]:
    """One row per time of `times` (instances of the process whose time has come), oldest first."""
    records = ledger.instance_states(process.name, times)
    rows = []
    for t in times:
        record = records.get(t)
        if record is None:
            rows.append(InstanceRow(t, Status.WAITING, None))
        else:
            rows.append(_recorded_row(ledger, process.name, t, record, now_seconds))
    if with_missing:
        never_run = [index for index, row in enumerate(rows) if row.recorded is None]
        checked = set(never_run[-MISSING_LIMIT:])
        for index in never_run:
            row = rows[index]
            if index in checked:
                missing, note = missing_inputs(repo, process, cluster, row.time, ledger.fs)
            else:
                missing, note = None, f"not checked (only the {MISSING_LIMIT} newest waiting instances are)"
            rows[index] = InstanceRow(row.time, row.status, None, missing=missing, missing_note=note)
    holds = ledger.holds(process.name)
    return [row._replace(status=SUSPENDED, hold=holds[row.time].sentence()) if row.time in holds else row
            for row in rows]


def count_statuses(rows: Iterable[InstanceRow], statuses: Sequence[str]) -> dict[str, int]:
    counts = dict.fromkeys(statuses, 0)
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    return counts
