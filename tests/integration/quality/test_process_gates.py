"""The data-quality gates of process outputs, in the test SparkSession with the real Great Expectations: the
template's hourly summary meets its suite and is published with the results recorded; a summary that breaks a
`block` expectation publishes nothing and is retried; a `warn` one is published and recorded; a table feed's
suite is checked on the staged partition; lineage carries the assertions."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from chispa import assert_df_equality

from tests.integration.openlineage.lineage_setup import lineage_to, valid_events
from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.lineage_receiver import lineage_receiver
from tests.smtp_server import SmtpServers

T = utc(2026, 11, 21, 10)
RECORDS = "feed-toolkit/working/ledger/processes"
SUITE = "quality/clicks-hourly-summary.json"

# The summary of the template's workflow, with one page the click tracker reported without its leading slash,
# and a page counted with more users than clicks: two of the suite's seven expectations fail.
BAD_THEN_GOOD = '''
def run(spark, ctx):
    rows = [("/", 3, 2, 9), ("/cart", 3, 3, 9)]
    if ctx.attempt < 2:
        rows += [("help", 1, 1, 1), ("/faq", 1, 4, 5)]
    schema = "page string, clicks long, users long, clicks_3h long"
    spark.createDataFrame(rows, schema).write.json(ctx.outputs["summary"])
'''


def _summary(root: Path, t=T) -> Path:  # type: ignore[no-untyped-def]
    return root / "data" / "clicks-hourly-summary" / f"{t:%Y/%m/%d/%H}"


def _attempt(root: Path, process: str, attempt: int) -> dict:  # type: ignore[type-arg]
    return json.loads((root / RECORDS / process / "20261121T1000Z" / f"attempt-{attempt:03d}.json").read_text())


def _events(root: Path) -> list[Path]:
    return sorted((root / "feed-toolkit/working/ledger/events/clicks-hourly-summary").glob("*/*.json"))


def _with_workflow(repo: Path, body: str) -> None:
    (repo / "workflows" / "hourly_clicks_summary.py").write_text(body)


def _on_failure(repo: Path, value: str) -> None:
    feed = repo / "feeds" / "clicks-hourly-summary.yaml"
    text = feed.read_text()
    assert "on-failure: block" in text
    feed.write_text(text.replace("on-failure: block", f"on-failure: {value}"))


def test_a_summary_that_meets_its_suite_is_published_with_the_results_recorded(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path, quality=True)
    write_clicks(root, T - timedelta(hours=2), 3)
    result = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=5))).run(T)
    assert (result.status, result.counters()["quality"]) == ("SUCCEEDED", "7/7 passed")
    assert (_summary(root) / "_SUCCESS").exists()
    [gate] = _attempt(root, "hourly-clicks-summary", 1)["quality"]
    assert (gate["feed"], gate["time"], gate["suite"], gate["on_failure"], gate["success"]) == \
        ("clicks-hourly-summary", "2026-11-21T10:00Z", SUITE, "block", True)
    assert gate["location"].startswith(f"file://{root}/data/clicks-hourly-summary/2026/11/21/.10.toolkit-")
    outcomes = {(o["type"], tuple(o["columns"])): o for o in gate["expectations"]}
    assert outcomes[("expect_table_row_count_to_be_between", ())]["observed_value"] == 3  # three pages
    assert outcomes[("expect_column_values_to_not_be_null", ("page",))]["unexpected_count"] == 0
    assert [o["type"] for o in gate["expectations"]][:2] == ["expect_table_row_count_to_be_between",
                                                             "expect_column_values_to_not_be_null"]  # the suite's order


def test_a_block_failure_publishes_nothing_and_the_retry_publishes_the_good_data(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path, quality=True)
    write_clicks(root, T - timedelta(hours=2), 3)
    _with_workflow(repo, BAD_THEN_GOOD)
    clock = TestClock(T + timedelta(minutes=5))
    result = new_runner(spark, repo, "hourly-clicks-summary", clock).run(T)
    assert (result.status, result.attempts, clock.slept) == ("SUCCEEDED", 2, [300.0])  # the periodic retry
    first = _attempt(root, "hourly-clicks-summary", 1)
    assert first["status"] == "FAILED"
    assert "failed 2 of 7 expectations of the quality suite quality/clicks-hourly-summary.json" in first["error"]
    assert "expect_column_values_to_match_regex(page): 1 of 4 unexpected" in first["error"]
    assert "expect_column_pair_values_a_to_be_greater_than_b(clicks, users): 1 of 4 unexpected" in first["error"]
    [gate] = first["quality"]
    assert (gate["success"], gate["passed"], gate["evaluated"]) == (False, 5, 7)
    assert _attempt(root, "hourly-clicks-summary", 2)["quality"][0]["success"] is True
    published = spark.read.json(str(_summary(root)))
    expected = spark.createDataFrame([("/", 3, 2, 9), ("/cart", 3, 3, 9)],
                                     "page string, clicks long, users long, clicks_3h long")
    assert_df_equality(published, expected, ignore_row_order=True, ignore_column_order=True)
    assert len(_events(root)) == 1  # the good version only
    assert sorted(p.name for p in _summary(root).parent.iterdir()) == ["10"]  # no staging left


def _attempts(repo: Path, count: int) -> None:
    process = repo / "processes" / "hourly-clicks-summary.yaml"
    text = process.read_text()
    assert "  attempts: 3\n" in text
    process.write_text(text.replace("  attempts: 3\n", f"  attempts: {count}\n"))


def test_a_summary_that_never_passes_is_never_published(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path, quality=True)
    write_clicks(root, T - timedelta(hours=2), 3)
    _with_workflow(repo, BAD_THEN_GOOD.replace("ctx.attempt < 2", "True"))
    _attempts(repo, 2)
    result = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=5))).run(T)
    assert (result.status, result.attempts) == ("FAILED", 2)
    assert "Nothing was published" in (result.reason or "")
    assert not _summary(root).parent.exists() or list(_summary(root).parent.iterdir()) == []
    assert _events(root) == []
    assert [_attempt(root, "hourly-clicks-summary", k)["quality"][0]["passed"] for k in (1, 2)] == [5, 5]
    instance = json.loads((root / RECORDS / "hourly-clicks-summary/20261121T1000Z/instance.json").read_text())
    assert instance["status"] == "FAILED" and "expect_column_values_to_match_regex(page)" in instance["error"]


def test_a_warn_failure_is_published_recorded_logged_and_told(spark, tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path, quality=True)
    write_clicks(root, T - timedelta(hours=2), 3)
    _with_workflow(repo, BAD_THEN_GOOD.replace("ctx.attempt < 2", "True"))
    _on_failure(repo, "warn")
    feed = repo / "feeds" / "clicks-hourly-summary.yaml"
    feed.write_text(feed.read_text() + "notification: {type: email, to: analysts@example.com}\n")
    cluster = repo / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text() + "".join(
        f'  {key}: "{value}"\n' for key, value in mail.none.properties(mail.ca_file).items()))
    lines: list[str] = []
    runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=5)), log=lines.append)
    result = runner.run(T)
    assert (result.status, result.attempts, result.counters()["quality"]) == ("SUCCEEDED", 1, "5/7 passed")
    assert spark.read.json(str(_summary(root))).count() == 4  # published as written
    [gate] = _attempt(root, "hourly-clicks-summary", 1)["quality"]
    assert (gate["on_failure"], gate["success"]) == ("warn", False)
    assert any(line.startswith("process: published although feed 'clicks-hourly-summary' 2026-11-21T10:00Z "
                               "failed 2 of 7") for line in lines)
    assert len(_events(root)) == 1
    [told] = mail.none.received
    assert told.recipients == ["analysts@example.com"]
    assert told.message["Subject"] == ("[feed-toolkit] QUALITY WARNING process of feed clicks-hourly-summary "
                                       "2026-11-21T10:00Z on primary")
    assert "expect_column_values_to_match_regex(page): 1 of 4 unexpected" in told.message.get_content()


def test_lineage_carries_the_assertions_of_a_blocked_and_a_published_attempt(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path, quality=True)
    write_clicks(root, T - timedelta(hours=2), 3)
    _with_workflow(repo, BAD_THEN_GOOD)
    with lineage_receiver() as receiver:
        runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=5)),
                            lineage=lineage_to(receiver.url, repo))
        assert runner.run(T).status == "SUCCEEDED"
    events = valid_events(receiver)
    [failed] = [e for e in events if e["eventType"] == "FAIL"]
    [complete] = [e for e in events if e["eventType"] == "COMPLETE"]
    [blocked] = failed["outputs"]
    assertions = blocked["facets"]["dataQualityAssertions"]["assertions"]
    assert [(a["assertion"], a.get("column"), a["success"]) for a in assertions if not a["success"]] == [
        ("expect_column_values_to_match_regex", "page", False),
        ("expect_column_pair_values_a_to_be_greater_than_b", None, False)]
    assert {a["severity"] for a in assertions} == {"error"} and {a["name"] for a in assertions} == {SUITE}
    [published] = complete["outputs"]
    assert all(a["success"] for a in published["facets"]["dataQualityAssertions"]["assertions"])
    assert len(published["facets"]["dataQualityAssertions"]["assertions"]) == 7
