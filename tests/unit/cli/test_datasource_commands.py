"""A repo with a datasource and feeds that import from and export to it goes through every command that reads
the whole repo (lint, deps, graph, schedule), and the datasource's password-text appears in none of their output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.unit.entities.datasource_samples import DATASOURCE_TEXT, EXPORTED, IMPORTED, SECRET
from tests.unit.entities.entity_samples import TEMPLATE
from toolkit.cli.main import main

# the exported feed's interface, its password in the same password-text credential as the readonly one's
WRITE_INTERFACE = f"""\
  write:
    endpoint: jdbc:postgresql://db.example:5432/sales
  credential: {{type: password-text, userName: reader, passwordText: {SECRET}}}
driver:"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The template repo with the datasource sales-db (a password-text credential), an imported feed and an
    exported one."""
    root = tmp_path / "conf"
    shutil.copytree(TEMPLATE, root)
    (root / "datasources").mkdir(exist_ok=True)
    (root / "datasources" / "sales-db.yaml").write_text(DATASOURCE_TEXT.replace("driver:", WRITE_INTERFACE),
                                                        encoding="utf-8")
    (root / "feeds" / "customers.yaml").write_text(IMPORTED, encoding="utf-8")
    (root / "feeds" / "daily-sales.yaml").write_text(EXPORTED, encoding="utf-8")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    assert SECRET not in out and SECRET not in err, f"the password is in the output of {argv}"
    return code, out, err


@pytest.mark.parametrize("format_", ["text", "json", "github"])
def test_lint_warns_of_the_password_text_and_never_prints_it(capsys: pytest.CaptureFixture[str], repo: Path,
                                                            format_: str) -> None:
    code, out, _ = run(capsys, "lint", repo, "--format", format_)
    assert code == 0  # a warning
    assert "DS002" in out and "the password of user 'reader' is in the repo" in out
    if format_ == "json":
        assert [problem["code"] for problem in json.loads(out)] == ["DS002", "DS002"]  # one per credential


def test_lint_reports_a_missing_datasource_without_the_password(capsys: pytest.CaptureFixture[str],
                                                                repo: Path) -> None:
    feed = repo / "feeds" / "customers.yaml"
    feed.write_text(feed.read_text(encoding="utf-8").replace("name: sales-db", "name: crm-db"), encoding="utf-8")
    code, out, _ = run(capsys, "lint", repo)
    assert code == 1
    assert "RP004 Feed 'customers': clusters[0].import.source.name 'crm-db' is not defined in this repo" in out


def test_a_schema_error_in_the_datasource_does_not_print_the_password(capsys: pytest.CaptureFixture[str],
                                                                     repo: Path) -> None:
    source = repo / "datasources" / "sales-db.yaml"
    source.write_text(DATASOURCE_TEXT.replace("      passwordText:", "      passwordFile: /p\n      passwordText:"),
                      encoding="utf-8")
    code, out, _ = run(capsys, "lint", repo)
    assert code == 1 and "holds a password field its type does not use" in out


def test_deps_shows_the_datasource_and_its_feeds(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, out, _ = run(capsys, "deps", "sales-db", "--repo", repo)
    assert code == 0
    assert out.splitlines() == ["datasource/sales-db", "  depends on:", "    (nothing)", "  used by:",
                                "    feed/customers", "    feed/daily-sales"]
    code, out, _ = run(capsys, "deps", "feed/customers", "--repo", repo)
    assert code == 0 and "    datasource/sales-db" in out.splitlines()


def test_graph_draws_the_repo_with_a_datasource(capsys: pytest.CaptureFixture[str], repo: Path,
                                                tmp_path: Path) -> None:
    for format_ in ("dot", "mermaid"):
        code, out, err = run(capsys, "graph", "--repo", repo, "--format", format_)
        assert (code, err) == (0, "") and "customers" in out
    page = tmp_path / "graph.html"
    code, _, _ = run(capsys, "graph", "--repo", repo, "--out", page)
    assert code == 0 and SECRET not in page.read_text(encoding="utf-8")


def test_schedule_calls_the_import_and_export_and_never_prints_the_password(capsys: pytest.CaptureFixture[str],
                                                                            repo: Path) -> None:
    code, out, err = run(capsys, "schedule", "--repo", repo, "--cluster", "primary",
                         "--spark-submit", "/opt/spark/bin/spark-submit", "--toolkit", "/opt/toolkit/bin/toolkit",
                         "--entrypoints", "/opt/toolkit/entrypoints", "--repo-path", "/srv/conf")
    assert code == 0, err
    assert "--process hourly-clicks-summary" in out  # the rest of the repo is scheduled as before
    import_line = next(line for line in out.splitlines() if '"$ENTRYPOINTS/import.py"' in line)
    export_line = next(line for line in out.splitlines() if '"$ENTRYPOINTS/export.py"' in line)
    assert '"$ENTRYPOINTS/import.py" --repo "$CONF_REPO" --feed customers --cluster primary' in import_line
    assert '"$ENTRYPOINTS/export.py" --repo "$CONF_REPO" --feed daily-sales --cluster primary' in export_line
    # The JDBC driver is on the driver's class path from the start (no ADD JAR at run time).
    for line in (import_line, export_line):
        assert line.split("--jars ", 1)[1].startswith("/usr/share/java/postgresql.jar ")
    assert SECRET not in out + err


# a datasource that writes its passwords inline: in its URL (Oracle thin's user/password@) and in a property
INLINE = "Inl1ne-Pw"
INLINE_DATASOURCE = f"""\
kind: datasource
name: crm-db
type: postgres
interfaces:
  readonly:
    endpoint: jdbc:oracle:thin:crm/{INLINE}@//crm.example:1521/CRM
    properties: {{sslpassword: {INLINE}}}
  credential: {{type: password-file, userName: crm, passwordFile: /secrets/crm.password}}
driver:
  clazz: oracle.jdbc.OracleDriver
  jar: [/usr/share/java/ojdbc.jar]
"""


@pytest.mark.parametrize("argv", [
    ["lint", "{repo}"], ["lint", "{repo}", "--format", "json"], ["lint", "{repo}", "--format", "github"],
    ["deps", "crm-db", "--repo", "{repo}"], ["graph", "--repo", "{repo}", "--format", "dot"],
    ["graph", "--repo", "{repo}", "--out", "{page}"],
    ["schedule", "--repo", "{repo}", "--cluster", "primary", "--spark-submit", "/opt/spark/bin/spark-submit",
     "--toolkit", "/opt/toolkit/bin/toolkit", "--entrypoints", "/opt/toolkit/entrypoints", "--repo-path", "/srv/conf"],
])
def test_no_command_prints_a_password_written_inline_in_a_url_or_a_property(
        capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, argv: list[str]) -> None:
    (repo / "datasources" / "crm-db.yaml").write_text(INLINE_DATASOURCE, encoding="utf-8")
    page = tmp_path / "graph.html"
    main([arg.format(repo=repo, page=page) for arg in argv])
    out, err = capsys.readouterr()
    assert INLINE not in out + err + (page.read_text(encoding="utf-8") if page.exists() else "")
    if argv[0] == "lint":
        assert "DS001" in out and "DS003" in out and "jdbc:oracle:thin:crm/***@//crm.example:1521/CRM" in out
