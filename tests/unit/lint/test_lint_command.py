"""`toolkit lint` end to end on disk: output formats, exit codes, file selection, bad input of every
kind (each one error with file and line, the rest of the repo still linted), and no pyspark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.lint.overlay import TEMPLATE, fixture_repo
from toolkit.authoring.lint.runner import lint_paths
from toolkit.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return fixture_repo("RP004", tmp_path / "conf")  # hourly-clicks-summary reads the missing feed 'clickz'


def test_clean_template_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(TEMPLATE))
    assert (code, out) == (0, "")
    assert "0 error(s), 0 warning(s)" in err


def test_text_output_is_path_line_col_code_message(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, out, _ = run(capsys, str(repo))
    assert code == 1
    assert out.strip() == (
        f"{repo}/processes/hourly-clicks-summary.yaml:25:11: RP004 Process 'hourly-clicks-summary': "
        "inputs[0].feed 'clickz' is not defined in this repo; did you mean 'clicks'? known feeds: clicks, "
        "clicks-daily, clicks-daily-table, clicks-hourly-summary, page-view-counts, page-views, shop-orders, "
        "top-pages, visits."
    )


def test_json_output(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, out, _ = run(capsys, str(repo), "--format", "json")
    assert code == 1
    (problem,) = json.loads(out)
    assert problem["file"].endswith("processes/hourly-clicks-summary.yaml")
    assert (problem["line"], problem["column"], problem["code"], problem["severity"]) == (25, 11, "RP004", "error")
    assert problem["entity"] == "process/hourly-clicks-summary"


def test_github_output(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, out, _ = run(capsys, str(repo), "--format", "github")
    assert code == 1
    assert out.startswith(f"::error file={repo}/processes/hourly-clicks-summary.yaml,line=25,col=11,title=RP004::")


def test_warnings_pass_unless_strict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = fixture_repo("RP007", tmp_path / "conf")
    assert run(capsys, str(root))[0] == 0
    assert run(capsys, str(root), "--strict")[0] == 1


def test_a_rule_can_be_ignored_per_entity(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = fixture_repo("RP007", tmp_path / "conf")
    feed = root / "feeds" / "unused.yaml"
    feed.write_text(feed.read_text() + "lint:\n  ignore: [RP007]\n")
    assert run(capsys, str(root), "--strict")[0] == 0


def test_selected_files_report_their_own_problems_and_dangling_references(tmp_path: Path) -> None:
    root = fixture_repo("RP007", tmp_path / "conf")
    (root / "feeds" / "clicks-hourly-summary.yaml").unlink()  # still read and written by the processes
    report = lint_paths([root / "feeds" / "clicks.yaml"])
    # The unused feed's warning is in a file not selected; the dangling references are reported anyway.
    assert sorted({p.code for p in report.problems}) == ["RP004"]
    assert {p.file.name for p in report.problems} == {"hourly-clicks-summary.yaml", "daily-clicks-rollup.yaml"}
    assert report.files == 1


def test_cannot_run_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, str(tmp_path / "missing"))
    assert code == 2 and "No such file or directory" in err
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "is not inside a config repo" in err
    code, _, err = run(capsys, str(TEMPLATE), "--format", "xml")
    assert code == 2 and "Unknown --format 'xml'" in err


def test_list_rules_names_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--list-rules")
    codes = [line.split()[0] for line in out.splitlines()]
    assert code == 0
    assert {"YM001", "SC001", "CL001", "RP004", "RP007"} <= set(codes)
    assert "RP007  warning  A feed is used" in out
    assert "FD024  error    The retention action is one the toolkit runs" in out
    assert "RP009  error    Two feeds on one cluster have location templates that share folders." in out


BAD_FILES: dict[str, tuple[bytes, str, int]] = {
    "empty": (b"", "YM004", 1),
    "syntax": (b"kind: feed\nname: broken\nfrequency: [hours(1)\n", "YM002", 4),
    "binary": (b"\x00\x01\x02\xff\xfe kind", "YM001", 1),
    "latin1": ("kind: feed\nname: caf\u00e9\n".encode("latin-1"), "YM001", 2),  # the line of the bad byte
    "list-top": (b"- kind: feed\n- name: x\n", "YM005", 1),
    "duplicate": (b"kind: feed\nname: dup\nname: dup\n", "YM003", 3),
    "wrong-kind": (b"kind: dataset\nname: wrong-kind\n", "SC001", 1),
    "mapping-for-list": (b"kind: feed\nname: mapping-for-list\nfrequency: hours(1)\nclusters:\n  name: primary\n",
                         "SC001", 5),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_file_gives_one_error_and_the_rest_is_linted(name: str, tmp_path: Path) -> None:
    content, code, line = BAD_FILES[name]
    root = fixture_repo("RP004", tmp_path / "conf")
    (root / "feeds" / f"{name}.yaml").write_bytes(content)
    report = lint_paths([root])
    bad = [p for p in report.problems if p.file.name == f"{name}.yaml"]
    assert [(p.code, p.line) for p in bad][:1] == [(code, line)], [str(p) for p in bad]
    if code != "SC001":
        assert len(bad) == 1, [str(p) for p in bad]
    # The rest of the repo is still linted: the planted dangling reference is found.
    assert any(p.code == "RP004" and p.file.name == "hourly-clicks-summary.yaml" for p in report.problems)


def test_very_large_file_is_linted_without_trouble(tmp_path: Path) -> None:
    root = fixture_repo("RP004", tmp_path / "conf")
    tags = "".join(f"  tag{i}: value-{i}\n" for i in range(200_000))
    (root / "feeds" / "large.yaml").write_text(f"kind: feed\nname: large\ntags:\n{tags}frequency: hours(1)\n")
    report = lint_paths([root])
    large = [p for p in report.problems if p.file.name == "large.yaml"]
    assert large and all(p.code == "SC001" for p in large)
    assert large[0].line == 1  # the missing clusters/locations are reported at the top-level mapping


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(
    st.binary(max_size=300),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                 lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children,
                                                                                    max_size=4),
                 max_leaves=20).map(lambda value: __import__("yaml").safe_dump(value).encode()),
))
def test_random_input_only_ever_gives_problems(content: bytes, tmp_path: Path) -> None:
    root = tmp_path / "fuzz"
    (root / "feeds").mkdir(parents=True, exist_ok=True)
    (root / "feeds" / "random.yaml").write_bytes(content)
    report = lint_paths([root])  # must not raise
    assert all(p.line >= 1 and p.column >= 1 and p.code for p in report.problems)


def test_a_changed_feed_that_breaks_an_unchanged_process_is_reported(tmp_path: Path) -> None:
    root = fixture_repo("RP004", tmp_path / "conf")
    (root / "processes" / "hourly-clicks-summary.yaml").write_text(
        (TEMPLATE / "processes" / "hourly-clicks-summary.yaml").read_text())
    feed = root / "feeds" / "clicks-hourly-summary.yaml"
    feed.write_text(feed.read_text().replace("start: 2026-01-01T00:00Z", "start: 2026-06-01T00:00Z"))
    report = lint_paths([feed])  # what pre-commit passes: only the changed file
    # The reader's window and the writer's output now reach before the feed's validity.
    assert {(p.code, p.file.name) for p in report.problems} == {("PR007", "daily-clicks-rollup.yaml"),
                                                                ("PR017", "hourly-clicks-summary.yaml")}


def test_problems_of_given_files_keep_the_paths_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = fixture_repo("RP004", tmp_path / "conf")
    monkeypatch.chdir(root)
    report = lint_paths([Path("processes/hourly-clicks-summary.yaml")])
    assert [str(p.file) for p in report.problems] == ["processes/hourly-clicks-summary.yaml"]
