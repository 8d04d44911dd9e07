"""A replication pull's look at its sources before any JVM starts: what `toolkit call --wait-first` does before it
starts `spark-submit ... replication.py` (the generated replication calls).

The entrypoint looks at its source instances once: every one missing, and the feed's timeout not reached, ends the
call WAITING (exit 3) with its run record on the target, which status and triage read. That call is made here, by the
replication's own code (`run_replication`, the lifecycle, the lease and the record), through the clusters' file
systems without Spark: no JVM starts to say that nothing is there yet. Anything else starts spark-submit: a source
instance there (the copy runs in Spark, above its threshold over the executors), the timeout passed (the entrypoint
records it as it always has), a table feed or one with a quality gate, a catch-up window, a staged export, a recopy,
a cluster only Hadoop's client reaches, or storage not reached without a JVM.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, cast

from toolkit.actions.replication.files import available
from toolkit.actions.replication.pullers import FilePuller
from toolkit.actions.replication.replication_entry import entry_parser
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.replication_settings import replication_settings
from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.errors import ToolkitError
from toolkit.planners.replication import deadline, instance_for, outside_validity, sources_of, target_of
from toolkit.services.runtime.cluster_files import cluster_file_system, reachable_without_jvm
from toolkit.services.runtime.entry_frame import load_repo, new_run_id, nominal, parsed_quietly, record_error
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.status import StatusLine, emit


def wait_for_data(arguments: list[str]) -> int | None:
    """Look, without a JVM, at the source instances the replication entrypoint's `arguments` pull. None: start the
    entrypoint now. Otherwise the call ended here, WAITING or refused as the entrypoint refuses: its status line is
    printed and this is its exit code."""
    args = parsed_quietly(entry_parser(), arguments)
    if args is None or args.window_from is not None or args.staged or args.recopy:
        return None
    began = time.perf_counter()
    status = StatusLine(action="replication", run_id=new_run_id(), entity=args.feed)
    try:
        t = nominal(args, status)
        now = parse_timestamp(args.now, "--now") if args.now else \
            datetime.now(timezone.utc).replace(second=0, microsecond=0)
        repo = load_repo(args.repo)
        feed = repo.feed(args.feed)
        target, on_target = target_of(repo, feed, args.target)
        sources = sources_of(repo, feed, args.source)
        clusters = [target, *(source.cluster for source in sources)]
        if feed.table_on(target.name) is not None or feed.quality is not None \
                or not all(reachable_without_jvm(cluster) for cluster in clusters):
            return None
        systems = {cluster.name: cluster_file_system(cluster) for cluster in clusters}
        instance = instance_for(feed, on_target, t)
        if instance is None:
            return None
        settings = replication_settings(feed)
        puller = FilePuller(feed, target, systems[target.name], settings)
        looked = [source for source in sources
                  if outside_validity(feed, instance, t, on_target, source.on_cluster) is None]
        if not looked or now >= deadline(feed, instance, settings) or any(
                available(systems[source.cluster.name], puller.places(source, instance)[0], feed.availability_flag)
                for source in looked):
            return None  # something to copy, a timeout to record, or nothing to look at: the entrypoint's
        status.cluster = target.name
        status.add(target=target.name, source=args.source)
        result = run_replication(repo, feed.name, target.name, ReplicationRequest(t, now, source=args.source),
                                 RunContext(cast(FileSystem, _ByCluster(systems, clusters, target.name)), status.run_id,
                                            lease_seconds=args.lease or DEFAULT_LEASE_SECONDS))
    except StorageError:  # not reached without a JVM (WebHDFS down, Kerberos without its extra): Hadoop's client may
        return None
    except ToolkitError as err:  # the entrypoint's own refusals, said as it says them
        record_error(status, err)
        status.elapsed_seconds = round(time.perf_counter() - began, 3)
        return emit(status, args.status_file)
    for reason in result.reasons():
        print(f"replication: {reason}.", file=sys.stderr)
    status.add_counters(result.counters())
    if len(result.instances) == 1 and result.instances[0].instance is not None:
        status.add(instance=format_timestamp(result.instances[0].instance), record=result.instances[0].record)
    status.status = result.status
    status.elapsed_seconds = round(time.perf_counter() - began, 3)
    return emit(status, args.status_file)


class _ByCluster:
    """The clusters' file systems as one: each call goes to the file system of the cluster whose root its first path
    starts with, the target's when none does (a replication reads its sources' folders and writes the target)."""

    def __init__(self, systems: dict[str, FileSystem], clusters: list[Cluster], target: str) -> None:
        roots = [(cluster.write_endpoint or "", systems[cluster.name]) for cluster in clusters]
        self._roots = sorted(roots, key=lambda item: -len(item[0]))
        self._target = systems[target]

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def routed(*args: Any, **kwargs: Any) -> Any:
            path = next((arg for arg in args if isinstance(arg, str)), "")
            fs = next((fs for root, fs in self._roots if _under(path, root)), self._target)
            return getattr(fs, name)(*args, **kwargs)
        return routed


def _under(path: str, root: str) -> bool:
    """Whether `path` is `root` or below it (`file:///a/primary-old` is not below `file:///a/primary`)."""
    return bool(root) and (path == root or path.startswith(root.rstrip("/") + "/"))
