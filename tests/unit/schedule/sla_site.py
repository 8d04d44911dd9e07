"""The scenario of the sla command's tests (tests/unit/schedule/test_sla_command.py and
tests/integration/schedule/test_sla_command.py): feed and process instances on time, late, at risk and missed,
written into a temporary ledger and file system by the fixture `site` (made visible by each folder's
conftest.py)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.cli.main import main
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import AttemptRecord, PublicationFacts, wall_clock_stamp
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

NOW = "2026-11-21T12:00Z"


WINDOW = ("--from", "2026-11-21T03:00Z", "--to", "2026-11-21T12:00Z")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["sla", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def at(hour: int, minute: int = 0) -> datetime:
    return utc(2026, 11, 21, hour, minute)


def publish(ledger_of: ConfigRepo, root: Path, hour: int, published: datetime) -> None:
    cluster = ledger_of.cluster("primary")
    ledger = Ledger.of(LocalFileSystem(), cluster, event_clock=lambda: published.timestamp())
    ledger.record_publication(PublicationFacts("clicks", "primary", at(hour), producer="process:test",
                                               run_id=f"r{hour}",
                                               location=f"file://{root}/data/clicks/2026/11/21/{hour:02d}",
                                               fingerprint=None))


def flag(root: Path, hour: int, mtime: datetime) -> None:
    path = root / f"data/clicks/2026/11/21/{hour:02d}/_SUCCESS"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    os.utime(path, (mtime.timestamp(), mtime.timestamp()))


def attempt(repo: ConfigRepo, hour: int, number: int, started: datetime, ended: datetime | None,
            status: str) -> None:
    ledger = Ledger.of(LocalFileSystem(), repo.cluster("primary"))
    ledger.write_attempt(AttemptRecord(
        process="hourly-clicks-summary", cluster="primary", time=format_timestamp(at(hour)), attempt=number,
        run_id=f"run{hour}", kind="RUN", status=status, started=wall_clock_stamp(started.timestamp()),
        ended=wall_clock_stamp(ended.timestamp()) if ended else None))


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path]:
    """The template repo on a temporary root, with the ledger and files of the scenario of the module docstring."""
    conf, root = make_repo(tmp_path)
    repo = ConfigRepo.load(conf)
    publish(repo, root, 6, at(7, 30))  # low 08:00: on time
    publish(repo, root, 7, at(10))  # low 09:00, high 11:00: late-low by 1h
    publish(repo, root, 5, at(11, 30))  # high 09:00: late by 2h 30m
    flag(root, 3, at(8))  # an outside producer, no event: high 07:00, late by 1h
    flag(root, 9, at(10, 30))  # low 11:00: on time
    # 04:00 and 08:00 never came: missed (high 08:00) and at-risk (low 10:00, high 12:00 not passed)
    attempt(repo, 5, 1, at(6, 30), at(7), "SUCCEEDED")  # on time
    attempt(repo, 6, 1, at(8, 30), at(8, 50), "SUCCEEDED")  # started after 08:00: late-low by 30m
    attempt(repo, 7, 1, at(9, 30), at(10, 30), "SUCCEEDED")  # succeeded after 10:00: late by 30m
    attempt(repo, 8, 1, at(9), at(9, 20), "FAILED")  # started in time, never succeeded: missed since 11:00
    # 03:00 and 04:00 never ran: missed; 09:00 not started by 11:00: at-risk; 10:00 and later: not due
    return conf, root
