"""`toolkit schema` and `toolkit deps` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli.main import main

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_schema_write_gives_the_schemas_the_template_points_at(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    code, out, _ = run(capsys, "schema", "--write", str(tmp_path / "schemas"))
    assert code == 0 and len(out.splitlines()) == 5
    for kind in ("cluster", "feed", "process", "datasource"):
        written = (tmp_path / "schemas" / f"{kind}.json").read_text()
        assert written == (TEMPLATE / ".schemas" / f"{kind}.json").read_text()
        assert json.loads(written)["$schema"] == "http://json-schema.org/draft-07/schema#"


def test_schema_kind_prints_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "--kind", "process")
    assert code == 0 and "late-process" in json.loads(out)["properties"]


@pytest.mark.parametrize("argv", [["schema"], ["schema", "--kind", "dataset"],
                                  ["schema", "--kind", "feed", "--write", "x"], ["schema", "--write", "/proc/nope"]])
def test_schema_bad_calls_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.startswith("toolkit: ")


def test_deps_of_a_feed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deps", "clicks-hourly-summary", "--repo", str(TEMPLATE))
    assert code == 0
    assert out.splitlines() == [
        "feed/clicks-hourly-summary",
        "  depends on:",
        "    cluster/primary",
        "  used by:",
        "    process/daily-clicks-rollup",
        "    process/hourly-clicks-summary",
    ]


def test_deps_of_a_cluster_is_transitive(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "deps", "cluster/backup", "--repo", str(TEMPLATE))
    assert code == 0
    assert out.splitlines() == ["cluster/backup", "  depends on:", "    (nothing)", "  used by:",
                                "    feed/clicks", "      process/hourly-clicks-summary", "    feed/visits"]


def test_deps_of_an_unknown_entity(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "deps", "nope", "--repo", str(TEMPLATE))
    assert code == 2 and "No cluster, feed, process, datasource or mirror is named 'nope'" in err
