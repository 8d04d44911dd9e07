"""What a run of a process instance reads of the ledger at each step of its wait and before each attempt, the same
for the runner in Spark and for the wait before Spark (`wait_before_spark.py`): the instance's hold, a `toolkit kill`
that names the run, and the pause between attempts its retry policy asks for."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.actions.process_runner.retry_policy import retry_delay_seconds
from toolkit.clock import Clock
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Process
from toolkit.core.ledger.store import Ledger
from toolkit.errors import SkippedError


def require_not_held(ledger: Ledger, process: Process, cluster: str, t: datetime) -> None:
    """SkippedError (exit 4) when the instance is held (`toolkit suspend --time`): it does not start."""
    hold = ledger.hold(process.name, t)
    if hold is not None:
        at = format_timestamp(t)
        raise SkippedError(f"The instance {at} of process '{process.name}' on cluster '{cluster}' is suspended "
                           f"({hold.sentence()}): it does not start until `toolkit resume --process {process.name} "
                           f"--cluster {cluster} --time {at}`.")


def kill_requested(ledger: Ledger, process: Process, t: datetime, run_id: str) -> str | None:
    """Why the run `run_id` must end (`toolkit kill` named it), or None."""
    request = ledger.kill_request(process.name, t)
    return request.sentence() if request is not None and request.run_id == run_id else None


def pause_before_retry(process: Process, clock: Clock, zone: ZoneInfo, max_delay: float | None,
                       log: Callable[[str], None], failed_attempts: int) -> None:
    """Sleep the retry policy's delay after `failed_attempts` (capped by `max_delay`), saying so."""
    retry = process.retry
    if retry is None:
        return
    delay = retry_delay_seconds(retry, failed_attempts, clock.now(), zone)
    if max_delay is not None:
        delay = min(delay, max_delay)
    if delay > 0:
        log(f"process: retrying in {delay:.0f} s ({retry.policy.value})")
        clock.sleep(delay)
