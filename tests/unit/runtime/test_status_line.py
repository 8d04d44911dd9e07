"""The status line (docs/exit-codes.md) is one typed record: the fields every action has, then the action's own in
the order they were added; it renders the JSON object printed last and gives the exit code."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from toolkit.errors import BlockedError, UsageError
from toolkit.services.runtime.entry_frame import common_parser, nominal, run
from toolkit.services.runtime.status import EXIT_CODES, StatusLine, emit
from toolkit.statuses import Status


def test_the_common_fields_come_first_then_the_actions_own_then_the_error_and_the_time_taken() -> None:
    line = StatusLine(action="retention", run_id="r1", entity="clicks")
    line.time, line.cluster, line.status = "2026-11-21T10:00Z", "primary", Status.FAILED
    line.add(report="file:///r.json", instances_evicted=3)
    line.add_counters({"bytes_freed": 10, "elapsed_seconds": 1.5})
    line.error = "it broke"
    assert list(line.document().items()) == [
        ("status", Status.FAILED), ("action", "retention"), ("entity", "clicks"), ("time", "2026-11-21T10:00Z"),
        ("run_id", "r1"), ("cluster", "primary"), ("report", "file:///r.json"), ("instances_evicted", 3),
        ("bytes_freed", 10), ("error", "it broke"), ("elapsed_seconds", 1.5)]


def test_a_field_the_line_types_cannot_be_added_as_an_actions_own() -> None:
    with pytest.raises(TypeError, match="cluster, status: set as attributes of the status line"):
        StatusLine(action="a", run_id="r").add(status="SUCCEEDED", cluster="c", rows=1)


def test_emit_prints_the_line_writes_the_status_file_and_gives_the_exit_code(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = StatusLine(action="replication", run_id="r2", status=Status.WAITING)
    line.add(target="backup")
    assert emit(line, tmp_path / "out" / "status.json") == 3
    printed = capsys.readouterr().out
    assert json.loads(printed) == {"status": "WAITING", "action": "replication", "entity": None, "time": None,
                                   "run_id": "r2", "target": "backup"}
    assert (tmp_path / "out" / "status.json").read_text() == printed


def test_the_frame_turns_an_error_into_its_status_and_exit_code(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    def body(args: argparse.Namespace, status: StatusLine) -> Status:
        status.add(rows=2)
        raise BlockedError("safemode is on")

    parser = common_parser("retention", "test")
    parser.add_argument("--feed")
    parser.add_argument("--cluster")
    monkeypatch.setattr("sys.argv", ["retention.py", "--repo", "r", "--feed", "clicks", "--cluster", "primary"])
    assert run("retention", parser, body) == 5
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert (document["status"], document["entity"], document["cluster"], document["rows"], document["error"]) == \
        ("BLOCKED", "clicks", "primary", 2, "safemode is on")
    assert list(document)[-2:] == ["error", "elapsed_seconds"] and err == "retention: safemode is on\n"


@pytest.mark.parametrize("outcome", [Status.SUCCEEDED, Status.SKIPPED, UsageError("outside the validity")])
def test_the_frame_fills_the_fields_every_call_has_from_the_call_and_the_status_from_the_body(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], outcome: Status | UsageError) -> None:
    """The entity and cluster the call names, the time the body works on (`nominal`, said before anything can
    fail) and the status the body returns: no action sets them by hand, so none can leave one out."""
    def body(args: argparse.Namespace, status: StatusLine) -> Status:
        nominal(args, status)
        if isinstance(outcome, UsageError):
            raise outcome
        return outcome

    parser = common_parser("replication", "test")
    parser.add_argument("--feed")
    parser.add_argument("--target")
    monkeypatch.setattr("sys.argv", ["replication.py", "--repo", "r", "--feed", "clicks", "--target", "backup",
                                     "--time", "2026-11-30T10:00Z"])
    assert run("replication", parser, body) == (2 if isinstance(outcome, UsageError) else EXIT_CODES[outcome])
    document = json.loads(capsys.readouterr().out)
    assert (document["status"], document["entity"], document["cluster"], document["time"]) == (
        "INVALID" if isinstance(outcome, UsageError) else outcome, "clicks", "backup", "2026-11-30T10:00Z")


def test_an_error_quoting_a_password_is_masked_in_the_status_line_its_file_and_the_sentence_on_stderr(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def body(args: argparse.Namespace, status: StatusLine) -> Status:
        raise UsageError("Cannot connect to jdbc:oracle:thin:etl/Pw1-s3cr3t@//db:1521/ORCL as 'etl': refused")

    parser = common_parser("import", "test")
    parser.add_argument("--feed")
    status_file = tmp_path / "status.json"
    monkeypatch.setattr("sys.argv", ["import.py", "--repo", "r", "--feed", "orders", "--status-file", str(status_file)])
    assert run("import", parser, body) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["error"] == "Cannot connect to jdbc:oracle:thin:etl/***@//db:1521/ORCL as 'etl': refused"
    assert err == "import: Cannot connect to jdbc:oracle:thin:etl/***@//db:1521/ORCL as 'etl': refused\n"
    assert "Pw1-s3cr3t" not in status_file.read_text()


def test_an_error_set_by_an_action_is_masked_when_the_line_is_rendered() -> None:
    line = StatusLine(action="retention", run_id="r1", error="ValueError: token=Pw1-s3cr3t was refused")
    assert line.document()["error"] == "ValueError: token=*** was refused"


@pytest.mark.parametrize("where", ["a folder", "below a file"])
def test_a_status_file_that_cannot_be_a_file_is_refused_before_the_action_runs(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str) -> None:
    """Checked with the arguments (exit 2, one sentence naming it), before the action does anything: found only
    when the line is written, it was a traceback after the work was done."""
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("mine\n")
    status_file = {"a folder": tmp_path / "folder", "below a file": tmp_path / "file" / "status.json"}[where]
    ran: list[bool] = []
    parser = common_parser("retention", "test")
    parser.add_argument("--feed")
    monkeypatch.setattr("sys.argv", ["retention.py", "--repo", "r", "--feed", "clicks", "--status-file",
                                     str(status_file)])
    assert run("retention", parser, lambda args, status: ran.append(True)) == 2
    out, err = capsys.readouterr()
    assert (ran, json.loads(out)["status"]) == ([], "INVALID")
    assert f"argument --status-file: {status_file} " in err and "Traceback" not in err
    assert (tmp_path / "file").read_text() == "mine\n" and list((tmp_path / "folder").iterdir()) == []


def test_a_status_file_that_cannot_be_written_at_the_end_is_one_sentence_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The place was fine when the call began and is not at its end (a folder made there meanwhile): the status
    line is on stdout, the sentence on stderr says the file was not written."""
    line = StatusLine(action="retention", run_id="r3", status=Status.SUCCEEDED)
    (tmp_path / "status.json").mkdir()
    assert emit(line, tmp_path / "status.json") == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "SUCCEEDED"
    assert err == (f"retention: the run ended SUCCEEDED, but its status file {tmp_path / 'status.json'} could not "
                   "be written (Is a directory): give --status-file a file this user can write.\n")
