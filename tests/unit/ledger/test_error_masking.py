"""A ledger record's `error` (a failure's text) is masked by the one masker (toolkit/secrets_masking.py) when the
record is written and when it is read (toolkit/core/ledger/records.py): a new record never keeps a password an error
quoted, and one an older toolkit kept reaches neither `toolkit status` nor the report page."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.graph.ledger_history import SUMMARY, at, record
from tests.unit.report.report_history import NOW, attempt, write_states
from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main
from toolkit.core.ledger.database_transfers import ImportRecord
from toolkit.core.ledger.records import record_document
from toolkit.statuses import Status

SECRET = "Pw1-s3cr3t"
ERROR = f"ConnectionError: cannot reach jdbc:mysql://etl:{SECRET}@db:3306/web?sslpassword={SECRET}&x=1"
SHOWN = "ConnectionError: cannot reach jdbc:mysql://etl:***@db:3306/web?sslpassword=***&x=1"


def test_every_record_with_an_error_is_written_masked(tmp_path: Path) -> None:
    conf, root = make_repo(tmp_path)
    ledger = write_states(conf)

    ledger.write_attempt(attempt(12, 2, "RUN", "FAILED", error=ERROR))
    ledger.write_instance(replace(record(SUMMARY, 12, "FAILED"), error=ERROR))
    imported = ImportRecord("orders", "primary", "2026-11-21T12:00Z", "r1", Status.FAILED, "2026-11-21T12:00:01Z",
                            "shop-db", "orders", "full", error=ERROR)

    assert record_document(imported)["error"] == SHOWN
    kept = {path: path.read_text() for path in root.rglob("*.json")}
    assert all(SECRET not in text for text in kept.values())
    assert f'"error": "{SHOWN}"' in kept[_local(ledger.layout.attempt_record(SUMMARY, at(12), 2))]


def test_an_error_an_older_toolkit_kept_is_masked_in_status_and_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf, _ = make_repo(tmp_path)
    ledger = write_states(conf)
    for uri in (ledger.layout.instance_record(SUMMARY, at(12)), ledger.layout.attempt_record(SUMMARY, at(12), 1)):
        path = _local(uri)
        path.write_text(json.dumps({**json.loads(path.read_text()), "error": ERROR}))  # as kept before the masking

    assert main(["status", "--repo", str(conf), "--process", SUMMARY, "--cluster", "primary", "--from",
                 "2026-11-21T12:00Z", "--to", "2026-11-21T12:00Z", "--now", NOW, "--format", "json"]) == 0
    page = tmp_path / "status.html"
    assert main(["report", "--repo", str(conf), "--cluster", "primary", "--now", NOW, "--out", str(page)]) == 0
    out, err = capsys.readouterr()

    assert SHOWN in out and SECRET not in out + err
    text = page.read_text()
    assert "cannot reach jdbc:mysql://etl:***@db:3306/web" in text and SECRET not in text


def _local(uri: str) -> Path:
    return Path(uri.removeprefix("file:"))
