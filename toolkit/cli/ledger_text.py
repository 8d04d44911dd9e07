"""The `--format text` rendering of the ledger commands: a header line and aligned columns, for people."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from toolkit.core.el.timestamps import format_timestamp
from toolkit.statuses import Status
from toolkit.views.status.entity_states import EntityState
from toolkit.views.status.instance_rows import InstanceRow

NONE = "-"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> Iterator[str]:
    """Columns padded to their widest cell, two spaces apart; the last column is not padded."""
    body = [list(row) for row in rows]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *body, strict=False)]
    for row in (list(header), *body):
        cells = [str(cell).ljust(width) for cell, width in zip(row[:-1], widths, strict=False)]
        yield "  ".join([*cells, str(row[-1])]).rstrip()


def duration_text(seconds: int | None) -> str:
    """`45s`, `2m30s`, `1h02m03s`, `3d04h05m`."""
    if seconds is None:
        return NONE
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d{hours:02d}h{minutes:02d}m"
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def detail_text(row: InstanceRow) -> str:
    """What a person needs of a row beside its status: what a waiting instance lacks, why one failed."""
    if row.hold:
        return f"{row.hold} (toolkit resume --time {format_timestamp(row.time)})"
    if row.status == Status.WAITING:
        return missing_text(row)
    if row.error:
        return " ".join(row.error.split())
    if row.status == Status.TIMEDOUT:
        return "timed out waiting for its inputs"
    return NONE


def missing_text(row: InstanceRow) -> str:
    """The missing inputs by feed: one named, several counted with their first and last time."""
    if row.missing is None:
        return row.missing_note or "not checked"
    if not row.missing:
        return "none (ready to run)"
    # `clicks 2026-11-21T09:00Z (file:///...)`: the text shows the feed and the time, JSON the location too
    by_feed: dict[str, list[str]] = {}
    for item in row.missing:
        feed, _, time = item.split(" (", 1)[0].partition(" ")
        by_feed.setdefault(feed, []).append(time)
    return "missing " + "; ".join(
        f"{feed} {times[0]}" if len(times) == 1 else f"{len(times)} of {feed}, {min(times)}..{max(times)}"
        for feed, times in by_feed.items())


def status_lines(rows: Sequence[InstanceRow], width: int | None = None) -> Iterator[str]:
    """The status table; each line cut to `width` characters (None: whole). COMMIT is the config repo's commit
    the instance's last success ran (`+dirty`: its files differed; `no git`; `-`: not recorded)."""
    header = ("TIME", "STATUS", "ATTEMPTS", "START", "DURATION", "COMMIT", "DETAIL")
    yield from cut(table(header, ((str(row.to_json()["time"]), row.status, str(row.attempts), row.started or NONE,
                                   duration_text(row.duration_seconds),
                                   row.definition.label if row.definition else NONE, detail_text(row))
                                  for row in rows)), width)


def cut(lines: Iterable[str], width: int | None) -> Iterator[str]:
    """Each line cut to `width` characters, `...` marking the cut (None: whole)."""
    for line in lines:
        yield line if width is None or len(line) <= width else line[:max(width - 3, 0)] + "..."


def entity_lines(states: Sequence[EntityState], width: int | None = None) -> Iterator[str]:
    """The entities of a cluster: kind, name, state, newest instance and its status, pipelines, tags."""
    header = ("KIND", "NAME", "STATE", "LAST INSTANCE", "LAST STATUS", "PIPELINES", "TAGS")
    rows = ((state.kind, state.name, state.state, str(state.last.to_json()["time"]) if state.last else NONE,
             state.last.status if state.last else NONE, ",".join(state.pipelines) or NONE,
             ",".join(f"{key}={value}" for key, value in state.tags) or NONE)
            for state in states)
    yield from cut(table(header, rows), width)


def summary_lines(summary: Mapping[str, object]) -> Iterator[str]:
    window = (f"{summary['from']} .. {summary['to']}" if summary["from"] is not None else "no instance in the window")
    yield (f"process {summary['process']} on cluster {summary['cluster']}, {window}: "
           f"{summary['total']} instance(s)")
    counts: Mapping[str, int] = summary["counts"]  # type: ignore[assignment]
    yield from table(("STATUS", "COUNT"), ((status, str(count)) for status, count in counts.items()))


def running_lines(leases: Sequence[Mapping[str, object]]) -> Iterator[str]:
    header = ("PROCESS", "INSTANCE", "RUN ID", "HOLDER", "LEASE EXPIRES")
    yield from table(header, ((str(lease["process"]), str(lease["time"] or NONE), str(lease["run_id"]),
                               str(lease["holder"]), str(lease["expires"])) for lease in leases))
