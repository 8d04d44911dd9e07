"""The plan of a change: the base and head definitions loaded (a git revision extracted, or a folder, or the working
tree), then every definition change and what each does to the data on the clusters."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from toolkit.core.entities import parse_cache
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.yaml_loader import collector_paused
from toolkit.errors import UsageError
from toolkit.views.plan.changes import Change, Plan
from toolkit.views.plan.comparison import Comparison
from toolkit.views.plan.definitions import definition_changes
from toolkit.views.plan.feed_storage import FeedStorage
from toolkit.views.plan.gate_changes import gate_changes
from toolkit.views.plan.location_changes import location_changes
from toolkit.views.plan.process_changes import process_changes
from toolkit.views.plan.replication_changes import replication_changes
from toolkit.views.plan.retention_changes import retention_changes
from toolkit.views.plan.revision_repo import revision_repo
from toolkit.views.plan.revisions import RevisionFiles, commit_of, revision_files, revision_scratch, unborn
from toolkit.views.plan.schedule_changes import schedule_changes
from toolkit.views.plan.validity_changes import validity_changes

# What each kind of change does to the data, read from the clusters' storage and ledgers (not --offline).
DATA_CHANGES = (retention_changes, location_changes, validity_changes, replication_changes, process_changes)
# What each kind of change does that the definitions alone tell.
DEFINITION_EFFECTS = (schedule_changes, gate_changes)


@dataclass(frozen=True)
class PlanCall:
    """`repo` (its working tree, or its revision `head`) against its revision `base`, or the folder `base_repo`."""

    repo: Path
    now: datetime
    base: str | None = None
    head: str | None = None
    base_repo: Path | None = None
    cluster: str | None = None
    offline: bool = False  # the definitions alone: no storage, no ledger (a pre-commit hook)


def plan_change(call: PlanCall) -> Plan:
    """Every change from the base to the head, the destructive first; UsageError for a bad call or a definition
    that does not load."""
    if (call.base is None) == (call.base_repo is None):
        raise UsageError("Give the base to compare with: --base REV (a git revision of the repo) or --base-repo DIR.")
    head_revision, base_revision = _revisions(call)  # listed first: what they take decides where they are written
    sides = [side.files for side in (head_revision, base_revision) if side is not None and side.files is not None]
    with revision_scratch("toolkit-plan-", sum(side.size for side in sides)) as scratch:
        head_label, head = _head(call, head_revision, scratch)  # first: its parse cache serves the base's same files
        base_label, base = _base(call, base_revision, scratch)
        if call.cluster is not None and call.cluster not in head.clusters and call.cluster not in base.clusters:
            raise UsageError(f"No cluster is named {call.cluster!r} in the base or the head: its clusters are "
                             f"{', '.join(sorted(head.clusters.keys() | base.clusters.keys())) or 'none'}.")
        comparison = Comparison(base, head, call.now, call.cluster, str(call.repo), FeedStorage())
        kinds = DEFINITION_EFFECTS if call.offline else (*DATA_CHANGES, *DEFINITION_EFFECTS)
        with collector_paused():  # a year of hourly instances is 10^5 records per feed, none of them in a cycle
            data = [change for kind in kinds for change in kind(comparison)]
        changes = [*data, *definition_changes(base, head)]
        files = _definition_files(base, head, call.repo, {(change.kind, change.entity) for change in changes})
        located = [replace(change, file=files.get((change.kind, change.entity))) for change in changes]
    ordered = sorted(located, key=lambda change: (not change.destructive, not change.warning))
    return Plan(base_label, head_label, call.now, tuple(ordered), call.offline)


def _definition_files(base: ConfigRepo, head: ConfigRepo, repo: Path,
                      named: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Each `named` entity's file (the head's over the base's), as its path in the config repo `repo`: relative to the
    working folder when the repo is inside it (what GitHub's annotations and editors want from a CI job at the
    checkout's top), else relative to the repo."""
    files = {}
    for side in (base, head):
        for entity in side.entities:
            if (entity.ref.kind.value, entity.name) not in named:
                continue  # a thousand entities unchanged: no path worked out for them
            inside = Path(os.path.relpath(os.path.abspath(entity.document.file), os.path.abspath(side.root)))
            here = os.path.relpath(Path(os.path.abspath(repo)) / inside, Path.cwd())  # links are not followed
            files[(entity.ref.kind.value, entity.name)] = str(inside) if here.startswith("..") else here
    return files


class _Revision(NamedTuple):
    """A side given as a git revision (`name`, as the call gave it): its commit and files (None: the config repo's
    folder did not exist at that commit)."""

    name: str
    commit: str
    files: RevisionFiles | None


def _revisions(call: PlanCall) -> tuple[_Revision | None, _Revision | None]:
    """The head and the base given as git revisions (None: the working tree, a folder, or no commit yet), listed;
    UsageError for a head revision without the config repo's folder."""
    head = _revision(call, call.head) if call.head is not None else None
    if head is not None and head.files is None:
        raise UsageError(f"The config repo's folder {call.repo} did not exist at the head revision {call.head} "
                         f"({head.commit[:12]}): give --head a revision that has it.")
    if call.base is None or (call.base == "HEAD" and unborn(call.repo)):
        return head, None
    return head, _revision(call, call.base)


def _revision(call: PlanCall, name: str) -> _Revision:
    commit = commit_of(call.repo, name)
    return _Revision(name, commit, revision_files(call.repo, commit))


def _base(call: PlanCall, revision: _Revision | None, scratch: Path) -> tuple[str, ConfigRepo]:
    if call.base_repo is not None:
        return str(call.base_repo), _load(call.base_repo, f"the base repo {call.base_repo}")
    if revision is None:  # the repository's first commit: every entity is new
        return "no commit yet", _nothing(scratch)
    if revision.files is None:  # the config repo's folder is added after that commit: every entity is new
        return f"{revision.commit} (without the config repo's folder)", _nothing(scratch)
    what = f"the base revision {revision.name} ({revision.commit[:12]})"
    return revision.commit, revision_repo(revision.files, scratch / "base",
                                          lambda root: _load(root, what, cached_as=call.repo))


def _nothing(scratch: Path) -> ConfigRepo:
    """A config repo with no entity: the base of a repo's first commit, or of a folder that did not exist yet."""
    for folder in ("clusters", "feeds", "processes"):
        (scratch / "empty" / folder).mkdir(parents=True)
    return ConfigRepo.load(scratch / "empty")


def _head(call: PlanCall, revision: _Revision | None, scratch: Path) -> tuple[str, ConfigRepo]:
    if revision is None:  # a working tree: its unchanged files come from the parse cache, as for every command
        return "working tree", _load(call.repo, f"the working tree of {call.repo}", cached=not parse_cache.turned_off())
    assert revision.files is not None  # refused before: _revisions
    what = f"the head revision {revision.name} ({revision.commit[:12]})"
    return revision.commit, revision_repo(revision.files, scratch / "head",
                                          lambda root: _load(root, what, cached_as=call.repo))


def _load(root: Path, what: str, cached: bool = False, cached_as: Path | None = None) -> ConfigRepo:
    """The repo, or UsageError saying which side does not load (a plan compares two valid definitions). A
    revision extracted into a scratch folder is served from the working tree's parse cache, read only (its
    unchanged files are the same bytes), unless the cache is turned off."""
    try:
        return ConfigRepo.load(root, cached=cached,
                               cached_as=cached_as if cached_as is not None and not parse_cache.turned_off() else None)
    except UsageError as err:
        said = str(err) if cached_as is None else str(err).replace(str(root), f"{cached_as} (at that revision)")
        raise UsageError(f"{what[0].upper()}{what[1:]} does not load, so there is nothing to compare: {said}") from None


def exit_code(changes: tuple[Change, ...], strict: bool) -> int:
    """1 when a change loses data (or, `strict`, when any is a warning), else 0."""
    if any(change.destructive for change in changes):
        return 1
    return 1 if strict and any(change.warning for change in changes) else 0
