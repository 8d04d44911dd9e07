"""Resolved inputs and outputs of process instances, on the template repo and on small repos that
exercise table feeds, zones, latest() and the error cases."""

from __future__ import annotations

import shutil
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_in_validity
from toolkit.core.instances.process_instance import describe_feed_instances, resolve_process_instance
from toolkit.errors import SkippedError, UsageError

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
PRIMARY = "file:///tmp/feed-toolkit-demo/primary"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def template() -> ConfigRepo:
    return ConfigRepo.load(TEMPLATE)


def test_hourly_process_reads_three_hours_and_writes_its_own(template: ConfigRepo) -> None:
    resolved = resolve_process_instance(template, "hourly-clicks-summary", "primary", utc(2026, 11, 21, 10))
    (clicks,) = (item.describe() for item in resolved.inputs)
    assert [i["time"] for i in clicks["instances"]] == ["2026-11-21T08:00Z", "2026-11-21T09:00Z", "2026-11-21T10:00Z"]
    assert clicks["instances"][0]["path"] == f"{PRIMARY}/data/clicks/2026/11/21/08"
    assert clicks["availability_flag"] == "_SUCCESS"
    (summary,) = resolved.outputs
    assert summary.instance == {"time": "2026-11-21T10:00Z",
                                "path": f"{PRIMARY}/data/clicks-hourly-summary/2026/11/21/10"}


def test_daily_rollup_reads_all_hours_of_yesterday(template: ConfigRepo) -> None:
    resolved = resolve_process_instance(template, "daily-clicks-rollup", "primary", utc(2026, 3, 1))
    (hourly,) = resolved.inputs
    times = [i["time"] for i in hourly.describe()["instances"]]
    assert len(times) == 24 and times[0] == "2026-02-28T00:00Z" and times[-1] == "2026-02-28T23:00Z"
    assert resolved.outputs[0].instance["path"] == f"{PRIMARY}/data/clicks-daily/2026/02/28"


def test_time_off_the_process_grid_names_the_neighbours(template: ConfigRepo) -> None:
    with pytest.raises(UsageError, match=r"before 2026-11-21T00:00Z, after 2026-11-22T00:00Z"):
        resolve_process_instance(template, "daily-clicks-rollup", "primary", utc(2026, 11, 21, 1))


def test_time_before_the_process_validity_is_not_an_instance(template: ConfigRepo) -> None:
    expected = r"not an instance of process 'hourly-clicks-summary'.*after 2026-01-01T00:00Z"
    with pytest.raises(UsageError, match=expected):
        resolve_process_instance(template, "hourly-clicks-summary", "primary", utc(2025, 6, 1))


def test_process_not_on_the_cluster(template: ConfigRepo) -> None:
    with pytest.raises(UsageError, match=r"process 'hourly-clicks-summary' is not defined on cluster 'backup'"):
        resolve_process_instance(template, "hourly-clicks-summary", "backup", utc(2026, 11, 21, 10))


def test_feed_instances_use_the_cluster_override(template: ConfigRepo) -> None:
    described = describe_feed_instances(template, "clicks", "backup", utc(2026, 11, 21, 9), utc(2026, 11, 21, 10))
    assert [i["path"] for i in described["instances"]] == [
        "file:///tmp/feed-toolkit-demo/backup/replica/clicks/2026/11/21/09",
        "file:///tmp/feed-toolkit-demo/backup/replica/clicks/2026/11/21/10",
    ]


def test_feed_instances_stop_at_the_validity_start(template: ConfigRepo) -> None:
    described = describe_feed_instances(template, "clicks", "primary", utc(2025, 11, 30, 22), utc(2025, 12, 1, 1))
    assert [i["time"] for i in described["instances"]] == ["2025-12-01T00:00Z", "2025-12-01T01:00Z"]


EXTRA = {
    "clusters/west.yaml": """\
        kind: cluster
        name: west
        interfaces:
          write: {endpoint: "hdfs://nn-west:8020"}
          registry: {endpoint: "thrift://ms-west:9083"}
        locations: {staging: /staging}
        """,
    "feeds/orders.yaml": """\
        kind: feed
        name: orders
        frequency: days(1)
        timezone: America/Los_Angeles
        clusters:
          - name: west
            validity: {start: "2026-01-01T08:00Z", end: "2027-01-01T08:00Z"}
        table: {uri: "catalog:sales:orders#ds=${YEAR}-${MONTH}-${DAY};region=us"}
        """,
    "feeds/events.yaml": """\
        kind: feed
        name: events
        frequency: hours(1)
        timezone: America/Los_Angeles
        clusters:
          - name: west
            validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}
        locations:
          data: /events/${YEAR}-${MONTH}-${DAY}/${HOUR}
          stats: /stats/events/${YEAR}/${MONTH}/${DAY}
        """,
    "feeds/order-report.yaml": """\
        kind: feed
        name: order-report
        frequency: days(1)
        timezone: America/Los_Angeles
        clusters:
          - name: west
            validity: {start: "2026-01-01T08:00Z", end: "2027-01-01T08:00Z"}
        locations:
          data: /reports/orders/${YEAR}${MONTH}${DAY}
        """,
    "processes/order-report.yaml": """\
        kind: process
        name: order-report
        timezone: America/Los_Angeles
        clusters:
          - name: west
            validity: {start: "2026-01-02T08:00Z", end: "2027-01-01T08:00Z"}
        frequency: days(1)
        inputs:
          - {name: orders, feed: orders, start: "yesterday(0,0)", end: "today(0,0)"}
          - {name: latest-events, feed: events, start: "latest(0)", end: "latest(0)", optional: true}
        outputs:
          - {name: report, feed: order-report, instance: "yesterday(0,0)"}
        workflow: {engine: spark-sql, path: workflows/report.sql}
        """,
}


@pytest.fixture(scope="module")
def west(tmp_path_factory: pytest.TempPathFactory) -> ConfigRepo:
    root = tmp_path_factory.mktemp("repo") / "conf"
    shutil.copytree(TEMPLATE, root)
    for relative, text in EXTRA.items():
        (root / relative).write_text(textwrap.dedent(text))
    return ConfigRepo.load(root)


def test_table_feed_instances_are_partitions_in_the_feed_zone(west: ConfigRepo) -> None:
    # DST starts on 2026-03-08 in Los Angeles: from then on local midnight is 07:00Z (before, 08:00Z).
    # The run at local midnight of 2026-03-10 reads the orders of local Mar 9 and Mar 10.
    resolved = resolve_process_instance(west, "order-report", "west", utc(2026, 3, 10, 7))
    orders = resolved.inputs[0].describe()["instances"]
    assert [i["time"] for i in orders] == ["2026-03-09T07:00Z", "2026-03-10T07:00Z"]
    assert orders[0]["partition"] == {"ds": "2026-03-09", "region": "us"}
    assert orders[0]["partition_spec"] == "ds=2026-03-09;region=us"
    assert (orders[0]["database"], orders[0]["table"]) == ("sales", "orders")
    assert resolved.outputs[0].instance["path"] == "hdfs://nn-west:8020/reports/orders/20260309"


def test_daily_table_feed_keeps_local_midnight_across_dst(west: ConfigRepo) -> None:
    described = describe_feed_instances(west, "orders", "west", utc(2026, 3, 7), utc(2026, 3, 10))
    assert [i["time"] for i in described["instances"]] == [
        "2026-03-07T08:00Z", "2026-03-08T08:00Z", "2026-03-09T07:00Z"]


def test_latest_input_is_unresolved_without_available_instances(west: ConfigRepo) -> None:
    resolved = resolve_process_instance(west, "order-report", "west", utc(2026, 3, 10, 7))
    events = resolved.inputs[1]
    assert events.describe()["instances"] is None and events.optional is True
    assert "latest(0)..latest(0) picks among the instances of feed 'events'" in events.unresolved


def test_latest_input_picks_the_newest_available(west: ConfigRepo) -> None:
    available = {"events": (utc(2026, 3, 10, 3), utc(2026, 3, 10, 5), utc(2026, 3, 10, 9))}
    resolved = resolve_process_instance(west, "order-report", "west", utc(2026, 3, 10, 7), available)
    (instance,) = resolved.inputs[1].describe()["instances"]
    # 09:00Z is after the nominal time; 05:00Z is the newest at or before it: 22:00 PDT on Mar 9.
    assert instance["time"] == "2026-03-10T05:00Z"
    assert instance["path"] == "hdfs://nn-west:8020/events/2026-03-09/22"


def test_every_location_type_in_feed_listing(west: ConfigRepo) -> None:
    described = describe_feed_instances(west, "events", "west", utc(2026, 7, 1, 7), utc(2026, 7, 1, 7))
    (instance,) = described["instances"]
    assert instance["locations"] == {"data": "hdfs://nn-west:8020/events/2026-07-01/00",
                                     "stats": "hdfs://nn-west:8020/stats/events/2026/07/01"}


def test_feed_not_on_the_cluster(west: ConfigRepo) -> None:
    with pytest.raises(UsageError, match=r"feed 'orders' is not defined on cluster 'primary': its clusters are west"):
        describe_feed_instances(west, "orders", "primary", utc(2026, 3, 7), utc(2026, 3, 10))


def test_a_feed_instance_exactly_at_the_validity_end_is_read_and_written_by_processes(tmp_path: Path) -> None:
    """Falcon accepts a window end and an output instance exactly at the feed's validity end (it refuses only one
    after it: CrossEntityValidations.validateInstanceRange and validateInstance), and Oozie resolves it: for a
    process, the feed's validity end is inclusive. The feed's own instances (replication, retention's cadence)
    still end before it."""
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    for name in ("clicks", "clicks-hourly-summary"):
        path = root / "feeds" / f"{name}.yaml"
        text = path.read_text()
        assert text.count("      end: 2099-12-31T00:00Z\n") >= 1
        path.write_text(text.replace("      end: 2099-12-31T00:00Z\n", "      end: 2026-11-21T10:00Z\n", 1))
    repo = ConfigRepo.load(root)
    resolved = resolve_process_instance(repo, "hourly-clicks-summary", "primary", utc(2026, 11, 21, 10))
    (clicks,) = (item.describe() for item in resolved.inputs)
    assert [i["time"] for i in clicks["instances"]] == ["2026-11-21T08:00Z", "2026-11-21T09:00Z", "2026-11-21T10:00Z"]
    (summary,) = resolved.outputs
    assert summary.instance == {"time": "2026-11-21T10:00Z",
                                "path": f"{PRIMARY}/data/clicks-hourly-summary/2026/11/21/10"}
    # After the end there is none, and the feed's own listing stops before it.
    later = resolve_process_instance(repo, "hourly-clicks-summary", "primary", utc(2026, 11, 21, 11))
    assert [i["time"] for i in later.inputs[0].describe()["instances"]] == ["2026-11-21T09:00Z", "2026-11-21T10:00Z"]
    assert later.outputs[0].instance is None
    described = describe_feed_instances(repo, "clicks", "primary", utc(2026, 11, 21, 9), utc(2026, 11, 21, 10))
    assert [i["time"] for i in described["instances"]] == ["2026-11-21T09:00Z"]


@pytest.mark.parametrize(("entity", "at", "error", "message"), [
    ("process", utc(2020, 1, 1), SkippedError, "^2020-01-01T00:00Z is outside the validity of process "
     "'hourly-clicks-summary' on cluster 'primary' (.*): it has no instance then, so there is nothing to do.$"),
    ("process", utc(2026, 11, 21, 10, 30), UsageError, "^2026-11-21T10:30Z is not an instance of process "
     "'hourly-clicks-summary' on cluster 'primary'"),
    ("feed", utc(2020, 1, 1), SkippedError, "^2020-01-01T00:00Z is outside the validity of feed 'clicks' on cluster "
     "'primary'"),
])
def test_an_instance_of_a_process_or_a_feed_is_checked_one_way(template: ConfigRepo, entity: str, at: datetime,
                                                               error: type[Exception], message: str) -> None:
    """Outside the validity: exit 4 (nothing to do); off the grid: exit 2 naming the neighbours; for both kinds."""
    chosen = template.process("hourly-clicks-summary") if entity == "process" else template.feed("clicks")
    with pytest.raises(error, match=message):
        require_in_validity(chosen, "primary", at)
    assert require_in_validity(chosen, "primary", utc(2026, 11, 21, 10)).validity.start <= utc(2026, 11, 21, 10)
