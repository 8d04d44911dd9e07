"""`toolkit suspend|resume --process P --time T` (Falcon's `instance -suspend`/`-resume`): the hold it writes in the
ledger, its sentences and exit codes, and how `toolkit status` and `triage` show a held instance (issue 37). The
run's side, with real runs: tests/integration/process_runner/test_instance_holds.py."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from tests.unit.cli.ledger_site import NOW, NOW_SECONDS, PROCESS, Site, at, history, run, status_json
from toolkit.core.ledger.holds import Hold
from toolkit.core.ledger.kill_requests import KillRequest
from toolkit.core.ledger.records import CorruptRecordError
from toolkit.core.ledger.store import Ledger
from toolkit.statuses import Status

__all__ = ["history"]  # the fixture

HOLD_07 = ("processes", PROCESS, "holds", "20261121T0700Z")


def hold(capsys: pytest.CaptureFixture[str], site: Site, verb: str, *argv: str) -> tuple[int, str, str]:
    return run(capsys, verb, "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
               *argv)


def test_a_hold_round_trips_through_the_ledger(site: Site) -> None:
    ledger = site.ledger()
    assert ledger.hold(PROCESS, at(7)) is None and ledger.holds(PROCESS) == {}
    ledger.set_hold(PROCESS, at(7), Hold("2026-11-21T10:00:00Z", "alice@edge", "bad upstream data"))
    ledger.set_hold(PROCESS, at(8), Hold("2026-11-21T10:01:00Z", "bob@edge"))
    assert ledger.hold(PROCESS, at(7)) == Hold("2026-11-21T10:00:00Z", "alice@edge", "bad upstream data")
    assert ledger.holds(PROCESS) == {at(7): Hold("2026-11-21T10:00:00Z", "alice@edge", "bad upstream data"),
                                     at(8): Hold("2026-11-21T10:01:00Z", "bob@edge")}
    assert Hold("2026-11-21T10:00:00Z", "alice@edge", "bad upstream data").sentence() == (
        "held by alice@edge at 2026-11-21T10:00:00Z: bad upstream data")
    assert Hold("2026-11-21T10:01:00Z", "bob@edge").sentence() == "held by bob@edge at 2026-11-21T10:01:00Z"
    ledger.clear_hold(PROCESS, at(7))
    ledger.clear_hold(PROCESS, at(7))  # clearing what is not there changes nothing
    assert list(ledger.holds(PROCESS)) == [at(8)]
    assert ledger.folder_times(PROCESS) == set()  # the holds folder is no instance folder


def test_a_damaged_hold_is_named(site: Site) -> None:
    path = site.ledger_root.joinpath(*HOLD_07)
    path.parent.mkdir(parents=True)
    path.write_text('{"by": "alice"}')
    with pytest.raises(CorruptRecordError, match="the field 'since' is missing"):
        site.ledger().hold(PROCESS, at(7))
    path.write_text('{"by": "alice", "since": "yesterday"}')
    with pytest.raises(CorruptRecordError, match="the field 'since' is 'yesterday', not a time yyyy-MM-ddTHH:mm:ssZ"):
        site.ledger().hold(PROCESS, at(7))


def test_a_hold_and_a_kill_request_as_the_toolkit_wrote_them_before_read_the_same(site: Site) -> None:
    path = site.ledger_root.joinpath(*HOLD_07)
    path.parent.mkdir(parents=True)
    path.write_text('{"by": "alice@edge", "format_version": 1, "reason": null, "since": "2026-11-21T10:00:00Z"}\n')
    ledger = site.ledger()
    assert ledger.hold(PROCESS, at(7)) == Hold("2026-11-21T10:00:00Z", "alice@edge")
    kill = Path(ledger.layout.kill_request(PROCESS, at(7)).removeprefix("file://"))
    kill.parent.mkdir(parents=True, exist_ok=True)
    kill.write_text('{"by": "ops@edge", "format_version": 1, "reason": "stuck", "run_id": "r1", '
                    '"since": "2026-11-21T10:05:00Z"}\n')
    assert ledger.kill_request(PROCESS, at(7)) == KillRequest("r1", "2026-11-21T10:05:00Z", "ops@edge", "stuck")


def test_suspend_holds_the_instance_and_resume_releases_it(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    code, out, err = hold(capsys, site, "suspend", "--time", "2026-11-21T07:00Z", "--reason", "bad upstream data")
    assert (code, err) == (0, "")
    assert out == (f"Suspended the instance 2026-11-21T07:00Z of process '{PROCESS}' on cluster 'primary': process.py "
                   f"does not start it (exit 4, skipped) until `toolkit resume --process {PROCESS} --cluster primary "
                   "--time 2026-11-21T07:00Z`.\n")
    document = json.loads(site.ledger_root.joinpath(*HOLD_07).read_text())
    assert document["reason"] == "bad upstream data" and "@" in document["by"] and document["since"].startswith("20")

    code, out, _ = hold(capsys, site, "suspend", "--time", "2026-11-21T07:00Z")
    assert code == 0 and out.startswith(f"The instance 2026-11-21T07:00Z of process '{PROCESS}' on cluster 'primary' "
                                        "is already suspended (held by ") and out.endswith(": nothing changed.\n")

    code, out, _ = hold(capsys, site, "resume", "--time", "2026-11-21T07:00Z")
    assert code == 0
    assert out.startswith(f"Resumed the instance 2026-11-21T07:00Z of process '{PROCESS}' on cluster 'primary' (held "
                          "by ") and out.endswith(": bad upstream data): process.py runs it again.\n")
    assert not site.ledger_root.joinpath(*HOLD_07).exists()
    code, out, _ = hold(capsys, site, "resume", "--time", "2026-11-21T07:00Z")
    assert (code, out) == (0, f"The instance 2026-11-21T07:00Z of process '{PROCESS}' on cluster 'primary' is not "
                              "suspended: nothing changed.\n")


def test_a_window_is_held_instance_by_instance(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    code, out, _ = hold(capsys, site, "suspend", "--from", "2026-11-21T07:00Z", "--to", "2026-11-21T09:00Z")
    assert code == 0 and len(out.splitlines()) == 3
    assert sorted(site.ledger().holds(PROCESS)) == [at(7), at(8), at(9)]
    code, out, _ = hold(capsys, site, "resume", "--from", "2026-11-21T08:00Z", "--to", "2026-11-21T08:00Z")
    assert code == 0 and out.startswith("Resumed the instance 2026-11-21T08:00Z")
    assert sorted(site.ledger().holds(PROCESS)) == [at(7), at(9)]


def test_a_running_spark_instance_is_refused_and_nothing_held(capsys: pytest.CaptureFixture[str],
                                                               history: Site) -> None:
    code, out, err = hold(capsys, history, "suspend", "--from", "2026-11-21T06:00Z", "--to", "2026-11-21T08:00Z")
    assert (code, out) == (1, "")
    assert err == (f"toolkit: The instance 2026-11-21T07:00Z of process '{PROCESS}' on cluster 'primary' is running "
                   "on engine pyspark, and nothing can pause a running Spark job: nothing was suspended; end it with "
                   f"`toolkit kill --process {PROCESS} --cluster primary --time 2026-11-21T07:00Z` or wait for it to "
                   "end, then suspend it.\n")
    assert history.ledger().holds(PROCESS) == {}  # nor 06:00 (its run died) nor 08:00


def test_a_live_run_waiting_for_its_inputs_can_be_held(capsys: pytest.CaptureFixture[str], history: Site) -> None:
    assert history.ledger(NOW_SECONDS - 10).instance_lock(PROCESS, at(8)).try_acquire("run-08").taken
    code, out, _ = hold(capsys, history, "suspend", "--time", "2026-11-21T08:00Z")
    assert code == 0 and "process.py does not start it" in out  # the waiting run stops at its next poll


def test_a_run_that_starts_while_suspend_holds_is_seen_and_the_hold_withdrawn(
        capsys: pytest.CaptureFixture[str], history: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """suspend writes its hold, then looks for a running attempt; the run writes RUNNING, then looks for a hold: one
    of them sees the other. Here the waiting run of 08:00 starts its attempt right after the hold is written."""
    assert history.ledger(NOW_SECONDS - 10).instance_lock(PROCESS, at(8)).try_acquire("run-08").taken
    set_hold = Ledger.set_hold

    def and_the_run_starts(ledger: Ledger, process: str, t: datetime, hold: Hold) -> None:
        set_hold(ledger, process, t, hold)
        record = ledger.instance(process, t)
        assert record is not None
        ledger.write_instance(replace(record, status=Status.RUNNING, attempts=1))

    monkeypatch.setattr(Ledger, "set_hold", and_the_run_starts)
    code, out, err = hold(capsys, history, "suspend", "--time", "2026-11-21T08:00Z")
    assert (code, out) == (1, "")
    assert err.startswith(f"toolkit: The instance 2026-11-21T08:00Z of process '{PROCESS}' on cluster 'primary' is "
                          "running on engine pyspark, and nothing can pause a running Spark job: nothing was suspended")
    assert history.ledger().holds(PROCESS) == {}


def test_a_hold_another_suspend_wrote_alike_is_not_withdrawn_with_this_ones(
        capsys: pytest.CaptureFixture[str], history: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two suspends of one instance by one operator in the same second, a run starting between them: the first sees
    the run and withdraws its hold, but the hold now there is the second's, which reads the same (who, when, why) and
    which the second call goes on to report as placed. It stays."""
    assert history.ledger(NOW_SECONDS - 10).instance_lock(PROCESS, at(8)).try_acquire("run-08").taken
    set_hold = Ledger.set_hold

    def and_another_suspend_and_the_run(ledger: Ledger, process: str, t: datetime, hold: Hold) -> None:
        set_hold(ledger, process, t, hold)
        set_hold(ledger, process, t, Hold(hold.since, hold.by, hold.reason))  # the other call's, alike
        record = ledger.instance(process, t)
        assert record is not None
        ledger.write_instance(replace(record, status=Status.RUNNING, attempts=1))

    monkeypatch.setattr(Ledger, "set_hold", and_another_suspend_and_the_run)
    code, out, err = hold(capsys, history, "suspend", "--time", "2026-11-21T08:00Z", "--reason", "bad data")
    assert (code, out) == (1, "") and "nothing can pause a running Spark job: nothing was suspended" in err
    kept = history.ledger().holds(PROCESS)
    assert list(kept) == [at(8)] and kept[at(8)].reason == "bad data"


def test_status_and_triage_show_a_held_instance_suspended(capsys: pytest.CaptureFixture[str],
                                                           history: Site) -> None:
    history.ledger().set_hold(PROCESS, at(4), Hold("2026-11-21T10:00:00Z", "alice@edge", "bad upstream data"))
    history.ledger().set_hold(PROCESS, at(9), Hold("2026-11-21T10:00:00Z", "alice@edge"))
    rows = {row["time"]: row for row in status_json(capsys, history)}
    assert (rows["2026-11-21T04:00Z"]["status"], rows["2026-11-21T04:00Z"]["recorded_status"]) == ("SUSPENDED",
                                                                                                    "FAILED")
    assert rows["2026-11-21T04:00Z"]["hold"] == "held by alice@edge at 2026-11-21T10:00:00Z: bad upstream data"
    assert (rows["2026-11-21T09:00Z"]["status"], rows["2026-11-21T09:00Z"]["recorded_status"]) == ("SUSPENDED", None)
    assert rows["2026-11-21T08:00Z"]["status"] == "WAITING" and rows["2026-11-21T08:00Z"]["hold"] is None

    code, out, _ = run(capsys, "status", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary",
                       "--now", NOW, "--wide")
    line = next(line for line in out.splitlines() if line.startswith("2026-11-21T09:00Z"))
    assert code == 0 and "SUSPENDED" in line
    assert line.endswith("held by alice@edge at 2026-11-21T10:00:00Z (toolkit resume --time 2026-11-21T09:00Z)")

    code, out, err = run(capsys, "triage", "--repo", str(history.conf), "--process", PROCESS, "--time",
                         "2026-11-21T09:00Z", "--cluster", "primary", "--now", NOW, "--format", "json")
    assert code == 0, err
    start = json.loads(out)["instances"][0]
    assert start["status"] == "SUSPENDED"
    assert start["why"].startswith("suspended, held by alice@edge at 2026-11-21T10:00:00Z: it does not start until "
                                   f"`toolkit resume --process {PROCESS} --cluster primary --time 2026-11-21T09:00Z`")


@pytest.mark.parametrize(("argv", "message"), [
    (["suspend", "--time", "2026-11-21T07:00Z"], "Give --process: the process whose instance(s) to suspend"),
    (["resume"], "Name the process or feed"),
    (["suspend", "--process", PROCESS, "--cluster", "primary"], f"--process {PROCESS} names instances"),
    (["suspend", PROCESS, "--time", "2026-11-21T07:00Z"], "give it with --process, not as an argument"),
    (["resume", "--process", PROCESS, "--from", "2026-11-21T07:00Z"], "Give both --from and --to"),
    (["suspend", "--process", PROCESS, "--time", "2026-11-21T07:00Z", "--from", "2026-11-21T07:00Z",
      "--to", "2026-11-21T08:00Z"], "Give either --time T or --from A --to B"),
    (["suspend", "--process", PROCESS, "--time", "2026-11-21T07:30Z"], "is no instance of process"),
    (["suspend", "--process", PROCESS, "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T07:00Z"],
     "--from is after --to"),
    (["resume", "--process", "nope", "--time", "2026-11-21T07:00Z"], "Unknown process 'nope'"),
])
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                            message: str) -> None:
    code, out, err = run(capsys, *argv, "--repo", str(site.conf))
    assert (code, out) == (2, "")
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1 and message in err
