"""The plan as people and programs read it: text for a terminal (what loses data first, then warnings, then the
definition changes), and the versioned JSON contract (changes.py, docs/plan.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from toolkit.change_plan.changes import Change, Plan
from toolkit.el.timestamps import format_timestamp

SHOWN = 5  # instances the text names per change; the JSON lists up to --limit


def as_json(plan: Plan, limit: int) -> str:
    return json.dumps(plan.to_json(limit), indent=2)


def as_text(plan: Plan) -> Iterator[str]:
    base = plan.base[:12] if len(plan.base) == 40 else plan.base
    head = plan.head[:12] if len(plan.head) == 40 else plan.head
    yield f"toolkit plan: {base} -> {head}, at {format_timestamp(plan.now)}"
    if not plan.changes:
        yield "  no change to any entity"
    for change in plan.changes:
        yield from _change(change)
    destructive, warnings = len(plan.destructive), len(plan.warnings)
    yield (f"{len(plan.changes)} change(s): {destructive} lose data, {warnings} warning(s)"
           + (" (exit 1)" if destructive else ""))


def _change(change: Change) -> Iterator[str]:
    label = "LOSES DATA" if change.destructive else "warning" if change.warning else "changed"
    where = f" on cluster '{change.cluster}'" if change.cluster else ""
    yield f"  {label}: {change.kind} '{change.entity}'{where}: {change.change}"
    if change.instances:
        times = sorted(instance.time for instance in change.instances)
        yield (f"    {change.count} instance(s), {_size(change.bytes)}, {format_timestamp(times[0])} to "
               f"{format_timestamp(times[-1])}")
        for instance in change.instances[:SHOWN]:
            yield f"      {format_timestamp(instance.time)}  {instance.path}  ({_size(instance.bytes)})"
        if change.count > SHOWN:
            yield f"      ... and {change.count - SHOWN} more (--format json lists them)"
    if change.command:
        yield f"    see: {change.command}"


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"
