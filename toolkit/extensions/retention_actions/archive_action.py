"""Retention's `archive` action: each expired instance of a file feed goes to the archive location, under its
path relative to the cluster root, and only then leaves the feed.

Per instance, for a run killed at any moment:
1. Unless the archive already holds the instance, its files are copied into a staging name beside the archive
   path (`.<name>.archiving`, which no template parses); a file already staged with the source's length and
   modification time is not copied again (the copier sets the mtime last, after checking the length).
2. The staged files are verified against the source (every file, its length, and its checksum where both file
   systems keep one of one kind, else its mtime), then the staging name is renamed to the archive path.
3. The archive path is verified against the source again (every file of the source must be there, the same),
   and only then are those verified files deleted from the feed, one by one, and the folders they leave empty
   (never a recursive delete: a file that arrives in the instance meanwhile stays, and the next run reports
   that the archive differs from it).
A rerun finds each instance at one of these steps and finishes it: the copy is redone or found complete, then
the source removed. An archive path that holds something else (another copy that differs) is never replaced:
the instance stays in the feed and is reported.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from toolkit.core.el.templates import PathTemplate, path_segments
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.object_stores import require_no_object_store_uri
from toolkit.core.instances.feed_locations import under_root
from toolkit.core.storage.filesystem import CopyTask, FileStatus, FileSystem, StorageError, normalize_uri, parent_of
from toolkit.core.storage.tree import files_below, remove_empty_folders
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.action import Applied, RetentionAction
from toolkit.extensions.retention_actions.location_plan import LocationPlan, remove_empty_parents

ARCHIVE_PROPERTY = "retention.archive"
STAGING_SUFFIX = ".archiving"
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def _prepare(feed: Feed, cluster: Cluster, root: str | None) -> Archival | None:
    if root is None:
        _archive_value(feed, cluster)
        return None
    target = archive_root(feed, cluster, root)
    require_no_object_store_uri(target, f"The archive location of feed '{feed.name}' on cluster '{cluster.name}'")
    return Archival(root, target)


def archive_root(feed: Feed, cluster: Cluster, root: str) -> str:
    """Where the feed's instances on `cluster` are archived: the feed's property `retention.archive`, else the
    cluster's `archive` location; a path is under the cluster root, a URI is taken as it is. UsageError when
    there is none, or when archived instances would land on or inside the feed's own folders."""
    value = _archive_value(feed, cluster)
    target = normalize_uri(value if _URI.match(value) else under_root(root, value))
    if any(part in (".", "..") for part in path_segments(target.split("://", 1)[-1])):
        raise UsageError(f"The archive location {value!r} of feed '{feed.name}' on cluster '{cluster.name}' "
                         "contains '.' or '..': give a plain path such as /archive.")
    for kind, text in feed.locations_on(cluster.name).items():
        try:
            base = normalize_uri(root.rstrip("/") + PathTemplate(text).static_prefix)
        except UsageError:
            continue  # a template that does not parse: its own lint rule says so, and the run's plan refuses it
        if target == normalize_uri(root) or target == base or target.startswith(base.rstrip("/") + "/"):
            raise UsageError(
                f"The archive location {value!r} of feed '{feed.name}' on cluster '{cluster.name}' is the cluster "
                f"root or lies inside the feed's {kind} folder {base}: archived instances would land on the data "
                "they are copied from; give a folder of its own such as /archive.")
    return target


def _archive_value(feed: Feed, cluster: Cluster) -> str:
    """The archive location as the feed or the cluster gives it; UsageError when neither does."""
    value = feed.properties.get(ARCHIVE_PROPERTY) or cluster.location("archive")
    if not value:
        raise UsageError(
            f"The retention of feed '{feed.name}' on cluster '{cluster.name}' archives, but there is no archive "
            f"location: add locations.archive to cluster '{cluster.name}' (e.g. /archive), or the feed property "
            f"{ARCHIVE_PROPERTY}.")
    return value


@dataclass(frozen=True)
class Archival:
    """The archive action for one feed on one cluster: its instances go from under `root` to under `target_root`."""

    root: str
    target_root: str
    action: str = "archive"

    def destination(self, path: str) -> str:
        return self.target_root.rstrip("/") + path[len(self.root.rstrip("/")):]

    def apply(self, fs: FileSystem, plan: LocationPlan) -> Applied:
        """Move every expired instance of the plan to the archive (see the module's docstring), one by one, then
        remove the folders that left empty; the sizes are taken before anything moves."""
        sizes = fs.total_sizes([instance.entry for instance in plan.expired])
        moved: dict[str, str] = {}
        kept: dict[str, str] = {}
        for instance in plan.expired:
            target = self.destination(instance.path)
            problem = archive_instance(fs, instance.path, target)
            if problem is None:
                moved[instance.path] = target
            else:
                kept[instance.path] = problem
        evicted = {path: size for path, size in sizes.items() if path not in kept}
        return Applied(evicted, tidy_after_archive(fs, plan), moved, kept)


def tidy_after_archive(fs: FileSystem, plan: LocationPlan) -> int:
    """Remove the folders that archiving the plan's instances emptied, never recursively (a folder holding a
    kept instance, or a file that arrived, stays); the count removed."""
    instance_paths = {instance.path for instance in plan.expired}
    directories = sum(remove_empty_folders(fs, path) for path in plan.deletions
                      if path not in instance_paths and fs.status(path) is not None)
    return directories + remove_empty_parents(fs, plan)


def archive_instance(fs: FileSystem, source: str, target: str) -> str | None:
    """Copy, verify, then remove one instance; None when done, else why the instance stays in the feed."""
    if fs.status(target) is None:
        _stage(fs, source, target)
    elif _same_place(fs, source, target):
        return (f"the archive path {target} is the instance itself (a symbolic link on the way to the archive leads "
                "back into the feed): give an archive location of its own")
    verified = _files(fs, source)
    differences = _differences(fs, verified, _files(fs, target))
    if differences:
        return (f"the archive already holds {target}, which differs from it ({differences}); compare the two and "
                "remove one, then run again")
    _remove_verified(fs, source, verified)
    return None


def _same_place(fs: FileSystem, source: str, target: str) -> bool:
    """Whether the archive path is the instance itself, reached by another name (a link on the way): a probe
    written beside the archive path shows up beside the instance. Checked when the archive path exists already,
    before anything is deleted as "verified" against what would be the instance's own files."""
    name = f".toolkit-archive-probe-{uuid.uuid4().hex}"
    probe = f"{parent_of(normalize_uri(target)).rstrip('/')}/{name}"
    fs.create_exclusive(probe, b"")
    try:
        return fs.status(f"{parent_of(normalize_uri(source)).rstrip('/')}/{name}") is not None
    finally:
        fs.delete(probe, recursive=False)


def _remove_verified(fs: FileSystem, source: str, verified: dict[str, FileStatus]) -> None:
    """Delete the files that were verified in the archive, then the folders of the instance left empty, deepest
    first; what is not empty (a file that arrived since, a link) stays."""
    for item in verified.values():
        fs.delete(item.path, recursive=False)
    status = fs.status(source)
    if status is not None and status.is_dir:
        remove_empty_folders(fs, source)


def _stage(fs: FileSystem, source: str, target: str) -> None:
    """Copy the source's files to the staging name, verify them, then rename it to `target`."""
    staging = f"{parent_of(normalize_uri(target)).rstrip('/')}/.{normalize_uri(target).rsplit('/', 1)[-1]}" \
              f"{STAGING_SUFFIX}"
    wanted = _files(fs, source)
    status = fs.status(source)
    if status is not None and status.is_dir:
        fs.mkdirs(staging)
    staged = _files(fs, staging)
    for relative in staged.keys() - wanted.keys():
        fs.delete(staged[relative].path, recursive=False)  # left by an earlier run of a source since changed
    tasks = [CopyTask(item.path, _inside(staging, relative), item.length, item.modification_time)
             for relative, item in wanted.items() if not _same(fs, staged.get(relative), item)]
    failed = [result for result in (fs.copy_files(tasks) if tasks else []) if not result.ok]
    if failed:
        raise StorageError(f"Cannot archive {source}: {len(failed)} of {len(tasks)} file(s) failed to copy to "
                           f"{staging}; the first: {failed[0].task.source}: {failed[0].error}. The feed keeps it; a "
                           "rerun copies only what is missing.")
    differences = _differences(fs, wanted, _files(fs, staging))
    if differences:
        raise StorageError(f"Cannot archive {source}: its copy in {staging} differs ({differences}). The feed keeps "
                           "it; run again.")
    fs.rename(staging, target)


def _files(fs: FileSystem, path: str) -> dict[str, FileStatus]:
    """The files of an instance by relative path ('' for an instance that is one file); {} when it is gone."""
    status = fs.status(path)
    if status is None:
        return {}
    if not status.is_dir:
        return {"": status}
    return {item.relative_path: item.status for item in files_below(fs, path)}


def _inside(folder: str, relative: str) -> str:
    return normalize_uri(folder).rstrip("/") + "/" + relative if relative else folder


def _differences(fs: FileSystem, source: dict[str, FileStatus], copy: dict[str, FileStatus]) -> str:
    """'' when every source file has an identical copy; else the first file that does not, and how many."""
    bad = [relative for relative, item in source.items() if not _same(fs, copy.get(relative), item)]
    if not bad:
        return ""
    return f"{bad[0] or 'the file'} is missing or not the same" + (f", and {len(bad) - 1} more" if len(bad) > 1 else "")


def _same(fs: FileSystem, copy: FileStatus | None, source: FileStatus) -> bool:
    """The same length, and the same checksum where both file systems keep one of one kind (HDFS), else the same
    modification time (which the copier sets only after the copy checked out)."""
    if copy is None or copy.is_dir or copy.length != source.length:
        return False
    if fs.keeps_checksums(source.path) and fs.keeps_checksums(copy.path):
        ours, theirs = fs.checksum(source.path), fs.checksum(copy.path)
        if ours and theirs and ours.split(":", 1)[0] == theirs.split(":", 1)[0]:
            return ours == theirs
    return copy.modification_time == source.modification_time


ACTION = RetentionAction(
    name="archive", prepare=_prepare,
    table_refusal="archives a catalog table, which the toolkit does not do (only file feeds are archived): set "
                  "clusters[].retention.action to delete, or export the partitions first.")
