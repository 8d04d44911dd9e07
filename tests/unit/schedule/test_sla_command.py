"""`toolkit sla` over a temporary ledger and file system (no Spark): feed instances on time, late after slaLow,
late after slaHigh, at risk, missed, and an outside producer judged by its flag's modification time; process
instances against shouldStartIn/shouldEndIn from their attempt records; exit codes, the default window, JSON, and
the notifications of misses sent once across two calls (a real SMTP server on loopback)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.smtp_server import SmtpServers
from tests.unit.schedule.sla_site import NOW, WINDOW, at, publish, run
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem


def test_states_and_how_late(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path]) -> None:
    conf, _ = site
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, *WINDOW, "--format",
                       "json", "--no-notify")
    assert code == 1
    report = json.loads(out)
    found = [(f["kind"], f["time"][11:16], f["state"], f["threshold"], f["late_by"], f["source"])
             for f in report["findings"]]
    assert found == [
        ("feed", "03:00", "late", "slaHigh", "1h", "flag"),
        ("feed", "04:00", "missed", "slaHigh", "4h", None),
        ("feed", "05:00", "late", "slaHigh", "2h 30m", "event"),
        ("feed", "07:00", "late-low", "slaLow", "1h", "event"),
        ("feed", "08:00", "at-risk", "slaLow", "2h", None),
        ("process", "03:00", "missed", "shouldEndIn", "6h", None),
        ("process", "04:00", "missed", "shouldEndIn", "5h", None),
        ("process", "06:00", "late-low", "shouldStartIn", "30m", None),
        ("process", "07:00", "late", "shouldEndIn", "30m", None),
        ("process", "08:00", "missed", "shouldEndIn", "1h", None),
        ("process", "09:00", "at-risk", "shouldStartIn", "1h", None),
    ]
    assert report["misses"] == 7 and report["checked"] == 20  # clicks 03:00..12:00 and the process 03:00..12:00
    late = report["findings"][2]
    assert late["done"] == "2026-11-21T11:30:00Z" and late["late_seconds"] == 9000
    assert late["deadline"] == "2026-11-21T09:00Z" and late["miss"] is True
    assert "notifications_sent" not in report


def test_what_came_after_now_has_not_come_yet(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path]) -> None:
    """Judged as of --now: an arrival or a success recorded after it is not seen, so an earlier --now gives the same
    answer whenever the check runs (the 05:00 clicks came at 11:30, the 07:00 summary succeeded at 10:30)."""
    conf, _ = site
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", "2026-11-21T10:00Z",
                       "--from", "2026-11-21T05:00Z", "--to", "2026-11-21T07:00Z", "--format", "json", "--no-notify")
    found = [(f["kind"], f["time"][11:16], f["state"], f["late_by"]) for f in json.loads(out)["findings"]]
    assert found == [
        ("feed", "05:00", "missed", "1h"),  # slaHigh 09:00 passed; its 11:30 arrival is after now
        ("feed", "07:00", "late-low", "1h"),  # arrived at 10:00, now: seen
        ("process", "06:00", "late-low", "30m"),
        ("process", "07:00", "at-risk", "30m"),  # started 09:30 (shouldStartIn 09:00); its 10:30 success not seen
    ]
    assert code == 1


def test_text_lines(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path]) -> None:
    conf, _ = site
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, *WINDOW, "--no-notify")
    lines = out.strip().splitlines()
    assert code == 1 and len(lines) == 12
    assert lines[2] == ("late      feed     clicks  2026-11-21T05:00Z  late by 2h 30m: arrived 2h 30m after its "
                        "slaHigh deadline 2026-11-21T09:00Z")
    assert lines[-1].startswith("sla: 20 instance(s) of cluster 'primary' checked from 2026-11-21T03:00Z to "
                                "2026-11-21T12:00Z at 2026-11-21T12:00Z: 7 miss(es), 4 warning(s)")


def test_warnings_only_exit_0(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path]) -> None:
    conf, _ = site
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, "--from",
                       "2026-11-21T06:00Z", "--to", "2026-11-21T06:00Z", "--format", "json", "--no-notify")
    assert code == 0
    assert [(f["kind"], f["state"]) for f in json.loads(out)["findings"]] == [("process", "late-low")]


def test_the_default_window_is_the_day_before_now_and_the_longest_sla(capsys: pytest.CaptureFixture[str],
                                                                      site: tuple[Path, Path]) -> None:
    conf, _ = site
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", "2026-11-21T12:07Z",
                       "--format", "json", "--no-notify")
    report = json.loads(out)
    # a day, and the longest SLA of primary's entities: the daily rollup's shouldEndIn, hours(6)
    assert (report["from"], report["to"], report["now"]) == ("2026-11-20T06:07Z", "2026-11-21T12:07Z",
                                                             "2026-11-21T12:07Z")
    times = {(f["kind"], f["entity"], f["time"]) for f in report["findings"]}
    assert ("feed", "clicks", "2026-11-20T07:00Z") in times and ("feed", "clicks", "2026-11-20T06:00Z") not in times
    assert ("process", "daily-clicks-rollup", "2026-11-21T00:00Z") in times  # the daily one of the window
    assert code == 1


def test_an_sla_longer_than_a_day_is_seen_by_the_default_window(capsys: pytest.CaptureFixture[str],
                                                                site: tuple[Path, Path]) -> None:
    conf, _ = site
    feed = conf / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("slaHigh: hours(4)", "slaHigh: hours(30)"))
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", "2026-11-21T12:00Z",
                       "--format", "json", "--no-notify")
    found = {(f["entity"], f["time"], f["state"]) for f in json.loads(out)["findings"]}
    # 2026-11-20T05:00Z, more than a day ago, missed its 30-hour deadline at 11:00 today
    assert ("clicks", "2026-11-20T05:00Z", "missed") in found
    assert code == 1


def test_nothing_due_is_exit_0(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path]) -> None:
    conf, _ = site
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, "--from",
                       "2026-11-21T10:00Z", "--to", "2026-11-21T11:00Z")
    assert code == 0 and out.startswith("sla: 4 instance(s)") and "0 miss(es), 0 warning(s)" in out


@pytest.mark.parametrize(("argv", "says"), [
    (("--from", "2026-11-21T10:00Z", "--to", "2026-11-21T09:00Z"), "is before --from"),
    (("--format", "yaml"), "Unknown --format 'yaml'"),
    (("--now", "yesterday"), "--now"),
])
def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path], argv: tuple[str, ...],
                           says: str) -> None:
    conf, _ = site
    code, out, err = run(capsys, "--repo", str(conf), "--cluster", "primary", *argv)
    assert code == 2 and says in err and "Traceback" not in err and not out


def test_an_unknown_cluster_exits_2(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path]) -> None:
    conf, _ = site
    code, _, err = run(capsys, "--repo", str(conf), "--cluster", "nowhere", "--now", NOW)
    assert code == 2 and "nowhere" in err


def notifying(conf: Path, smtp: SmtpServers) -> None:
    """The feed and the process tell ops@example.com; the cluster sends through the plain SMTP server."""
    for entity in ("feeds/clicks.yaml", "processes/hourly-clicks-summary.yaml"):
        path = conf / entity
        path.write_text(path.read_text() + "notification:\n  type: email\n  to: ops@example.com\n")
    cluster = conf / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text() + "".join(f"  {key}: \"{value}\"\n" for key, value in
                                                     smtp.none.properties(smtp.ca_file).items()))


def test_misses_are_notified_once_across_calls(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path],
                                               mail: SmtpServers) -> None:
    conf, root = site
    notifying(conf, mail)
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, *WINDOW, "--format",
                       "json")
    assert code == 1
    report = json.loads(out)
    assert (report["notifications_sent"], report["notifications_failed"]) == (9, 0)  # all but the 2 late-low
    subjects = sorted(str(r.message["Subject"]) for r in mail.none.received)
    assert "[feed-toolkit] SLA MISSED feed clicks 2026-11-21T04:00Z on primary" in subjects
    assert "[feed-toolkit] SLA AT RISK process hourly-clicks-summary 2026-11-21T09:00Z on primary" in subjects
    late = next(r for r in mail.none.received if r.message["Subject"].endswith("LATE feed clicks 2026-11-21T05:00Z "
                                                                               "on primary"))
    body = late.message.get_content()
    assert "late by: 2h 30m" in body and "arrived 2h 30m after its slaHigh deadline 2026-11-21T09:00Z" in body
    assert all(r.recipients == ["ops@example.com"] for r in mail.none.received)
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, *WINDOW, "--format",
                       "json")
    assert (json.loads(out)["notifications_sent"], len(mail.none.received)) == (0, 9)  # nothing sent twice
    # Later, the missing hour 04:00 arrives after its deadline: its new state (late) is told once more.
    publish(ConfigRepo.load(conf), root, 4, at(12, 30))
    code, out, _ = run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", "2026-11-21T13:00Z",
                       *WINDOW, "--format", "json")
    assert json.loads(out)["notifications_sent"] >= 1
    assert any(str(r.message["Subject"]) == "[feed-toolkit] SLA LATE feed clicks 2026-11-21T04:00Z on primary"
               for r in mail.none.received)


def test_no_notify_sends_nothing(capsys: pytest.CaptureFixture[str], site: tuple[Path, Path],
                                 mail: SmtpServers) -> None:
    conf, root = site
    notifying(conf, mail)
    run(capsys, "--repo", str(conf), "--cluster", "primary", "--now", NOW, *WINDOW, "--no-notify")
    assert not mail.none.received and not list(root.rglob("ledger/notifications"))


def test_reads_only_the_window(site: tuple[Path, Path]) -> None:
    """A year of hourly instances costs the window's only: the check of one day reads no other instance."""
    from toolkit.orchestration.schedule.sla.check import check_slas

    conf, root = site
    repo = ConfigRepo.load(conf)
    reads: list[str] = []

    class Counting(LocalFileSystem):
        def exists(self, path: str) -> bool:
            reads.append(path)
            return super().exists(path)

    fs = Counting()
    ledger = Ledger.of(fs, repo.cluster("primary"))
    check_slas(repo, "primary", ledger, at(12), at(12) - timedelta(days=1), at(12))
    names = {part for path in reads for part in path.split("/") if part.startswith("2026")}
    instance_keys = {name for name in names if not name.endswith(".json.gz")}
    assert instance_keys and all("20261120T1200Z" <= key <= "20261121T1200Z" for key in instance_keys)
    assert names - instance_keys <= {"202611.json.gz"}  # the window's month's roll-up (docs/ledger.md), no other


