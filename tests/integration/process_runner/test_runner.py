"""Process instances run in the test SparkSession through the real engines, the Hadoop file system and the
ledger: outputs checked with chispa, records read back, and the faults of the issue (retries, syntax errors,
nothing written, waiting, timeout, locks, parallel, safemode, a corrupt record)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.process_runner.process_repo import (
    TestClock,
    make_repo,
    new_runner,
    utc,
    write_clicks,
    write_process,
)
from toolkit.actions.process_runner.attempt_facts import AttemptFacts, InstanceFacts
from toolkit.actions.process_runner.run_results import RunOptions
from toolkit.core.ledger.locks import LeaseDetails, LeaseLock
from toolkit.core.ledger.records import CorruptRecordError
from toolkit.errors import BlockedError, SkippedError, UsageError
from toolkit.statuses import Status

T = utc(2026, 11, 21, 10)
LEDGER = "feed-toolkit/working/ledger/processes"


def summary_dir(root: Path, t=T) -> Path:  # type: ignore[no-untyped-def]
    return root / "data" / "clicks-hourly-summary" / f"{t:%Y/%m/%d/%H}"


def read_json(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())


def expected_summary(spark, hour: int):  # type: ignore[no-untyped-def]
    clicks = 2 + hour % 3
    rows = [(page, clicks, min(clicks, 3), 9) for page in ("/", "/cart", "/help")]
    return spark.createDataFrame(rows, "page string, clicks long, users long, clicks_3h long")


def test_hourly_summary_runs_publishes_and_records(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    clock = TestClock(T + timedelta(minutes=5))
    result = new_runner(spark, repo, "hourly-clicks-summary", clock).run(T)
    assert (result.status, result.attempts) == ("SUCCEEDED", 1)
    output = summary_dir(root)
    assert_df_equality(spark.read.json(str(output)), expected_summary(spark, 10), ignore_row_order=True,
                       ignore_column_order=True)
    assert (output / "_SUCCESS").exists()
    assert sorted(p.name for p in output.parent.iterdir()) == ["10"]  # no staging folder left beside it
    folder = root / LEDGER / "hourly-clicks-summary" / "20261121T1000Z"
    record = read_json(folder / "instance.json")
    assert (record["status"], record["attempts"], record["run_id"]) == ("SUCCEEDED", 1, "run1")
    seen = record["inputs"][0]["instances"]
    assert [i["time"] for i in seen] == ["2026-11-21T08:00Z", "2026-11-21T09:00Z", "2026-11-21T10:00Z"]
    assert all(i["available"] and len(i["fingerprint"]["digest"]) == 64 for i in seen)
    attempt = read_json(folder / "attempt-001.json")
    assert (attempt["status"], attempt["kind"], attempt["outputs"][0]["path"]) == \
        ("SUCCEEDED", "RUN", f"file://{output}")
    [event] = events_of(root)
    assert (event["feed"], event["time"], event["producer"], event["kind"], event["run_id"], event["location"]) == \
        ("clicks-hourly-summary", "2026-11-21T10:00Z", "process:hourly-clicks-summary", "published", "run1",
         f"file://{output}")
    assert event["fingerprint"]["files"] == len([p for p in output.iterdir() if not p.name.startswith(("_", "."))])
    assert not (folder / "lock.0").read_text().count('"HELD"')  # released


def events_of(root: Path, feed: str = "clicks-hourly-summary", key: str = "20261121T1000Z") -> list[dict]:
    folder = root / "feed-toolkit/working/ledger/events" / feed / key
    return [read_json(p) for p in sorted(folder.glob("*.json"))]


def test_succeeded_instance_is_skipped_unless_forced(spark, tmp_path: Path, monkeypatch) -> None:
    """Also: a run killed after its success record but before its event (or its journal entry) has it written by
    the next call (which skips the instance), and a forced rerun records `replaced`."""
    from toolkit.core.ledger.store import Ledger

    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    clock = TestClock(T)
    real = Ledger.record_publication

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed between the success record and the event")

    monkeypatch.setattr(Ledger, "record_publication", killed)
    with pytest.raises(KeyboardInterrupt):
        new_runner(spark, repo, "hourly-clicks-summary", clock).run(T)
    monkeypatch.setattr(Ledger, "record_publication", real)
    assert read_json(root / LEDGER / "hourly-clicks-summary/20261121T1000Z/instance.json")["status"] == "SUCCEEDED"
    assert events_of(root) == []
    again = new_runner(spark, repo, "hourly-clicks-summary", clock, run_id="run2").run(T)
    assert again.status == "SKIPPED" and "--force" in (again.reason or "")
    assert [(e["kind"], e["run_id"]) for e in events_of(root)] == [("published", "run1")]
    assert new_runner(spark, repo, "hourly-clicks-summary", clock, run_id="run4").run(T).status == "SKIPPED"
    assert len(events_of(root)) == 1  # written once
    # killed between the event file and its journal entry: the next call (skipping) writes the entry
    [entry] = (root / "feed-toolkit/working/ledger/journal").rglob("*~*")
    entry.unlink()
    assert new_runner(spark, repo, "hourly-clicks-summary", clock, run_id="run5").run(T).status == "SKIPPED"
    assert entry.exists() and entry.name.startswith(events_of(root)[0]["event_id"] + "~clicks-hourly-summary~")
    assert (root / "feed-toolkit/working/ledger/journal-late" / entry.name).exists()
    # --force-if-started-before (the data-trigger sweep's): a success that started at or after the instant is kept
    started = datetime.strptime(read_json(root / LEDGER / "hourly-clicks-summary/20261121T1000Z/instance.json")
                                ["started"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    kept = new_runner(spark, repo, "hourly-clicks-summary", clock,
                      RunOptions(force_if_started_before=started), run_id="run6").run(T)
    assert kept.status == "SKIPPED" and len(events_of(root)) == 1
    forced = new_runner(spark, repo, "hourly-clicks-summary", clock,
                        RunOptions(force_if_started_before=started + timedelta(seconds=1)), run_id="run3").run(T)
    assert forced.status == "SUCCEEDED"
    assert [(e["kind"], e["run_id"]) for e in events_of(root)] == [("published", "run1"), ("replaced", "run3")]
    assert events_of(root)[0]["fingerprint"] != events_of(root)[1]["fingerprint"]
    record = read_json(root / LEDGER / "hourly-clicks-summary/20261121T1000Z/instance.json")
    assert (record["attempts"], record["run_id"]) == (2, "run3")


def _clicks_daily_table(spark, root: Path) -> None:  # type: ignore[no-untyped-def]
    """web.clicks_daily in the test session's catalog, external under this test's cluster root."""
    spark.sql("CREATE DATABASE IF NOT EXISTS web")
    spark.sql("DROP TABLE IF EXISTS web.clicks_daily")
    spark.sql("CREATE EXTERNAL TABLE web.clicks_daily (page STRING, clicks BIGINT, peak_hourly_users BIGINT, "
              "peak_clicks_3h BIGINT, hours_with_clicks BIGINT) PARTITIONED BY (ds STRING) STORED AS PARQUET "
              f"LOCATION 'file://{root}/warehouse/web.db/clicks_daily'")


def test_daily_rollup_publishes_a_file_and_a_table_partition(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    _clicks_daily_table(spark, root)
    day = utc(2026, 11, 20)
    for h in range(24):
        folder = root / "data/clicks-hourly-summary" / f"{day + timedelta(hours=h):%Y/%m/%d/%H}"
        folder.mkdir(parents=True)
        rows = [{"page": "/", "clicks": h, "users": h % 5, "clicks_3h": 3 * h}, {"page": "/cart", "clicks": 0,
                                                                                "users": 0, "clicks_3h": 0}]
        (folder / "part-0.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
        (folder / "_SUCCESS").write_text("")
    result = new_runner(spark, repo, "daily-clicks-rollup", TestClock(day + timedelta(days=1))).run(
        day + timedelta(days=1))
    assert result.status == "SUCCEEDED", result.reason
    daily = spark.read.json(str(root / "data/clicks-daily/2026/11/20"))
    expected = spark.createDataFrame([("/", sum(range(24)), 4, 69, 23)],
                                     "page string, clicks long, peak_hourly_users long, peak_clicks_3h long, "
                                     "hours_with_clicks long")
    assert_df_equality(daily, expected, ignore_column_order=True)
    table = spark.sql("SELECT page, clicks, peak_hourly_users, peak_clicks_3h, hours_with_clicks "
                      "FROM web.clicks_daily WHERE ds = '2026-11-20'")
    assert_df_equality(table, expected, ignore_nullable=True)
    assert [r[0] for r in spark.sql("SHOW TABLES IN web LIKE 'clicks_daily*'").select("tableName").collect()] == \
        ["clicks_daily"]  # the staging table is gone
    assert sorted(p.name for p in (root / "warehouse/web.db/clicks_daily").iterdir()) == ["ds=2026-11-20"]
    rerun = new_runner(spark, repo, "daily-clicks-rollup", TestClock(day + timedelta(days=1)),
                       RunOptions(force=True), run_id="run2").run(day + timedelta(days=1))
    assert rerun.status == "SUCCEEDED"
    assert_df_equality(spark.sql("SELECT page, clicks, peak_hourly_users, peak_clicks_3h, hours_with_clicks "
                                 "FROM web.clicks_daily WHERE ds = '2026-11-20'"), expected, ignore_nullable=True)
    versions = root / "warehouse/web.db/clicks_daily/.toolkit-partitions"
    assert [p.name for p in versions.iterdir()] == ["run2-2-daily-table"]  # the replaced version is gone
    assert not (root / "warehouse/web.db/clicks_daily/ds=2026-11-20").exists()


def _hourly_summaries(root: Path, day, clicks: int) -> None:  # type: ignore[no-untyped-def]
    for h in range(24):
        folder = root / "data/clicks-hourly-summary" / f"{day + timedelta(hours=h):%Y/%m/%d/%H}"
        folder.mkdir(parents=True, exist_ok=True)
        row = {"page": "/", "clicks": clicks, "users": 1, "clicks_3h": clicks}
        (folder / "part-0.json").write_text(json.dumps(row) + "\n")
        (folder / "_SUCCESS").write_text("")


def test_a_storage_error_between_two_outputs_publishes_neither(spark, tmp_path: Path) -> None:
    """The rollup's file output is swapped into place, then moving its table output's files fails (a wrapper
    around the real Hadoop file system fails that rename): the file output is rolled back to the version of
    the run before, so both outputs still say the same."""
    from toolkit.core.storage.filesystem import StorageError
    from toolkit.core.storage.hadoop import HadoopFileSystem

    class FailingTableRename(HadoopFileSystem):
        def rename(self, source: str, target: str) -> None:
            if "/.toolkit-staging-" in source:  # the staging table's partition, on its way to the feed's table
                raise StorageError(f"Cannot rename {source} to {target}: injected failure.")
            super().rename(source, target)

    repo, root = make_repo(tmp_path)
    _clicks_daily_table(spark, root)
    day, t = utc(2026, 11, 20), utc(2026, 11, 21)
    _hourly_summaries(root, day, clicks=1)
    assert new_runner(spark, repo, "daily-clicks-rollup", TestClock(t)).run(t).status == "SUCCEEDED"
    daily = root / "data/clicks-daily/2026/11/20"
    first = {p.name: p.read_bytes() for p in daily.iterdir()}
    _hourly_summaries(root, day, clicks=5)  # a late correction: the rerun's outputs differ

    rerun = new_runner(spark, repo, "daily-clicks-rollup", TestClock(t), RunOptions(force=True), run_id="run2",
                       fs=FailingTableRename(spark)).run(t)

    assert rerun.status == "FAILED" and "injected failure" in (rerun.reason or "")
    assert {p.name: p.read_bytes() for p in daily.iterdir()} == first  # the first run's version, flag and all
    assert sorted(p.name for p in daily.parent.iterdir()) == ["20"]  # nothing moved aside or staged is left
    assert [tuple(r) for r in spark.read.json(str(daily)).select("page", "clicks").collect()] == [("/", 24)]
    assert [tuple(r) for r in spark.sql("SELECT page, clicks FROM web.clicks_daily WHERE ds = '2026-11-20'")
            .collect()] == [("/", 24)]


def _failing_process(repo: Path, name: str, body: str, retry: str = "") -> str:
    (repo / "workflows" / f"{name}.py").write_text(body)
    replacements = {"path: workflows/hourly_clicks_summary.py": f"path: workflows/{name}.py"}
    if retry:
        replacements["  policy: periodic\n  delay: minutes(5)\n  attempts: 3"] = retry
    return write_process(repo, name, replacements)


FAIL_FIRST = '''
def run(spark, ctx):
    if ctx.attempt < 2:
        raise RuntimeError("the source database was busy")
    spark.createDataFrame([(ctx.attempt,)], "attempt int").write.json(ctx.outputs["summary"])
'''


def test_a_failed_attempt_is_retried_after_the_policy_delay(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _failing_process(repo, "flaky", FAIL_FIRST)
    clock = TestClock(T)
    result = new_runner(spark, repo, name, clock).run(T)
    assert (result.status, result.attempts, clock.slept) == ("SUCCEEDED", 2, [300.0])
    folder = root / LEDGER / name / "20261121T1000Z"
    first, second = read_json(folder / "attempt-001.json"), read_json(folder / "attempt-002.json")
    assert first["status"] == "FAILED" and "RuntimeError: the source database was busy" in first["error"]
    assert "(line 4)" in first["error"]
    assert second["status"] == "SUCCEEDED"
    assert [row.attempt for row in spark.read.json(str(summary_dir(root))).collect()] == [2]


def test_attempts_exhausted_fail_and_publish_nothing(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    body = ('def run(spark, ctx):\n    spark.range(3).write.json(ctx.outputs["summary"])\n'
            '    raise ValueError("bad row")\n')
    name = _failing_process(repo, "broken", body, "  policy: exp-backoff\n  delay: minutes(10)\n  attempts: 3")
    clock = TestClock(T)
    result = new_runner(spark, repo, name, clock).run(T)
    assert (result.status, result.attempts, clock.slept) == ("FAILED", 3, [600.0, 1200.0])
    assert "ValueError: bad row" in (result.reason or "")
    assert not summary_dir(root).parent.exists() or list(summary_dir(root).parent.iterdir()) == []
    folder = root / LEDGER / name / "20261121T1000Z"
    assert [read_json(folder / f"attempt-00{k}.json")["status"] for k in (1, 2, 3)] == ["FAILED"] * 3
    assert read_json(folder / "instance.json")["status"] == "FAILED"


def test_final_policy_retries_once_at_once(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _failing_process(repo, "last-try", FAIL_FIRST, "  policy: final\n  delay: minutes(5)\n  attempts: 3")
    clock = TestClock(T)
    assert (new_runner(spark, repo, name, clock).run(T).attempts, clock.slept) == (2, [])


def test_a_sql_syntax_error_fails_the_attempts(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    (repo / "workflows" / "broken.sql").write_text("-- a typo\nSELEC page FROM json.`${clicks}`;\n")
    name = write_process(repo, "broken-sql", {"engine: pyspark": "engine: spark-sql",
                                              "path: workflows/hourly_clicks_summary.py": "path: workflows/broken.sql",
                                              "attempts: 3": "attempts: 1"})
    write_clicks(root, T - timedelta(hours=2), 3)
    result = new_runner(spark, repo, name, TestClock(T)).run(T)
    assert result.status == "FAILED"
    assert "Statement 1 of the workflow workflows/broken.sql failed" in (result.reason or "")


def test_a_workflow_that_writes_nothing_fails(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _failing_process(repo, "idle", "def run(spark, ctx):\n    pass\n",
                            "  policy: periodic\n  delay: minutes(5)\n  attempts: 1")
    result = new_runner(spark, repo, name, TestClock(T)).run(T)
    assert result.status == "FAILED"
    assert "wrote nothing to output 'summary'" in (result.reason or "")


def test_a_missing_workflow_file_is_a_usage_error_before_anything(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    name = write_process(repo, "lost", {"path: workflows/hourly_clicks_summary.py": "path: workflows/nowhere.py"})
    with pytest.raises(UsageError, match="workflows/nowhere.py, does not exist"):
        new_runner(spark, repo, name, TestClock(T))
    assert not (root / "feed-toolkit").exists()


def test_waits_until_the_last_input_arrives(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)
    late = write_clicks(root, T, 1, flag=False)[0]

    def arrive(clock: TestClock) -> None:
        if len(clock.slept) == 2:
            (late / "_SUCCESS").write_text("")

    clock = TestClock(T + timedelta(minutes=1), on_sleep=arrive)
    result = new_runner(spark, repo, "hourly-clicks-summary", clock).run(T)
    assert (result.status, clock.slept) == ("SUCCEEDED", [10.0, 20.0])
    assert result.wait_seconds == 30.0


def test_a_waiting_run_says_once_what_it_waits_for_and_until_when(spark, tmp_path: Path) -> None:
    """A run started by cron whose input is late said nothing while it waited (its log stayed silent for hours):
    it says once what it waits for, and until when, and again only when what it lacks changes."""
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 1)
    hours = write_clicks(root, T - timedelta(hours=1), 2, flag=False)

    def arrive(clock: TestClock) -> None:
        if len(clock.slept) == 3:
            (hours[0] / "_SUCCESS").write_text("")
        if len(clock.slept) == 5:
            (hours[1] / "_SUCCESS").write_text("")

    said: list[str] = []
    clock = TestClock(T + timedelta(minutes=1), on_sleep=arrive)
    runner = new_runner(spark, repo, "hourly-clicks-summary", clock, log=said.append)
    assert runner.run(T).status == "SUCCEEDED" and len(clock.slept) == 5
    waits = [line for line in said if "waiting for" in line]
    head = ("process: hourly-clicks-summary 2026-11-21T10:00Z: waiting for {} input instance(s) until "
            "2026-11-21T14:00Z (its timeout), checking every 10 s to 5 min: ")
    hour = "clicks 2026-11-21T{0}:00Z (" + (root / "data/clicks/2026/11/21").as_uri() + "/{0})"
    assert waits == [head.format(2) + hour.format("09") + "; " + hour.format("10"),
                     head.format(1) + hour.format("10")], said


def test_no_wait_reports_the_missing_instances(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)
    result = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T), RunOptions(wait=False)).run(T)
    assert result.status == "WAITING"
    assert result.missing == [f"clicks 2026-11-21T10:00Z (file://{root}/data/clicks/2026/11/21/10)"]
    record = read_json(root / LEDGER / "hourly-clicks-summary/20261121T1000Z/instance.json")
    assert (record["status"], record["missing"]) == ("WAITING", result.missing)


def test_no_wait_past_the_timeout_records_nothing_terminal_and_says_how_to_try_a_past_instance(
        spark, tmp_path: Path) -> None:
    """Issue 34: `--no-wait` on a past instance recorded a permanent TIMEDOUT (exit 1) where the README promises
    exit 3 while inputs are missing; someone trying the tool on historical dates had no hint of --now."""
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)
    result = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(days=30)),
                        RunOptions(wait=False)).run(T)
    assert result.status == "WAITING"
    assert result.reason == (
        "waiting for 1 input instance(s), and its timeout passed at 2026-11-21T14:00Z: a --no-wait call records "
        f"no timeout (give --now with a time before 2026-11-21T14:00Z to try a past instance): clicks "
        f"2026-11-21T10:00Z (file://{root}/data/clicks/2026/11/21/10)")
    folder = root / LEDGER / "hourly-clicks-summary/20261121T1000Z"
    assert read_json(folder / "instance.json")["status"] == "WAITING"
    assert not (folder / "attempt-001.json").exists()  # no attempt: nothing ran, nothing timed out


def test_past_the_timeout_the_instance_times_out(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)
    result = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(hours=4))).run(T)
    assert result.status == "TIMEDOUT"
    assert "timed out at 2026-11-21T14:00Z" in (result.reason or "")
    folder = root / LEDGER / "hourly-clicks-summary/20261121T1000Z"
    assert read_json(folder / "attempt-001.json")["status"] == "TIMEDOUT"
    assert read_json(folder / "instance.json")["status"] == "TIMEDOUT"


def test_on_timeout_retries_the_wait(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)
    name = write_process(repo, "patient", {"attempts: 3": "attempts: 3\n  onTimeout: true"})
    late = write_clicks(root, T, 1, flag=False)[0]
    clock = TestClock(T + timedelta(hours=5), on_sleep=lambda c: (late / "_SUCCESS").write_text(""))
    result = new_runner(spark, repo, name, clock).run(T)
    assert (result.status, result.attempts, clock.slept) == ("SUCCEEDED", 2, [300.0])
    folder = root / LEDGER / name / "20261121T1000Z"
    assert [read_json(folder / f"attempt-00{k}.json")["status"] for k in (1, 2)] == ["TIMEDOUT", "SUCCEEDED"]


def _optional_process(repo: Path, name: str, start: str, end: str, optional: bool) -> str:
    (repo / "workflows" / "show_inputs.py").write_text(
        "def run(spark, ctx):\n"
        "    rows = [(name, ','.join(paths)) for name, paths in sorted(ctx.inputs.items())]\n"
        "    spark.createDataFrame(rows, 'name string, paths string').write.json(ctx.outputs['summary'])\n")
    extra = (f"  - name: extra\n    feed: clicks\n    start: {start}\n    end: {end}\n"
             + ("    optional: true\n" if optional else ""))
    return write_process(repo, name, {"path: workflows/hourly_clicks_summary.py": "path: workflows/show_inputs.py",
                                      "    end: now(0,0)\noutputs:": f"    end: now(0,0)\n{extra}outputs:"})


def test_a_missing_optional_input_is_left_out(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _optional_process(repo, "optional", "now(-5,0)", "now(-4,0)", optional=True)
    result = new_runner(spark, repo, name, TestClock(T)).run(T)
    assert result.status == "SUCCEEDED", result.reason
    assert [r.name for r in spark.read.json(str(summary_dir(root))).collect()] == ["clicks"]


def test_latest_picks_the_newest_instance_that_exists(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    write_clicks(root, T - timedelta(days=3), 1)  # an old one, further back than the latest
    name = _optional_process(repo, "latest", "latest(0)", "latest(0)", optional=False)
    for hour in (T - timedelta(hours=1), T):  # only 08:00 is left of the three
        (root / "data/clicks" / f"{hour:%Y/%m/%d/%H}" / "_SUCCESS").unlink()
    result = new_runner(spark, repo, name, TestClock(T), RunOptions(wait=False)).run(T)
    assert result.status == "WAITING"  # `clicks` misses 09:00 and 10:00; `extra` resolved to 08:00
    plan = new_runner(spark, repo, name, TestClock(T)).plan(T)
    extra = next(item for item in plan.inputs if item.name == "extra")
    assert [s.location for s in extra.checked_states] == [f"file://{root}/data/clicks/2026/11/21/08"]


def test_safemode_blocks_and_suspension_skips_before_anything(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T))
    runner.ledger.control.set_safemode(True, "2026-11-21T09:00:00Z", "ops@host", "upgrade")
    with pytest.raises(BlockedError, match="safemode") as blocked:
        runner.run(T)
    assert blocked.value.exit_code == 5
    runner.ledger.control.set_safemode(False, "", "")
    runner.ledger.control.set_suspended("process", "hourly-clicks-summary", True, "2026-11-21T09:00:00Z", "ops")
    with pytest.raises(SkippedError, match="suspended") as skipped:
        runner.run(T)
    assert skipped.value.exit_code == 4
    assert not (root / LEDGER).exists() and not summary_dir(root).exists()


def test_a_live_lock_blocks_and_an_expired_one_is_taken_over(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T), run_id="mine")
    folder = runner.ledger.layout.instance_folder("hourly-clicks-summary", T)
    LeaseLock(runner.fs, folder, "lock", 60).try_acquire("other")
    with pytest.raises(BlockedError, match="being run by run other"):
        runner.run(T)
    # The other run is killed: its records say RUNNING, its lease ran out an hour ago.
    for name in ("lock.0",):
        (root / LEDGER / "hourly-clicks-summary/20261121T1000Z" / name).unlink()
    LeaseLock(runner.fs, folder, "lock", 60, clock=lambda: time.time() - 3600).try_acquire("dead")
    dead = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T), run_id="dead")
    dead.records.attempt(T, dead.plan(T), AttemptFacts(1, Status.RUNNING, T))
    dead.records.instance(T, InstanceFacts(Status.RUNNING, 1, started=T))
    assert runner.run(T).status == "SUCCEEDED"
    records = root / LEDGER / "hourly-clicks-summary/20261121T1000Z"
    killed = read_json(records / "attempt-001.json")
    assert (killed["status"], killed["run_id"]) == ("KILLED", "dead")
    assert read_json(records / "attempt-002.json")["status"] == "SUCCEEDED"


def test_parallel_slots_full_block_another_instance(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T))
    for k, other in enumerate(("07:00", "08:00")):
        assert runner.ledger.take_slot("hourly-clicks-summary", 2, f"other{k}", LeaseDetails(time=other))[0] is not None
    with pytest.raises(BlockedError, match=r"already runs 2 instance\(s\).*07:00, 08:00"):
        runner.run(T)
    assert not summary_dir(root).exists()


def test_a_corrupt_record_is_named_and_the_run_refuses(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    record = root / LEDGER / "hourly-clicks-summary/20261121T1000Z/instance.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"status": "SUCCEE')
    with pytest.raises(CorruptRecordError, match=str(record)):
        new_runner(spark, repo, "hourly-clicks-summary", TestClock(T)).run(T)
    assert not summary_dir(root).exists()


def test_an_attempt_that_misses_one_of_two_outputs_publishes_neither(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    body = 'def run(spark, ctx):\n    spark.range(1).write.json(ctx.outputs["summary"])\n'
    name = _failing_process(repo, "half", body, "  policy: periodic\n  delay: minutes(5)\n  attempts: 1")
    text = (repo / "processes" / f"{name}.yaml").read_text().replace(
        "    instance: now(0,0)\n", "    instance: now(0,0)\n  - name: copy\n    feed: clicks-daily\n"
                                   "    instance: today(0,0)\n", 1)
    (repo / "processes" / f"{name}.yaml").write_text(text)
    result = new_runner(spark, repo, name, TestClock(T)).run(T)
    assert result.status == "FAILED" and "wrote nothing to output 'copy'" in (result.reason or "")
    assert not summary_dir(root).exists()
    assert list(summary_dir(root).parent.iterdir()) == []  # its staging was discarded too


def test_sys_exit_in_a_workflow_is_a_failed_attempt(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _failing_process(repo, "quitter", "import sys\n\ndef run(spark, ctx):\n    sys.exit(0)\n",
                            "  policy: periodic\n  delay: minutes(5)\n  attempts: 1")
    result = new_runner(spark, repo, name, TestClock(T)).run(T)
    assert result.status == "FAILED" and "called sys.exit(0)" in (result.reason or "")


def test_a_property_that_is_no_valid_el_fails_the_instance_without_leaving_it_running(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = write_process(repo, "bad-property", {"timezone: UTC": "timezone: UTC\nproperties:\n  day: ${now(1)}"})
    with pytest.raises(UsageError, match="The property 'day' of process 'bad-property'"):
        new_runner(spark, repo, name, TestClock(T)).run(T)
    folder = root / LEDGER / name / "20261121T1000Z"
    assert read_json(folder / "attempt-001.json")["status"] == "FAILED"
    assert read_json(folder / "instance.json")["status"] == "FAILED"
    assert '"RELEASED"' in (folder / "lock.0").read_text()
    assert not summary_dir(root).parent.exists() or list(summary_dir(root).parent.iterdir()) == []


def test_a_forced_rerun_with_an_input_gone_keeps_the_success(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    folders = write_clicks(root, T - timedelta(hours=2), 3)
    assert new_runner(spark, repo, "hourly-clicks-summary", TestClock(T)).run(T).status == "SUCCEEDED"
    (folders[0] / "_SUCCESS").unlink()
    rerun = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T), RunOptions(force=True, wait=False),
                       run_id="run2").run(T)
    assert rerun.status == "WAITING" and "its record stays SUCCEEDED" in (rerun.reason or "")
    record = read_json(root / LEDGER / "hourly-clicks-summary/20261121T1000Z/instance.json")
    assert (record["status"], record["run_id"]) == ("SUCCEEDED", "run1")
    assert (summary_dir(root) / "_SUCCESS").exists()


def test_a_latest_window_without_any_instance_waits(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _optional_process(repo, "latest-none", "latest(0)", "latest(0)", optional=False)
    for folder in (root / "data/clicks/2026/11/21").iterdir():
        (folder / "_SUCCESS").unlink()
    result = new_runner(spark, repo, name, TestClock(T), RunOptions(wait=False)).run(T)
    assert result.status == "WAITING"
    assert any("latest(0)..latest(0): not enough instances exist" in text for text in result.missing)


def test_last_only_runs_the_newest_instance_of_the_window_only(spark, tmp_path: Path) -> None:
    from toolkit.actions.process_runner.process_entry import _run_window
    from toolkit.core.entities.model import Order

    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=4), 5)
    runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T))
    times = [T - timedelta(hours=2), T - timedelta(hours=1), T]
    assert [(r.time, r.status) for r in _run_window(runner, times, Order.LAST_ONLY)] == [(T, "SUCCEEDED")]
    assert _run_window(runner, times, Order.LAST_ONLY) == []  # the newest succeeded: nothing to do
    assert not summary_dir(root, T - timedelta(hours=1)).exists()


VISITS_WORKFLOW = '''
def run(spark, ctx):
    visits = ctx.inputs["visits"]
    assert ctx.properties["falcon_input_table"] == visits.table
    rows = spark.table(f"{visits.database}.{visits.table}").where(ctx.properties["falcon_input_partition_filter_hive"])
    rows.groupBy("ds").count().write.json(ctx.outputs["daily"])
'''


def test_a_table_input_is_given_as_table_and_partition_filter(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    feed = repo / "feeds" / "visits.yaml"
    feed.write_text(feed.read_text().replace("catalog:web:visits#", "catalog:web:visits_runner#"))
    spark.sql("CREATE DATABASE IF NOT EXISTS web")
    spark.sql("DROP TABLE IF EXISTS web.visits_runner")
    spark.sql("CREATE EXTERNAL TABLE web.visits_runner (user STRING) PARTITIONED BY (ds STRING) STORED AS PARQUET "
              f"LOCATION 'file://{root}/warehouse/web.db/visits_runner'")
    for day, users in (("2026-11-19", 2), ("2026-11-20", 3), ("2026-11-21", 5)):
        spark.createDataFrame([(f"u{k}", day) for k in range(users)], "user string, ds string") \
            .write.insertInto("web.visits_runner")
    (repo / "workflows" / "visits.py").write_text(VISITS_WORKFLOW)
    name = write_process(repo, "visits-per-day", {
        "  - name: hourly\n    feed: clicks-hourly-summary\n    start: yesterday(0,0)\n    end: yesterday(23,0)":
            "  - name: visits\n    feed: visits\n    start: yesterday(0,0)\n    end: today(0,0)",
        "engine: spark-sql": "engine: pyspark", "path: workflows/daily_clicks_rollup.sql": "path: workflows/visits.py",
        "  - name: daily-table\n    feed: clicks-daily-table\n    instance: yesterday(0,0)\n": ""},
        base="daily-clicks-rollup")
    t = utc(2026, 11, 21)
    runner = new_runner(spark, repo, name, TestClock(t))
    result = runner.run(t)
    assert result.status == "SUCCEEDED", result.reason
    counts = spark.read.json(str(root / "data/clicks-daily/2026/11/20"))
    assert_df_equality(counts, spark.createDataFrame([("2026-11-20", 3), ("2026-11-21", 5)], "ds string, count long"),
                       ignore_row_order=True, ignore_column_order=True)
    seen = read_json(root / LEDGER / name / "20261121T0000Z/instance.json")["inputs"][0]["instances"]
    assert [(i["time"], i["location"], i["fingerprint"]["files"] >= 1) for i in seen] == [
        ("2026-11-20T00:00Z", "web.visits_runner (ds=2026-11-20)", True),
        ("2026-11-21T00:00Z", "web.visits_runner (ds=2026-11-21)", True)]
    ctx = runner.publishing.context(t, 1, runner.plan(t), {"daily": "x"})
    assert ctx.properties["falcon_input_partition_filter_pig"] == "(ds=='2026-11-20') or (ds=='2026-11-21')"
    assert ctx.properties["falcon_input_partition_filter_java"] == '(ds="2026-11-20") or (ds="2026-11-21")'


def test_the_hive_engine_runs_hiveql_with_falcon_names_into_a_table(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    _clicks_daily_table(spark, root)
    (repo / "workflows" / "daily.hql").write_text(
        "INSERT OVERWRITE TABLE ${falcon_output_database}.${falcon_output_table}\n"
        "PARTITION (${falcon_output_dataout_partitions})\n"
        "SELECT page, SUM(clicks), MAX(users), MAX(clicks_3h), COUNT(*) FROM json.`${hourly}` GROUP BY page;\n"
        "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT '${nominalTime}' AS nominal;\n")
    name = write_process(repo, "daily-hive", {"engine: spark-sql": "engine: hive",
                                              "path: workflows/daily_clicks_rollup.sql": "path: workflows/daily.hql"},
                         base="daily-clicks-rollup")
    day = utc(2026, 11, 20)
    for h in range(24):
        folder = root / "data/clicks-hourly-summary" / f"{day + timedelta(hours=h):%Y/%m/%d/%H}"
        folder.mkdir(parents=True)
        (folder / "part-0.json").write_text(json.dumps({"page": "/", "clicks": 2, "users": 1, "clicks_3h": 6}) + "\n")
        (folder / "_SUCCESS").write_text("")
    result = new_runner(spark, repo, name, TestClock(day + timedelta(days=1))).run(day + timedelta(days=1))
    assert result.status == "SUCCEEDED", result.reason
    assert_df_equality(spark.sql("SELECT page, clicks, peak_hourly_users, peak_clicks_3h, hours_with_clicks FROM "
                                 "web.clicks_daily WHERE ds = '2026-11-20'"),
                       spark.createDataFrame([("/", 48, 1, 6, 24)], "page string, clicks long, peak_hourly_users "
                                             "long, peak_clicks_3h long, hours_with_clicks long"),
                       ignore_nullable=True)
    assert [r.nominal for r in spark.read.json(str(root / "data/clicks-daily/2026/11/20")).collect()] == \
        ["2026-11-21-00-00"]
