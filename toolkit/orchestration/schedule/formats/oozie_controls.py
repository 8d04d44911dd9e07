"""How Oozie runs one call's coordinator: its controls and its shell action's retries, after Falcon's coordinator
builders (ProcessExecutionCoordinatorBuilder, FeedReplicationCoordinatorBuilder) and where the toolkit differs.

- timeout: the call's wait limit (the process's `timeout`, the feed's replication `timeout`, else Falcon's default,
  6 x the frequency and at least 30 minutes: toolkit/core/entities/timeouts.py), in minutes (days as 24 hours, months as
  31 days, as Falcon's ExpressionHelper). Oozie applies it only to an action WAITING for input events, and these
  coordinators declare none (the entrypoint waits for its inputs itself, up to the same limit): it is kept so that
  a Falcon user finds the values Falcon wrote, and bounds nothing else.
- throttle: Falcon's `timeout / frequency * 2`, the actions materialized ahead.
- concurrency: the process's `parallel`, the feed's replication `parallel`, else 1, as Falcon (the entrypoint
  enforces `parallel` itself too: exit 5).
- execution: FIFO (oldest first) for the calls whose every instance matters (process instances, late-data checks,
  replication pulls); LAST_ONLY for those where only the newest firing does (retention, the data-trigger sweep,
  ingest, the SLA check). Falcon started retention at submission time, so it never had a backlog; these start on
  the cadence's grid, and LAST_ONLY skips the backlog Oozie materializes from a past start.
- retries: a call that exits 3 (waiting) or 5 (blocked) fails its shell action, which Oozie retries RETRY_MAX times
  every RETRY_INTERVAL_MINUTES minutes (user-retry, `retry-max`/`retry-interval` on the action). Not for a LAST_ONLY
  call every RETRY_INTERVAL_MINUTES or less: its next firing calls again sooner. Oozie caps retry-max by its
  `oozie.service.LiteWorkflowStoreService.user.retry.max` (default 3), and retries only error codes listed in
  `...user.retry.error.code(.ext)`: a shell action's non-zero exit is error code `1`, which the Oozie
  administrator must add (docs/schedule-oozie.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.orchestration.schedule.calls import Call

RETRY_MAX = 3  # Oozie's default user.retry.max: more is cut to it
RETRY_INTERVAL_MINUTES = 10  # Oozie's default user.retry.inteval
LATEST_ONLY_ACTIONS = frozenset({"retention", "trigger", "ingest", "sla"})


@dataclass(frozen=True)
class Controls:
    timeout: int
    concurrency: int
    execution: str
    throttle: int


@dataclass(frozen=True)
class Retry:
    max: int
    interval: int


def controls(call: Call) -> Controls:
    frequency = call.cadence.frequency.approx_minutes()
    timeout = call.wait_limit.approx_minutes()
    execution = "LAST_ONLY" if call.action in LATEST_ONLY_ACTIONS else "FIFO"
    return Controls(timeout=timeout, concurrency=call.concurrency, execution=execution,
                    throttle=max(timeout // frequency * 2, 1))


def retry(call: Call) -> Retry | None:
    latest_only = call.action in LATEST_ONLY_ACTIONS
    if latest_only and call.cadence.frequency.approx_minutes() <= RETRY_INTERVAL_MINUTES:
        return None
    return Retry(RETRY_MAX, RETRY_INTERVAL_MINUTES)
