"""The typed model: parsed values, defaults, immutability, spans and effective per-cluster values."""

from __future__ import annotations

import dataclasses
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.document import SourceSpan
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import (
    Cluster,
    Feed,
    FeedClusterType,
    Order,
    Policy,
    Process,
    Sla,
)
from toolkit.errors import UsageError

HOURS_1 = Frequency(TimeUnit.HOURS, 1)


def build(text: str, file: str = "feeds/f.yaml"):
    entity, problems = parse_entity(textwrap.dedent(text), Path(file))
    assert problems == []
    return entity


STORAGE_FEED = """\
kind: feed
name: events
frequency: hours(1)
sla: {slaLow: hours(1), slaHigh: hours(2)}
clusters:
  - name: plain
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
  - name: moved
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
    sla: {slaLow: hours(3), slaHigh: hours(5)}
    locations:
      data: /moved/${YEAR}/${MONTH}/${DAY}/${HOUR}
  - name: tabled
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
    table: {uri: "catalog:logs:events#ds=${YEAR}${MONTH}${DAY}"}
locations:
  data: /events/${YEAR}/${MONTH}/${DAY}/${HOUR}
  stats: /events/_stats
"""


def test_cluster_locations_replace_the_feeds_and_never_merge():
    feed = build(STORAGE_FEED)
    assert dict(feed.locations_on("plain")) == {
        "data": "/events/${YEAR}/${MONTH}/${DAY}/${HOUR}",
        "stats": "/events/_stats",
    }
    assert dict(feed.locations_on("moved")) == {"data": "/moved/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    assert dict(feed.locations_on("tabled")) == {}
    assert feed.table_on("tabled") == "catalog:logs:events#ds=${YEAR}${MONTH}${DAY}"
    assert feed.table_on("plain") is None and feed.table_on("moved") is None


def test_cluster_sla_overrides_the_feeds():
    feed = build(STORAGE_FEED)
    assert feed.sla_on("plain") == Sla(low=HOURS_1, high=Frequency(TimeUnit.HOURS, 2))
    assert feed.sla_on("moved") == Sla(low=Frequency(TimeUnit.HOURS, 3), high=Frequency(TimeUnit.HOURS, 5))


def test_effective_values_on_a_cluster_the_feed_is_not_on():
    feed = build(STORAGE_FEED)
    assert feed.cluster("elsewhere") is None
    with pytest.raises(UsageError) as raised:
        feed.locations_on("elsewhere")
    assert str(raised.value) == "Feed 'events' is not on cluster 'elsewhere': its clusters are plain, moved, tabled."
    assert raised.value.exit_code == 2


def test_feed_fields_and_defaults():
    feed = build(
        """\
        kind: feed
        name: clicks
        frequency: minutes(15)
        partitions: [country, device]
        late-arrival: {cut-off: hours(6)}
        notification: {to: "a@example.com, b@example.com"}
        clusters:
          - name: primary
            type: source
            partition: ${cluster.colo}
            delay: hours(2)
            validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
            retention: {limit: days(90), action: delete}
        locations:
          data: /clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}
        properties: {spark.sql.shuffle.partitions: 8, compress: true}
        lint: {ignore: [FD012]}
        """
    )
    assert isinstance(feed, Feed)
    assert feed.frequency == Frequency(TimeUnit.MINUTES, 15)
    assert feed.timezone == "UTC" and feed.availability_flag is None and feed.table is None
    assert feed.partitions == ("country", "device")
    assert feed.late_arrival.cut_off == Frequency(TimeUnit.HOURS, 6)
    assert feed.notification.to == ("a@example.com", "b@example.com")
    assert dict(feed.properties) == {"spark.sql.shuffle.partitions": "8", "compress": "true"}
    assert feed.lint_ignore == ("FD012",)
    [cluster] = feed.clusters
    assert cluster.type is FeedClusterType.SOURCE and cluster.partition == "${cluster.colo}"
    assert cluster.delay == Frequency(TimeUnit.HOURS, 2)
    assert cluster.validity.start == datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert cluster.retention.limit == Frequency(TimeUnit.DAYS, 90)
    assert cluster.retention.action == "delete" and cluster.retention.type == "instance"


def test_process_fields_and_defaults():
    process = build(
        """\
        kind: process
        name: p
        clusters:
          - name: primary
            validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
            sla: {shouldEndIn: hours(2)}
        frequency: hours(1)
        order: ONLYLAST
        inputs:
          - name: clicks
            feed: clicks
            start: now(-1,0)
            end: now(0,0)
            partition: "*/US"
            optional: true
          - {name: views, feed: views, start: "today(0,0)", end: "now(0,0)"}
        outputs:
          - name: out
            feed: summary
            instance: now(0,0)
        workflow: {engine: spark-sql, path: workflows/p.sql}
        spark-attributes: {spark-opts: --executor-memory 2g, class: org.Main, args: [a, b]}
        retry: {policy: exp-backoff, delay: minutes(5), attempts: 3, onTimeout: true}
        late-process:
          policy: final
          delay: hours(1)
          late-inputs:
            - {input: clicks, workflow-path: workflows/late.sql}
        """,
        "processes/p.yaml",
    )
    assert isinstance(process, Process)
    assert process.parallel == 1 and process.timezone == "UTC" and process.timeout is None
    assert process.order is Order.LAST_ONLY
    assert process.workflow.engine == "spark-sql"
    assert process.workflow.version == "1.0" and process.workflow.name is None
    assert process.input("clicks").optional is True and process.input("clicks").partition == "*/US"
    assert process.input("views").optional is False and process.input("views").start == "today(0,0)"
    assert process.output("out").feed == "summary" and process.output("missing") is None
    assert process.cluster("primary").sla.should_end_in == Frequency(TimeUnit.HOURS, 2)
    assert process.cluster("primary").sla.should_start_in is None
    assert process.cluster("backup") is None
    assert process.spark_attributes.spark_opts == "--executor-memory 2g"
    assert process.spark_attributes.class_name == "org.Main" and process.spark_attributes.args == ("a", "b")
    assert process.retry.policy is Policy.EXP_BACKOFF and process.retry.on_timeout is True
    assert process.retry.attempts == 3 and process.retry.delay == Frequency(TimeUnit.MINUTES, 5)
    assert process.late_process.policy is Policy.FINAL
    assert [(li.input, li.workflow_path) for li in process.late_process.late_inputs] == [
        ("clicks", "workflows/late.sql")
    ]


def test_cluster_helpers():
    cluster = build(
        """\
        kind: cluster
        name: primary
        interfaces:
          write: {endpoint: "hdfs://nn:8020", version: "3.3"}
          registry: {endpoint: "thrift://meta:9083"}
        locations: {staging: /apps/staging, working: /apps/working}
        """,
        "clusters/primary.yaml",
    )
    assert isinstance(cluster, Cluster)
    assert cluster.write_endpoint == "hdfs://nn:8020"
    assert cluster.interface("write").version == "3.3"
    assert cluster.registry_endpoint == "thrift://meta:9083"
    assert cluster.interface("messaging") is None
    assert cluster.location("working") == "/apps/working" and cluster.location("temp") is None


def test_entities_are_immutable():
    feed = build(STORAGE_FEED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        feed.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        feed.locations["data"] = "/elsewhere"  # type: ignore[index]
    assert isinstance(feed.clusters, tuple)
    assert hash(feed) == hash(build(STORAGE_FEED))


def test_source_file_folder_and_spans():
    feed = build(STORAGE_FEED, "conf/feeds/events.yaml")
    assert feed.source_file == Path("conf/feeds/events.yaml")
    assert (feed.folder, feed.file_stem) == ("feeds", "events")
    assert feed.span(("clusters", 1, "locations", "data")) == SourceSpan(feed.source_file, 12, 13)
    assert feed.span(("clusters", 0, "retention")) == SourceSpan(feed.source_file, 6, 5)
    assert feed.span() == SourceSpan(feed.source_file, 1, 1)
