"""Entity names at and over their documented limit (128 characters: every file name the ledger derives from one
stays within the 255 bytes a path component may have on HDFS and local disks): a name at the limit is published,
journaled and consumed; a longer one is refused by lint and by every action, and the ledger never writes an event
it cannot journal (issue 33, 4)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError

LIMIT = 128
T = datetime(2026, 11, 21, 8, tzinfo=timezone.utc)


def long_feed(conf: Path, name: str) -> None:
    """A copy of the template's clicks feed named `name`, its instances in `/data/long/...`."""
    text = (conf / "feeds" / "clicks.yaml").read_text().replace("name: clicks\n", f"name: {name}\n", 1)
    (conf / "feeds" / f"{name}.yaml").write_text(text.replace("/clicks/", "/long/"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_name_over_the_limit_is_refused_by_lint_and_by_the_actions(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    conf, _ = make_repo(tmp_path)
    name = "c" * 200
    long_feed(conf, name)
    code, out, _ = run(capsys, "lint", str(conf / "feeds" / f"{name}.yaml"))
    assert code == 1 and f"'{name}' is too long" in out and "SC" in out
    code, out, err = run(capsys, "publish", "--repo", str(conf), "--feed", name, "--cluster", "primary",
                         "--time", "2026-11-21T08:00Z")
    assert code == 2 and out == "" and "Traceback" not in err and name in err


def test_the_ledger_writes_no_event_it_cannot_journal(tmp_path: Path) -> None:
    """A 200-character feed name (a repo of an older toolkit, a direct caller): publish wrote the event, then failed
    on the journal entry (`File name too long`), and consumers never saw the event."""
    conf, root = make_repo(tmp_path)
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(conf).cluster("primary"))
    name = "c" * 200
    with pytest.raises(UsageError, match=f"feed '{name}'.*255 bytes"):
        ledger.record_publication(PublicationFacts(name, "primary", T, producer="external", run_id="r1",
                                                   location="file:///x", fingerprint=Fingerprint("d", 1, 1)))
    written = [os.path.join(folder, f) for folder, _, files in os.walk(root) for f in files]
    assert not [path for path in written if name in path]


def test_a_name_at_the_limit_is_published_journaled_and_consumed(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    conf, root = make_repo(tmp_path)
    name = "c" * LIMIT
    long_feed(conf, name)
    assert run(capsys, "lint", str(conf))[0] == 0
    hourly_instances(root, utc(2026, 11, 21, 8), 1, template="data/long")
    code, out, err = run(capsys, "publish", "--repo", str(conf), "--feed", name, "--cluster", "primary",
                         "--time", "2026-11-21T08:00Z")
    assert code == 0, err
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(conf).cluster("primary"))
    [entry] = ConsumerQueue(ledger, "loader", [name]).pending()
    assert (entry.feed, entry.time, entry.kind) == (name, T, "published")
    [event] = ledger.events(name, T)
    assert event.event_id == entry.event_id


def test_schedules_of_names_at_their_limits_have_file_names_and_ids_that_fit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every generated file name within 255 bytes and every Airflow DAG id within Airflow's 250 characters, for a
    feed replicated between two clusters whose names are all at their limits (clusters: 40 characters)."""
    conf, _ = make_repo(tmp_path)
    clusters = {"primary": "p" * 40, "backup": "b" * 40}
    for path in [*conf.rglob("*.yaml")]:
        text = path.read_text()
        for short, long in clusters.items():
            text = text.replace(f"name: {short}\n", f"name: {long}\n").replace(f"cluster: {short}", f"cluster: {long}")
        path.write_text(text)
    for short, long in clusters.items():
        (conf / "clusters" / f"{short}.yaml").rename(conf / "clusters" / f"{long}.yaml")
    name = "c" * LIMIT
    long_feed(conf, name)
    assert run(capsys, "lint", str(conf))[0] == 0, capsys.readouterr()
    for output_format in ("crontab", "oozie", "airflow"):
        out = tmp_path / output_format
        code, _, err = run(capsys, "schedule", "--repo", str(conf), "--cluster", clusters["backup"], "--format",
                           output_format, "--out", str(out), "--toolkit", "/opt/toolkit/bin/toolkit",
                           "--entrypoints", "/opt/toolkit/entrypoints", "--spark-submit", "/opt/spark/bin/spark-submit")
        assert code == 0, err
        names = [part for path in out.rglob("*") for part in path.relative_to(out).parts]
        assert any(name in part for part in names) or output_format == "crontab"
        assert max(len(part.encode()) for part in names) <= 255
    dag_ids = [path.name.removesuffix(".py") for path in (tmp_path / "airflow").glob("*.py")]
    assert any(name in dag_id for dag_id in dag_ids) and max(map(len, dag_ids)) <= 250

    (conf / "clusters" / f"{clusters['backup']}.yaml").rename(conf / "clusters" / f"{'b' * 41}.yaml")
    text = (conf / "clusters" / f"{'b' * 41}.yaml").read_text()
    (conf / "clusters" / f"{'b' * 41}.yaml").write_text(text.replace(f"name: {'b' * 40}", f"name: {'b' * 41}"))
    code, out, _ = run(capsys, "lint", str(conf / "clusters" / f"{'b' * 41}.yaml"))
    assert code == 1 and f"'{'b' * 41}' is too long" in out
