"""`toolkit init`: a new config repo that lints clean, and the folders and names it refuses without writing."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli.main import main
from toolkit.lint.runner import lint_repo


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["init", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_new_repo_lints_clean_and_names_its_cluster_and_root(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(tmp_path / "conf"), "--cluster", "primary", "--root", "hdfs://nn:8020")
    assert code == 0 and out == ""
    assert err.startswith("init: wrote a config repo for cluster 'primary' on hdfs://nn:8020 in ")
    repo = tmp_path / "conf"
    assert sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file()) == [
        ".pre-commit-config.yaml", "README.md", "clusters/primary.yaml", "feeds/event-counts.yaml",
        "feeds/events.yaml", "processes/hourly-event-counts.yaml", "workflows/hourly_event_counts.sql"]
    assert lint_repo(repo).problems == ()
    assert "endpoint: hdfs://nn:8020" in (repo / "clusters/primary.yaml").read_text()
    assert "--cluster primary" in (repo / "README.md").read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["conf"]  # no staging folder left beside it


def test_an_empty_folder_is_filled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "conf").mkdir()
    assert run(capsys, str(tmp_path / "conf"))[0] == 0
    assert "file:///tmp/feed-toolkit/local" in (tmp_path / "conf/clusters/local.yaml").read_text()


@pytest.mark.parametrize("setup, expected", [
    ("nonempty", "is not empty: give a new or empty folder (toolkit init never overwrites)."),
    ("file", "exists and is not a folder: give the path of a new folder."),
    ("link", "exists and is not a folder: give the path of a new folder."),
])
def test_a_folder_in_the_way_is_refused_and_left(tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str,
                                                 expected: str) -> None:
    target = tmp_path / "conf"
    if setup == "nonempty":
        target.mkdir()
        (target / "mine.txt").write_text("keep")
    elif setup == "file":
        target.write_text("keep")
    else:
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    code, _, err = run(capsys, str(target))
    assert code == 2 and err.strip() == f"toolkit: {target} {expected}"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["conf", *(["elsewhere"] if setup == "link" else [])])
    if setup == "link":
        assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("option, value", [("--cluster", "Bad Name"), ("--root", "s3a://bucket/x")])
def test_a_name_or_root_the_linter_refuses_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          option: str, value: str) -> None:
    code, _, err = run(capsys, str(tmp_path / "conf"), option, value)
    assert code == 2 and err.startswith("toolkit: toolkit init cannot write this repo: ")
    assert err.strip().endswith("(give another --cluster or --root); nothing was written.")
    assert list(tmp_path.iterdir()) == []
