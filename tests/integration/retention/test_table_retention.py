"""Table-feed retention on real metastores (the session's catalog and a Thrift server), for managed and
external tables with one dated key, year/month/day keys, and a dated key beside a static `region`."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.integration.storage.test_catalog import DATABASE, backend, make_table, uri, write_file  # noqa: F401
from tests.unit.retention.retention_repo import TEMPLATE, utc
from toolkit.entities.repo import ConfigRepo
from toolkit.retention.run import run_retention

pytestmark = pytest.mark.integration

CASES = {
    # shape: (URI partition spec, nominal time, limit, the partitions that go)
    "daily": ("ds=${YEAR}-${MONTH}-${DAY}", utc(2026, 11, 21), ["ds=2026-11-19"]),
    "ymd": ("year=${YEAR};month=${MONTH};day=${DAY}", utc(2026, 1, 2), ["year=2025/month=12/day=31"]),
    "regional": ("ds=${YEAR}-${MONTH}-${DAY};region=us", utc(2026, 11, 22), ["ds=2026-11-20/region=us"]),
}


def _repo(folder: Path, table: str, spec: str) -> ConfigRepo:
    repo = folder / "conf"
    shutil.copytree(TEMPLATE, repo)
    (repo / "feeds" / "orders.yaml").write_text(textwrap.dedent(f"""\
        kind: feed
        name: orders
        frequency: days(1)
        clusters:
          - name: primary
            validity: {{start: "2020-01-01T00:00Z", end: "2099-01-01T00:00Z"}}
            retention: {{limit: days(1), action: delete}}
        table: {{uri: "catalog:{DATABASE}:{table}#{spec}"}}
        """))
    return ConfigRepo.load(repo)


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
@pytest.mark.parametrize("shape", sorted(CASES))
def test_expired_partitions_are_dropped_and_nothing_else(spark, backend, tmp_path: Path, shape: str,  # noqa: F811
                                                         external: bool) -> None:
    from toolkit.storage.hadoop import HadoopFileSystem

    spec, nominal, gone = CASES[shape]
    table, table_dir = make_table(backend, shape, external, tmp_path)
    before = backend.partition_names(table)
    files = {p.name: write_file(p.location) for p in backend.catalog.list_partitions(DATABASE, table)}
    result = run_retention(_repo(tmp_path, table, spec), "orders", "primary", nominal, HadoopFileSystem(spark),
                           catalog=backend.catalog)
    assert [item["partition"] for item in result.evicted] == gone
    assert backend.partition_names(table) == sorted(set(before) - set(gone))
    for name, data in files.items():
        assert data.exists() == (name not in gone), name  # managed: the metastore deletes; external: we do
    assert result.bytes_freed == len(gone) * len(b"not really parquet")
    assert all(item["data_deleted"] for item in result.evicted)


def test_external_data_outside_the_table_location_is_kept(spark, backend, tmp_path: Path) -> None:  # noqa: F811
    from toolkit.storage.hadoop import HadoopFileSystem

    table, _ = make_table(backend, "daily", True, tmp_path, with_partitions=False)
    shared = tmp_path / "shared" / "day19"
    backend.catalog.add_partition(DATABASE, table, {"ds": "2026-11-19"}, location=uri(shared))
    data = write_file(uri(shared))
    result = run_retention(_repo(tmp_path, table, CASES["daily"][0]), "orders", "primary", utc(2026, 11, 21),
                           HadoopFileSystem(spark), catalog=backend.catalog)
    assert [(item["partition"], item["data_deleted"]) for item in result.evicted] == [("ds=2026-11-19", False)]
    assert backend.partition_names(table) == [] and data.exists()
