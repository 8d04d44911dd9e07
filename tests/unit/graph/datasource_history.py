"""A repo with datasources and a ledger of imports and exports, for the graph's unit tests and its browser test:
the datasource samples' repo (tests/unit/entities/datasource_samples.py) on a cluster rooted in a temp folder."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.local_cluster import local_cluster_yaml
from tests.unit.entities.datasource_samples import DATASOURCE, write_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.database_transfers import ExportBook, ExportRecord, ImportBook, ImportRecord
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.statuses import Status

READER = """\
kind: process
name: customer-report
frequency: hours(1)
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
inputs:
  - {name: customers, feed: customers, start: "now(0,0)", end: "now(0,0)"}
outputs:
  - {name: sales, feed: daily-sales, instance: "today(0,0)"}
workflow: {engine: pyspark, path: workflows/report.py}
"""


def datasources_repo(tmp_path: Path) -> Path:
    """The samples' repo on a cluster rooted in tmp_path, a second datasource no feed names, and a process that
    reads the imported feed and writes the exported one."""
    root = write_repo(tmp_path / "conf")
    (root / "clusters" / "primary.yaml").write_text(local_cluster_yaml(tmp_path / "primary"), encoding="utf-8")
    (root / "datasources" / "archive-db.yaml").write_text(
        DATASOURCE.replace("name: sales-db", "name: archive-db"), encoding="utf-8")
    (root / "processes").mkdir()
    (root / "processes" / "customer-report.yaml").write_text(READER, encoding="utf-8")
    (root / "workflows").mkdir()
    (root / "workflows" / "report.py").write_text("def run(spark, ctx):\n    pass\n", encoding="utf-8")
    return root


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def write_transfers(repo: Path) -> Ledger:
    """customers imported at 08:00 and 09:00 (SUCCEEDED) and 10:00 (FAILED); daily-sales exported for the 20th
    (SUCCEEDED) and the 21st (RUNNING)."""
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
    imports = ImportBook(ledger.fs, ledger.layout, "customers")
    for hour, status in ((8, "SUCCEEDED"), (9, "SUCCEEDED"), (10, "FAILED")):
        imports.instances.write(ImportRecord(
            feed="customers", cluster="primary", time=f"2026-11-21T{hour:02d}:00Z", run_id=f"import-{hour}",
            status=Status(status), started=f"2026-11-21T{hour:02d}:00:05Z", datasource="sales-db",
            table="customers", extract="full"), utc(2026, 11, 21, hour))
    exports = ExportBook(ledger.fs, ledger.layout, "daily-sales")
    for day, status in ((20, "SUCCEEDED"), (21, "RUNNING")):
        exports.instances.write(ExportRecord(
            feed="daily-sales", cluster="primary", time=f"2026-11-{day}T00:00Z", run_id=f"export-{day}",
            status=Status(status), started=f"2026-11-{day}T00:00:05Z", datasource="sales-db",
            table="daily_sales", load="updateonly", staging="daily_sales_staging"), utc(2026, 11, day))
    ledger.fs.write_atomically(f"{imports.instances.folder}/high-water.json", b"{}")  # not an instance's record
    return ledger
