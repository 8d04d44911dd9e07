"""`toolkit trigger --notify airflow` against a real Airflow 3.3 (tests/airflow_server.py): the ledger's events
become asset events that run an asset-scheduled DAG and a partitioned one (hourly instances, daily partitions)
once per event; a second call posts nothing; an Airflow that cannot be reached loses nothing; a claim left by a
run killed after its POST is found in Airflow and not posted again."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.airflow_server import AirflowServer, free_port
from tests.local_cluster import hourly_feed_yaml, local_cluster_yaml
from toolkit.cli.main import main as toolkit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import DatasetEvent, PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.orchestration.schedule.airflow_events.deliveries import Deliveries
from toolkit.orchestration.schedule.airflow_events.delivery import partition_key
from toolkit.orchestration.schedule.assets import feed_asset

BY_TOKEN = {"airflow.token-env": "FT_TEST_AIRFLOW_TOKEN"}
DAGS = '''from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Asset, PartitionedAssetTimetable, StartOfDayMapper

clicks = Asset(name="{name}", uri="{uri}")
with DAG("{prefix}_on_clicks", schedule=[clicks]):
    EmptyOperator(task_id="noop")
with DAG("{prefix}_daily", schedule=PartitionedAssetTimetable(assets=clicks,
                                                               default_partition_mapper=StartOfDayMapper())):
    EmptyOperator(task_id="noop")
'''
T1 = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
T2 = datetime(2026, 1, 2, 23, tzinfo=timezone.utc)


class Setup:
    """A config repo whose cluster 'primary' has its own root, and a feed named after the test: Airflow knows an
    asset by its name and its URI, and every test's are its own."""

    def __init__(self, tmp_path: Path, airflow: AirflowServer, url: str | None = None,
                 auth: dict[str, str] | None = None) -> None:
        self.tmp, self.airflow, self.repo = tmp_path, airflow, tmp_path / "conf"
        self.auth = auth or {"airflow.username": "feed-toolkit-tests",
                             "airflow.password-file": str(tmp_path / "password")}
        for folder in ("clusters", "feeds", "processes"):
            (self.repo / folder).mkdir(parents=True)
        (tmp_path / "password").write_text(airflow.password + "\n")
        self.point_at(url or airflow.url)
        self.prefix = tmp_path.name.replace("-", "_").replace(".", "_")
        self.feed = "clicks-" + self.prefix.replace("_", "-")
        (self.repo / f"feeds/{self.feed}.yaml").write_text(hourly_feed_yaml(self.feed))
        config = ConfigRepo.load(self.repo)
        self.asset = feed_asset(config.feeds[self.feed], config.cluster("primary"))
        self.ledger = Ledger.of(LocalFileSystem(), config.cluster("primary"))

    def point_at(self, url: str) -> None:
        properties = {"trigger.notify": "airflow", "airflow.url": url, "airflow.timeout-seconds": "2", **self.auth}
        (self.repo / "clusters/primary.yaml").write_text(local_cluster_yaml(self.tmp / "primary",
                                                                            properties=properties))

    def declare(self) -> tuple[str, str]:
        """The two DAGs on the feed's asset, parsed by Airflow: (asset-scheduled, partitioned)."""
        self.airflow.write_dag(self.prefix, DAGS.format(name=self.asset.name, uri=self.asset.uri, prefix=self.prefix))
        plain, daily = f"{self.prefix}_on_clicks", f"{self.prefix}_daily"
        assert self.airflow.wait_for_dag(plain)["timetable_partitioned"] is False
        assert self.airflow.wait_for_dag(daily)["timetable_partitioned"] is True
        return plain, daily

    def publish(self, t: datetime) -> DatasetEvent:
        location = f"file://{self.tmp}/primary/data/{self.feed}/{t:%Y/%m/%d/%H}"
        event = self.ledger.record_publication(PublicationFacts(self.feed, "primary", t, producer="external",
                                                                run_id=f"r{t:%d%H}", location=location,
                                                                fingerprint=Fingerprint(f"{t:%H}", 1, 1)))
        assert event is not None
        return event

    def notify(self, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str], str]:
        capsys.readouterr()
        code = toolkit(["trigger", "--repo", str(self.repo), "--cluster", "primary", "--spark-submit", "/bin/true",
                        "--log-dir", str(self.tmp / "logs"), *extra])
        out, err = capsys.readouterr()
        return code, out.splitlines(), err


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """An HTTP server on loopback with `handler`, in a thread; yields its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def failing_server(status: int) -> Iterator[int]:
    """An HTTP server on loopback that answers every request with `status`; yields its port."""

    class Failing(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_error(status)

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

    with serving(Failing) as port:
        yield port


@contextmanager
def silent_after_posting(target: str) -> Iterator[tuple[int, threading.Event]]:
    """A proxy on loopback to the Airflow at `target` that forwards every request, but withholds Airflow's answer
    to each asset event posted (the POST reached Airflow, the notifier never hears so); yields its port and an
    event set once a POST went through."""
    posted, release = threading.Event(), threading.Event()

    class Proxy(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            headers = {name: value for name in ("Authorization", "Content-Type")
                       if (value := self.headers.get(name)) is not None}
            request = urllib.request.Request(target + self.path, data=self.rfile.read(length) if length else None,
                                             method=self.command, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    status, data = response.status, response.read()
            except urllib.error.HTTPError as err:
                status, data = err.code, err.read()
            if self.command == "POST" and self.path.startswith("/api/v2/assets/events"):
                posted.set()
                release.wait(30)
                return
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

    with serving(Proxy) as port:
        try:
            yield port, posted
        finally:
            release.set()  # before the server stops: the withheld answers end first


def both_forms_once(airflow: AirflowServer, asset_id: int, event: DatasetEvent) -> list[dict[str, Any]]:
    """The asset's events in Airflow, asserted to be the event's two forms (keyed and not), each once."""
    events = airflow.asset_events(asset_id)
    assert sorted((e["extra"]["event_id"], e["partition_key"] or "") for e in events) == sorted([
        (event.event_id, "2026-01-01T10:00:00"), (event.event_id, "")])
    return events


def counts(lines: list[str]) -> str:
    return [line for line in lines if line.startswith("airflow: airflow_delivered=")][-1]


def test_each_event_runs_each_dag_once_and_a_second_call_posts_nothing(
        airflow: AirflowServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = Setup(tmp_path, airflow)
    plain, daily = setup.declare()
    first = setup.publish(T1)
    code, lines, err = setup.notify(capsys)
    assert (code, err) == (0, "")
    assert counts(lines) == "airflow: airflow_delivered=1 airflow_pending=0 airflow_skipped=0"
    assert len(airflow.wait_for_runs(plain, 1)) == 1
    assert [run["partition_key"] for run in airflow.wait_for_runs(daily, 1)] == ["2026-01-01"]
    second = setup.publish(T2)
    code, lines, _ = setup.notify(capsys)
    assert counts(lines) == "airflow: airflow_delivered=1 airflow_pending=0 airflow_skipped=0"
    airflow.wait_for_runs(plain, 2)
    assert sorted(run["partition_key"] for run in airflow.wait_for_runs(daily, 2)) == ["2026-01-01", "2026-01-02"]

    asset = airflow.asset(setup.asset.uri)
    events = airflow.asset_events(asset["id"])
    # one event without a partition key (for the asset-scheduled DAG) and one with it, per ledger event
    assert sorted((e["extra"]["event_id"], e["partition_key"] or "") for e in events) == sorted([
        (first.event_id, ""), (first.event_id, "2026-01-01T10:00:00"),
        (second.event_id, ""), (second.event_id, "2026-01-02T23:00:00")])
    extra = next(e["extra"] for e in events if e["extra"]["event_id"] == first.event_id)
    assert {key: extra[key] for key in ("feed", "cluster", "instance", "producer", "producer_run_id", "location",
                                        "kind")} == {
        "feed": setup.feed, "cluster": "primary", "instance": "2026-01-01T10:00Z", "producer": "external",
        "producer_run_id": "r0110", "location": first.location, "kind": "published"}

    code, lines, _ = setup.notify(capsys)
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=0 airflow_skipped=0"
    assert len(airflow.asset_events(asset["id"])) == 4
    time.sleep(3)  # a scheduler loop or two: no new run appears
    assert len(airflow.dag_runs(plain)) == 2 and len(airflow.dag_runs(daily)) == 2

    record = json.loads((Path(Deliveries(setup.ledger.fs, setup.ledger.layout).bucket(first.event_id).removeprefix(
        "file://")) / f"{first.event_id}.json").read_text())
    assert record["status"] == "delivered" and record["asset_id"] == asset["id"]
    assert sorted(d["airflow_event_id"] for d in record["deliveries"]) == sorted(
        e["id"] for e in events if e["extra"]["event_id"] == first.event_id)
    assert airflow.password not in json.dumps(record)


def test_an_unreachable_airflow_loses_nothing(airflow: AirflowServer, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    setup = Setup(tmp_path, airflow, url=f"http://127.0.0.1:{free_port()}")  # nothing listens there
    plain, daily = setup.declare()
    first = setup.publish(T1)
    setup.publish(T2)
    code, lines, err = setup.notify(capsys)
    assert code == 0
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=2 airflow_skipped=0"
    assert err.count("could not be reached") == 1 and "connection refused" in err and "2 event(s)" in err
    deliveries = Deliveries(setup.ledger.fs, setup.ledger.layout)
    cursor = deliveries.cursor()  # the first call's: the lag window before it, never past a pending event
    assert cursor is not None and cursor < first.event_id

    with socket.socket() as silent:  # accepts connections and never answers: the timeout (2 s) ends the call
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        setup.point_at(f"http://127.0.0.1:{silent.getsockname()[1]}")
        started = time.monotonic()
        code, lines, err = setup.notify(capsys)
        assert time.monotonic() - started < 10
    assert code == 0 and "could not be reached (no answer" in err
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=2 airflow_skipped=0"

    with failing_server(503) as port:
        setup.point_at(f"http://127.0.0.1:{port}")
        code, lines, err = setup.notify(capsys)
    assert code == 0 and "could not be reached (POST /auth/token answered HTTP 503)" in err
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=2 airflow_skipped=0"
    assert airflow.password not in err

    setup.point_at(airflow.url)
    code, lines, err = setup.notify(capsys)
    assert (code, err) == (0, "")
    assert counts(lines) == "airflow: airflow_delivered=2 airflow_pending=0 airflow_skipped=0"
    events = airflow.asset_events(airflow.asset(setup.asset.uri)["id"])
    assert len(events) == 4
    assert sorted(run["partition_key"] for run in airflow.wait_for_runs(daily, 2)) == ["2026-01-01", "2026-01-02"]


def test_a_claim_whose_post_reached_airflow_is_not_posted_again(
        airflow: AirflowServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed between its POST and its record: simulated by its claim and its POST, made here. (Here the
    notifier authenticates with a bearer token from the environment, airflow.token-env.)"""
    monkeypatch.setenv("FT_TEST_AIRFLOW_TOKEN", airflow.token())
    setup = Setup(tmp_path, airflow, auth=BY_TOKEN)
    plain, daily = setup.declare()
    event = setup.publish(T1)
    asset = airflow.asset(setup.asset.uri)
    deliveries = Deliveries(setup.ledger.fs, setup.ledger.layout)
    assert deliveries.claim(event.event_id, "partitioned", "killed-run", time.time())
    airflow.post("/api/v2/assets/events", {"asset_id": asset["id"], "partition_key": partition_key(T1),
                                           "extra": {"event_id": event.event_id, "cluster": "primary"}})
    assert deliveries.claim(event.event_id, "plain", "killed-run", time.time())  # claimed, never posted
    # Airflow 3.3.2 cannot list asset events while a run one of them created is queued (apache/airflow#71360):
    # the notifier would leave the claim pending until it starts; here it has started before the notifier runs
    airflow.wait_for_runs(daily, 1)
    assert len(airflow.asset_events(asset["id"])) == 1

    code, lines, err = setup.notify(capsys)
    assert (code, err) == (0, "")
    assert counts(lines) == "airflow: airflow_delivered=1 airflow_pending=0 airflow_skipped=0"
    both_forms_once(airflow, asset["id"], event)
    assert [run["partition_key"] for run in airflow.wait_for_runs(daily, 1)] == ["2026-01-01"]
    airflow.wait_for_runs(plain, 1)


def test_a_post_whose_answer_never_came_is_found_in_airflow_not_posted_again(
        airflow: AirflowServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The claim, then the POST reaches Airflow, then no answer (a notifier killed there leaves the same): the next
    call finds the asset event by the event id in its `extra` and records it instead of posting it again."""
    setup = Setup(tmp_path, airflow)
    plain, daily = setup.declare()
    event = setup.publish(T1)
    with silent_after_posting(airflow.url) as (port, posted):
        setup.point_at(f"http://127.0.0.1:{port}")
        code, lines, err = setup.notify(capsys)
        assert posted.is_set()
    assert code == 0 and "could not be reached (no answer within 2 s)" in err
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=1 airflow_skipped=0"
    deliveries = Deliveries(setup.ledger.fs, setup.ledger.layout)
    claim = deliveries.read_claim(event.event_id, "partitioned")
    assert claim is not None and deliveries.form_record(event.event_id, "partitioned") is None
    # Airflow 3.3.2 cannot list asset events while a run one of them created is queued (apache/airflow#71360)
    assert [run["partition_key"] for run in airflow.wait_for_runs(daily, 1)] == ["2026-01-01"]
    asset = airflow.asset(setup.asset.uri)
    assert len(airflow.asset_events(asset["id"])) == 1

    setup.point_at(airflow.url)
    code, lines, err = setup.notify(capsys)
    assert (code, err) == (0, "")
    assert counts(lines) == "airflow: airflow_delivered=1 airflow_pending=0 airflow_skipped=0"
    events = both_forms_once(airflow, asset["id"], event)
    record = deliveries.form_record(event.event_id, "partitioned")
    assert record is not None and record.airflow_event_id == next(e["id"] for e in events if e["partition_key"])
    airflow.wait_for_runs(plain, 1)
    assert len(airflow.dag_runs(daily)) == 1


def test_a_feed_no_dag_declares_is_skipped_with_why_and_a_dry_run_posts_nothing(
        airflow: AirflowServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup = Setup(tmp_path, airflow)
    event = setup.publish(T1)
    code, lines, _ = setup.notify(capsys, "--dry-run")
    assert code == 0
    assert [line for line in lines if line.startswith("would post")] == [
        f"would post to Airflow: {setup.feed} 2026-01-01T10:00Z (published, event {event.event_id}) to the asset "
        f"{setup.asset.uri}, partition key 2026-01-01T10:00:00 for partitioned DAGs"]
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=1 airflow_skipped=0"
    assert not Path(str(setup.ledger.layout.deliveries_folder("airflow")).removeprefix("file://")).exists()

    code, lines, _ = setup.notify(capsys)
    assert code == 0
    assert f"airflow: skipped 1 event(s) of feed '{setup.feed}': Airflow has no asset with the URI " \
           f"{setup.asset.uri} (no DAG declares the asset {setup.feed}@primary)" in lines
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=0 airflow_skipped=1"
    deliveries = Deliveries(setup.ledger.fs, setup.ledger.layout)
    assert deliveries.cursor() == event.event_id
    done = deliveries.read_done(event.event_id)
    assert done is not None and done.status == "skipped"
    code, lines, _ = setup.notify(capsys)
    assert counts(lines) == "airflow: airflow_delivered=0 airflow_pending=0 airflow_skipped=0"
