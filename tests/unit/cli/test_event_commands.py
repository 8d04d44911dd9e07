"""`toolkit publish` and `toolkit events` on local clusters (real files, the template repo with temp roots):
what is recorded, what is listed, and the exit codes of a call that waits or is wrong."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path]:
    return make_repo(tmp_path)


def publish(capsys: pytest.CaptureFixture[str], conf: Path, time: str, *more: str) -> tuple[int, str, str]:
    return run(capsys, "publish", "--repo", str(conf), "--feed", "clicks", "--cluster", "primary", "--time", time,
               *more)


def test_publish_records_an_available_instance_with_its_fingerprint(capsys, site) -> None:
    conf, root = site
    [folder] = hourly_instances(root, utc(2026, 11, 21, 10), 1)
    code, out, err = publish(capsys, conf, "2026-11-21T10:00Z", "--format", "json")
    assert (code, err) == (0, "")
    event = json.loads(out)
    assert (event["kind"], event["producer"], event["recorded"], event["cluster"], event["time"]) == (
        "published", "external", True, "primary", "2026-11-21T10:00Z")
    assert event["location"] == folder.as_uri() and event["fingerprint"]["files"] == 1
    [written] = (root / "feed-toolkit/working/ledger/events/clicks/20261121T1000Z").glob("*.json")
    assert written.name == event["event_id"] + ".json"
    # the same content again: nothing new; changed content: replaced
    code, out, _ = publish(capsys, conf, "2026-11-21T10:00Z")
    assert code == 0 and out.startswith("published: clicks 2026-11-21T10:00Z on primary (already recorded")
    (folder / "late.json").write_text("{}\n")
    code, out, _ = publish(capsys, conf, "2026-11-21T10:00Z")
    assert code == 0 and out.startswith("replaced: clicks 2026-11-21T10:00Z on primary (recorded; event ")
    assert out.splitlines()[1].strip() == folder.as_uri()


def test_publish_waits_for_the_availability_flag(capsys, site) -> None:
    conf, root = site
    [folder] = hourly_instances(root, utc(2026, 11, 21, 10), 1)
    (folder / "_SUCCESS").unlink()
    code, out, err = publish(capsys, conf, "2026-11-21T10:00Z")
    assert (code, out) == (3, "")
    assert err == (f"toolkit: The instance 2026-11-21T10:00Z of feed 'clicks' on cluster 'primary' is not available: "
                   f"{folder.as_uri()}/_SUCCESS does not exist; publish it once the producer has finished writing "
                   "it.\n")
    assert not (root / "feed-toolkit/working/ledger/events").exists()


def test_publish_outside_the_validity_is_skipped_with_exit_4_as_every_action_skips_it(capsys, site) -> None:
    conf, root = site
    code, out, err = run(capsys, "publish", "--repo", str(conf), "--feed", "clicks", "--cluster", "primary",
                         "--time", "1999-01-01T00:00Z")
    assert code == 4 and out == ""
    assert "1999-01-01T00:00Z is outside the validity of feed 'clicks' on cluster 'primary'" in err
    assert "Traceback" not in err and not (root / "feed-toolkit/working/ledger/events").exists()


def test_publish_while_another_call_publishes_the_instance_is_blocked_and_told_who(capsys, site) -> None:
    conf, root = site
    hourly_instances(root, utc(2026, 11, 21, 10), 1)
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(conf).cluster("primary"))
    held = ledger.publication_lock("clicks", utc(2026, 11, 21, 10))
    assert held.try_acquire("run-of-nifi").taken
    code, out, err = publish(capsys, conf, "2026-11-21T10:00Z")
    assert (code, out) == (5, "")
    assert err.startswith("toolkit: The publication of instance 2026-11-21T10:00Z of feed 'clicks' is being run by ")
    assert "run-of-nifi" in err and "Traceback" not in err
    assert not (root / "feed-toolkit/working/ledger/events").exists()
    held.release()
    assert publish(capsys, conf, "2026-11-21T10:00Z")[0] == 0


def test_publish_takes_over_the_lease_a_killed_publish_left_and_records_once(capsys, site) -> None:
    conf, root = site
    hourly_instances(root, utc(2026, 11, 21, 10), 1)
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(conf).cluster("primary"))
    left = ledger.publication_lock("clicks", utc(2026, 11, 21, 10))
    left.clock = lambda: time.time() - 3600  # taken an hour ago by a run that died holding it: long expired
    assert left.try_acquire("killed-run").taken
    code, out, err = publish(capsys, conf, "2026-11-21T10:00Z")
    assert (code, err) == (0, "") and out.startswith("published: clicks 2026-11-21T10:00Z on primary (recorded")
    assert [event.kind for event in ledger.events("clicks", utc(2026, 11, 21, 10))] == ["published"]


@pytest.mark.parametrize(("argv", "message"), [
    (("--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:30Z"), "not an instance"),
    (("--feed", "nope", "--cluster", "primary", "--time", "2026-11-21T10:00Z"), "nope"),
    (("--feed", "clicks-daily-table", "--cluster", "primary", "--time", "2026-11-21T00:00Z"),
     "needs Spark: run `spark-submit entrypoints/publish.py` with the same arguments."),
    (("--feed", "clicks", "--cluster", "primary", "--time", "yesterday"), "--time"),
])
def test_publish_refuses_a_bad_call_with_exit_2(capsys, site, argv: tuple[str, ...], message: str) -> None:
    conf, _ = site
    code, out, err = run(capsys, "publish", "--repo", str(conf), *argv)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_events_lists_every_kind_oldest_instance_first(capsys, site) -> None:
    conf, root = site
    hourly_instances(root, utc(2026, 11, 21, 9), 2)
    assert publish(capsys, conf, "2026-11-21T10:00Z")[0] == 0
    assert publish(capsys, conf, "2026-11-21T09:00Z")[0] == 0
    repo = ConfigRepo.load(conf)
    ledger = Ledger.of(LocalFileSystem(), repo.cluster("primary"))
    ledger.record_evictions("clicks", "primary", [(utc(2026, 11, 21, 9), "file:///gone")], producer="retention",
                            run_id="ret1")
    ledger.record_publication(PublicationFacts("visits", "primary", utc(2026, 11, 20), producer="process:p",
                                               run_id="run1", location="file:///visits", fingerprint=None))
    code, out, err = run(capsys, "events", "--repo", str(conf), "--cluster", "primary", "--format", "json")
    assert (code, err) == (0, "")
    listed = [(e["time"], e["feed"], e["kind"], e["producer"], e["run_id"]) for e in json.loads(out)]
    assert listed[0] == ("2026-11-20T00:00Z", "visits", "published", "process:p", "run1")
    assert [row[:4] for row in listed[1:]] == [
        ("2026-11-21T09:00Z", "clicks", "published", "external"),
        ("2026-11-21T09:00Z", "clicks", "evicted", "retention"),
        ("2026-11-21T10:00Z", "clicks", "published", "external")]
    code, out, _ = run(capsys, "events", "--repo", str(conf), "--cluster", "primary", "--feed", "clicks",
                       "--from", "2026-11-21T09:30Z", "--to", "2026-11-21T10:00Z")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["TIME", "FEED", "KIND", "PRODUCER", "RUN", "PUBLISHED", "LOCATION"]
    assert len(lines) == 2 and lines[1].split()[:4] == ["2026-11-21T10:00Z", "clicks", "published", "external"]
    assert lines[1].endswith((root / "data/clicks/2026/11/21/10").as_uri())
    code, out, _ = run(capsys, "events", "--repo", str(conf), "--cluster", "backup")
    assert (code, out) == (0, "no events\n")


def test_events_refuses_a_bad_call_with_exit_2(capsys, site) -> None:
    conf, _ = site
    for argv, message in ((("--cluster", "nope"), "nope"), (("--cluster", "primary", "--feed", "nope"), "nope"),
                          (("--cluster", "primary", "--from", "2026-11-22T00:00Z", "--to", "2026-11-21T00:00Z"),
                           "--to 2026-11-21T00:00Z is before --from"),
                          (("--cluster", "primary", "--format", "xml"), "Unknown --format")):
        code, out, err = run(capsys, "events", "--repo", str(conf), *argv)
        assert (code, out) == (2, "") and message in err, (argv, err)
