"""The plan of a change: the base and head definitions loaded (a git revision extracted, or a folder, or the working
tree), then every definition change and what each does to the data on the clusters."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from toolkit.change_plan.changes import Change, Plan
from toolkit.change_plan.definitions import definition_changes
from toolkit.change_plan.retention_changes import retention_changes
from toolkit.change_plan.revisions import commit_of, extract
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import UsageError


@dataclass(frozen=True)
class PlanCall:
    """`repo` (its working tree, or its revision `head`) against its revision `base`, or the folder `base_repo`."""

    repo: Path
    now: datetime
    base: str | None = None
    head: str | None = None
    base_repo: Path | None = None
    cluster: str | None = None


def plan_change(call: PlanCall) -> Plan:
    """Every change from the base to the head, the destructive first; UsageError for a bad call or a definition
    that does not load."""
    if (call.base is None) == (call.base_repo is None):
        raise UsageError("Give the base to compare with: --base REV (a git revision of the repo) or --base-repo DIR.")
    with tempfile.TemporaryDirectory(prefix="toolkit-plan-") as scratch:
        base_label, base = _base(call, Path(scratch))
        head_label, head = _head(call, Path(scratch))
        if call.cluster is not None and call.cluster not in head.clusters and call.cluster not in base.clusters:
            raise UsageError(f"No cluster is named {call.cluster!r} in the base or the head: its clusters are "
                             f"{', '.join(sorted(head.clusters.keys() | base.clusters.keys())) or 'none'}.")
        data = list(retention_changes(base, head, call.now, call.cluster, str(call.repo)))
        changes = [*data, *definition_changes(base, head)]
    ordered = sorted(changes, key=lambda change: (not change.destructive, not change.warning))
    return Plan(base_label, head_label, call.now, tuple(ordered))


def _base(call: PlanCall, scratch: Path) -> tuple[str, ConfigRepo]:
    if call.base_repo is not None:
        return str(call.base_repo), _load(call.base_repo, f"the base repo {call.base_repo}")
    assert call.base is not None
    commit = commit_of(call.repo, call.base)
    return commit, _load(extract(call.repo, commit, scratch / "base"), f"the base revision {call.base} ({commit[:12]})")


def _head(call: PlanCall, scratch: Path) -> tuple[str, ConfigRepo]:
    if call.head is None:
        return "working tree", _load(call.repo, f"the working tree of {call.repo}")
    commit = commit_of(call.repo, call.head)
    return commit, _load(extract(call.repo, commit, scratch / "head"), f"the head revision {call.head} ({commit[:12]})")


def _load(root: Path, what: str) -> ConfigRepo:
    """The repo, or UsageError saying which side does not load (a plan compares two valid definitions)."""
    try:
        return ConfigRepo.load(root)
    except UsageError as err:
        raise UsageError(f"{what[0].upper()}{what[1:]} does not load, so there is nothing to compare: {err}") from None


def exit_code(changes: tuple[Change, ...], strict: bool) -> int:
    """1 when a change loses data (or, `strict`, when any is a warning), else 0."""
    if any(change.destructive for change in changes):
        return 1
    return 1 if strict and any(change.warning for change in changes) else 0
