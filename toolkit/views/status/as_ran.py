"""`toolkit rerun --as-ran`: an instance rerun with the definitions of the commit that first ran it, as Falcon kept an
instance on the definition it was scheduled with, where every other call runs the current files.

What ran is what the instance's first attempt recorded (core/entities/provenance.py): the config repo's commit and
the process's definition hash. The repo's folder at that commit is read from git (never the working tree) and
written whole into a folder of its own, which the rerun is given as `--repo`, the commit named beside it so that the
rerun's records say which commit ran (services/runtime/repo_revision.py); before that, the process there must
hash to the recorded definition, and the cluster must keep its files and its ledger where it keeps them now (a rerun
records into today's ledger, never into a place the cluster left). An instance whose definition is in no commit (no
record of it, a repo outside git, uncommitted changes) or whose commit git no longer has is one sentence, exit 2.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.layout import working_root
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.services.runtime.repo_revision import CHECKED_OUT
from toolkit.views.plan.revisions import commit_of, revision_files, write

SHORT = 12  # a commit as the sentences show it
_COMMIT_ID = re.compile("[0-9a-f]{40}|[0-9a-f]{64}")  # what records write (a branch or `HEAD` names something else)


@dataclass(frozen=True)
class RanAt:
    """The commit and the definition hash an instance's first attempt recorded."""

    commit: str
    definition: str


def first_ran(ledger: Ledger, process: str, t: datetime) -> RanAt:
    """What the instance's first attempt ran; UsageError (exit 2) naming the instance when no commit holds it."""
    attempts = ledger.attempts(process, t)
    whose = f"The instance {format_timestamp(t)} of process '{process}'"
    if not attempts:
        raise UsageError(f"{whose} has no attempt in the ledger, so no definition ran it: rerun it without --as-ran.")
    ran = attempts[0].definition
    if ran is None:
        raise UsageError(f"{whose} recorded no definition at its first attempt (an older toolkit ran it): rerun it "
                         "without --as-ran.")
    if ran.commit is None:
        raise UsageError(f"{whose} first ran from a config repo that was not in git, so no commit holds what ran: "
                         "rerun it without --as-ran.")
    if _COMMIT_ID.fullmatch(ran.commit) is None:
        raise UsageError(f"{whose} recorded {ran.commit[:80]!r} as the commit it first ran, which is no commit id: "
                         "rerun it without --as-ran.")
    if ran.dirty:
        raise UsageError(f"{whose} first ran at commit {ran.commit[:SHORT]} with changes not committed, so no commit "
                         "holds what ran: rerun it without --as-ran (`toolkit plan` tells what the current "
                         "definition changes).")
    return RanAt(ran.commit, ran.definition)


@dataclass(frozen=True)
class CheckedOut:
    """The config repo's folder at `commit`, written whole into `folder` (its `repo` is what the rerun loads)."""

    commit: str
    folder: Path

    @property
    def repo(self) -> Path:
        return self.folder / CHECKED_OUT[0]

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def check_out(repo: Path, ran: RanAt, process: str, cluster: Cluster) -> CheckedOut:
    """The repo at the commit that ran, checked: its process hashes to what ran and its cluster is today's place.
    UsageError (exit 2) for a commit git does not have, a repo folder the commit did not hold, or a check that
    fails; nothing is left behind then."""
    short = ran.commit[:SHORT]
    try:
        commit = commit_of(repo, ran.commit)
    except UsageError:
        raise UsageError(f"The commit {short} that first ran process '{process}' is not in the git history of {repo} "
                         "(a shallow or rewritten history lacks it, or the repo is no longer in git): fetch it, or "
                         "rerun without --as-ran.") from None
    files = revision_files(repo, commit)
    if files is None:
        raise UsageError(f"The config repo {repo} had no folder at commit {short}, which first ran process "
                         f"'{process}': rerun without --as-ran.")
    checked = CheckedOut(commit, Path(tempfile.mkdtemp(prefix=f"toolkit-as-ran-{short}-")))
    try:
        write(files, checked.repo, lambda _: True)
        (checked.folder / CHECKED_OUT[1]).write_text(commit + "\n", encoding="ascii")
        _verify(ConfigRepo.load(checked.repo), ran, process, cluster)
    except BaseException:
        checked.remove()
        raise
    return checked


def checked_out_instances(repo: Path, ledger: Ledger, process: str, cluster: Cluster, times: Iterable[datetime],
                          tell: Callable[[int, RanAt, CheckedOut], None]) -> dict[datetime, CheckedOut]:
    """Each instance's repo at the commit that first ran it, one folder per commit (`tell` is given each, with how
    many instances it serves). Every instance's first attempt is read before any folder is written, and one that
    cannot run as it ran refuses the whole call (exit 2) with the folders written so far removed: no rerun starts on
    half of a window."""
    ran = {t: first_ran(ledger, process, t) for t in times}
    folders: dict[RanAt, CheckedOut] = {}
    try:
        for at in dict.fromkeys(ran.values()):
            folders[at] = check_out(repo, at, process, cluster)
            tell(sum(1 for value in ran.values() if value == at), at, folders[at])
    except BaseException:
        for made in folders.values():
            made.remove()
        raise
    return {t: folders[at] for t, at in ran.items()}


def _verify(then: ConfigRepo, ran: RanAt, process: str, cluster: Cluster) -> None:
    short = ran.commit[:SHORT]
    entity = then.processes.get(process)
    if entity is None or definition_hash(entity, then.root) != ran.definition:
        raise UsageError(f"The process '{process}' at commit {short} is not the definition its instances recorded "
                         f"({ran.definition}): rerun without --as-ran.")
    was = then.clusters.get(cluster.name)
    if was is None or was.write_endpoint != cluster.write_endpoint or working_root(was) != working_root(cluster):
        raise UsageError(f"The cluster '{cluster.name}' kept its files or its ledger elsewhere at commit {short}: a "
                         "rerun --as-ran records into today's ledger and never writes where the cluster was, so "
                         "rerun without --as-ran.")
