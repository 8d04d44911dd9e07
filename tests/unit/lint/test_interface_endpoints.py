"""CL002 on each interface's endpoint forms: Falcon's own (`host:port` for the job tracker or resource manager,
`localoozie` for the workflow engine, Spark masters such as `yarn-client` for the spark interface) pass;
garbage is still refused, naming the interface and the value."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.runner import lint_paths

BACKUP = "clusters/backup.yaml"


def cl002(tmp_path: Path, interface: str, endpoint: str) -> list[str]:
    """The CL002 messages of the template with the backup cluster's `interface` endpoint set to `endpoint`."""
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    cluster = root / BACKUP
    text = cluster.read_text()
    old = {"execute": "spark://127.0.0.1:7077", "workflow": "cron://localhost",
           "readonly": "file:///tmp/feed-toolkit-demo/backup"}.get(interface)
    if old is not None:
        text = text.replace(f"endpoint: {old}", f"endpoint: \"{endpoint}\"", 1)  # readonly comes before write
    else:
        text = text.replace("interfaces:\n", f"interfaces:\n  {interface}:\n    endpoint: \"{endpoint}\"\n", 1)
    cluster.write_text(text)
    problems = lint_paths([root]).problems
    assert [str(p) for p in problems if p.code.startswith(("YM", "SC"))] == []
    return [p.message for p in problems if p.code == "CL002"]


@pytest.mark.parametrize("endpoint", [
    "localhost:8021",  # Falcon's documentation and examples: the job tracker
    "rm.example.com:8050",  # a resource manager
    "10.0.0.7:8032",
    "[::1]:8032",
    "spark://127.0.0.1:7077",
    "yarn",
    "local[2]",
    "k8s://https://kubernetes.example.com:6443",
])
def test_execute_accepts_host_port_spark_masters_and_uris(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "execute", endpoint) == []


@pytest.mark.parametrize("endpoint", [
    "localhost:", ":8021", "localhost:99999", "localhost:0", "local host:8021", "localhost:80a", "spark//h:7077",
    "-bad-.example.com:8021", "h_st:8021",
])
def test_execute_refuses_garbage(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "execute", endpoint) == [
        f"Cluster 'backup': interfaces.execute.endpoint {endpoint!r} is neither a URI with a scheme "
        "(spark://master:7077), a Spark master (yarn, local[*]) nor Falcon's host:port of a job tracker or "
        "resource manager (rm.example.com:8032); write one of those."]


@pytest.mark.parametrize("endpoint", ["localoozie", "http://localhost:11000/oozie/", "cron://localhost"])
def test_workflow_accepts_falcons_localoozie_and_uris(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "workflow", endpoint) == []


@pytest.mark.parametrize("endpoint", ["oozie", "localhost:11000"])
def test_workflow_refuses_other_words_and_host_port(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "workflow", endpoint) == [
        f"Cluster 'backup': interfaces.workflow.endpoint {endpoint!r} is neither a URI with a scheme "
        "(http://oozie:11000/oozie) nor Falcon's localoozie; write one of those."]


@pytest.mark.parametrize("endpoint", ["yarn-client", "yarn-cluster", "yarn", "local", "local[*]", "local[2,3]",
                                      "spark://h:7077", "k8s://https://h:6443"])
def test_spark_interface_accepts_spark_masters(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "spark", endpoint) == []


@pytest.mark.parametrize("endpoint", ["yarn-foo", "h:7077", "local[x]"])
def test_spark_interface_refuses_what_spark_submit_would(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "spark", endpoint) == [
        f"Cluster 'backup': interfaces.spark.endpoint {endpoint!r} is not a Spark master; write a URI with a "
        "scheme (spark://master:7077, k8s://https://host:6443), yarn (Falcon's yarn-client and yarn-cluster "
        "too) or local[*]."]


@pytest.mark.parametrize("endpoint", ["localhost:8020", "namenode"])
def test_file_system_interfaces_still_need_a_scheme(tmp_path: Path, endpoint: str) -> None:
    assert cl002(tmp_path, "readonly", endpoint) == [
        f"Cluster 'backup': interfaces.readonly.endpoint {endpoint!r} is not a URI with a scheme; write it as "
        "scheme://host:port, e.g. hdfs://namenode:8020 or thrift://metastore:9083."]
