"""Where a workflow file is read from: a path relative to the config repo, an absolute path on the cluster's
file system, or a URI. Read before anything else happens, so a missing file costs no lock and no record."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.core.entities.model import Cluster
from toolkit.core.instances.feed_locations import under_root
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.errors import UsageError

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class WorkflowSource:
    name: str  # as shown in errors and tracebacks: the repo-relative path or the URI
    text: str


def read_workflow(repo_root: Path, cluster: Cluster, path: str, fs: FileSystem, owner: str) -> WorkflowSource:
    if _URI.match(path) or path.startswith("/"):
        uri = path if _URI.match(path) else under_root(cluster.write_endpoint or "", path)
        try:
            data = fs.read(uri)
        except StorageError:
            raise UsageError(f"The workflow of {owner}, {uri}, cannot be read on cluster '{cluster.name}': put the "
                             "file there or fix workflow.path.") from None
        return WorkflowSource(uri, _text(data, uri, owner))
    local = (repo_root / path).resolve()
    if not local.is_relative_to(repo_root.resolve()):
        raise UsageError(f"The workflow path {path!r} of {owner} leaves the config repo: give a path inside it.")
    if not local.is_file():
        what = "is a folder, not a file," if local.is_dir() else "does not exist"
        raise UsageError(f"The workflow of {owner}, {path}, {what} in the config repo {repo_root}: add the "
                         "file or fix workflow.path.")
    return WorkflowSource(path, _text(local.read_bytes(), path, owner))


def _text(data: bytes, name: str, owner: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"The workflow of {owner}, {name}, is not UTF-8 text.") from None
