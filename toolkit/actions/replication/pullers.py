"""What replication does per source for one instance, by how the feed is stored on the target: a `Puller`
says where the instance is on both sides, whether the source's is there, pulls it, and finishes the instance.
`FilePuller` is here (folders, files.py); the table puller is `tables.TablePuller` (export, copy, import). Both
check a staged instance against the feed's data-quality gate (target_gate.py) before publishing it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from toolkit.actions.replication.copier_choice import ChosenCopier
from toolkit.actions.replication.files import Folder, FolderOutcome, available, replicate_folder, write_flag
from toolkit.actions.replication.target_gate import TargetGate
from toolkit.core.el.templates import PathTemplate
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.replication_settings import ReplicationSettings
from toolkit.core.instances.availability import InstanceState, known_files, probe_files
from toolkit.core.instances.feed_locations import feed_locations, require_safe_template, under_root
from toolkit.core.storage.filesystem import FileSystem, TreeDigest, parent_of
from toolkit.core.storage.publish import Guard, no_guard
from toolkit.core.storage.tree import join
from toolkit.errors import UsageError
from toolkit.planners.replication import Source
from toolkit.services.runtime.run_context import RunContext


class Puller(Protocol):
    def places(self, source: Source, instance: datetime) -> tuple[str, str]:
        """Where the instance is on the source and where it goes on the target (paths or partitions)."""

    def missing(self, source: Source, instance: datetime) -> str | None:
        """None when the source's instance is available, else what is missing (a clause of a sentence)."""

    def pull(self, source: Source, instance: datetime, guard: Guard = no_guard) -> FolderOutcome:
        """Replicate the source's instance into its place on the target, atomically; `guard` (the instance's
        lease check) is called right before each publishing step. A staged copy that a `block` gate stops is
        discarded and not published (the outcome's `blocked`)."""

    def finish(self, instance: datetime, every_source: Sequence[Source], changed: bool,
               guard: Guard = no_guard) -> bool:
        """After every pulled source succeeded: mark the instance available on the target (right after
        `guard`); True when written."""

    def on_target(self, instance: datetime, unchanged: TreeDigest | None = None) -> InstanceState:
        """The instance on the target as readers see it now (available, fingerprint): what its event records.
        `unchanged`: its visible files as a pull digested them, when it found them as the source's."""


TablePullerFactory = Callable[[Feed, Cluster, Sequence[Source], RunContext, TargetGate | None], Puller]


def data_template(feed: Feed, cluster: Cluster) -> PathTemplate:
    text = feed.locations_on(cluster.name).get("data")
    if text is None:
        raise UsageError(f"Feed '{feed.name}' has no data location on cluster '{cluster.name}': add "
                         "locations.data (a path template) to replicate it.")
    template = PathTemplate(text)
    require_safe_template("data", feed.name, template, "replication")
    return template


def cluster_root(cluster: Cluster) -> str:
    if cluster.write_endpoint is None:
        raise UsageError(f"The cluster '{cluster.name}' has no write interface: add interfaces.write.endpoint, the "
                         "root of its file system.")
    return cluster.write_endpoint


class FilePuller:
    """Folders of a file feed: each source's instance folder into the target instance (or its `partition`
    folder there); the availability flag last, once every source's part is there. With a `gate`, each staging
    folder is checked before it is renamed into place. With `recopy`, every file is copied again (files.py)."""

    def __init__(self, feed: Feed, target: Cluster, fs: FileSystem, settings: ReplicationSettings,
                 gate: TargetGate | None = None, *, recopy: bool = False) -> None:
        self.feed, self.target, self.fs, self.settings, self.gate = feed, target, fs, settings, gate
        self.recopy = recopy
        self.zone = resolve_zone(feed.timezone)
        self.target_template = data_template(feed, target)
        fs.protect(cluster_root(target))  # replication deletes staging and replaced folders there, never the root
        self._source_templates: dict[str, PathTemplate] = {}  # by cluster: built and checked once per run

    def _instance_path(self, cluster: Cluster, template: PathTemplate, instance: datetime) -> str:
        return under_root(cluster_root(cluster), template.format(instance, self.zone))

    def target_instance(self, instance: datetime) -> str:
        return self._instance_path(self.target, self.target_template, instance)

    def places(self, source: Source, instance: datetime) -> tuple[str, str]:
        template = self._source_templates.get(source.cluster.name)
        if template is None:
            template = self._source_templates[source.cluster.name] = data_template(self.feed, source.cluster)
        source_path = self._instance_path(source.cluster, template, instance)
        target_path = self.target_instance(instance)
        return source_path, join(target_path, source.partition) if source.partition else target_path

    def missing(self, source: Source, instance: datetime) -> str | None:
        source_path = self.places(source, instance)[0]
        flag = self.feed.availability_flag
        if available(self.fs, source_path, flag):
            return None
        return f"{join(source_path, flag) if flag else source_path} does not exist"

    def pull(self, source: Source, instance: datetime, guard: Guard = no_guard) -> FolderOutcome:
        source_path, target_path = self.places(source, instance)
        folder = Folder(source_path, target_path, self.feed.availability_flag)
        self._refuse_links(folder)
        gate, copier = self.gate, ChosenCopier(self.fs, self.settings)
        outcome = replicate_folder(
            self.fs, copier, folder, guard,
            check=(lambda staged: gate.folder(instance, staged)) if gate is not None else None, recopy=self.recopy)
        return replace(outcome, copier=copier.method, copy_slices=copier.slices)

    def _refuse_links(self, folder: Folder) -> None:
        """A StorageError (exit 1) before anything is copied, renamed or deleted when a symbolic link is on the way
        from the target cluster's root to the instance or to its staging or replaced folder beside it: copies,
        mkdirs and renames would go through it, outside the feed perhaps."""
        self.fs.refuse_links_below(cluster_root(self.target), folder.target)
        for beside in (folder.staging, folder.replaced):  # their way is the target's but for the last name
            self.fs.refuse_links_below(parent_of(beside), beside)

    def finish(self, instance: datetime, every_source: Sequence[Source], changed: bool,
               guard: Guard = no_guard) -> bool:
        flag = self.feed.availability_flag
        target_instance = self.target_instance(instance)
        if not flag or any(not self.fs.exists(join(target_instance, source.partition))
                           for source in every_source if source.partition):
            return False  # another source's part is still missing: no flag yet
        target_flag = join(target_instance, flag)
        found = self.fs.status(target_flag)
        if found is not None and not found.is_dir and not changed:
            return False  # up to date, flag and all (a folder at the flag's name is no flag: write_flag says so)
        source_flag = join(self.places(every_source[0], instance)[0], flag)
        write_flag(self.fs, source_flag, target_flag, guard)
        return True

    def on_target(self, instance: datetime, unchanged: TreeDigest | None = None) -> InstanceState:
        """The instance's state on the target; `unchanged`: its visible files, digested by a pull that found them as
        the source's (then only the flag is looked up)."""
        where = feed_locations(self.feed, self.target)
        if unchanged is not None:
            return known_files(self.fs, where, self.feed.availability_flag, instance, unchanged)
        return probe_files(self.fs, where, self.feed.availability_flag, [instance])[instance]
