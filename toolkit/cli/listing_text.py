"""The `--format text` rendering of `toolkit instances --listing`: a header, a line per instance in aligned columns,
and the count per state, for people."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.cli.ledger_text import NONE, table
from toolkit.core.el.timestamps import format_timestamp
from toolkit.shown_text import printable
from toolkit.views.instance_listing.records import ListedInstance, Listing, ListingState


def listing_lines(listing: Listing) -> Iterator[str]:
    """A header, a line per instance in aligned columns (sizes for people: 1.5 KiB), then the count per state."""
    flag = f"flag {listing.availability_flag}" if listing.availability_flag else "no availability flag"
    yield (f"feed {listing.feed} on cluster {listing.cluster}, {format_timestamp(listing.first)} .. "
           f"{format_timestamp(listing.last)}: {len(listing.instances)} instance(s), {flag}")
    if listing.instances:
        yield from ("  " + line for line in table(
            ("TIME", "STATE", "SIZE", "CREATED", "RUN", "PATH"), (_row(instance) for instance in listing.instances)))
    yield "summary: " + ", ".join(f"{state.value} {count}" for state, count in listing.counts().items())


def _row(instance: ListedInstance) -> tuple[str, ...]:
    run = instance.produced_by
    return (format_timestamp(instance.time), instance.state.value, size_text(instance.size), instance.created or NONE,
            f"{run.run_id} ({run.producer})" if run is not None else NONE, _where(instance))


def _where(instance: ListedInstance) -> str:
    """The path, and what a person must know beside it: when retention took it and where the archive put it, which
    links were not followed; a name's control characters as escapes (a line break cannot forge another row)."""
    notes = []
    evicted = instance.evicted_by
    if instance.state == ListingState.ARCHIVED and evicted is not None:
        notes.append(f"archived to {instance.archive} at {evicted.at} by run {evicted.run_id}")
    elif instance.state == ListingState.EVICTED and evicted is not None:
        notes.append(f"evicted at {evicted.at} by run {evicted.run_id}")
    if instance.links:
        notes.append("link not followed: " + ", ".join(instance.links))
    return printable(instance.path + (f"  ({'; '.join(notes)})" if notes else ""))


def size_text(size: int | None) -> str:
    """Bytes for people: `512 B`, `1.5 KiB`, `3.2 GiB` (binary units); `-` where nothing is there."""
    if size is None:
        return NONE
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"
