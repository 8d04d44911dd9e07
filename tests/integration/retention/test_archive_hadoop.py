"""Retention `action: archive` through Hadoop's file system in the test SparkSession (the JVM's bulk copier):
the same archive and feed trees, byte for byte, as on the pure-Python file system."""

from __future__ import annotations

from pathlib import Path

from tests.unit.retention.archive_repo import contents, make_archive_repo
from tests.unit.retention.retention_repo import hourly_instances, plant_decoys, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext


def _prepared(folder: Path) -> tuple[ConfigRepo, Path]:
    repo, root = make_archive_repo(folder)
    hourly_instances(root, utc(2025, 12, 31, 0), 24 + 12)
    (root / "data/clicks/2025/12/31/03/nested").mkdir()
    (root / "data/clicks/2025/12/31/03/nested/big.bin").write_bytes(bytes(range(256)) * 4096)
    plant_decoys(root)
    return ConfigRepo.load(repo), root


def test_hadoop_and_local_file_systems_archive_the_same(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    on_hadoop, hadoop_root = _prepared(tmp_path / "hadoop")
    on_local, local_root = _prepared(tmp_path / "local")
    before = contents(hadoop_root, "data")
    by_hadoop = run_retention(on_hadoop, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(HadoopFileSystem(spark)))
    by_local = run_retention(on_local, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(LocalFileSystem()))
    assert len(by_hadoop.evicted) == 24 + 10 and by_hadoop.refused == []
    assert [(i.time, i.bytes) for i in by_hadoop.evicted] == [(i.time, i.bytes) for i in by_local.evicted]
    assert tree(hadoop_root) - {p for p in tree(hadoop_root) if p.startswith("feed-toolkit")} == \
        tree(local_root) - {p for p in tree(local_root) if p.startswith("feed-toolkit")}
    archived = contents(hadoop_root, "archive/data")
    assert {**archived, **contents(hadoop_root, "data")} == before
    assert archived["clicks/2025/12/31/03/nested/big.bin"] == bytes(range(256)) * 4096
