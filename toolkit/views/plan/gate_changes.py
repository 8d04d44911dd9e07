"""Which quality gates a change makes apply: a feed's `quality` suite added, removed, made to block or warn, or its
suite file edited, with every producer that checks it before publishing (the processes writing the feed, its
ingest, import and replication targets). No data is lost: an instance a blocking gate refuses is not published,
and the producer fails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from toolkit.core.entities.file_hashing import file_sha256
from toolkit.core.entities.model import Feed, FeedClusterType, OnFailure, Quality
from toolkit.core.entities.repo import ConfigRepo
from toolkit.views.plan.changes import Change
from toolkit.views.plan.comparison import Comparison


def gate_changes(comparison: Comparison) -> Iterator[Change]:
    for new in comparison.head.feeds.values():
        old = comparison.base.feeds.get(new.name)
        before = old.quality if old is not None else None
        what = _difference(before, new.quality, comparison.base.root, comparison.head.root)
        if what is not None:
            producers = _producers(comparison.head, new)
            yield Change(new.name, "feed", f"quality gate {what}: checked before publishing by "
                         f"{', '.join(producers) or 'no producer yet'}")


def _difference(old: Quality | None, new: Quality | None, base_root: Path, head_root: Path) -> str | None:
    if old == new:
        if new is None or _suite(base_root, new) == _suite(head_root, new):
            return None
        return f"{new.suite} edited (its expectations changed)"
    if new is None:
        assert old is not None
        return f"{old.suite} removed: nothing is checked any more"
    if old is None:
        return f"{new.suite} added ({new.on_failure.value}: {_effect(new)})"
    return f"{old.suite} ({old.on_failure.value}) -> {new.suite} ({new.on_failure.value}: {_effect(new)})"


def _effect(quality: Quality) -> str:
    return ("an instance that fails it is not published" if quality.on_failure is OnFailure.BLOCK
            else "a failure is reported, the instance published")


def _suite(root: Path, quality: Quality) -> str | None:
    """The hash of the suite file when it is a regular file of the repo (None when it is elsewhere or missing), read
    in bounded reads: a revision's suite is as big as its commit makes it."""
    if Path(quality.suite).is_absolute() or ".." in Path(quality.suite).parts:
        return None
    where = root / quality.suite
    try:
        return file_sha256(where) if where.is_file() else None  # is_file: a regular file (a FIFO would block)
    except OSError:
        return None


def _producers(repo: ConfigRepo, feed: Feed) -> list[str]:
    names = [f"process {process.name}" for process in repo.processes.values()
             if any(output.feed == feed.name for output in process.outputs)]
    if feed.ingest is not None:
        names.append("its ingest")
    names += [f"its import on {on.name}" for on in feed.clusters if on.import_ is not None]
    names += [f"replication into {on.name}" for on in feed.clusters if on.type is FeedClusterType.TARGET]
    return names
