"""`toolkit status`, `summary`, `running`, `suspend`, `resume`, `safemode` and `rerun` on a local cluster's
ledger, without Spark: records and leases are written with the ledger's own API into a copy of the template
repo whose clusters' roots are temp folders, and the commands' output is checked row by row."""

from __future__ import annotations

import json
import shlex
import time
from datetime import datetime, timedelta, timezone

import pytest

from tests.unit.cli.ledger_site import (
    NOW,
    PROCESS,
    PROJECT,
    Site,
    hdfs_backup,
    record,
    run,
    status_json,
)
from toolkit.cli.commands import rerun as rerun_command
from toolkit.core.ledger.locks import LeaseDetails, LeaseLock, holder_name
from toolkit.core.ledger.records import wall_clock_stamp
from toolkit.core.storage.jvm_classes import jar_path

# A feed with the name of a process: suspend/resume need --kind for it.


# -- status ------------------------------------------------------------------------------------------------------


def test_status_rows_from_the_ledger_and_the_file_system(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    rows = status_json(capsys, history, "--from", "2026-11-21T03:00Z", "--to", "2026-11-21T12:00Z")
    # 11:00 and 12:00 are after now: not listed.
    assert [(r["time"], r["status"], r["recorded_status"], r["attempts"], r["duration_seconds"]) for r in rows] == [
        ("2026-11-21T03:00Z", "SUCCEEDED", "SUCCEEDED", 1, 150),
        ("2026-11-21T04:00Z", "FAILED", "FAILED", 3, 300),  # no `ended`: until the record was written
        ("2026-11-21T05:00Z", "TIMEDOUT", "TIMEDOUT", 1, None),
        ("2026-11-21T06:00Z", "KILLED", "RUNNING", 1, None),  # its lease expired: the run died
        ("2026-11-21T07:00Z", "RUNNING", "RUNNING", 1, 1800),  # live: up to now
        ("2026-11-21T08:00Z", "WAITING", "WAITING", 0, None),
        ("2026-11-21T09:00Z", "WAITING", None, 0, None),
        ("2026-11-21T10:00Z", "WAITING", None, 0, None),
    ]
    by_time = {row["time"]: row for row in rows}
    assert by_time["2026-11-21T04:00Z"]["error"] == "the workflow failed: boom"
    assert by_time["2026-11-21T03:00Z"]["started"] == "2026-11-21T03:01:00Z"
    assert by_time["2026-11-21T03:00Z"]["ended"] == "2026-11-21T03:03:30Z"
    assert by_time["2026-11-21T06:00Z"]["run_id"] == "run-06"
    assert by_time["2026-11-21T05:00Z"]["missing"] is None  # only WAITING rows say what they wait for
    assert by_time["2026-11-21T08:00Z"]["missing"] == ["clicks 2026-11-21T08:00Z (recorded)"]
    # Never run: the window now(-2,0)..now(0,0) of clicks resolved on the file system (09 lacks _SUCCESS).
    assert by_time["2026-11-21T09:00Z"]["missing"] == [f"clicks 2026-11-21T09:00Z ({history.clicks_uri(9)})"]
    assert by_time["2026-11-21T10:00Z"]["missing"] == [f"clicks 2026-11-21T09:00Z ({history.clicks_uri(9)})",
                                                       f"clicks 2026-11-21T10:00Z ({history.clicks_uri(10)})"]
    assert by_time["2026-11-21T10:00Z"]["missing_note"] is None


def test_status_text_is_aligned_columns_under_a_header(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    code, out, _ = run(capsys, "status", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary",
                       "--now", NOW, "--from", "2026-11-21T03:00Z", "--wide")
    assert code == 0
    assert out.splitlines() == [
        "TIME               STATUS     ATTEMPTS  START                 DURATION  COMMIT  DETAIL",
        "2026-11-21T03:00Z  SUCCEEDED  1         2026-11-21T03:01:00Z  2m30s     -       -",
        "2026-11-21T04:00Z  FAILED     3         2026-11-21T04:20:00Z  5m00s     -       the workflow failed: boom",
        "2026-11-21T05:00Z  TIMEDOUT   1         -                     -         -       timed out waiting for its "
        "inputs",
        "2026-11-21T06:00Z  KILLED     1         2026-11-21T06:05:00Z  -         -       -",
        "2026-11-21T07:00Z  RUNNING    1         2026-11-21T10:00:00Z  30m00s    -       -",
        "2026-11-21T08:00Z  WAITING    0         -                     -         -       missing clicks "
        "2026-11-21T08:00Z",
        "2026-11-21T09:00Z  WAITING    0         -                     -         -       missing clicks "
        "2026-11-21T09:00Z",
        "2026-11-21T10:00Z  WAITING    0         -                     -         -       missing 2 of clicks, "
        "2026-11-21T09:00Z..2026-11-21T10:00Z",
    ]


def test_status_fits_the_terminal_and_wide_shows_everything(capsys: pytest.CaptureFixture[str], history: Site,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34: a daily process's status was 16 KB with lines of 677 characters listing 24 hours one by one."""
    base = ("status", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
            "--from", "2026-11-21T03:00Z")
    monkeypatch.setenv("COLUMNS", "110")
    code, out, _ = run(capsys, *base)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 110
    waiting = ("2026-11-21T10:00Z  WAITING    0         -                     -         -       missing 2 of clicks, "
               "2026-11-21T09:00Z..2026-11-21T10:00Z")
    assert out.splitlines()[-1] == waiting[:107] + "..."
    failed = "2026-11-21T04:00Z  FAILED     3         2026-11-21T04:20:00Z  5m00s     -       the workflow failed: boom"
    assert failed in out.splitlines()  # it fits: whole
    code, out, _ = run(capsys, *base, "--wide")
    assert code == 0 and out.splitlines()[-1] == waiting


def test_a_running_record_whose_lock_was_never_taken_is_killed(capsys: pytest.CaptureFixture[str],
                                                              site: Site) -> None:
    site.ledger().write_instance(record(9, "RUNNING", started="2026-11-21T09:01:00Z"))
    rows = status_json(capsys, site, "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T09:00Z")
    assert [(r["status"], r["recorded_status"]) for r in rows] == [("KILLED", "RUNNING")]


def test_a_live_lease_is_judged_at_now(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    """The 07:00 run's lease ends 50 s after 10:30: a minute later it is a dead run."""
    later = status_json(capsys, history, "--from", "2026-11-21T07:00Z", "--to", "2026-11-21T07:00Z",
                        "--now", "2026-11-21T10:31Z")
    assert [(r["status"], r["recorded_status"]) for r in later] == [("KILLED", "RUNNING")]


def test_default_window_is_the_last_24_instances_up_to_now(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    rows = status_json(capsys, site)
    assert len(rows) == 24
    assert rows[0]["time"] == "2026-11-20T11:00Z" and rows[-1]["time"] == "2026-11-21T10:00Z"
    assert {row["status"] for row in rows} == {"WAITING"}
    # --to alone: the 24 instances up to it.
    rows = status_json(capsys, site, "--to", "2026-11-21T05:00Z")
    assert [rows[0]["time"], rows[-1]["time"], len(rows)] == ["2026-11-20T06:00Z", "2026-11-21T05:00Z", 24]


def test_default_window_stops_at_the_first_instance(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    """The process starts 2026-01-01T00:00Z: two hours later there are three instances."""
    rows = status_json(capsys, site, "--now", "2026-01-01T02:10Z")
    assert [row["time"] for row in rows] == ["2026-01-01T00:00Z", "2026-01-01T01:00Z", "2026-01-01T02:00Z"]
    assert status_json(capsys, site, "--now", "2025-12-31T23:00Z") == []


def test_missing_inputs_are_resolved_for_the_newest_50_never_run_instances(capsys: pytest.CaptureFixture[str],
                                                                         site: Site) -> None:
    rows = status_json(capsys, site, "--from", "2026-11-18T09:00Z", "--to", "2026-11-21T10:00Z")
    assert len(rows) == 74
    checked = [row for row in rows if row["missing"] is not None]
    assert [row["time"] for row in checked] == [row["time"] for row in rows[-50:]]
    assert {row["missing_note"] for row in rows[:-50]} == {"not checked (only the 50 newest waiting instances are)"}
    assert all(len(row["missing"]) == 3 for row in checked)  # no clicks at all: the whole window is missing


def test_table_inputs_are_not_checked_without_the_metastore(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    code, out, err = run(capsys, "status", "--repo", str(site.conf), "--process", "daily-visits-report",
                         "--cluster", "primary", "--now", NOW, "--from", "2026-11-20T00:00Z", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["time"], r["status"], r["missing"], r["missing_note"]) for r in rows] == [
        ("2026-11-20T00:00Z", "WAITING", None, "not checked (table input)"),
        ("2026-11-21T00:00Z", "WAITING", None, "not checked (table input)"),
    ]
    code, out, _ = run(capsys, "status", "--repo", str(site.conf), "--process", "daily-visits-report",
                       "--cluster", "primary", "--now", NOW, "--from", "2026-11-21T00:00Z", "--wide")
    assert out.splitlines()[1].endswith("WAITING  0         -      -         -       not checked (table input)")


def test_instances_without_inputs_missing_are_ready(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    for hour in (6, 7, 8):
        site.clicks(hour)
    rows = status_json(capsys, site, "--from", "2026-11-21T08:00Z", "--to", "2026-11-21T08:00Z")
    assert [(r["status"], r["missing"]) for r in rows] == [("WAITING", [])]
    code, out, _ = run(capsys, "status", "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary",
                       "--now", NOW, "--from", "2026-11-21T08:00Z", "--to", "2026-11-21T08:00Z", "--wide")
    assert out.splitlines()[1].endswith("none (ready to run)")


# -- summary -----------------------------------------------------------------------------------------------------


def test_summary_counts_the_status_rows(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    code, out, err = run(capsys, "summary", "--repo", str(history.conf), "--process", PROCESS, "--cluster",
                         "primary", "--now", NOW, "--from", "2026-11-21T00:00Z", "--format", "json")
    assert code == 0, err
    assert json.loads(out) == {
        "process": PROCESS, "cluster": "primary", "from": "2026-11-21T00:00Z", "to": "2026-11-21T10:00Z",
        "total": 11,
        "counts": {"WAITING": 6, "RUNNING": 1, "SUCCEEDED": 1, "FAILED": 1, "TIMEDOUT": 1, "SKIPPED": 0,
                   "KILLED": 1},
    }
    code, out, _ = run(capsys, "summary", "--repo", str(history.conf), "--process", PROCESS, "--cluster",
                       "primary", "--now", NOW, "--from", "2026-11-21T00:00Z")
    assert out.splitlines() == [
        "process hourly-clicks-summary on cluster primary, 2026-11-21T00:00Z .. 2026-11-21T10:00Z: 11 instance(s)",
        "STATUS     COUNT",
        "WAITING    6",
        "RUNNING    1",
        "SUCCEEDED  1",
        "FAILED     1",
        "TIMEDOUT   1",
        "SKIPPED    0",
        "KILLED     1",
    ]


# -- running -----------------------------------------------------------------------------------------------------


def test_running_lists_the_live_slot_leases(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    now = time.time()
    live = site.ledger(now - 10)
    slot_a, _ = live.take_slot(PROCESS, 2, "run-a", LeaseDetails(time="2026-11-21T09:00Z"))
    assert slot_a is not None
    # A killed run: its slot lease ran out an hour ago; it takes the second slot (the first is held).
    slot_b, holders = site.ledger(now - 3600).take_slot(PROCESS, 2, "run-b", LeaseDetails(time="2026-11-21T08:00Z"))
    assert slot_b is not None and [h.run_id for h in holders] == ["run-a"]
    slot_c, _ = live.take_slot("daily-clicks-rollup", 1, "run-c", LeaseDetails(time="2026-11-21T00:00Z"))
    assert slot_c is not None
    code, out, err = run(capsys, "running", "--repo", str(site.conf), "--cluster", "primary", "--format", "json")
    assert code == 0, err
    expires = wall_clock_stamp(now - 10 + 60)
    assert json.loads(out) == [
        {"process": "daily-clicks-rollup", "time": "2026-11-21T00:00Z", "run_id": "run-c", "holder": holder_name(),
         "expires": expires},
        {"process": PROCESS, "time": "2026-11-21T09:00Z", "run_id": "run-a", "holder": holder_name(),
         "expires": expires},
    ]
    code, out, _ = run(capsys, "running", "--repo", str(site.conf), "--cluster", "primary", "--process", PROCESS)
    assert out.splitlines() == [
        f"PROCESS                INSTANCE           RUN ID  HOLDER{' ' * (len(holder_name()) - 6)}  LEASE EXPIRES",
        f"hourly-clicks-summary  2026-11-21T09:00Z  run-a   {holder_name()}  {expires}",
    ]
    # An hour later, no lease is live any more.
    later = datetime.fromtimestamp(now + 3600, timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    code, out, _ = run(capsys, "running", "--repo", str(site.conf), "--cluster", "primary", "--now", later,
                       "--format", "json")
    assert code == 0 and json.loads(out) == []


# -- suspend, resume, safemode -------------------------------------------------------------------------------------


def test_suspend_and_resume_a_process(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    switch = site.ledger_root / "control" / "suspended" / "process" / "daily-clicks-rollup"
    code, out, err = run(capsys, "suspend", "daily-clicks-rollup", "--repo", str(site.conf), "--cluster", "primary",
                         "--reason", "bad upstream data")
    assert code == 0, err
    assert out.startswith("Suspended process 'daily-clicks-rollup' on cluster 'primary': process.py exits 4")
    document = json.loads(switch.read_text())
    assert document["reason"] == "bad upstream data" and document["by"].endswith("@" + holder_name().split(":")[0])
    assert datetime.strptime(document["since"], "%Y-%m-%dT%H:%M:%SZ")
    assert site.ledger().control.suspension("process", "daily-clicks-rollup").on
    code, out, _ = run(capsys, "suspend", "daily-clicks-rollup", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0 and "already suspended" in out and "nothing changed" in out
    assert json.loads(switch.read_text()) == document  # the first suspension is kept
    code, out, _ = run(capsys, "resume", "daily-clicks-rollup", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0
    assert out.startswith("Resumed process 'daily-clicks-rollup' on cluster 'primary' (suspended since ")
    assert not switch.exists()
    code, out, _ = run(capsys, "resume", "daily-clicks-rollup", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0 and out == "The process 'daily-clicks-rollup' is not suspended on cluster 'primary': " \
                                "nothing changed.\n"


def test_suspend_a_feed_and_a_name_that_is_both(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    code, out, _ = run(capsys, "suspend", "clicks", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0 and "retention and replication exit 4" in out
    assert (site.ledger_root / "control" / "suspended" / "feed" / "clicks").is_file()
    code, out, err = run(capsys, "suspend", PROCESS, "--repo", str(site.conf), "--cluster", "primary")
    assert code == 2 and out == "" and "names both a process and a feed" in err and "--kind" in err
    code, out, _ = run(capsys, "suspend", PROCESS, "--kind", "feed", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0
    suspended = site.ledger_root / "control" / "suspended"
    assert sorted(str(p.relative_to(suspended)) for p in suspended.rglob("*") if p.is_file()) == [
        "feed/clicks", f"feed/{PROCESS}"]
    code, _, _ = run(capsys, "resume", "clicks", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0 and not (suspended / "feed" / "clicks").exists()


def test_safemode_on_status_off(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    switch = site.ledger_root / "control" / "safemode"
    base = ("--repo", str(site.conf), "--cluster", "primary")
    assert run(capsys, "safemode", "status", *base) == (0, "safemode off for cluster 'primary'\n", "")
    code, out, _ = run(capsys, "safemode", "on", *base, "--reason", "namenode maintenance")
    assert code == 0 and out.startswith("Safemode is on for cluster 'primary': every action exits 5")
    document = json.loads(switch.read_text())
    assert document["reason"] == "namenode maintenance"
    code, out, _ = run(capsys, "safemode", "status", *base)
    assert code == 0
    assert out == (f"safemode on for cluster 'primary' (since {document['since']} by {document['by']}: "
                   "namenode maintenance)\n")
    code, out, _ = run(capsys, "safemode", "off", *base)
    assert code == 0 and out.startswith("Safemode is off for cluster 'primary' (it was on since ")
    assert not switch.exists()
    assert run(capsys, "safemode", "off", *base) == (
        0, "Safemode is not on for cluster 'primary': nothing changed.\n", "")


# -- rerun -------------------------------------------------------------------------------------------------------


def rerun_line(site: Site, hour: int) -> str:
    return shlex.join([rerun_command.spark_submit(), "--jars", jar_path(), rerun_command.process_entrypoint(),
                       "--repo", str(site.conf),
                       "--process", PROCESS, "--cluster", "primary", "--time", f"2026-11-21T{hour:02d}:00Z",
                       "--force"])


def test_rerun_prints_the_commands_of_failed_timed_out_and_killed_instances(capsys: pytest.CaptureFixture[str],
                                                                           history: Site) -> None:
    assert rerun_command.spark_submit().endswith("/pyspark/bin/spark-submit")
    assert rerun_command.process_entrypoint() == str(PROJECT / "entrypoints" / "process.py")
    base = ("rerun", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
            "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T12:00Z")
    code, out, err = run(capsys, *base)
    assert code == 0, err
    assert out.splitlines() == [rerun_line(history, 4), rerun_line(history, 5), rerun_line(history, 6)]
    code, out, _ = run(capsys, *base, "--status", "succeeded,WAITING")
    assert out.splitlines() == [rerun_line(history, hour) for hour in (0, 1, 2, 3, 8, 9, 10)]


def test_rerun_gives_spark_submit_the_arguments_of_the_clusters_scheduled_calls(capsys: pytest.CaptureFixture[str],
                                                                                history: Site) -> None:
    """A rerun is the scheduled call again: the cluster's trigger.submit-args (a JDBC driver's class path, say) and
    its class-data archive, as `toolkit schedule` and the trigger sweep give them."""
    cluster = history.conf / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace(
        "properties:\n", "properties:\n  trigger.submit-args: --driver-class-path /opt/jdbc/pg.jar --conf a=b\n"
                          "  jvm.class-archive: /var/lib/feed-toolkit/spark.jsa\n"))
    code, out, err = run(capsys, "rerun", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary",
                         "--now", NOW, "--from", "2026-11-21T04:00Z", "--to", "2026-11-21T04:00Z")
    assert code == 0, err
    assert out.splitlines() == [shlex.join([
        rerun_command.spark_submit(), "--driver-class-path", "/opt/jdbc/pg.jar", "--conf", "a=b",
        "--driver-java-options", "-XX:SharedArchiveFile=/var/lib/feed-toolkit/spark.jsa -Xshare:auto -Xlog:disable "
        "-Xlog:all=warning:stderr", "--jars", jar_path(), rerun_command.process_entrypoint(), "--repo",
        str(history.conf), "--process", PROCESS, "--cluster", "primary", "--time", "2026-11-21T04:00Z", "--force"])]


def test_rerun_with_nothing_to_rerun_runs_nothing(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    code, out, err = run(capsys, "rerun", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary",
                         "--now", NOW, "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T12:00Z",
                         "--status", "SKIPPED", "--execute")
    assert (code, out) == (0, "")
    assert err == (f"No instance of process '{PROCESS}' on cluster 'primary' from 2026-11-21T00:00Z to "
                   "2026-11-21T12:00Z is SKIPPED: nothing to rerun.\n")


def test_worst_exit_code() -> None:
    assert rerun_command.worst([0, 4, 3]) == 3
    assert rerun_command.worst([5, 3, 0]) == 5
    assert rerun_command.worst([0, 1, 5]) == 1
    assert rerun_command.worst([-9, 0]) == 1  # killed by a signal
    assert rerun_command.worst([0, 0]) == 0


# -- bad input ---------------------------------------------------------------------------------------------------


BAD_CALLS = [
    (["status", "--process", "nope", "--cluster", "primary"], "Unknown process 'nope'"),
    (["status", "--process", PROCESS], "Give --cluster"),
    (["status"], "Give --cluster"),
    (["status", "--process", PROCESS, "--cluster", "backup"], "is not defined on cluster 'backup'"),
    (["status", "--process", PROCESS, "--cluster", "primary", "--from", "2026-11-21T10:00Z", "--to",
      "2026-11-21T09:00Z"], "--to 2026-11-21T09:00Z is before --from 2026-11-21T10:00Z"),
    (["status", "--process", PROCESS, "--cluster", "primary", "--from", "2026-01-01T00:00Z", "--now",
      "2027-06-01T00:00Z"], "more than 10000 rows: give a smaller window"),
    (["status", "--process", PROCESS, "--cluster", "primary", "--now", "2026-11-21 10:30"], "Invalid --now"),
    (["status", "--process", PROCESS, "--cluster", "primary", "--format", "xml"], "Unknown --format 'xml'"),
    (["summary", "--process", "nope", "--cluster", "primary"], "Unknown process 'nope'"),
    (["running", "--cluster", "backup"], "The cluster 'backup' interfaces.readonly.endpoint 'hdfs://nn:8020' is not a "
                                         "WebHDFS address"),
    (["running", "--cluster", "mars"], "Unknown cluster 'mars'"),
    (["safemode", "status", "--cluster", "backup"], "write the namenode's HTTP address, e.g. webhdfs://"),
    (["safemode", "maybe", "--cluster", "primary"], "Unknown safemode action 'maybe'"),
    (["suspend", "nope", "--cluster", "primary"], "No process or feed is named 'nope'"),
    (["suspend", "clicks", "--cluster", "backup"], "cluster 'backup' interfaces.readonly.endpoint"),
    (["suspend", "daily-clicks-rollup", "--cluster", "backup"], "is not defined on cluster 'backup'"),
    (["suspend", "clicks", "--cluster", "primary", "--kind", "cluster"], "Unknown --kind 'cluster'"),
    (["resume", "clicks", "--cluster", "primary", "--kind", "process"], "Unknown process 'clicks'"),
    (["rerun", "--process", PROCESS, "--cluster", "primary", "--to", "2026-11-21T09:00Z"], "Give --from"),
    (["rerun", "--process", PROCESS, "--cluster", "primary", "--from", "2026-11-21T09:00Z", "--to",
      "2026-11-21T08:00Z"], "is before --from"),
    (["rerun", "--process", PROCESS, "--cluster", "primary", "--from", "2026-11-21T09:00Z", "--to",
      "2026-11-21T10:00Z", "--status", "FAILED,BROKEN"], "Unknown --status BROKEN"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_CALLS, ids=[" ".join(a)[:50] for a, _ in BAD_CALLS])
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                            message: str) -> None:
    hdfs_backup(site)
    code, out, err = run(capsys, *argv, "--repo", str(site.conf))
    assert code == 2, err
    assert out == ""
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1, err
    assert message in err
    assert not (site.ledger_root / "control").exists()  # nothing written


def test_a_file_system_neither_local_nor_hdfs_is_refused_in_one_sentence(capsys: pytest.CaptureFixture[str],
                                                                         site: Site) -> None:
    cluster = site.conf / "clusters" / "backup.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{site.primary.parent / 'backup'}", "viewfs://global"))
    code, out, err = run(capsys, "running", "--cluster", "backup", "--repo", str(site.conf))
    assert (code, out) == (2, "")
    assert err == ("toolkit: The command line cannot read the ledger of cluster 'backup' on viewfs://: it reads "
                   "clusters whose write endpoint is file:// or hdfs:// (through WebHDFS at the readonly interface); "
                   "run the Spark entrypoints for other file systems.\n")


def test_a_damaged_record_exits_1_naming_it(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    path = site.ledger_root / "processes" / PROCESS / "20261121T0900Z" / "instance.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    code, out, err = run(capsys, "status", "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary",
                         "--now", NOW)
    assert code == 1 and out == ""
    assert err.startswith(f"toolkit: The ledger record file://{path} is damaged (not valid JSON")


def test_a_record_of_a_newer_format_exits_2_saying_to_upgrade(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    path = site.ledger_root / "processes" / PROCESS / "20261121T0900Z" / "instance.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"format_version": 99, "process": "hourly-clicks-summary", "renamed_everything": true}')
    code, out, err = run(capsys, "status", "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary",
                         "--now", NOW)
    assert (code, out) == (2, "")
    assert err == (f"toolkit: The ledger record file://{path} was written by a newer toolkit (record format 99; this "
                   "toolkit reads formats up to 1): upgrade the toolkit on this machine, then call again.\n")


def test_a_window_of_exactly_the_row_limit_is_listed(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    last = start + timedelta(hours=9999)
    ok = status_json(capsys, site, "--from", "2026-01-01T00:00Z", "--now", f"{last:%Y-%m-%dT%H:%MZ}")
    assert len(ok) == 10_000


# -- roll-ups ----------------------------------------------------------------------------------------------------


def test_status_summary_and_rerun_read_the_same_after_a_rollup(capsys: pytest.CaptureFixture[str],
                                                                history: Site) -> None:
    window = ("--from", "2026-11-21T00:00Z", "--to", "2026-11-21T12:00Z")
    common = ("--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary", "--now", NOW)

    def outputs() -> list[str]:
        return [run(capsys, verb, *common, *window, *extra)[1] for verb, extra in (
            ("status", ("--format", "json")), ("summary", ("--format", "json")), ("rerun", ()))]

    before = outputs()
    code, out, err = run(capsys, "ledger-rollup", "--repo", str(history.conf), "--cluster", "primary",
                         "--now", "2026-12-01T00:00Z")
    assert code == 0, err
    # SUCCEEDED, FAILED, TIMEDOUT are closed; the RUNNING (dead and live) and WAITING records stay in folders
    assert out.splitlines() == [
        "hourly-clicks-summary: 3 instance(s) rolled up, 3 kept in their folders (open or running), months 202611",
        "ledger-rollup: 3 instance(s) of 5 process(es) rolled up on cluster 'primary'"]
    left = sorted(path.name for path in (history.ledger_root / "processes" / PROCESS).iterdir())
    assert left == ["20261121T0600Z", "20261121T0700Z", "20261121T0800Z", "rollups"]
    assert outputs() == before
    assert json.loads(before[0])[4]["status"] == "FAILED"


def test_a_rollup_of_a_process_another_rollup_holds_exits_5_naming_it(capsys: pytest.CaptureFixture[str],
                                                                     history: Site) -> None:
    ledger = history.ledger()
    assert LeaseLock(ledger.fs, ledger.layout.rollup_folder(PROCESS), "lock", 60.0).try_acquire("other-rollup").taken
    code, out, err = run(capsys, "ledger-rollup", "--repo", str(history.conf), "--cluster", "primary",
                         "--process", PROCESS, "--now", "2026-12-01T00:00Z")
    assert code == 5
    assert "The roll-up of process 'hourly-clicks-summary' is being run by run other-rollup on" in err
    assert out.splitlines() == ["ledger-rollup: 0 instance(s) of 1 process(es) rolled up on cluster 'primary'"]
    assert (history.ledger_root / "processes" / PROCESS / "20261121T0300Z" / "instance.json").exists()
