"""The plan as people and programs read it: text for a terminal (what loses data first, then warnings, then the
definition changes), markdown for a pull request's comment, GitHub workflow commands (an annotation on each
changed definition file), and the versioned JSON contract (changes.py, docs/plan.md)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

from toolkit.core.el.timestamps import format_timestamp
from toolkit.views.plan.changes import Change, Plan

OFFLINE = ("storage not read (--offline): the definitions alone were compared; `toolkit plan` with access to the "
           "clusters says what the changes do to the data")
SHOWN = 5  # instances the text names per change; the JSON lists up to --limit


def as_json(plan: Plan, limit: int) -> str:
    return json.dumps(plan.to_json(limit), indent=2)


def as_text(plan: Plan) -> Iterator[str]:
    yield f"toolkit plan: {_short(plan.base)} -> {_short(plan.head)}, at {format_timestamp(plan.now)}"
    if not plan.changes:
        yield "  no change to any entity"
    for change in plan.changes:
        yield from _change(change)
    if plan.offline:
        yield f"  {OFFLINE}"
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


MARKDOWN_SHOWN = 20  # instances the markdown form lists per change, in a collapsed block


def as_markdown(plan: Plan) -> Iterator[str]:
    """A pull request's comment: a verdict, a table of every change, the instances of each data change folded."""
    destructive, warnings = len(plan.destructive), len(plan.warnings)
    verdict = (f"**{destructive} change(s) lose data**" if destructive else "No change loses data") + (
        f", {warnings} warning(s)" if warnings else "")
    yield f"### toolkit plan: `{_short(plan.base)}` \u2192 `{_short(plan.head)}`"
    yield ""
    offline = f" {OFFLINE[0].upper()}{OFFLINE[1:]}." if plan.offline else ""
    yield f"{verdict}; judged at {format_timestamp(plan.now)}.{offline}"
    if not plan.changes:
        yield ""
        yield "No change to any entity."
        return
    yield ""
    yield "| | Entity | Cluster | Change | Instances | Size | From | To |"
    yield "|---|---|---|---|---:|---:|---|---|"
    for change in plan.changes:
        first, last = _span(change)
        yield (f"| {_mark(change)} | {change.kind} `{change.entity}` | {change.cluster or ''} | "
               f"{_cell(change.change)} | {change.count if change.instances else ''} | "
               f"{_size(change.bytes) if change.instances else ''} | {first} | {last} |")
    for change in plan.changes:
        if change.instances or change.command:
            yield from _markdown_details(change)


def as_github(plan: Plan) -> Iterator[str]:
    """GitHub Actions workflow commands: an error for a change that loses data, a warning for a warning, a notice
    for a definition change, each on its entity's file; then the text form, for the job's log."""
    for change in plan.changes:
        level = "error" if change.destructive else "warning" if change.warning else "notice"
        where = f"file={_property(change.file)}," if change.file else ""
        title = f"toolkit plan: {change.kind} {change.entity}" + (f" on {change.cluster}" if change.cluster else "")
        message = change.change + (f" ({change.count} instance(s), {_size(change.bytes)})" if change.instances else "")
        if change.command:
            message += f"\nsee: {change.command}"
        yield f"::{level} {where}title={_property(title)}::{_data(message)}"
    token = secrets.token_hex(16)  # GitHub runs no command between these: a path or name cannot inject one
    yield f"::stop-commands::{token}"
    yield from as_text(plan)
    yield f"::{token}::"


def _markdown_details(change: Change) -> Iterator[str]:
    where = f" on `{change.cluster}`" if change.cluster else ""
    yield ""
    yield f"<details><summary>{_mark(change)} {change.kind} <code>{change.entity}</code>{where}: " \
          f"{change.count} instance(s)</summary>"
    yield ""
    if change.instances:
        yield "| Instance | Path | Size |"
        yield "|---|---|---:|"
        for instance in change.instances[:MARKDOWN_SHOWN]:
            yield f"| {format_timestamp(instance.time)} | {_cell(instance.path)} | {_size(instance.bytes)} |"
        if change.count > MARKDOWN_SHOWN:
            yield f"| ... and {change.count - MARKDOWN_SHOWN} more | `--format json` lists them | |"
    if change.command:
        yield ""
        yield "```"
        yield change.command
        yield "```"
    yield ""
    yield "</details>"


def _mark(change: Change) -> str:
    return "\u274c loses data" if change.destructive else "\u26a0\ufe0f warning" if change.warning else "changed"


def _span(change: Change) -> tuple[str, str]:
    if not change.instances:
        return "", ""
    times = [instance.time for instance in change.instances]
    return format_timestamp(min(times)), format_timestamp(max(times))


def _cell(text: str) -> str:
    """Text safe in a markdown table's cell: pipes, backticks and the opening of an HTML tag or comment escaped,
    no line breaks."""
    for character, escaped in (("\\", "\\\\"), ("|", "\\|"), ("`", "\\`"), ("<", "&lt;"), ("\r", " "),
                               ("\n", " ")):
        text = text.replace(character, escaped)
    return text


def _short(revision: str) -> str:
    return revision[:12] if len(revision) == 40 else revision


def _data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit escapes it (core/src/command.ts)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
