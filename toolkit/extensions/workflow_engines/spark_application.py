"""Where the application of an engine-spark process and its extra files are, as `workflow_source` finds a
workflow file: a path starting with `/` on the cluster's file system (under its `write` endpoint, as feed paths),
a URI as given, a relative path in the config repo. Checked before anything else happens, so a missing file costs
no lock and no record; workflow.path (Falcon's application folder) is not read."""

from __future__ import annotations

import re
from pathlib import Path

from toolkit.core.entities.model import Cluster, Process
from toolkit.core.instances.feed_locations import under_root
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.spark_command import SparkApplication, application_entries, ships_as_python

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def resolve_application(repo_root: Path, cluster: Cluster, process: Process, fs: FileSystem,
                        owner: str) -> SparkApplication:
    jar, lib = application_entries(process)
    if not jar:
        raise UsageError(f"The {owner} has engine spark but names no application: set spark-attributes.jar to its "
                         ".jar or .py file.")
    located = [_locate(repo_root, cluster, entry, fs, owner, "spark-attributes.jar") for entry in jar]
    located += [_locate(repo_root, cluster, entry, fs, owner, "workflow.lib") for entry in lib]
    extra = located[1:]
    return SparkApplication(jar[0], located[0], jars=tuple(f for f in extra if not ships_as_python(f)),
                            py_files=tuple(f for f in extra if ships_as_python(f)))


def _locate(repo_root: Path, cluster: Cluster, path: str, fs: FileSystem, owner: str, field: str) -> str:
    """The path spark-submit is given: a URI, or a local path in the config repo; it must exist."""
    named = f"The {field} of {owner} names"
    if _URI.match(path) or path.startswith("/"):
        uri = path if _URI.match(path) else under_root(cluster.write_endpoint or "", path)
        try:
            found = fs.exists(uri)
        except StorageError as err:
            raise UsageError(f"{named} {uri}, which cannot be checked on cluster '{cluster.name}' ({err}): fix "
                             f"{field} or the cluster's file system.") from None
        if not found:
            raise UsageError(f"{named} {uri}, which does not exist on cluster '{cluster.name}': put the file there "
                             f"or fix {field}.")
        return uri
    local = (repo_root / path).resolve()
    if not local.is_relative_to(repo_root.resolve()):
        raise UsageError(f"{named} {path!r}, which leaves the config repo: give a path inside it.")
    if not local.is_file():
        raise UsageError(f"{named} {path}, which does not exist in the config repo {repo_root}: add the file or fix "
                         f"{field}.")
    return str(local)
