"""One feed's retention call, as the entrypoint and `toolkit retain` make it for `--feed` and for each feed of
`--all`: the checks that need no JVM, the run in a session (with or without Spark), a failure told to the feed's
notification channels, the result in the feed's status line, and what a person reads of it."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.registry import eviction_for
from toolkit.services.runtime.lifecycle import FeedCall, failures_told
from toolkit.services.runtime.status import StatusLine

if TYPE_CHECKING:
    from toolkit.actions.retention.runner import RetentionResult
    from toolkit.services.runtime.action_session import ActionSession


@dataclass(frozen=True)
class RetainOptions:
    """How every feed of a call is retained: only planned (`dry_run`), under a lease of `lease_seconds`; `once`:
    skipped when another call recorded the instant while this one waited for the lease (run_retention; a call for a
    whole cluster, which looked for the records before it took the leases)."""

    dry_run: bool
    lease_seconds: float
    once: bool = False

    def __post_init__(self) -> None:
        if self.lease_seconds <= 0:
            raise UsageError("--lease must be a positive number of seconds.")


def check_feed(feed: Feed, cluster: Cluster) -> None:
    """What can be refused before a session opens (so that a bad call costs no JVM): the feed not on the cluster, an
    object store, an eviction action the toolkit does not run, a bad queueName or jobPriority (each exit 2)."""
    require_on_cluster(feed, cluster.name)
    require_no_object_store(cluster)
    eviction_for(feed, cluster)
    launcher_confs(feed)


def needs_spark_error(feeds: list[Feed], cluster: Cluster, call: str) -> UsageError:
    """The refusal of `toolkit retain` for feeds whose retention needs Spark, naming the entrypoint to run instead."""
    if len(feeds) == 1:
        why = "is a catalog table" if feeds[0].table_on(cluster.name) is not None else \
            "is on a file system only Hadoop's client reaches"
        return UsageError(f"The feed '{feeds[0].name}' {why} on cluster '{cluster.name}': its retention needs Spark; "
                          f"run spark-submit entrypoints/retention.py {call}.")
    names = ", ".join(f"'{feed.name}'" for feed in feeds)
    return UsageError(f"The feeds {names} of cluster '{cluster.name}' are catalog tables or on a file system only "
                      f"Hadoop's client reaches: their retention needs Spark; run spark-submit "
                      f"entrypoints/retention.py {call}, which starts Spark only when one of them is due.")


def retain_feed(repo: ConfigRepo, feed: Feed, cluster: Cluster, nominal: datetime, status: StatusLine,
                options: RetainOptions, opened: AbstractContextManager[ActionSession]) -> RetentionResult:
    """Run the retention of `feed` at `nominal` in the session `opened`, its figures in `status`; a failure (exit 1,
    or anything unforeseen: connecting the catalog included) is told to the feed's channels, then raised."""
    from toolkit.actions.retention.runner import RETENTION, retain

    call = FeedCall.of(RETENTION, repo, feed, cluster, nominal)
    with opened as session:
        notifier = session.notifier(counted=feed.notification is not None)
        with failures_told(call, notifier, status.run_id):
            context = session.context(lease_seconds=options.lease_seconds,
                                      catalog=feed.table_on(cluster.name) is not None, notifier=notifier)
            result = retain(call, context, dry_run=options.dry_run, once=options.once)
    status.add(cut_off=result.cut_off and format_timestamp(result.cut_off), report=result.report)
    status.add_counters(result.counters())
    return result


def report_lines(result: RetentionResult, dry_run: bool) -> tuple[list[str], list[str]]:
    """What a person reads of a run: (on stdout) the instances a `dry_run` would evict, (on stderr) the expired
    instances kept and why, and why there was nothing to do."""
    out = [f"would evict {item.time}  {item.path}  ({item.bytes} bytes)" for item in result.evicted] if dry_run else []
    err = [f"retention: kept {item.path}: {item.reason}" for item in result.refused]
    if result.reason:
        err.append(f"retention: {result.reason}; nothing to do.")
    return out, err
