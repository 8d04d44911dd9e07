"""A local cluster's ledger on a copy of the template repo, shared by the ledger commands' tests
(tests/unit/cli/test_ledger_commands.py, tests/integration/cli/test_ledger_commands.py, the metrics' tests): the
fixtures `site`, `history` and `metered` (made visible by each folder's conftest.py) and the records they write."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import InstanceRecord, PublicationFacts
from toolkit.core.ledger.retention_runs import RetentionRecord
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_record import record_path, write_record

PROJECT = Path(__file__).resolve().parents[3]
TEMPLATE = PROJECT / "config_repo_template"
PROCESS = "hourly-clicks-summary"
NOW = "2026-11-21T10:30Z"
NOW_SECONDS = datetime(2026, 11, 21, 10, 30, tzinfo=timezone.utc).timestamp()
PUBLISHED_AT = datetime(2026, 11, 21, 9, 40, 7, tzinfo=timezone.utc).timestamp()  # clicks 07:00 and 08:00 (`metered`)


VISITS_REPORT = """\
kind: process
name: daily-visits-report
clusters:
  - name: primary
    validity: {start: "2026-01-01T00:00Z", end: "2099-12-31T00:00Z"}
frequency: days(1)
inputs:
  - {name: visits, feed: visits, start: "yesterday(0,0)", end: "yesterday(0,0)"}
workflow: {engine: spark-sql, path: workflows/daily_clicks_rollup.sql}
"""


SAME_NAME_FEED = """\
kind: feed
name: hourly-clicks-summary
frequency: hours(1)
clusters:
  - name: primary
    type: source
    validity: {start: "2026-01-01T00:00Z", end: "2099-12-31T00:00Z"}
    retention: {limit: days(3), action: delete}
locations: {data: "/data/same-name/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
"""
ROW_KEYS = {"time", "status", "recorded_status", "attempts", "run_id", "started", "ended", "duration_seconds",
            "missing", "missing_note", "error", "hold", "commit", "dirty", "definition_hash"}


@dataclass(frozen=True)
class Site:
    conf: Path
    primary: Path  # the primary cluster's root folder

    @property
    def ledger_root(self) -> Path:
        return self.primary / "feed-toolkit" / "working" / "ledger"

    def ledger(self, clock_seconds: float | None = None) -> Ledger:
        cluster = ConfigRepo.load(self.conf).cluster("primary")
        return Ledger.of(LocalFileSystem(), cluster, clock=(lambda: clock_seconds) if clock_seconds else None)

    def clicks(self, hour: int, flag: bool = True) -> None:
        folder = self.primary / "data" / "clicks" / "2026" / "11" / "21" / f"{hour:02d}"
        folder.mkdir(parents=True)
        (folder / "part-00000.json").write_text('{"page": "/"}\n')
        if flag:
            (folder / "_SUCCESS").write_text("")

    def clicks_uri(self, hour: int) -> str:
        return f"file://{self.primary}/data/clicks/2026/11/21/{hour:02d}"


@pytest.fixture()
def site(tmp_path: Path) -> Site:
    conf = tmp_path / "conf"
    shutil.copytree(TEMPLATE, conf)
    for name in ("primary", "backup"):
        cluster = conf / "clusters" / f"{name}.yaml"
        cluster.write_text(cluster.read_text().replace(f"file:///tmp/feed-toolkit-demo/{name}",
                                                        f"file://{tmp_path / name}"))
    (conf / "processes" / "daily-visits-report.yaml").write_text(VISITS_REPORT)
    (conf / "feeds" / "hourly-clicks-summary.yaml").write_text(SAME_NAME_FEED)
    (tmp_path / "primary").mkdir()
    return Site(conf, tmp_path / "primary")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def record(hour: int, status: str, **fields: object) -> InstanceRecord:
    values: dict[str, object] = {"attempts": 1, "run_id": f"run-{hour:02d}", "updated": f"2026-11-21T{hour:02d}:59:00Z"}
    values.update(fields)
    return InstanceRecord(process=PROCESS, cluster="primary", time=f"2026-11-21T{hour:02d}:00Z", status=status,
                          **values)  # type: ignore[arg-type]


def at(hour: int) -> datetime:
    return datetime(2026, 11, 21, hour, tzinfo=timezone.utc)


@pytest.fixture()
def history(site: Site) -> Site:
    """03:00 SUCCEEDED, 04:00 FAILED, 05:00 TIMEDOUT, 06:00 RUNNING by a dead run, 07:00 RUNNING by a live run,
    08:00 WAITING (recorded), 09:00 and 10:00 never run; clicks complete for 07 and 08, 09 without its flag."""
    ledger = site.ledger()
    ledger.write_instance(record(3, "SUCCEEDED", started="2026-11-21T03:01:00Z", ended="2026-11-21T03:03:30Z"))
    ledger.write_instance(record(4, "FAILED", attempts=3, started="2026-11-21T04:20:00Z",
                                 updated="2026-11-21T04:25:00Z", error="the workflow failed: boom"))
    ledger.write_instance(record(5, "TIMEDOUT", missing=["clicks 2026-11-21T05:00Z (somewhere)"]))
    ledger.write_instance(record(6, "RUNNING", started="2026-11-21T06:05:00Z"))
    ledger.write_instance(record(7, "RUNNING", started="2026-11-21T10:00:00Z"))
    ledger.write_instance(record(8, "WAITING", attempts=0, missing=["clicks 2026-11-21T08:00Z (recorded)"]))
    # The run of 06:00 took its lock an hour before now and died (its 60 s lease expired long ago); the run of
    # 07:00 renewed its lease 10 s before now.
    assert site.ledger(NOW_SECONDS - 3600).instance_lock(PROCESS, at(6)).try_acquire("run-06").taken
    assert site.ledger(NOW_SECONDS - 10).instance_lock(PROCESS, at(7)).try_acquire("run-07").taken
    site.clicks(7)
    site.clicks(8)
    site.clicks(9, flag=False)
    return site


def status_json(capsys: pytest.CaptureFixture[str], site: Site, *argv: str) -> list[dict[str, object]]:
    code, out, err = run(capsys, "status", "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary",
                         "--now", NOW, "--format", "json", *argv)
    assert code == 0, err
    rows = json.loads(out)
    assert all(set(row) == ROW_KEYS for row in rows)
    return rows


def hdfs_backup(site: Site) -> None:
    cluster = site.conf / "clusters" / "backup.yaml"
    text = cluster.read_text()
    cluster.write_text(text.replace(f"file://{site.primary.parent / 'backup'}", "hdfs://nn:8020"))


@pytest.fixture()
def metered(history: Site) -> Site:
    """`history`, plus clicks 07:00 and 08:00 published at 09:40:07 and a retention run of clicks on record."""
    cluster = ConfigRepo.load(history.conf).cluster("primary")
    ledger = Ledger.of(LocalFileSystem(), cluster, event_clock=lambda: PUBLISHED_AT)
    for hour in (7, 8):
        ledger.record_publication(PublicationFacts("clicks", "primary", at(hour), producer="test", run_id=f"pub-{hour}",
                                                   location=history.clicks_uri(hour), fingerprint=None))
    write_record(LocalFileSystem(), record_path(cluster, "retention", "clicks", at(10)),
                 RetentionRecord("clicks", "primary", "2026-11-21T10:00Z", bytes_freed=123456, instances_evicted=3))
    return history
