"""What every action's reruns share: a row per instance run (its time and status), and the runs killed while they
held their lease (a held lease past its end: the run died, its record, if any, says less than it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import parse_instance_key, parse_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.locks import HELD, LeaseLock
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import UsageError
from toolkit.statuses import Status


@dataclass(frozen=True)
class RerunRow:
    """An instance's run: when, how it ended, why, and what it was given that the feed does not say (a Hive export's
    directory), which its rerun is given again."""

    time: datetime
    status: Status
    detail: str = ""
    given: tuple[str, ...] = ()


@dataclass(frozen=True)
class Window:
    first: datetime
    last: datetime
    now: float  # the lease clock's now, seconds

    def holds(self, t: datetime | None) -> bool:
        return t is not None and self.first <= t <= self.last


@dataclass(frozen=True)
class ActionReruns:
    """One action's reruns: `rows` reads its instances of the window from the ledger, `arguments` is the entrypoint's
    call for one row after `--repo` (`resume`: --continue), `resumes` says what --continue keeps, or is None when the
    action cannot resume (`why_not` then says why)."""

    name: str
    entrypoint: str
    cluster_is: str  # what --cluster names for it, for the help and the sentences
    rows: Callable[[Ledger, ConfigRepo, Feed, Cluster, Window], list[RerunRow]]
    arguments: Callable[[ConfigRepo, Feed, Cluster, RerunRow, bool], list[str]]
    resumes: str | None = None
    why_not: str = ""


def record_times(fs: FileSystem, folder: str, window: Window,
                 on_grid: Callable[[datetime], bool] = lambda t: True) -> list[datetime]:
    """The instance times of the `<key>.json` records in `folder` inside the window and `on_grid`, oldest first: a
    link or a folder at a record's name is no record of the action's, nor is a name off the entity's grid."""
    if not fs.exists(folder):
        return []
    times = [parse_instance_key(status.name.removesuffix(".json")) for status in fs.list(folder)
             if status.name.endswith(".json") and not status.is_dir and not status.is_link]
    return sorted(t for t in times if t is not None and window.holds(t) and on_grid(t))


def killed_runs(ledger: Ledger, action: str, feed: str, window: Window) -> dict[datetime, str]:
    """The instances of the window whose `action` lock a run still holds past its lease: it died there. Per-instance
    locks (`locks/<action>/<feed>/<key>/`) by their folder, a feed's one lock by the time its lease names."""
    folder = ledger.layout.action_lock_folder(action, feed)
    fs = ledger.fs
    if not fs.exists(folder):
        return {}
    killed: dict[datetime, str] = {}
    listing = fs.list(folder)
    # only the per-instance locks of the window are read (one folder stays for every instance ever locked)
    locks: list[tuple[datetime | None, LeaseLock]] = [
        (t, LeaseLock(fs, status.path, "lock", ledger.lease_seconds)) for status in listing
        if status.is_dir and window.holds(t := parse_instance_key(status.name))]
    locks.append((None, LeaseLock(fs, folder, "lock", ledger.lease_seconds)))
    for t, lock in locks:
        lease = lock.current()
        if lease is None or lease.state != HELD or lease.live(window.now):
            continue
        at = t if t is not None else _lease_time(lease.details.time)
        if window.holds(at):
            assert at is not None
            killed[at] = f"run {lease.run_id} on {lease.holder} died holding it (its lease ended {lease.expires_text})"
    return killed


def _lease_time(text: str | None) -> datetime | None:
    try:
        return parse_timestamp(text) if text else None
    except UsageError:  # a lease whose time is damaged names no instance
        return None
