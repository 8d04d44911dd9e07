"""`toolkit status --changed-since REV`: the instances of a process whose last success ran another definition than
the one of git revision REV of the config repo (core/entities/provenance.py): what is stale after a change, and what
`toolkit rerun --status SUCCEEDED` would compute again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.statuses import Status
from toolkit.views.plan.revision_repo import revision_repo
from toolkit.views.plan.revisions import commit_of, revision_files, revision_scratch
from toolkit.views.status.instance_rows import InstanceRow


def definition_at(repo: Path, revision: str, process: str) -> str | None:
    """The definition hash of `process` at git revision `revision` of the repo; None when it was not defined then."""
    files = revision_files(repo, commit_of(repo, revision))
    if files is None:
        return None  # the config repo's folder came later: no process was defined then
    with revision_scratch("toolkit-status-", files.size) as scratch:
        config = revision_repo(files, scratch / "at", lambda root: _load(root, revision))
        entity = config.processes.get(process)
        return definition_hash(entity, config.root) if entity is not None else None


def _load(root: Path, revision: str) -> ConfigRepo:
    try:
        return ConfigRepo.load(root)
    except UsageError as err:
        raise UsageError(f"The repo at {revision} does not load, so its definition is unknown: {err}") from None


def changed_since(rows: Sequence[InstanceRow], definition: str | None) -> list[InstanceRow]:
    """The succeeded rows whose definition is not `definition` (a row that recorded none counts as changed: its
    definition is unknown)."""
    return [row for row in rows if row.status == Status.SUCCEEDED
            and (definition is None or row.definition is None or row.definition.definition != definition)]
