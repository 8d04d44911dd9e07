"""The Hive import (toolkit/actions/replication/hive/: importer.py, import_lease.py, runner.py) attacked: a real
spark-submit of the import killed with SIGKILL at several points at once, then rerun; and hostile layouts (a
symbolic link in the export or on the way to the table's location, a folder where a file belongs, an odd
spelling of the root), each refused with one sentence and its exit code, nothing outside written or deleted.

Real parts: the session's Spark (the source table is one of its own catalog's, exported with export_partition),
the shared Thrift metastore server (`thrift_metastore`) as the target cluster's catalog, Hive's own client
(RawMetastore) to check what the metastore holds, the Hadoop file system API. The killed import is one
spark-submit running four imports of the feed `sessions` in threads, each stopped at its own point; once all
four stand there the process group (spark-submit's JVM and the Python driver) is sent SIGKILL.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.disk_tree import tree
from tests.integration.replication.hive_feed import sessions_feed
from tests.integration.spark_submit import PROJECT, environment, script_command
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import BlockedError, SkippedError

UTC = timezone.utc
DAYS = [datetime(2026, 11, 21, tzinfo=UTC) + timedelta(days=k) for k in range(4)]  # 21st .. 24th
KILLED_LEASE = 6.0  # seconds: renewed every 2 s while the killed run lives; the reruns wait it out
_names = itertools.count()


def local(uri: str) -> Path:
    return Path(uri.removeprefix("file://").removeprefix("file:"))


def uri(path: Path) -> str:
    return f"file://{path}"


def ds(t: datetime) -> str:
    return f"{t:%Y-%m-%d}"


def visible(folder: Path | None) -> dict[str, int]:
    """The data files a reader of the partition sees (hidden ones skipped), with their sizes."""
    return {p.name: p.stat().st_size for p in folder.iterdir() if not p.name.startswith(("_", "."))} \
        if folder is not None and folder.is_dir() else {}


@dataclass
class World:
    """The session's Spark, the target metastore (toolkit catalog and Hive's raw client), the exports."""

    spark: Any
    server: Any
    raw: Any
    catalog: Any
    root: Path  # everything of this module: the clusters' roots, the exports' originals, "outside"
    database: str  # the target's
    pristine: dict[str, Path]  # an export per version and day (`v1-2026-11-22`): copied by each test

    def export(self, version: str, t: datetime, into: Path) -> Path:
        """A fresh copy of an export (as hive_export.py leaves it) at `into`."""
        shutil.copytree(self.pristine[f"{version}-{ds(t)}"], into)
        return into

    def files_of(self, version: str, t: datetime) -> dict[str, int]:
        metadata = json.loads((self.pristine[f"{version}-{ds(t)}"] / "_metadata.json").read_text())
        return {item["path"]: item["size"] for item in metadata["files"]}

    def location(self, table: str, t: datetime) -> Path | None:
        """The folder the metastore's partition of `t` points to; None when there is no such partition."""
        if f"ds={ds(t)}" not in self.raw.partition_names(self.database, table):
            return None
        partition = self.raw.client.getPartition(self.database, table, self.raw._list([ds(t)]))
        return local(str(partition.getSd().getLocation()))


@pytest.fixture(scope="module")
def world(spark, thrift_metastore, tmp_path_factory) -> Iterator[World]:
    """Two source tables in the session's catalog (v1 and v2: other rows, other files), one export of each day
    of each, and the target's database in the shared metastore."""
    from toolkit.actions.replication.hive import export_partition
    from toolkit.actions.replication.hive.export import ExportOrigin
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.catalog_records import PartitionAddress
    from toolkit.core.storage.hadoop import HadoopFileSystem

    root = tmp_path_factory.mktemp("hive_attacks")
    fs = HadoopFileSystem(spark)
    tag = f"{os.getpid()}_{next(_names)}"
    source_db, target_db = f"attack_src_{tag}", f"attack_dst_{tag}"
    spark.sql(f"CREATE DATABASE {source_db} LOCATION '{uri(root / 'primary' / 'warehouse')}'")
    session = catalog_for(spark, None)
    pristine: dict[str, Path] = {}
    for version, offset in (("v1", 0), ("v2", 100)):
        spark.sql(f"CREATE TABLE {source_db}.sessions_{version} (id INT, name STRING, ds STRING) USING parquet "
                  "PARTITIONED BY (ds)")
        rows = ", ".join(f"({offset + k * 10 + n}, '{version}-{n}', '{ds(t)}')" for k, t in enumerate(DAYS)
                         for n in range(3))
        spark.sql(f"INSERT INTO {source_db}.sessions_{version} VALUES {rows}")
        for t in DAYS:
            into = root / "pristine" / f"{version}-{ds(t)}"
            export_partition(spark, session, fs, PartitionAddress(source_db, f"sessions_{version}", {"ds": ds(t)}),
                             uri(into), origin=ExportOrigin("sessions", "primary", t))
            pristine[f"{version}-{ds(t)}"] = into
    raw = thrift_metastore.client(spark)
    raw.create_database(target_db, uri(root / "backup" / "warehouse" / f"{target_db}.db"))
    catalog = catalog_for(spark, thrift_metastore.uri)
    yield World(spark, thrift_metastore, raw, catalog, root, target_db, pristine)
    catalog.close()
    raw.close()


def make_repo(world: World, folder: Path, table: str, root_spelling: str | None = None) -> Path:
    """A repo of two clusters (primary, backup: the target, whose registry is the shared metastore) and the feed
    `sessions`, whose table on backup is `table`; backup's root spelled `root_spelling` when given."""
    repo = folder / "conf"
    (repo / "clusters").mkdir(parents=True)
    (repo / "feeds").mkdir()
    for name in ("primary", "backup"):
        endpoint = root_spelling if name == "backup" and root_spelling else uri(world.root / name)
        (repo / "clusters" / f"{name}.yaml").write_text(textwrap.dedent(f"""\
            kind: cluster
            name: {name}
            description: The {name} cluster of the Hive import attacks.
            colo: local
            interfaces:
              readonly: {{endpoint: "{endpoint}", version: "3.4"}}
              write: {{endpoint: "{endpoint}", version: "3.4"}}
              execute: {{endpoint: "spark://127.0.0.1:7077", version: "4.0"}}
              workflow: {{endpoint: "cron://localhost", version: "1.0"}}
              registry: {{endpoint: "{world.server.uri}", version: "2.3"}}
            locations:
              staging: /feed-toolkit/staging
              working: /feed-toolkit/working/{table}
            """))
    (repo / "feeds" / "sessions.yaml").write_text(sessions_feed(
        "catalog:source_db:sessions#ds=${YEAR}-${MONTH}-${DAY}",
        f"catalog:{world.database}:{table}#ds=${{YEAR}}-${{MONTH}}-${{DAY}}"))
    return repo


def import_feed(world: World, repo: Path, source: Path | str, run_id: str, lease: float = 60.0,
                table_location: str | None = None) -> Any:
    """hive_import.py's flow in this process: plan, then import under the partition's lease and record."""
    from toolkit.actions.replication.hive.importer import ImportOptions
    from toolkit.actions.replication.hive.runner import plan_hive_import, run_hive_import
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.services.runtime.run_context import RunContext

    config = ConfigRepo.load(repo)
    feed, backup = config.feed("sessions"), config.cluster("backup")
    fs = HadoopFileSystem(world.spark)
    directory = source if isinstance(source, str) else uri(source)
    plan = plan_hive_import(fs, feed, backup, directory, None)
    return run_hive_import(world.spark, config, feed, backup, plan,
                           RunContext(fs, run_id, catalog=world.catalog, lease_seconds=lease),
                           ImportOptions(table_location=table_location))


def events(world: World, table: str, t: datetime) -> list[dict[str, Any]]:
    folder = world.root / "backup" / "feed-toolkit" / "working" / table / "ledger" / "events" / "sessions" / \
        f"{t:%Y%m%dT%H%MZ}"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


# -- killed with SIGKILL at four points at once, then rerun ------------------------------------------------------

KILLED_IMPORT = """
import os, signal, sys, threading
sys.path.insert(0, {project!r})
from datetime import datetime, timezone
import toolkit.actions.replication.hive.importer as importer
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.actions.replication.hive.runner import plan_hive_import, run_hive_import
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.session import build_session
from toolkit.core.storage.catalog_factory import catalog_for
from toolkit.core.storage.hadoop import HadoopFileSystem

POINTS = {points!r}  # thread name (the point it stops at) -> the export it imports
reached = threading.Semaphore(0)

def stop_at(point):
    if threading.current_thread().name == point:
        reached.release()
        threading.Event().wait()  # until the SIGKILL

real_place, real_switch, real_record = importer._PartitionImport._place, importer.switch, Ledger.record_publication

def place(*args, **kwargs):
    moved = real_place(*args, **kwargs)
    stop_at("moved-new")
    stop_at("moved-replacing")
    return moved

def switch(*args, **kwargs):
    real_switch(*args, **kwargs)
    stop_at("switched")

def record(*args, **kwargs):
    stop_at("unrecorded")
    return real_record(*args, **kwargs)

importer._PartitionImport._place, importer.switch, Ledger.record_publication = place, switch, record
repo = ConfigRepo.load({repo!r})
feed, cluster = repo.feed("sessions"), repo.cluster("backup")
spark = build_session("killed-hive-import", cluster, hive=True)
fs = HadoopFileSystem(spark)
fs.protect(cluster.write_endpoint)

def run(point, source):
    catalog = catalog_for(spark, cluster.registry_endpoint)
    plan = plan_hive_import(fs, feed, cluster, source, None)
    run_hive_import(spark, repo, feed, cluster, plan,
                    RunContext(fs, "killed-" + point, catalog=catalog, lease_seconds={lease}))

for point, source in POINTS.items():
    threading.Thread(target=run, args=(point, source), name=point, daemon=True).start()
for _ in POINTS:
    if not reached.acquire(timeout=240):
        sys.exit(7)  # a point was never reached: the test fails on the return code
os.killpg(os.getpgrp(), signal.SIGKILL)  # spark-submit's JVM and this driver, at once
"""


class Reader:
    """Polls the metastore while the killed run runs: every partition it sees must hold one whole version."""

    def __init__(self, world: World, table: str, versions: list[dict[str, int]]) -> None:
        from tests.integration.metastore import RawMetastore

        self.world, self.table, self.versions = world, table, versions
        self.raw = RawMetastore(world.spark, world.server.uri)
        self.seen: list[tuple[str, dict[str, int]]] = []
        self.looks = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stop.is_set():
            for partition in self.raw.client.listPartitions(self.world.database, self.table, -1):
                files = visible(local(str(partition.getSd().getLocation())))
                if files not in self.versions:
                    self.seen.append((str(partition.getValues()), files))
            self.looks += 1
            time.sleep(0.02)

    def __enter__(self) -> Reader:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)
        self.raw.close()


@pytest.mark.jvm
def test_an_import_killed_at_four_points_leaves_whole_partitions_and_its_reruns_finish_each_once(
        world: World, tmp_path: Path) -> None:
    """One spark-submit imports four instances and is killed (SIGKILL, the whole process group) when each stands
    at its point: a new partition's files moved into place but not registered; a replacement's files moved beside
    the old version, not switched; a replacement switched, the old version and the export not cleaned up; an
    import done but its dataset event not written. Readers see no partition but whole ones throughout; each lease
    refuses a rerun (naming the killed run) until it expires and is then taken over; the reruns leave every
    partition with the v2 files exactly once, one event each, and no staging, old version or export behind."""
    from toolkit.actions.replication.hive import import_partition
    from toolkit.core.storage.catalog_records import PartitionAddress
    from toolkit.core.storage.hadoop import HadoopFileSystem

    table = f"killed_{next(_names)}"
    repo = make_repo(world, tmp_path, table)
    staging = world.root / "backup" / "feed-toolkit" / "staging" / table
    fs = HadoopFileSystem(world.spark)
    new, replacing, switched, unrecorded = DAYS
    for t in (replacing, switched):  # the versions the killed run replaces (no events: imported by hand)
        import_partition(world.spark, world.catalog, fs, uri(world.export("v1", t, staging / f"v1-{ds(t)}")),
                         PartitionAddress(world.database, table, {"ds": ds(t)}))
    points = {name: uri(world.export("v2", t, staging / f"v2-{ds(t)}")) for name, t in (
        ("moved-new", new), ("moved-replacing", replacing), ("switched", switched), ("unrecorded", unrecorded))}
    script = tmp_path / "killed_import.py"
    script.write_text(KILLED_IMPORT.format(project=str(PROJECT), repo=str(repo), points=points, lease=KILLED_LEASE))
    versions = [world.files_of(version, t) for version in ("v1", "v2") for t in DAYS]
    table_dir = world.root / "backup" / "warehouse" / f"{world.database}.db" / table

    with Reader(world, table, versions) as reader:
        process = subprocess.Popen(script_command(script), cwd=tmp_path, env=environment(), start_new_session=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        output, _ = process.communicate(timeout=300)
    assert process.returncode == -signal.SIGKILL, output[-3000:]
    assert reader.looks > 0 and reader.seen == []

    # What the kill left: no half partition; each instance where its point says.
    assert world.location(table, new) is None
    assert visible(table_dir / f"ds={ds(new)}") == world.files_of("v2", new)  # placed, not visible
    assert visible(world.location(table, replacing)) == world.files_of("v1", replacing)  # the old one, whole
    assert visible(world.location(table, switched)) == world.files_of("v2", switched)
    assert visible(table_dir / f"ds={ds(switched)}") == world.files_of("v1", switched)  # not cleaned up yet
    assert visible(world.location(table, unrecorded)) == world.files_of("v2", unrecorded)
    assert all(events(world, table, t) == [] for t in DAYS)

    with pytest.raises(BlockedError, match=r"is being run by run killed-moved-new on \S+:\d+ \(its lease ends ") \
            as blocked:
        import_feed(world, repo, points["moved-new"], "early")
    assert blocked.value.exit_code == 5
    assert world.location(table, new) is None  # the refused rerun changed nothing

    deadline = time.monotonic() + 120
    outcomes: dict[str, Any] = {}
    while len(outcomes) < len(points):
        for name, source in points.items():
            if name in outcomes:
                continue
            try:
                outcomes[name] = import_feed(world, repo, source, f"rerun-{name}")
            except BlockedError:
                assert time.monotonic() < deadline, f"the lease of {name} was never taken over"
                time.sleep(0.5)
            except SkippedError as done:
                outcomes[name] = done
    assert outcomes["moved-new"].resumed and outcomes["moved-replacing"].resumed, outcomes
    for name in ("switched", "unrecorded"):  # found published: the rerun cleans up, records, and exits 4
        assert isinstance(outcomes[name], SkippedError) and outcomes[name].exit_code == 4, outcomes

    for name, t in (("moved-new", new), ("moved-replacing", replacing), ("switched", switched),
                    ("unrecorded", unrecorded)):
        assert visible(world.location(table, t)) == world.files_of("v2", t), name
        [event] = events(world, table, t)  # exactly once, by the rerun
        assert (event["kind"], event["producer"], event["run_id"]) == ("published", "hive-import", f"rerun-{name}")
    assert sorted(world.raw.partition_names(world.database, table)) == [f"ds={ds(t)}" for t in DAYS]
    assert not [p.name for p in table_dir.iterdir() if p.name.startswith(".toolkit-staging")]
    partitions = {local(str(world.location(table, t))) for t in DAYS}
    version_dirs = {p for p in (table_dir / ".toolkit-partitions").glob("*/*")} if \
        (table_dir / ".toolkit-partitions").exists() else set()
    assert version_dirs <= partitions  # no old version left beside the live ones
    assert {p for p in table_dir.glob("ds=*")} <= partitions
    assert not any((staging / f"v2-{ds(t)}").exists() for t in DAYS)  # every export consumed


# -- hostile layouts ----------------------------------------------------------------------------------------------


@pytest.fixture()
def outside(world: World, tmp_path: Path) -> Path:
    """A folder outside every cluster root, holding a file that must never be touched."""
    folder = tmp_path / "outside"
    (folder / "keep").mkdir(parents=True)
    (folder / "keep" / "secret.parquet").write_bytes(b"not the table's")
    return folder


def refused(err: BaseException, *names: str) -> None:
    """One sentence (one line, a full stop), naming what it refuses."""
    text = str(err)
    assert "\n" not in text and text.endswith("."), text
    for name in names:
        assert name in text, text


@pytest.mark.parametrize("name", ["part-zz-link.parquet", ".hidden-link"])
def test_a_link_in_the_export_is_refused_and_nothing_is_moved_or_created(world: World, tmp_path: Path,
                                                                          outside: Path, name: str) -> None:
    table = f"linked_export_{next(_names)}"
    repo = make_repo(world, tmp_path, table)
    export = world.export("v1", DAYS[0], tmp_path / "export")
    (export / "data" / name).symlink_to(outside / "keep" / "secret.parquet")
    before, outside_before = tree(export), tree(outside)
    with pytest.raises(StorageError) as raised:
        import_feed(world, repo, export, "r1")
    assert raised.value.exit_code == 1
    refused(raised.value, f"{export}/data/{name}", "symbolic link")
    assert not world.catalog.table_exists(world.database, table)  # refused before the table was made
    assert tree(export) == before and tree(outside) == outside_before
    assert events(world, table, DAYS[0]) == []


def test_an_export_whose_data_folder_is_a_link_is_refused_and_its_target_stays(world: World, tmp_path: Path,
                                                                                outside: Path) -> None:
    table = f"linked_data_{next(_names)}"
    repo = make_repo(world, tmp_path, table)
    export = world.export("v1", DAYS[0], tmp_path / "export")
    shutil.move(export / "data", outside / "data")
    (export / "data").symlink_to(outside / "data")
    before, outside_before = tree(export), tree(outside)
    with pytest.raises(StorageError) as raised:
        import_feed(world, repo, export, "r1")
    assert raised.value.exit_code == 1
    refused(raised.value, f"{export}/data", "symbolic link")
    assert not world.catalog.table_exists(world.database, table)
    assert tree(export) == before and tree(outside) == outside_before  # the files behind the link never moved


def test_a_link_on_the_way_to_the_tables_location_is_refused_and_nothing_is_written_through_it(
        world: World, tmp_path: Path, outside: Path) -> None:
    """The table's folder was moved elsewhere and a link put in its place: the next import writes nothing
    there (neither its files nor a staging folder) and adds no partition."""
    table = f"linked_table_{next(_names)}"
    repo = make_repo(world, tmp_path, table)
    holder = world.root / "backup" / "tables" / table
    import_feed(world, repo, world.export("v1", DAYS[0], tmp_path / "first"), "r1",
                table_location=uri(holder / "t"))
    shutil.move(holder, outside / table)
    holder.symlink_to(outside / table)
    export = world.export("v1", DAYS[1], tmp_path / "second")
    before, outside_before = tree(export), tree(outside)
    with pytest.raises(StorageError) as raised:
        import_feed(world, repo, export, "r2")
    assert raised.value.exit_code == 1
    refused(raised.value, str(holder), "symbolic link")
    assert world.raw.partition_names(world.database, table) == [f"ds={ds(DAYS[0])}"]
    assert tree(export) == before and tree(outside) == outside_before
    assert events(world, table, DAYS[1]) == []


@pytest.mark.parametrize("where", ["_metadata.json", "data file"])
def test_a_folder_where_a_file_of_the_export_belongs_is_refused_and_nothing_changes(world: World, tmp_path: Path,
                                                                                    where: str) -> None:
    table = f"folder_{next(_names)}"
    repo = make_repo(world, tmp_path, table)
    export = world.export("v1", DAYS[0], tmp_path / "export")
    victim = export / "_metadata.json" if where == "_metadata.json" else sorted((export / "data").glob("*.parquet"))[0]
    content = victim.read_bytes()
    victim.unlink()
    victim.mkdir()
    (victim / "inside").write_bytes(content)
    before = tree(export)
    with pytest.raises(StorageError) as raised:
        import_feed(world, repo, export, "r1")
    assert raised.value.exit_code == 1
    refused(raised.value, str(victim))
    assert not world.catalog.table_exists(world.database, table)
    assert tree(export) == before


def test_an_odd_spelling_of_the_root_imports_into_the_same_partition_lease_and_ledger(world: World,
                                                                                       tmp_path: Path) -> None:
    """The cluster root spelled `file:/x/` and the export `file:///x/...//`: the export is moved (one file
    system), the partition, the lease and the event are where the plain spelling puts them; a lease held under
    the plain spelling refuses an import spelled otherwise (exit 5)."""
    table = f"spelled_{next(_names)}"
    repo = make_repo(world, tmp_path, table, root_spelling=f"file:{world.root / 'backup'}/")
    export = world.export("v1", DAYS[0], world.root / "backup" / "feed-toolkit" / "staging" / table)
    result = import_feed(world, repo, f"file://{export}//", "r1")
    assert result.moved and not export.exists()
    table_dir = world.root / "backup" / "warehouse" / f"{world.database}.db" / table
    assert world.location(table, DAYS[0]) == table_dir / f"ds={ds(DAYS[0])}"
    assert visible(table_dir / f"ds={ds(DAYS[0])}") == world.files_of("v1", DAYS[0])
    [event] = events(world, table, DAYS[0])
    assert event["run_id"] == "r1"
    locks = world.root / "backup" / "feed-toolkit" / "working" / table / "ledger" / "locks" / "hive-import"
    assert [p.name for p in locks.iterdir()] == [f"{world.database}.{table}"]
    # The same lease whatever the spelling: held under the plain one, it refuses the odd one.
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem

    plain = ConfigRepo.load(make_repo(world, tmp_path / "plain", table)).cluster("backup")
    lock = Ledger.of(HadoopFileSystem(world.spark), plain).import_lock(world.database, table, f"ds={ds(DAYS[1])}")
    assert lock.try_acquire("plain-run").taken
    again = world.export("v1", DAYS[1], world.root / "backup" / "feed-toolkit" / "staging" / f"{table}-2")
    with pytest.raises(BlockedError, match=r"being run by run plain-run on ") as blocked:
        import_feed(world, repo, f"file:{again}/", "r2")
    assert blocked.value.exit_code == 5 and world.location(table, DAYS[1]) is None and again.exists()
    lock.release()
    import_feed(world, repo, f"file:{again}/", "r2")
    assert world.location(table, DAYS[1]) == table_dir / f"ds={ds(DAYS[1])}"
