"""What a change does to a cluster's generated schedule: the calls `toolkit schedule` would add, remove or change
(their cadence, arguments, wait limit, concurrency), planned for the base and the head with the schedule's own
planner (toolkit/orchestration/schedule/calls.py), so the list is what `toolkit schedule --check` will find. Neither
loses data; each says to regenerate the schedule, which cron or Airflow runs as generated, not as the repo says."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.orchestration.schedule.calls import Call, plan_calls
from toolkit.views.plan.changes import Change
from toolkit.views.plan.comparison import Comparison


def schedule_changes(comparison: Comparison) -> Iterator[Change]:
    for name in sorted(comparison.base.clusters.keys() & comparison.head.clusters.keys()):
        if not comparison.concerns(name):
            continue
        before, after = _calls(comparison.base, name), _calls(comparison.head, name)
        if before is None or after is None:
            continue  # a side the schedule cannot plan: `toolkit lint` and `toolkit schedule` say why
        command = shlex.join(["toolkit", "schedule", "--repo", comparison.repo_path, "--cluster", name])
        for call_name in sorted(before.keys() | after.keys()):
            old, new = before.get(call_name), after.get(call_name)
            what = _difference(old, new)
            if what is not None:
                call = new or old
                assert call is not None
                entity = call.entity.name if call.entity is not None else name
                kind = call.entity.kind.value if call.entity is not None else "cluster"
                yield Change(entity, kind, f"scheduled call {call_name} {what}; regenerate the schedule", name,
                             command=command)


def _calls(repo: ConfigRepo, cluster: str) -> dict[str, Call] | None:
    try:
        return {call.name: call for call in plan_calls(repo, cluster).calls}
    except UsageError:
        return None


def _difference(old: Call | None, new: Call | None) -> str | None:
    if old is None:
        assert new is not None
        return f"added ({new.cadence.describe()}: {new.why})"
    if new is None:
        return "removed"
    edits = []
    if old.cadence != new.cadence:
        edits.append(f"cadence {old.cadence.describe()} -> {new.cadence.describe()}"
                     + (f" (ending {_end(old)} -> {_end(new)})" if old.cadence.end != new.cadence.end else ""))
    if old.arguments != new.arguments or old.script != new.script or old.program != new.program:
        edits.append(f"arguments {' '.join(old.arguments)} -> {' '.join(new.arguments)}")
    if old.wait_limit != new.wait_limit:
        edits.append(f"called again up to {old.wait_limit} -> {new.wait_limit}")
    if old.concurrency != new.concurrency:
        edits.append(f"{old.concurrency} -> {new.concurrency} at once")
    if old.jars != new.jars:
        edits.append("driver jars changed")
    return "changed: " + "; ".join(edits) if edits else None


def _end(call: Call) -> str:
    return format_timestamp(call.cadence.end) if call.cadence.end is not None else "never"
