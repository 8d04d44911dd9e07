"""The spark-submit command line of an engine-spark process, built as Falcon's SparkProcessWorkflowBuilder built
its Oozie spark action: the input arguments in the process's order (a file input's paths joined by commas, a
table input's partition filter, table and database), then the outputs' (a file output's path, a table output's
partitions, table and database), then spark-attributes' args; master, mode, name, class and spark-opts applied."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Cluster, Interface, Process
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.context import TableInput, TableOutput, WorkflowContext
from toolkit.extensions.workflow_engines.spark_command import (
    SparkApplication,
    application_arguments,
    application_entries,
    master_and_mode,
    submit_command,
    submit_confs,
)


def process(attributes: str = "jar: /apps/sessions/sessions.py", inputs: str = "", outputs: str = "",
            lib: str = "") -> Process:
    text = textwrap.dedent("""\
        kind: process
        name: sessions
        clusters:
          - name: primary
            validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}
        frequency: hours(1)
        """) + inputs + outputs + textwrap.dedent(f"""\
        workflow: {{engine: spark, path: /apps/sessions{lib}}}
        spark-attributes:
        """) + textwrap.indent(textwrap.dedent(attributes), "  ")
    entity, problems = parse_entity(text, Path("processes/sessions.yaml"))
    assert problems == [] and isinstance(entity, Process)
    return entity


def cluster(interfaces: str = "", properties: str = "") -> Cluster:
    text = textwrap.dedent("""\
        kind: cluster
        name: primary
        interfaces:
          write: {endpoint: "hdfs://nn:8020"}
          execute: {endpoint: "nn:8032"}
        """) + interfaces + "locations: {staging: /staging, working: /working}\n" + properties
    entity, problems = parse_entity(text, Path("clusters/primary.yaml"))
    assert problems == [] and isinstance(entity, Cluster)
    return entity


INPUTS = """\
inputs:
  - {name: clicks, feed: clicks, start: "now(-1,0)", end: "now(0,0)"}
  - {name: visits, feed: visits, start: "now(0,0)", end: "now(0,0)"}
  - {name: users, feed: users, start: "now(0,0)", end: "now(0,0)"}
"""
OUTPUTS = """\
outputs:
  - {name: summary, feed: summary, instance: "now(0,0)"}
  - {name: daily, feed: daily, instance: "now(0,0)"}
"""


def context(inputs: dict, outputs: dict) -> WorkflowContext:  # type: ignore[type-arg]
    return WorkflowContext("sessions", "primary", datetime(2026, 11, 21, 10, tzinfo=timezone.utc), "run1", 1,
                           inputs, outputs)


def test_arguments_are_the_inputs_then_the_outputs_then_args_in_falcons_order() -> None:
    ctx = context(
        {"clicks": ("hdfs://nn:8020/data/clicks/09", "hdfs://nn:8020/data/clicks/10"),
         "visits": TableInput("web", "visits", ({"ds": "2026-11-21", "hr": "10"}, {"ds": "2026-11-21", "hr": "11"})),
         "users": ("hdfs://nn:8020/data/users/10",)},
        {"summary": "hdfs://nn:8020/data/summary/.10.toolkit-run1-1",
         "daily": TableOutput("web", "daily__toolkit_run1", {"ds": "2026-11-21"})})
    spark = process("jar: /apps/sessions/sessions.py\nargs: [--day, '2026-11-21']\n", INPUTS, OUTPUTS)
    assert application_arguments(spark, ctx) == [
        "hdfs://nn:8020/data/clicks/09,hdfs://nn:8020/data/clicks/10",
        "(ds='2026-11-21' and hr='10') or (ds='2026-11-21' and hr='11')", "visits", "web",
        "hdfs://nn:8020/data/users/10",
        "hdfs://nn:8020/data/summary/.10.toolkit-run1-1",
        "ds='2026-11-21'", "daily__toolkit_run1", "web",
        "--day", "2026-11-21",
    ]


def test_a_missing_optional_input_keeps_the_positions_of_the_others() -> None:
    ctx = context({"clicks": ("/c",), "users": ("/u",)}, {})
    assert application_arguments(process(inputs=INPUTS), ctx) == ["/c", "", "/u"]


def with_spark_interface(primary: Cluster, endpoint: str) -> Cluster:
    """Falcon's `spark` interface (the lead adds it to the cluster schema; built here on the model)."""
    return replace(primary, interfaces={**primary.interfaces, "spark": Interface(type="spark", endpoint=endpoint)})


def test_master_from_the_process_then_the_clusters_spark_interface_then_the_session() -> None:
    lab = with_spark_interface(cluster(), "spark://lab:7077")
    assert master_and_mode(process("jar: a.py\nmaster: local[2]\n"), lab, "local[1]") == ("local[2]", None)
    assert master_and_mode(process("jar: a.py\n"), lab, "local[1]") == ("spark://lab:7077", None)
    assert master_and_mode(process("jar: a.py\nmode: client\n"), cluster(), "local[1]") == ("local[1]", "client")


@pytest.mark.parametrize(("attributes", "expected"), [
    ("master: yarn-client\n", ("yarn", "client")),
    ("master: yarn-cluster\n", ("yarn", "cluster")),
    ("master: yarn\nmode: cluster\n", ("yarn", "cluster")),
])
def test_falcons_yarn_masters_become_yarn_with_a_deploy_mode(attributes: str, expected: tuple[str, str]) -> None:
    assert master_and_mode(process("jar: a.jar\n" + attributes), cluster(), None) == expected


def test_a_deploy_mode_that_is_neither_client_nor_cluster_is_refused() -> None:
    with pytest.raises(UsageError) as raised:
        master_and_mode(process("jar: a.jar\nmode: local\n"), cluster(), "local[1]")
    assert str(raised.value) == ("The spark-attributes.mode 'local' of process 'sessions' is no deploy mode: give "
                                 "client or cluster.")
    assert raised.value.exit_code == 2


def test_without_any_master_the_run_is_refused() -> None:
    with pytest.raises(UsageError) as raised:
        master_and_mode(process("jar: a.jar\n"), cluster(), None)
    assert "has no Spark master: set spark-attributes.master" in str(raised.value)


def test_the_clusters_spark_properties_and_its_metastore_become_confs() -> None:
    primary = cluster("  registry: {endpoint: \"thrift://ms:9083\"}\n",
                      "properties: {spark.sql.shuffle.partitions: '8', queueName: etl}\n")
    assert submit_confs(primary, process()) == {"spark.sql.shuffle.partitions": "8",
                                                "spark.hadoop.hive.metastore.uris": "thrift://ms:9083"}


def test_the_whole_command_line() -> None:
    spark = process("""\
        master: yarn-cluster
        name: Sessions of the day
        class: org.example.Sessions
        jar: /apps/sessions/sessions.jar
        spark-opts: --num-executors 2 --conf "spark.driver.extraJavaOptions=-Dx=1 -Dy=2"
        args: [--verbose]
        """)
    app = SparkApplication("/apps/sessions/sessions.jar", "hdfs://nn:8020/apps/sessions/sessions.jar",
                           jars=("hdfs://nn:8020/apps/lib/a.jar",), py_files=())
    command = submit_command("/opt/spark/bin/spark-submit", spark, cluster(
        properties="properties: {spark.sql.shuffle.partitions: '8'}\n"), app, None, None)
    command += application_arguments(spark, context({}, {}))
    assert command == [
        "/opt/spark/bin/spark-submit", "--master", "yarn", "--deploy-mode", "cluster",
        "--name", "Sessions of the day", "--class", "org.example.Sessions",
        "--jars", "hdfs://nn:8020/apps/lib/a.jar", "--conf", "spark.sql.shuffle.partitions=8",
        "--num-executors", "2", "--conf", "spark.driver.extraJavaOptions=-Dx=1 -Dy=2",
        "hdfs://nn:8020/apps/sessions/sessions.jar", "--verbose",
    ]


def test_name_defaults_to_the_process_and_loopback_is_kept_in_client_mode() -> None:
    app = SparkApplication("a.py", "/repo/a.py")
    command = submit_command("spark-submit", process("jar: a.py\n"), cluster(), app, "local[1]", "127.0.0.1")
    assert command == ["spark-submit", "--master", "local[1]", "--name", "sessions",
                       "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
                       "/repo/a.py"]


def test_jars_and_py_files_of_spark_opts_are_merged_with_the_applications() -> None:
    app = SparkApplication("a.py", "/repo/a.py", jars=("/repo/x.jar",), py_files=("/repo/lib.zip",))
    spark = process("jar: a.py\nspark-opts: --jars /opt/hive/dn.jar --py-files=/opt/util.py --files /etc/h.xml\n")
    command = submit_command("spark-submit", spark, cluster(), app, "local[1]", None)
    assert command == ["spark-submit", "--master", "local[1]", "--name", "sessions",
                       "--jars", "/repo/x.jar,/opt/hive/dn.jar", "--py-files", "/repo/lib.zip,/opt/util.py",
                       "--files", "/etc/h.xml", "/repo/a.py"]


def test_unbalanced_quotes_in_spark_opts_are_refused() -> None:
    app = SparkApplication("a.py", "/repo/a.py")
    with pytest.raises(UsageError) as raised:
        submit_command("spark-submit", process("jar: a.py\nspark-opts: --conf 'a=b\n"), cluster(), app,
                       "local[1]", None)
    assert str(raised.value) == ("The spark-attributes.spark-opts of process 'sessions' cannot be split into "
                                 "options: No closing quotation; quote them as a shell would.")


def test_cluster_mode_on_a_standalone_master_waits_for_the_driver_and_refuses_python() -> None:
    jar = SparkApplication("a.jar", "hdfs://nn:8020/a.jar")
    spark = process("jar: a.jar\nmaster: spark://lab:7077\nmode: cluster\n")
    command = submit_command("spark-submit", spark, cluster(), jar, None, "127.0.0.1")
    assert command[command.index("--conf") + 1] == "spark.standalone.submit.waitAppCompletion=true"
    assert "spark.driver.host=127.0.0.1" not in command  # the driver runs on a worker
    python = SparkApplication("a.py", "hdfs://nn:8020/a.py")
    with pytest.raises(UsageError) as raised:
        submit_command("spark-submit", spark, cluster(), python, None, None)
    assert str(raised.value) == (
        "The Python application a.py of process 'sessions' cannot run in deploy mode cluster on the standalone "
        "master spark://lab:7077 (Spark does not support it): use mode client, or YARN or Kubernetes.")


def test_the_application_is_the_first_jar_entry_then_the_rest_and_workflow_lib() -> None:
    spark = process("jar: ' /apps/a.py, /apps/util.zip,,lib/helpers.py'\n", lib=", lib: 'x.jar,/apps/y.egg'")
    assert application_entries(spark) == (["/apps/a.py", "/apps/util.zip", "lib/helpers.py"], ["x.jar", "/apps/y.egg"])


def test_args_name_workflow_properties_as_oozie_resolved_them() -> None:
    ctx = WorkflowContext("sessions", "primary", datetime(2026, 11, 21, 10, tzinfo=timezone.utc), "run1", 1,
                          {}, {}, {"nominalTime": "2026-11-21-10-00", "inpaths": "/a,/b"})
    spark = process("jar: a.py\nargs: ['--at=${nominalTime}', '${inpaths}', '${unknown}', 'x$y']\n")
    assert application_arguments(spark, ctx) == ["--at=2026-11-21-10-00", "/a,/b", "${unknown}", "x$y"]


def test_the_process_queue_and_priority_win_over_the_clusters() -> None:
    primary = cluster("", "properties: {spark.yarn.queue: cluster-queue, spark.yarn.priority: '1'}\n")
    spark = replace(process(), properties={"queueName": "root.etl", "jobPriority": "HIGH"})
    assert submit_confs(primary, spark) == {"spark.yarn.queue": "root.etl", "spark.yarn.priority": "4"}
