"""Replication's data-quality gate on the target (toolkit/actions/replication/target_gate.py), with the session's Spark
and Great Expectations: the template's `clicks` (here JSON lines with declared columns) carries a suite whose
not-null expectation one hour breaks. The entrypoint's body runs in this process (its session is the tests' one;
one Great Expectations set-up for the module), with a real SMTP server for the notices and a real HTTP receiver
for lineage. A table feed's gate is tested beside the other table replication tests (test_table_replication.py,
whose two metastores it shares)."""

from __future__ import annotations

import json
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import pytest

from tests.integration.openlineage.lineage_setup import valid_events
from tests.lineage_receiver import lineage_receiver
from tests.smtp_server import SmtpServers
from tests.unit.replication.test_file_replication import contents, instance
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21, 10)
SUITE = "quality/replicated-clicks.json"
GOOD = b'{"page": "/", "user": "u1"}\n{"page": "/cart", "user": "u2"}\n'
BAD = b'{"page": "/", "user": "u1"}\n{"page": "/cart", "user": null}\n{"page": "/", "user": "u3"}\n'
NOT_NULL = ("feed 'clicks' 2026-11-21T10:00Z failed 1 of 2 expectations of the quality suite "
            f"{SUITE}: expect_column_values_to_not_be_null(user): 1 of 3 unexpected")


def _suite(repo: Path) -> None:
    (repo / "quality").mkdir(exist_ok=True)
    (repo / SUITE).write_text(json.dumps({"name": "replicated-clicks", "expectations": [
        {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "user"}},
        {"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 1, "max_value": 100}}]}))


def _repo(tmp_path: Path, on_failure: str, mail: SmtpServers, lineage_url: str) -> tuple[Path, Path]:
    """The template repo whose `clicks` has the gate and tells data@example.com; backup sends mail through
    `mail` and lineage to `lineage_url`."""
    repo, primary = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text() + textwrap.dedent(f"""\
        format: json
        columns:
          - {{name: page, type: string}}
          - {{name: user, type: string}}
        quality: {{suite: {SUITE}, on-failure: {on_failure}}}
        notification: {{to: data@example.com}}
        """))
    _suite(repo)
    backup = repo / "clusters/backup.yaml"
    properties = {**mail.none.properties(mail.ca_file), "openlineage.transport.type": "http",
                  "openlineage.transport.url": lineage_url}
    backup.write_text(backup.read_text() + "".join(f'  {key}: "{value}"\n' for key, value in properties.items()))
    return repo, primary


def _entrypoint(monkeypatch, capsys, repo: Path, *args: str) -> tuple[int, dict[str, object], str]:
    """entrypoints/replication.py's body in this process: (exit code, status line, what it said on stderr)."""
    from toolkit.actions.replication.replication_entry import main

    monkeypatch.setattr(sys, "argv", ["replication.py", "--repo", str(repo), "--feed", "clicks", "--target",
                                      "backup", *args])
    code = main()
    printed = capsys.readouterr()
    return code, json.loads(printed.out.strip().splitlines()[-1]), printed.err


def _record(path: object) -> dict:
    return json.loads(Path(str(path).removeprefix("file://")).read_text())


def _events(repo: Path, t: datetime) -> list:
    from toolkit.core.storage.local import LocalFileSystem

    return Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("backup")).events("clicks", t)


def _assertions(dataset: dict) -> list[tuple[str, bool, str | None]]:
    facet = dataset["facets"]["dataQualityAssertions"]["assertions"]
    return [(item["assertion"], item["success"], item.get("column")) for item in facet]


def test_an_instance_failing_a_block_gate_is_not_published_and_the_catch_up_goes_on(
        spark, tmp_path: Path, mail: SmtpServers, monkeypatch, capsys) -> None:
    """Catch-up of 10:00 (a null user) and 11:00 (clean): 10:00 is not published on backup (no folder, no staging
    left, no event, no flag), fails the call (exit 1) and is told; 11:00 is published."""
    later = utc(2026, 11, 21, 11)
    with lineage_receiver() as receiver:
        repo, primary = _repo(tmp_path, "block", mail, receiver.url)
        instance(primary, "data/clicks", T, {"part-00000.json": BAD})
        good = instance(primary, "data/clicks", later, {"part-00000.json": GOOD})
        code, status, out = _entrypoint(monkeypatch, capsys, repo, "--time", "2026-11-21T11:00Z",
                                        "--from", "2026-11-21T10:00Z", "--to", "2026-11-21T11:00Z")
    assert code == 1, out
    assert (status["status"], status["instances"], status["instances_published"], status["quality"]) == (
        "FAILED", 2, 1, "3/4 passed")
    reason = (f"replication: primary: {NOT_NULL} (its on-failure is block): nothing of it was published on "
              "'backup' and its staged copy was discarded.")
    assert reason in out.splitlines()
    hours = tmp_path / "backup/replica/clicks/2026/11/21"
    assert sorted(path.name for path in hours.iterdir()) == ["11"]  # 10 and its staging .10.replicating: gone
    assert contents(hours / "11") == contents(good)
    assert _events(repo, T) == [] and len(_events(repo, later)) == 1
    records = tmp_path / "backup/feed-toolkit/working/replication/clicks"
    record = _record(records / "20261121T1000Z.json")
    assert (record["status"], record["flag_written"], record["sources"][0]["published"]) == ("FAILED", False, False)
    [result] = record["quality"]
    assert (result["suite"], result["on_failure"], result["success"], result["passed"], result["evaluated"]) == (
        SUITE, "block", False, 1, 2)
    assert result["location"] == f"file://{hours}/.10.replicating"
    assert [(e["type"], e["success"], e["unexpected_count"]) for e in result["expectations"]] == [
        ("expect_column_values_to_not_be_null", False, 1), ("expect_table_row_count_to_be_between", True, None)]
    assert result["expectations"][1]["observed_value"] == 3
    assert [r["success"] for r in _record(records / "20261121T1100Z.json")["quality"]] == [True]
    [told] = mail.none.received
    assert str(told.message["Subject"]).strip() == \
        "[feed-toolkit] FAILED replication of feed clicks 2026-11-21T10:00Z on backup"
    assert NOT_NULL in told.message.get_content()
    failed, completed = ({e["run"]["facets"]["feedToolkit_run"]["instance"]: e for e in valid_events(receiver)
                          if e["eventType"] == kind}[hour] for kind, hour in
                         (("FAIL", "2026-11-21T10:00Z"), ("COMPLETE", "2026-11-21T11:00Z")))
    assert _assertions(failed["outputs"][0]) == [("expect_column_values_to_not_be_null", False, "user"),
                                                 ("expect_table_row_count_to_be_between", True, None)]
    assert [item["success"] for item in
            completed["outputs"][0]["facets"]["dataQualityAssertions"]["assertions"]] == [True, True]


def test_an_instance_failing_a_warn_gate_is_published_recorded_and_told(
        spark, tmp_path: Path, mail: SmtpServers, monkeypatch, capsys) -> None:
    with lineage_receiver() as receiver:
        repo, primary = _repo(tmp_path, "warn", mail, receiver.url)
        source = instance(primary, "data/clicks", T, {"part-00000.json": BAD})
        code, status, out = _entrypoint(monkeypatch, capsys, repo, "--time", "2026-11-21T10:00Z")
    assert code == 0, out
    assert (status["status"], status["instances_published"], status["quality"]) == ("SUCCEEDED", 1, "1/2 passed")
    assert f"replication: published on 'backup' although {NOT_NULL} (its on-failure is warn)." in out.splitlines()
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    assert contents(target) == contents(source)
    [event] = _events(repo, T)
    assert event.producer == "replication:primary"
    record = _record(status["record"])
    [result] = record["quality"]
    assert (record["status"], result["on_failure"], result["success"], result["passed"]) == (
        "SUCCEEDED", "warn", False, 1)
    [told] = mail.none.received
    assert str(told.message["Subject"]).strip() == \
        "[feed-toolkit] QUALITY WARNING replication of feed clicks 2026-11-21T10:00Z on backup"
    body = told.message.get_content()
    assert "status: SUCCEEDED" in body and NOT_NULL in body
    [completed] = [e for e in valid_events(receiver) if e["eventType"] == "COMPLETE"]
    assert _assertions(completed["outputs"][0]) == [("expect_column_values_to_not_be_null", False, "user"),
                                                    ("expect_table_row_count_to_be_between", True, None)]
    assert completed["outputs"][0]["facets"]["dataQualityAssertions"]["assertions"][0]["severity"] == "warn"


def test_a_feed_with_a_gate_is_not_replicated_without_one(tmp_path: Path) -> None:
    """The runner called directly without Spark (no `gate`) refuses the feed rather than skip its gate."""
    from toolkit.core.storage.local import LocalFileSystem
    from toolkit.errors import UsageError

    repo, primary = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text() + f"quality: {{suite: {SUITE}}}\n")
    _suite(repo)
    instance(primary, "data/clicks", T, {"part-00000.json": GOOD})
    with pytest.raises(UsageError, match=rf"^Feed 'clicks' has a data-quality gate \({SUITE}\): its replication "
                                         "checks each instance on the target in Spark before publishing it; run it "
                                         r"through entrypoints/replication\.py\.$"):
        run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                        RunContext(LocalFileSystem()))
    assert not (tmp_path / "backup/replica").exists()


def test_an_exported_partition_without_files_is_an_empty_frame_of_the_exported_columns(spark) -> None:
    """The target table may not exist yet when the first export is checked: its columns come from the export."""
    from chispa import assert_df_equality

    from toolkit.actions.replication.target_gate import _empty_partition
    from toolkit.core.storage.catalog_records import Column, StorageFormat, TableDescription, TableType

    table = TableDescription("db", "sessions", TableType.MANAGED, None,
                             (Column("user", "string"), Column("pages", "decimal(10,2)")), (Column("ds", "string"),),
                             StorageFormat(None, None, None, provider="parquet"))
    assert_df_equality(_empty_partition(spark, table, {"ds": "2026-11-20"}),
                       spark.createDataFrame([], "user string, pages decimal(10,2), ds string"), ignore_nullable=True)
