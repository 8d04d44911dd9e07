"""`toolkit trigger --notify airflow` killed with SIGKILL in the middle of posting a backlog of ledger events to a
real Airflow 3.3 (tests/airflow_server.py), then called again: every event is in Airflow exactly once in each form
its DAGs need (none posted twice, none lost), and the ledger records each delivered with Airflow's own event ids.

The points: after a form's claim and before its POST (the rerun finds nothing in Airflow and posts it), after a
POST and before its record (the rerun finds it in Airflow by the event id in its `extra` and records it), and
after every form of an event is recorded but before the event is done (the rerun posts nothing of it). Each
event has two forms (a partitioned and a plain DAG are scheduled on the asset; both are paused, so that no DAG
run holds Airflow's listing of asset events back, apache/airflow#71360).

The killed call is a real separate process running the real command; the harness there sends itself SIGKILL at
the chosen call (the code under test is not changed) and gives its ledger leases 2 s, so that the rerun takes the
notifier's lease over without waiting a minute."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.airflow_server import AirflowServer
from tests.integration.airflow.test_airflow_events import Setup, counts
from toolkit.core.ledger.records import DatasetEvent, record_document
from toolkit.orchestration.schedule.airflow_events.deliveries import Deliveries

PROJECT = Path(__file__).resolve().parents[3]
TIMES = [datetime(2026, 1, 1, h, tzinfo=timezone.utc) for h in (10, 11, 12, 13)]
DAGS = '''
clicks_{prefix} = Asset(name="{name}", uri="{uri}")
with DAG("{prefix}_on_clicks", schedule=[clicks_{prefix}], is_paused_upon_creation=True):
    EmptyOperator(task_id="noop")
with DAG("{prefix}_daily", is_paused_upon_creation=True,
         schedule=PartitionedAssetTimetable(assets=clicks_{prefix}, default_partition_mapper=StartOfDayMapper())):
    EmptyOperator(task_id="noop")
'''
KILLED_CALL = """
import os, signal, sys
sys.path.insert(0, {project!r})
from toolkit.core.ledger import store
from toolkit.orchestration.schedule.airflow_events import client, deliveries

of = store.Ledger.of.__func__
store.Ledger.of = classmethod(lambda cls, fs, cluster, **options: of(cls, fs, cluster,
                                                                     **{{"lease_seconds": 2.0, **options}}))

from tests.kill_points import dies_at

point = {point!r}
if point == "after a claim, before its POST":
    dies_at(client.AirflowClient, "post_event", 3, after=False)  # the second event's first form
elif point == "after a POST, before its record":
    dies_at(client.AirflowClient, "post_event", 3, after=True)
elif point == "after an event's forms, before it is done":
    dies_at(deliveries.Deliveries, "write_done", 2, after=False)  # the second event
from toolkit.cli.main import main
sys.exit(main({argv!r}))
"""
# point: (asset events in Airflow after the kill, the second event's partitioned form claimed but not recorded)
POINTS = {"after a claim, before its POST": (2, True), "after a POST, before its record": (3, True),
          "after an event's forms, before it is done": (4, False)}


@pytest.fixture(scope="module")
def setups(airflow: AirflowServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Setup]:
    """A config repo and a feed per point, their assets' DAGs declared in one file and parsed by Airflow once."""
    made = {point: Setup(tmp_path_factory.mktemp(f"killed{k}"), airflow) for k, point in enumerate(POINTS)}
    text = ("from airflow.providers.standard.operators.empty import EmptyOperator\n"
            "from airflow.sdk import DAG, Asset, PartitionedAssetTimetable, StartOfDayMapper\n")
    for setup in made.values():
        text += DAGS.format(prefix=setup.prefix, name=setup.asset.name, uri=setup.asset.uri)
    first = next(iter(made.values()))
    airflow.write_dag(f"{first.prefix}_killed", text)
    for setup in made.values():
        for dag, partitioned in ((f"{setup.prefix}_on_clicks", False), (f"{setup.prefix}_daily", True)):
            found = airflow.wait_for_dag(dag)
            assert (found["timetable_partitioned"], found["is_paused"]) == (partitioned, True)
    return made


def posted(airflow: AirflowServer, setup: Setup) -> list[tuple[str, str]]:
    """The asset's events in Airflow: (ledger event id, partition key or ''), sorted."""
    events = airflow.asset_events(airflow.asset(setup.asset.uri)["id"])
    return sorted((e["extra"]["event_id"], e["partition_key"] or "") for e in events)


@pytest.mark.parametrize("point", list(POINTS))
def test_a_notifier_killed_while_posting_then_rerun_posts_every_event_exactly_once(
        airflow: AirflowServer, setups: dict[str, Setup], capsys: pytest.CaptureFixture[str], point: str) -> None:
    setup = setups[point]
    events: list[DatasetEvent] = [setup.publish(t) for t in TIMES]
    argv = ["trigger", "--repo", str(setup.repo), "--cluster", "primary", "--spark-submit", "/bin/true",
            "--log-dir", str(setup.tmp / "logs")]
    killed = subprocess.run([sys.executable, "-c", KILLED_CALL.format(project=str(PROJECT), point=point,
                                                                      argv=argv)],
                            capture_output=True, text=True, timeout=180)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    in_airflow, claimed = POINTS[point]
    assert len(posted(airflow, setup)) == in_airflow
    deliveries = Deliveries(setup.ledger.fs, setup.ledger.layout)
    assert deliveries.read_done(events[0].event_id) is not None and deliveries.read_done(events[1].event_id) is None
    second = events[1].event_id
    assert (deliveries.read_claim(second, "partitioned") is not None,
            deliveries.form_record(second, "partitioned") is None) == (True, claimed)

    deadline = time.monotonic() + 60
    while True:  # the killed call's lease (2 s) expires: until then the notifier is held (exit 5)
        code, lines, err = setup.notify(capsys)
        if code != 5 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert (code, err) == (0, ""), lines
    assert counts(lines) == "airflow: airflow_delivered=3 airflow_pending=0 airflow_skipped=0"
    expected = sorted((event.event_id, key) for event, t in zip(events, TIMES, strict=True)
                      for key in ("", t.strftime("%Y-%m-%dT%H:00:00")))
    assert posted(airflow, setup) == expected  # each event in each form exactly once

    asset = airflow.asset(setup.asset.uri)
    by_id = {e["id"]: (e["extra"]["event_id"], e["partition_key"] or "")
             for e in airflow.asset_events(asset["id"])}
    for event in events:
        record = deliveries.read_done(event.event_id)
        assert record is not None and (record.status, record.asset_id) == ("delivered", asset["id"])
        assert sorted(by_id[d.airflow_event_id] for d in record.deliveries) == sorted(
            item for item in expected if item[0] == event.event_id)
    assert deliveries.cursor() == events[-1].event_id
    code, lines, _ = setup.notify(capsys)
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=0 airflow_skipped=0"
    assert len(posted(airflow, setup)) == 8
    assert json.dumps([record_document(deliveries.read_done(e.event_id)) for e in events]).count(
        airflow.password) == 0
