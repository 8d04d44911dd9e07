"""When a succeeded process instance re-checks its late inputs for changes (Falcon's `late-process`).

Pure decisions: no Spark, no I/O, no clock. Every time is passed in, so `toolkit status`, `--explain`
and the late-data runner all answer the same question the same way for the same nominal times.

The cut-off of process instance T on a cluster is, over its late inputs, the latest of
`last feed instance of the input's window for T` + `the feed's late-arrival cut-off` (shifted in the
feed's zone). A late input contributes nothing when its feed has no `late-arrival` (its data is never late),
when its window for T is empty, or when its window uses `latest()`/`future()`: those pick among the
instances that exist, which a pure decision cannot know, so they are skipped rather than guessed.
Without any contribution there is no cut-off: no late checks.

The checks are scheduled from T in the process's zone (days and months are calendar units there):
- periodic: T + k*delay (k >= 1) before the cut-off, then the cut-off;
- exp-backoff: T + 2^j*delay (j >= 0) before the cut-off, then the cut-off;
- final: the cut-off only.
Checks lie strictly after T: a cut-off at or before T means the instance's own run already saw all the
data that can ever arrive, so nothing is scheduled. A check missed at its time (the scheduler called late)
is still due at a later call up to the cut-off itself; after the cut-off the instance is closed (late data
after it is not looked for: the issue's rule, met exactly by a scheduler that calls on a grid).

Every lookup is closed-form on an `InstanceGrid` of T and the delay (exp-backoff adds one bit length):
no list of checks is ever built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid, require_instance
from toolkit.core.el.resolution import resolve_window
from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import UTC, resolve_zone
from toolkit.core.entities.model import Policy, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid_for_processes, process_grid
from toolkit.errors import UsageError

_END_OF_TIME = datetime.max.replace(tzinfo=UTC)


def late_input_names(process: Process) -> tuple[str, ...]:
    """The names of the inputs whose late data is re-checked; () without `late-process`."""
    if process.late_process is None:
        return ()
    return tuple(late.input for late in process.late_process.late_inputs)


def late_cutoff(repo: ConfigRepo, process: Process, cluster: str, t: datetime) -> datetime | None:
    """The instant after which no late data of instance `t` on `cluster` is accepted, or None when no late
    input can bring any (no `late-process`, no feed with `late-arrival`, empty or latest()/future() windows).

    A late input that names no input of the process is a UsageError (lint rule PR011): silently never
    checking would hide the mistake.
    """
    if process.late_process is None:
        return None
    cutoff: datetime | None = None
    for name in late_input_names(process):
        item = process.input(name)
        if item is None:
            known = ", ".join(i.name for i in process.inputs) or "none"
            raise UsageError(
                f"Process '{process.name}' has late-process.late-inputs input '{name}', which is not one of its "
                f"inputs ({known}): name one of them (see `toolkit lint`, rule PR011)."
            )
        feed = repo.feed(item.feed)
        if feed.late_arrival is None:
            continue
        first, last = item.require_window()
        if any(parse_expression(e).needs_available for e in (first, last)):
            continue  # picks among existing instances: unknown without storage, so not guessed here
        window = resolve_window(first, last, t, feed_grid_for_processes(feed, cluster))
        if not window:
            continue
        candidate = _shift_or_end(window[-1], feed.late_arrival.cut_off, resolve_zone(feed.timezone))
        if cutoff is None or candidate > cutoff:
            cutoff = candidate
    return cutoff


def late_schedule(repo: ConfigRepo, process: Process, cluster: str, t: datetime) -> LateSchedule | None:
    """The late checks of process instance `t` on `cluster`; None when the process has no `late-process`.

    `t` must be an instance of the process on the cluster (a UsageError names its neighbours otherwise):
    a schedule for a time that never runs would be checks of nothing.
    """
    late = process.late_process
    if late is None:
        return None
    require_instance(process_grid(process, cluster), t, f"process '{process.name}' on cluster '{cluster}'")
    return LateSchedule(
        instance=t,
        cutoff=late_cutoff(repo, process, cluster, t),
        policy=late.policy,
        delay=late.delay,
        zone=resolve_zone(process.timezone),
    )


@dataclass(frozen=True)
class LateSchedule:
    """The late checks of one process instance: its time, its cut-off (None: never checked), the policy,
    the delay and the process's zone. All answers are for a `now` that the caller passes in."""

    instance: datetime
    cutoff: datetime | None
    policy: Policy
    delay: Frequency
    zone: ZoneInfo = field(default=ZoneInfo("UTC"))
    _steps: InstanceGrid = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("instance", "cutoff"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise ValueError(f"LateSchedule.{name} must be an aware datetime, got {value!r}")
        object.__setattr__(self, "instance", self.instance.astimezone(UTC))
        if self.cutoff is not None:
            object.__setattr__(self, "cutoff", self.cutoff.astimezone(UTC))
        # T + k * delay in closed form, calendar units in the process's zone.
        object.__setattr__(self, "_steps", InstanceGrid(self.instance, self.delay, self.zone))

    @property
    def has_checks(self) -> bool:
        """False when nothing is ever checked: no cut-off, or a cut-off at or before the instance time."""
        return self._last_check() is not None

    @property
    def closes_at(self) -> datetime | None:
        """The last instant a check may still run: the cut-off (issue 6: checks happen while now is not past
        it; a scheduler calling on a grid meets it exactly); None without checks."""
        return self._last_check()

    def latest_due_at_or_before(self, now: datetime) -> datetime | None:
        """The latest scheduled check at or before `now`, or None when none is scheduled that early."""
        cutoff = self._last_check()
        if cutoff is None:
            return None
        if now >= cutoff:
            return cutoff
        k = self._steps.floor_index(now)  # now < cut-off, so step k (if any) lies before the cut-off
        if k < 1:
            return None
        if self.policy is Policy.PERIODIC:
            return self._step(k)
        if self.policy is Policy.EXP_BACKOFF:
            return self._step(1 << (k.bit_length() - 1))  # the largest power of two <= k
        return None  # final: only the cut-off

    def next_after(self, now: datetime) -> datetime | None:
        """The earliest scheduled check after `now`, or None when none remains (for status and tests)."""
        cutoff = self._last_check()
        if cutoff is None or now >= cutoff:
            return None
        k = max(self._steps.floor_index(now), 0)  # step k + 1 and later are after now
        if self.policy is Policy.PERIODIC:
            step = self._step(k + 1)
        elif self.policy is Policy.EXP_BACKOFF:
            step = self._step(1 << k.bit_length())  # the smallest power of two > k
        else:
            step = cutoff
        return min(step, cutoff)

    def is_due(self, now: datetime, checks_done: Sequence[datetime]) -> bool:
        """True when a check should run at `now`: a scheduled time s <= now exists, no recorded check is at or
        after s, and the instance is not closed (now is not past the cut-off)."""
        due = self.latest_due_at_or_before(now)
        if due is None or self.closed(now):
            return False
        return not any(done >= due for done in checks_done)

    def closed(self, now: datetime) -> bool:
        """True when no late check can be due at `now` or later: no checks at all, or `now` is past the cut-off
        (late data after it is no longer looked for)."""
        closes_at = self.closes_at
        return closes_at is None or now > closes_at

    def _last_check(self) -> datetime | None:
        """The cut-off when checks are scheduled (it is always the last one), else None."""
        cutoff = self.cutoff
        return cutoff if cutoff is not None and cutoff > self.instance else None

    def _step(self, k: int) -> datetime:
        """T + k * delay, or the end of time when that lies beyond the year 9999 (so it is never chosen)."""
        try:
            return self._steps.time_of(k)
        except (OverflowError, ValueError):
            return _END_OF_TIME


def _shift_or_end(t: datetime, amount: Frequency, zone: ZoneInfo) -> datetime:
    """`t` moved forward by `amount` in `zone`, or the end of time beyond the year 9999."""
    try:
        return shift(t, amount, zone, 1)
    except (OverflowError, ValueError):
        return _END_OF_TIME
