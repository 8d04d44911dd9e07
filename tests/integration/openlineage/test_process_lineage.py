"""OpenLineage events of process runs, received by a real HTTP server on loopback and validated against the
specification's schemas: the template's hourly summary in the test SparkSession (START and COMPLETE, naming,
subsets, fingerprints, statistics, the ledger's copy), a failing attempt (FAIL with its error, the instance as
parent of both attempts)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from tests.integration.openlineage.lineage_setup import lineage_to
from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.lineage_receiver import lineage_receiver
from tests.openlineage_schema import validate_event

T = utc(2026, 11, 21, 10)


def test_a_process_instance_emits_start_and_complete_with_its_feed_instances(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    with lineage_receiver() as receiver:
        lineage = lineage_to(receiver.url, repo)
        runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=5)), lineage=lineage)
        assert runner.run(T).status == "SUCCEEDED"
        unsent = lineage.close()
    assert unsent == 0  # the status line's lineage_unsent
    assert [event["eventType"] for event in receiver.events] == ["START", "COMPLETE"]
    for event in receiver.events:
        validate_event(event)
    start, complete = receiver.events
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert complete["job"] == {"namespace": "feed-toolkit.primary", "name": "process.hourly-clicks-summary",
                               "facets": complete["job"]["facets"]}
    assert complete["job"]["facets"]["jobType"]["jobType"] == "PROCESS"
    run_facets = complete["run"]["facets"]
    assert run_facets["nominalTime"]["nominalStartTime"] == "2026-11-21T10:00:00.000Z"
    assert run_facets["nominalTime"]["nominalEndTime"] == "2026-11-21T11:00:00.000Z"
    toolkit_facet = run_facets["feedToolkit_run"]
    assert (toolkit_facet["runId"], toolkit_facet["attempt"], toolkit_facet["instance"], toolkit_facet["status"]) == \
        ("run1", 1, "2026-11-21T10:00Z", "SUCCEEDED")
    assert run_facets["parent"]["run"]["runId"] == toolkit_facet["instanceRunId"]
    [read] = complete["inputs"]
    assert (read["namespace"], read["name"]) == ("file", f"{root}/data/clicks")
    hours = [f"file://{root}/data/clicks/2026/11/21/{h:02d}" for h in (8, 9, 10)]
    assert read["inputFacets"]["subset"]["inputCondition"] == {"type": "location", "locations": hours}
    instances = read["inputFacets"]["feedToolkit_instances"]["instances"]
    record = json.loads((root / "feed-toolkit/working/ledger/processes/hourly-clicks-summary/20261121T1000Z/"
                                 "instance.json").read_text())
    assert [(i["time"], i["fingerprint"]) for i in instances] == \
        [(i["time"], i["fingerprint"]) for i in record["inputs"][0]["instances"]]
    [written] = complete["outputs"]
    summary = root / "data/clicks-hourly-summary/2026/11/21/10"
    assert (written["namespace"], written["name"]) == ("file", f"{root}/data/clicks-hourly-summary")
    files = [p for p in summary.iterdir() if not p.name.startswith(("_", "."))]
    assert written["outputFacets"]["outputStatistics"]["fileCount"] == len(files)
    assert written["outputFacets"]["outputStatistics"]["size"] == sum(p.stat().st_size for p in files)
    [event] = [json.loads(p.read_text()) for p in (root / "feed-toolkit/working/ledger/events/clicks-hourly-summary"
                                                           "/20261121T1000Z").iterdir()]
    assert written["outputFacets"]["feedToolkit_instances"]["instances"] == [
        {"time": "2026-11-21T10:00Z", "location": f"file://{summary}", "fingerprint": event["fingerprint"]}]
    kept = list((root / "feed-toolkit/working/ledger/lineage").rglob("*.json"))
    assert [p.name for p in kept] == [f"{start['run']['runId']}.json"]
    copy = json.loads(kept[0].read_text())
    assert [(e["sent"], e["event"]) for e in copy["events"]] == [(True, without_client_tags(start)),
                                                                  (True, without_client_tags(complete))]


def without_client_tags(event: dict) -> dict:  # type: ignore[type-arg]
    """The event as the toolkit built it: the client adds its version as a run tag when it sends."""
    facets = {key: value for key, value in event["run"]["facets"].items() if key != "tags"}
    return {**event, "run": {**event["run"], "facets": facets}}


def test_a_failed_attempt_emits_fail_and_its_retry_shares_the_instance_parent(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    workflow = repo / "workflows" / "hourly_clicks_summary.py"
    original = workflow.read_text()
    workflow.write_text("def run(spark, ctx):\n    raise ValueError('no clicks today')\n")
    with lineage_receiver() as receiver:
        runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=5)),
                            lineage=lineage_to(receiver.url, repo))
        assert runner.run(T).status == "FAILED"
        workflow.write_text(original)
        retry = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=9)), run_id="run2",
                           lineage=lineage_to(receiver.url, repo, "run2"))
        assert retry.run(T).status == "SUCCEEDED"
    for event in receiver.events:
        validate_event(event)
    failed = receiver.of_type("FAIL")
    assert failed and all("ValueError: no clicks today" in e["run"]["facets"]["errorMessage"]["message"]
                          for e in failed)
    assert all(e["outputs"] == [] for e in failed)
    parents = {e["run"]["facets"]["parent"]["run"]["runId"] for e in receiver.events}
    runs = {e["run"]["runId"] for e in receiver.events}
    assert len(parents) == 1 and len(runs) == len(failed) + 1  # one run per attempt, one parent for the instance
    [complete] = receiver.of_type("COMPLETE")
    assert complete["run"]["facets"]["feedToolkit_run"]["runId"] == "run2"


def test_a_sql_workflow_carries_its_query_and_column_lineage_and_a_table_partition(spark, tmp_path: Path) -> None:
    from tests.integration.process_runner.test_runner import _clicks_daily_table, _hourly_summaries

    repo, root = make_repo(tmp_path)
    _clicks_daily_table(spark, root)
    day = utc(2026, 11, 20)
    _hourly_summaries(root, day, 5)
    with lineage_receiver() as receiver:
        runner = new_runner(spark, repo, "daily-clicks-rollup", TestClock(day + timedelta(days=1)),
                            lineage=lineage_to(receiver.url, repo))
        assert runner.run(day + timedelta(days=1)).status == "SUCCEEDED"
    [start, complete] = receiver.events
    for event in receiver.events:
        validate_event(event)
    source = (repo / "workflows" / "daily_clicks_rollup.sql").read_text()
    assert complete["job"]["facets"]["sql"]["query"] == source
    [read] = complete["inputs"]
    assert len(read["inputFacets"]["subset"]["inputCondition"]["locations"]) == 24
    outputs = {o["name"]: o for o in complete["outputs"]}
    table = outputs["web.clicks_daily"]
    assert table["namespace"] == "hive://127.0.0.1:9083"  # the cluster's registry, as the spec names Hive
    assert table["outputFacets"]["subset"]["outputCondition"] == {"type": "partition", "partitions": [
        {"dimensions": {"ds": "2026-11-20"}, "identifier": "web.clicks_daily/ds=2026-11-20"}]}
    fields = table["facets"]["columnLineage"]["fields"]
    hourly = (read["namespace"], read["name"])
    assert {column: [(f["namespace"], f["name"], f["field"]) for f in value["inputFields"]]
            for column, value in fields.items()} == {
        "page": [(*hourly, "page")], "clicks": [(*hourly, "clicks")],
        "peak_hourly_users": [(*hourly, "users")], "peak_clicks_3h": [(*hourly, "clicks_3h")]}
    assert "columnLineage" not in start["outputs"][0].get("facets", {})  # known once the run succeeded
