"""Closing a streamed instance: once the stream's watermark has passed the instance's time plus its closing
delay, no more on-time records can come, so the instance is published like any other: the feed's availability
flag is written in its folder and a dataset event recorded (producer `ingest`), which is what retention,
replication, waiting processes and data-triggered consumers read.

The delay is the feed's `ingest.delay`, else its `late-arrival` cut-off, else its frequency (the instance's end).
The watermark is the newest event time committed (`ingest.time` a column), or the instant of the last batch
(`arrival`). Each step is idempotent (the flag is created if missing, the event written unless the last one
records this content), and the instance leaves the book last, so a run killed while closing is finished by the
next. A record written later into a closed instance (`late-records: write`) opens it again in the book: the next
close records its new content as `replaced`.

A feed with data-quality gates has its instance checked first (`InstanceGate`, closing_gate.py): one its gate
refuses stays open in the book, unflagged and unannounced."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Feed
from toolkit.core.instances.availability import probe_instance
from toolkit.core.ledger.records import PublicationFacts, record_stamp, record_time

if TYPE_CHECKING:
    from toolkit.actions.ingest.call import IngestCall

PRODUCER = "ingest"


class InstanceGate(Protocol):
    """What an instance passes before it is closed (closing_gate.py: its feed's data-quality suites)."""

    def allows(self, t: datetime) -> bool:
        """Whether the due instance `t` may be published now; False holds it back (it stays open)."""

    def closed(self, t: datetime) -> None:
        """Called once `t` is published (flag and event), before it leaves the book."""


def closing_delay(feed: Feed) -> Frequency:
    if feed.ingest is not None and feed.ingest.delay is not None:
        return feed.ingest.delay
    return feed.late_arrival.cut_off if feed.late_arrival is not None else feed.frequency


def closes_at(feed: Feed, t: datetime) -> datetime:
    """When the watermark closes the instance `t` (the delay added in the feed's zone: a day stays a day)."""
    return shift(t, closing_delay(feed), resolve_zone(feed.timezone), 1)


def close_due(call: IngestCall, gate: InstanceGate | None = None) -> list[datetime]:
    """Close every open instance of the call's book the watermark has passed and the `gate` allows; returns their
    times, oldest first. Their events record the call's run id and definition, the ingesting one."""
    fs, feed, where, book = call.fs, call.feed, call.where, call.book
    instances = book.instances()
    if instances.watermark is None:
        return []
    watermark = record_stamp(instances.watermark)
    closed = []
    for key in sorted(instances.open):
        t = record_time(key)
        if closes_at(feed, t) > watermark:
            continue
        if gate is not None and not gate.allows(t):
            continue
        location = where.event_location(t)
        if feed.availability_flag and not where.is_table:
            fs.create_exclusive(f"{location}/{feed.availability_flag}", b"")
        state = probe_instance(fs, where, feed.availability_flag, call.catalog, t)
        call.ledger.record_publication(PublicationFacts(feed.name, where.cluster, t, producer=PRODUCER,
                                                        run_id=call.run_id, location=location,
                                                        fingerprint=state.fingerprint, definition=call.definition),
                                       unless_recorded=True)
        if gate is not None:
            gate.closed(t)
        instances = instances.without(key)
        book.write_instances(instances)
        closed.append(t)
    return closed
