"""`toolkit graph` from the command line: the page written atomically where --out says, the text formats
printed, statuses read from a local ledger, and every wrong call one sentence with exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.graph.ledger_history import write_history
from tests.unit.retention.retention_repo import TEMPLATE, make_repo
from toolkit.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def embedded(page: Path) -> dict:
    text = page.read_text()
    return json.loads(re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', text, re.S)[1])


def test_the_page_is_written_with_the_statuses_of_the_cluster(capsys, tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    write_history(conf)
    out = tmp_path / "pipelines.html"
    code, printed, err = run(capsys, "graph", "--repo", str(conf), "--cluster", "primary", "--ledger", "--out",
                             str(out))
    assert (code, err) == (0, "")
    assert printed == f"wrote {out}: 2 clusters, 9 feeds, 4 processes, 1 datasource, 12 edges\n"
    statuses = {node["id"]: node["status"] for node in embedded(out)["nodes"]}
    assert statuses["process/hourly-clicks-summary"] == "FAILED" and statuses["feed/clicks"] == "published"
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []  # no temporary left
    assert out.stat().st_mode & 0o044 == 0o044  # readable by others, as any file the user writes


def test_mermaid_and_dot_are_printed(capsys) -> None:
    code, printed, err = run(capsys, "graph", "--repo", str(TEMPLATE), "--format", "mermaid")
    assert (code, err) == (0, "")
    assert printed.startswith("flowchart LR\n") and '[/"clicks"/]' in printed and "-.->|\"clicks, visits\"|" in printed
    code, printed, err = run(capsys, "graph", "--repo", str(TEMPLATE), "--format", "dot", "--cluster", "backup")
    assert (code, err) == (0, "")
    assert printed.startswith('digraph "config_repo_template" {')
    assert '"cluster/primary" -> "cluster/backup"' in printed and "hourly-clicks-summary" not in printed


@pytest.mark.parametrize(("argv", "message"), [
    (["--format", "svg", "--out", "x.svg"], "Unknown --format 'svg': use html, dot or mermaid."),
    (["--ledger", "--out", "{tmp}/p.html"], "--ledger needs --cluster: statuses are read from the ledger of one "
                                            "cluster."),
    ([], "--format html needs --out FILE (the page to write), e.g. --out pipelines.html."),
    (["--out", "{tmp}/missing/p.html"], "--out {tmp}/missing/p.html: the folder {tmp}/missing does not exist; "
                                        "create it or give another path."),
    (["--out", "{tmp}"], "--out {tmp} is a folder: give the path of a file to write."),
    (["--cluster", "mars", "--format", "dot"], "Unknown cluster 'mars' in repo {conf}/: known clusters are backup, "
                                               "primary."),
])
def test_wrong_calls_are_one_sentence_and_exit_2(capsys, tmp_path: Path, argv: list[str], message: str) -> None:
    conf = str(TEMPLATE)
    filled = [item.format(tmp=tmp_path) for item in argv]
    code, printed, err = run(capsys, "graph", "--repo", conf, *filled)
    assert (code, printed) == (2, "")
    assert err == f"toolkit: {message.format(tmp=tmp_path, conf=conf)}\n"


def test_the_ledger_of_an_hdfs_cluster_without_a_webhdfs_address_is_refused(capsys, tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    backup = conf / "clusters" / "backup.yaml"
    backup.write_text(backup.read_text().replace(f"file://{tmp_path / 'backup'}", "hdfs://namenode:8020"))
    code, printed, err = run(capsys, "graph", "--repo", str(conf), "--cluster", "backup", "--ledger", "--format",
                             "dot")
    assert (code, printed) == (2, "")
    assert err.startswith("toolkit: The cluster 'backup' interfaces.readonly.endpoint 'hdfs://namenode:8020' is not a "
                          "WebHDFS address")
