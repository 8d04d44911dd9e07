"""How long an instance may wait for its inputs: Falcon's default, 6 x the frequency and at least 30 minutes, for a
process without `timeout` and a feed without the replication property `timeout`. One rule, read by the process
runner, replication and the generated schedules (an Airflow task gives up rescheduling at it)."""

from __future__ import annotations

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.model import Process

MINIMUM_TIMEOUT = Frequency(TimeUnit.MINUTES, 30)


def default_timeout(frequency: Frequency) -> Frequency:
    six = Frequency(frequency.unit, frequency.count * 6)
    return max(six, MINIMUM_TIMEOUT, key=lambda amount: amount.approx_minutes())


def process_timeout(process: Process) -> Frequency:
    """The process's `timeout`, else the default on its frequency."""
    if process.timeout is not None:
        return process.timeout
    return default_timeout(process.require_frequency())
