"""CL008 on an HDFS cluster's readonly endpoint and webhdfs.* properties: WebHDFS addresses pass; an hdfs://
readonly endpoint is a warning (only the command line needs WebHDFS); a WebHDFS address with credentials, a path
or no host, a bad webhdfs.auth or a blank webhdfs.user are errors, and no password is ever repeated."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.runner import lint_paths


def cl008(tmp_path: Path, readonly: str, write: str = "hdfs://namenode:8020",
          properties: str = "") -> list[tuple[str, str]]:
    """(severity, message) of CL008 for the template's backup cluster with these endpoints and extra properties."""
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    cluster = root / "clusters/backup.yaml"
    text = cluster.read_text().replace("endpoint: file:///tmp/feed-toolkit-demo/backup", f'endpoint: "{readonly}"', 1)
    text = text.replace("endpoint: file:///tmp/feed-toolkit-demo/backup", f'endpoint: "{write}"', 1)
    if properties:
        text = text.replace("properties:\n", f"properties:\n{properties}", 1)
    cluster.write_text(text)
    problems = lint_paths([root]).problems
    assert [str(p) for p in problems if p.code.startswith(("YM", "SC"))] == []
    return [(p.severity.value, p.message) for p in problems if p.code == "CL008"]


@pytest.mark.parametrize("readonly", ["webhdfs://namenode:9870", "swebhdfs://namenode", "http://10.0.0.7:9870",
                                      "https://[::1]:9871/", "webhdfs://nn.example.com:50070/webhdfs/v1"])
def test_webhdfs_addresses_pass(tmp_path: Path, readonly: str) -> None:
    assert cl008(tmp_path, readonly) == []


def test_a_local_cluster_is_not_concerned(tmp_path: Path) -> None:
    assert cl008(tmp_path, "file:///tmp/x", "file:///tmp/x") == []


def test_an_hdfs_readonly_endpoint_is_a_warning_naming_the_fix(tmp_path: Path) -> None:
    assert cl008(tmp_path, "hdfs://namenode:8020") == [("warning", (
        "Cluster 'backup': interfaces.readonly.endpoint 'hdfs://namenode:8020' is not a WebHDFS address; the command "
        "line reads this cluster's ledger through WebHDFS at the readonly interface: write the namenode's HTTP "
        "address, e.g. webhdfs://namenode:9870 (swebhdfs:// or https:// for HTTPS)."))]


@pytest.mark.parametrize(("readonly", "fragment"), [
    ("webhdfs://etl:s3cret@namenode:9870", "holds a user name or password"),
    ("webhdfs://namenode:9870/user/etl", "has a path, query or fragment"),
    ("webhdfs://namenode:99999", "has no valid host and port"),
    ("http://:9870", "has no valid host and port"),
])
def test_webhdfs_addresses_that_cannot_work_are_errors(tmp_path: Path, readonly: str, fragment: str) -> None:
    found = cl008(tmp_path, readonly)
    assert len(found) == 1 and found[0][0] == "error" and fragment in found[0][1], found
    assert "s3cret" not in found[0][1]


def test_webhdfs_properties_are_checked(tmp_path: Path) -> None:
    found = cl008(tmp_path, "webhdfs://namenode:9870",
                  properties='  webhdfs.auth: "token"\n  webhdfs.user: "two words"\n')
    assert found == [("error", "Cluster 'backup': properties.webhdfs.auth 'token' is not one of simple, kerberos."),
                     ("error", "Cluster 'backup': properties.webhdfs.user 'two words' is not a user name (empty or "
                               "with blanks).")]
    assert cl008(tmp_path / "ok", "webhdfs://namenode:9870",
                 properties='  webhdfs.auth: "kerberos"\n  webhdfs.user: "etl"\n') == []
