"""`toolkit convert-falcon` on Falcon definitions written from Falcon's entity specification: the exact YAML
data of each entity, a repo that loads without problems, and the template's entities back from XML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.convert.conftest import FALCON, Run
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.yaml_loader import load_document

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
CLEAN = ["primary-cluster.xml", "backup-cluster.xml", "raw-clicks-feed.xml", "clicks-table-feed.xml",
         "clicks-summary-process.xml", "daily-report-process.xml"]
VALIDITY = {"start": "2012-07-20T03:00Z", "end": "2099-07-16T00:00Z"}


def data(path: Path) -> dict[str, Any]:
    """The file's data as the toolkit reads it (YAML 1.2, comments dropped)."""
    document, problems = load_document(path)
    assert document is not None, problems
    return dict(document.data)


@pytest.fixture
def repo(convert: Run, tmp_path: Path) -> Path:
    code, out, err = convert(*(FALCON / name for name in CLEAN), "--out", tmp_path / "conf")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"wrote {tmp_path / 'conf' / folder / name}.yaml"
        for folder, name in [("clusters", "primary"), ("clusters", "backup"), ("feeds", "raw-clicks"),
                             ("feeds", "clicks-table"), ("processes", "clicks-summary"),
                             ("processes", "daily-report")]
    ]
    return tmp_path / "conf"


def test_the_converted_repo_loads_without_problems_and_its_references_resolve(repo: Path) -> None:
    config, problems = ConfigRepo.scan(repo)
    assert problems == []
    assert sorted(str(entity.ref) for entity in config.entities) == [
        "cluster/backup", "cluster/primary", "feed/clicks-table", "feed/raw-clicks", "process/clicks-summary",
        "process/daily-report"]
    assert config.feed("raw-clicks").cluster("backup").retention.limit == Frequency(TimeUnit.MONTHS, 6)
    assert [str(ref) for ref in config.dependencies(config.process("clicks-summary"))] == [
        "cluster/primary", "feed/raw-clicks", "feed/customer-emails", "feed/clicks-table"]


def test_cluster_with_every_interface_location_and_properties(repo: Path) -> None:
    cluster = data(repo / "clusters" / "primary.yaml")
    assert cluster == {
        "kind": "cluster",
        "name": "primary",
        "description": "The production Hadoop cluster",
        "colo": "us-east",
        "tags": {"owner": "platform-team", "env": "prod"},
        "interfaces": {
            "readonly": {"endpoint": "hftp://nn.example.com:50070", "version": "2.7.3"},
            "write": {"endpoint": "hdfs://nn.example.com:8020", "version": "2.7.3"},
            "execute": {"endpoint": "rm.example.com:8050", "version": "2.7.3"},
            "workflow": {"endpoint": "http://oozie.example.com:11000/oozie/", "version": "4.2.0"},
            "messaging": {"endpoint": "tcp://mq.example.com:61616?daemon=true", "version": "5.4.6"},
            "registry": {"endpoint": "thrift://hms.example.com:9083", "version": "1.2.1"},
        },
        "locations": {"staging": "/apps/falcon/primary/staging", "temp": "/tmp",
                      "working": "/apps/falcon/primary/working"},
        "ACL": {"owner": "falcon", "group": "hadoop", "permission": "0755"},
        "properties": {"brokerImplClass": "org.apache.activemq.ActiveMQConnectionFactory", "queueName": "default",
                       "spark.sql.shuffle.partitions": "200"},
    }
    assert list(cluster) == ["kind", "name", "description", "colo", "tags", "interfaces", "locations", "ACL",
                             "properties"]


def test_file_feed_with_a_source_and_a_target_cluster(repo: Path) -> None:
    feed = data(repo / "feeds" / "raw-clicks.yaml")
    assert feed == {
        "kind": "feed",
        "name": "raw-clicks",
        "description": "Raw click logs, one folder per hour",
        "tags": {"owner": "web-analytics", "classification": "internal"},
        "partitions": ["country", "device"],
        "groups": ["online", "bi"],
        "availabilityFlag": "_SUCCESS",
        "frequency": "hours(1)",
        "sla": {"slaLow": "hours(2)", "slaHigh": "hours(3)"},
        "timezone": "UTC",
        "late-arrival": {"cut-off": "hours(6)"},
        "clusters": [
            {
                "name": "primary",
                "type": "source",
                "partition": "${cluster.colo}/*",
                "validity": VALIDITY,
                "retention": {"limit": "days(10)", "action": "delete"},
                "sla": {"slaLow": "hours(1)", "slaHigh": "hours(2)"},
            },
            {
                "name": "backup",
                "type": "target",
                "delay": "hours(1)",
                "validity": VALIDITY,
                "retention": {"limit": "months(6)", "action": "delete", "type": "instance"},
                "locations": {"data": "/replica/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"},
            },
        ],
        "locations": {
            "data": "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}",
            "stats": "/projects/falcon/clicksStats",
            "meta": "/projects/falcon/clicksMetaData",
        },
        "notification": {"type": "email", "level": "attempt", "to": "ops@example.com,web@example.com"},
        "ACL": {"owner": "etl", "group": "analytics", "permission": "0755"},
        "schema": {"location": "/schemas/clicks.avsc", "provider": "avro"},
        "properties": {"queueName": "etl", "jobPriority": "VERY_HIGH", "timeout": "hours(1)", "parallel": "3"},
    }
    assert list(feed) == ["kind", "name", "description", "tags", "partitions", "groups", "availabilityFlag",
                          "frequency", "sla", "timezone", "late-arrival", "clusters", "locations", "notification",
                          "ACL", "schema", "properties"]


def test_table_feed_with_a_retention_stage(repo: Path) -> None:
    assert data(repo / "feeds" / "clicks-table.yaml") == {
        "kind": "feed",
        "name": "clicks-table",
        "description": "Hourly click summaries in Hive",
        "frequency": "hours(1)",
        "timezone": "UTC",
        "clusters": [{"name": "primary", "type": "source", "validity": {**VALIDITY, "start": "2012-07-20T00:00Z"},
                      "retention": {"limit": "days(30)", "action": "delete"}}],
        "table": {"uri": "catalog:logs-db:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}"},
        "ACL": {"owner": "etl", "group": "analytics", "permission": "0755"},
        "schema": {"location": "hcat", "provider": "hcat"},
        "lifecycle": {"retention-stage": {"frequency": "hours(10)", "queue": "retention", "priority": "HIGH",
                                          "properties": {"retention.policy.agebaseddelete.limit": "hours(9)"}}},
    }


def test_pig_process_with_inputs_outputs_retry_late_data_and_slas(repo: Path) -> None:
    process = data(repo / "processes" / "clicks-summary.yaml")
    assert process == {
        "kind": "process",
        "name": "clicks-summary",
        "tags": {"owner": "web-analytics", "department": "forecasting"},
        "pipelines": ["clickStream", "reporting"],
        "clusters": [{"name": "primary", "validity": {"start": "2016-01-01T00:00Z", "end": "2016-03-01T00:00Z"},
                      "sla": {"shouldStartIn": "minutes(30)", "shouldEndIn": "hours(2)"}}],
        "parallel": 2,
        "order": "FIFO",
        "timeout": "hours(4)",
        "frequency": "hours(1)",
        "sla": {"shouldStartIn": "hours(1)", "shouldEndIn": "hours(3)"},
        "timezone": "UTC",
        "inputs": [
            {"name": "clicks", "feed": "raw-clicks", "start": "now(-2,0)", "end": "now(0,0)", "partition": "*/US"},
            {"name": "emails", "feed": "customer-emails", "start": "today(0,0)", "end": "today(0,0)",
             "optional": True},
        ],
        "outputs": [{"name": "summary", "feed": "clicks-table", "instance": "now(0,0)"}],
        "properties": {"queueName": "reports", "mapred.job.priority": "HIGH"},
        "workflow": {"name": "clicks-summary-wf", "version": "2.0", "engine": "pig",
                     "path": "/apps/clicks/summary.pig", "lib": "/apps/clicks/lib"},
        "retry": {"policy": "exp-backoff", "delay": "minutes(10)", "attempts": 3, "onTimeout": True},
        "late-process": {
            "policy": "exp-backoff",
            "delay": "hours(1)",
            "late-inputs": [{"input": "clicks", "workflow-path": "/apps/clicks/late/summary.pig"},
                            {"input": "emails", "workflow-path": "/apps/clicks/late/emails.pig"}],
        },
        "notification": {"type": "email", "level": "attempt", "to": "ops@example.com"},
        "ACL": {"owner": "etl", "group": "analytics", "permission": "*"},
    }
    assert list(process) == ["kind", "name", "tags", "pipelines", "clusters", "parallel", "order", "timeout",
                             "frequency", "sla", "timezone", "inputs", "outputs", "properties", "workflow", "retry",
                             "late-process", "notification", "ACL"]


def test_oozie_process_gets_falcons_default_engine_and_keeps_its_versions(repo: Path) -> None:
    assert data(repo / "processes" / "daily-report.yaml") == {
        "kind": "process",
        "name": "daily-report",
        "version": 3,
        "clusters": [{"name": "primary", "validity": {"start": "2012-07-21T00:00Z", "end": "2099-07-16T00:00Z"},
                      "version": 1}],
        "parallel": 1,
        "order": "LAST_ONLY",
        "frequency": "days(1)",
        "timezone": "America/Los_Angeles",
        "inputs": [{"name": "summaries", "feed": "clicks-table", "start": "yesterday(0,0)",
                    "end": "yesterday(23,0)"}],
        "workflow": {"engine": "oozie", "path": "/apps/reports/daily"},
        "retry": {"policy": "periodic", "delay": "minutes(30)", "attempts": 2},
    }


# -- the template's entities, back from their Falcon XML ------------------------------------------------

TEMPLATE_AS_FALCON = {
    "clusters/primary.yaml": """\
<cluster name="primary" colo="local" xmlns="uri:falcon:cluster:0.1"
    description="The main cluster of the demo, whose file system is a local directory so that it runs on one machine.">
    <tags>env=demo</tags>
    <interfaces>
        <interface type="readonly" endpoint="file:///tmp/feed-toolkit-demo/primary" version="3.4"/>
        <interface type="write" endpoint="file:///tmp/feed-toolkit-demo/primary" version="3.4"/>
        <interface type="execute" endpoint="spark://127.0.0.1:7077" version="4.0"/>
        <interface type="workflow" endpoint="cron://localhost" version="1.0"/>
        <interface type="registry" endpoint="thrift://127.0.0.1:9083" version="2.3"/>
    </interfaces>
    <locations>
        <location name="staging" path="/feed-toolkit/staging"/>
        <location name="temp" path="/feed-toolkit/temp"/>
        <location name="working" path="/feed-toolkit/working"/>
    </locations>
    <properties>
        <property name="spark.sql.shuffle.partitions" value="4"/>
    </properties>
</cluster>
""",
    "feeds/clicks.yaml": """\
<feed name="clicks" xmlns="uri:falcon:feed:0.1"
      description="Raw click events of the web site, one JSON object per line (ts, user, page), one folder per hour.">
    <tags>owner=web-analytics,source=web-frontend</tags>
    <groups>web</groups>
    <availabilityFlag>_SUCCESS</availabilityFlag>
    <frequency>hours(1)</frequency>
    <sla slaLow="hours(2)" slaHigh="hours(4)"/>
    <timezone>UTC</timezone>
    <late-arrival cut-off="hours(6)"/>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2025-12-01T00:00Z" end="2099-12-31T00:00Z"/>
            <retention limit="days(90)" action="delete"/>
        </cluster>
        <cluster name="backup" type="target">
            <validity start="2025-12-01T00:00Z" end="2099-12-31T00:00Z"/>
            <retention limit="months(12)" action="delete"/>
            <locations>
                <location type="data" path="/replica/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>
            </locations>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>
    </locations>
    <ACL owner="etl" group="analytics" permission="0755"/>
</feed>
""",
    # pyspark is no engine of Falcon's, and the converter keeps engine names as written, so it comes back;
    # Falcon processes have no description.
    "processes/hourly-clicks-summary.yaml": """\
<process name="hourly-clicks-summary" xmlns="uri:falcon:process:0.1">
    <tags>owner=web-analytics</tags>
    <pipelines>clicks</pipelines>
    <clusters>
        <cluster name="primary">
            <validity start="2026-01-01T00:00Z" end="2099-12-31T00:00Z"/>
        </cluster>
    </clusters>
    <parallel>2</parallel>
    <order>FIFO</order>
    <timeout>hours(4)</timeout>
    <frequency>hours(1)</frequency>
    <sla shouldStartIn="hours(2)" shouldEndIn="hours(3)"/>
    <timezone>UTC</timezone>
    <inputs>
        <input name="clicks" feed="clicks" start="now(-2,0)" end="now(0,0)"/>
    </inputs>
    <outputs>
        <output name="summary" feed="clicks-hourly-summary" instance="now(0,0)"/>
    </outputs>
    <workflow name="hourly-clicks-summary" engine="pyspark" path="workflows/hourly_clicks_summary.py"/>
    <retry policy="periodic" delay="minutes(5)" attempts="3"/>
    <late-process policy="exp-backoff" delay="hours(1)">
        <late-input input="clicks" workflow-path="workflows/hourly_clicks_summary.py"/>
    </late-process>
</process>
""",
}


@pytest.mark.parametrize("entity_file", sorted(TEMPLATE_AS_FALCON))
def test_template_entities_round_trip_through_falcon_xml(convert: Run, tmp_path: Path, entity_file: str) -> None:
    source = tmp_path / "falcon.xml"
    source.write_text(TEMPLATE_AS_FALCON[entity_file], encoding="utf-8")
    assert convert(source, "--out", tmp_path / "conf")[0] == 0
    expected = data(TEMPLATE / entity_file)
    if entity_file.startswith("processes/"):
        del expected["description"]
    assert data(tmp_path / "conf" / entity_file) == expected


# -- empty attributes that Falcon's own tools write for "none" ------------------------------------------

EMPTY_LIB_PROCESS = """\
<process name="mirror" xmlns="uri:falcon:process:0.1">
    <clusters><cluster name="primary"><validity start="2026-01-01T00:00Z" end="2026-02-01T00:00Z"/></cluster></clusters>
    <parallel>1</parallel>
    <order>FIFO</order>
    <frequency>days(1)</frequency>
    <workflow name="mirror-wf" engine="oozie" path="/apps/mirror/workflow.xml" lib=""/>
    <retry policy="periodic" delay="minutes(30)" attempts="3"/>
</process>
"""

EMPTY_SCHEMA_FEED = """\
<feed name="customers" description="A Hive table" xmlns="uri:falcon:feed:0.1">
    <frequency>hours(1)</frequency>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
            <retention limit="days(7)" action="delete"/>
        </cluster>
    </clusters>
    <table uri="catalog:default:customers#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}"/>
    <ACL owner="etl" group="analytics" permission="0755"/>
    <schema location="" provider="hcatalog"/>
</feed>
"""


def test_an_empty_lib_and_an_empty_schema_location_are_converted_as_absent(convert: Run, tmp_path: Path) -> None:
    """Falcon's extension builder writes `lib=""` for a workflow without libraries, and its Hive examples
    `<schema location="">`: both mean that there is none, so the YAML has no such field (an empty string is
    no path the linter could accept)."""
    (tmp_path / "process.xml").write_text(EMPTY_LIB_PROCESS, encoding="utf-8")
    (tmp_path / "feed.xml").write_text(EMPTY_SCHEMA_FEED, encoding="utf-8")
    code, _, err = convert(tmp_path / "process.xml", tmp_path / "feed.xml", "--out", tmp_path / "conf")
    assert (code, err) == (0, "")
    assert data(tmp_path / "conf" / "processes" / "mirror.yaml")["workflow"] == {
        "name": "mirror-wf", "engine": "oozie", "path": "/apps/mirror/workflow.xml"}
    assert data(tmp_path / "conf" / "feeds" / "customers.yaml")["schema"] == {"provider": "hcatalog"}
    document, problems = load_document(tmp_path / "conf" / "feeds" / "customers.yaml")
    assert problems == [] and document is not None
