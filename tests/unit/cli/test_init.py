"""`toolkit init`: a new config repo that lints clean, and the folders and names it refuses without writing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkit.authoring.lint.runner import LintReport, lint_repo
from toolkit.cli.commands import init
from toolkit.cli.main import main


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


def test_a_root_the_linter_refuses_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path / "conf"), "--root", "s3a://bucket/x")
    assert code == 2 and err.startswith("toolkit: toolkit init cannot write this repo: ")
    assert err.strip().endswith("(give another --cluster or --root); nothing was written.")
    assert list(tmp_path.iterdir()) == []


def tree(top: Path) -> dict[str, str]:
    """Every file, folder and link under `top`: a file's text, a link's target."""
    return {str(path.relative_to(top)): (f"-> {os.readlink(path)}" if path.is_symlink() else
                                         "folder" if path.is_dir() else path.read_text())
            for path in sorted(top.rglob("*"))}


@pytest.mark.parametrize("cluster", ["../../../victim/primary", "victim/primary", "/tmp/primary", "..", "",
                                     "primary\nname: other", "{root}", "x" * 41, "primäry"])
@pytest.mark.parametrize("target", ["absent", "empty", "holding a file", "holding a link"])
def test_a_cluster_name_that_is_no_name_is_one_sentence_and_writes_nothing_anywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], cluster: str, target: str) -> None:
    """The cluster's name becomes a file's path (clusters/NAME.yaml) and its content: a name that climbs out of the
    repo, or breaks its YAML, is refused before anything is written, wherever the repo would go."""
    victim, conf = tmp_path / "a" / "b" / "victim", tmp_path / "a" / "b" / "c" / "conf"
    victim.mkdir(parents=True)
    (victim / "primary.yaml").write_text("theirs\n")
    conf.parent.mkdir()
    if target != "absent":
        conf.mkdir()
    if target == "holding a file":
        (conf / "mine.txt").write_text("keep\n")
    if target == "holding a link":
        (conf / "clusters").symlink_to(victim)
    before = tree(tmp_path)
    code, out, err = run(capsys, str(conf), "--cluster", cluster)
    assert tree(tmp_path) == before
    assert (code, out) == (2, "")
    assert err == (f"toolkit: --cluster {cluster!r} is not a cluster's name: use letters, digits and hyphens, "
                   "starting with a letter, at most 40 characters; nothing was written.\n")


@pytest.mark.parametrize("root", ["file:///tmp/x;touch${IFS}/tmp/pwned", "file:///tmp/x`id`", "file:///tmp/x$(id)",
                                  "file:///tmp/it's", 'file:///tmp/a"b', "file:///tmp/a&b", "file:///tmp/x#y",
                                  "file:///tmp/x?y", "hdfs://nn:8020/a;b", "hdfs://n;n:8020", "file:///tmp/x\n  foo: 1",
                                  "file:///tmp/../etc", "file:///tmp/./x", "file://tmp/x", "file:relative",
                                  "/tmp/no-scheme", "file:///tmp/a b", "file:///tmp/x\\y"])
def test_a_root_that_is_no_plain_uri_is_one_sentence_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], root: str) -> None:
    """The root goes into the cluster's YAML and, as a path, into the shell commands of the new repo's README: one
    that a shell or YAML would read otherwise is refused before anything is written."""
    code, out, err = run(capsys, str(tmp_path / "conf"), "--root", root)
    assert list(tmp_path.iterdir()) == []
    assert (code, out) == (2, "")
    assert err == (f"toolkit: --root {root!r} is not a root toolkit init can write: give file:///an/absolute/path "
                   "or scheme://host:port with an optional /path, its names made of letters, digits, '.', '_', '-' "
                   "and '+'; nothing was written.\n")


@pytest.mark.parametrize("root", ["file:///", "file:///tmp/feed-toolkit/v1.2_b+c", "hdfs://nn:8020",
                                  "hdfs://nn.example.com:8020/user/feeds", "viewfs://cluster1", "hdfs://10.0.0.1"])
def test_a_plain_root_is_written_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str], root: str) -> None:
    code, _, err = run(capsys, str(tmp_path / "conf"), "--root", root)
    assert code == 0, err
    assert f"    endpoint: {root}\n" in (tmp_path / "conf/clusters/local.yaml").read_text()


@pytest.mark.parametrize("planted", ["link", "file", "filled folder"])
def test_what_takes_the_folders_place_while_init_writes_is_left_and_nothing_written_through_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, planted: str) -> None:
    """Between the check of the folder and the rename of the staged repo (while it is linted), another process puts a
    link to a folder of its own, a file, or files where the repo goes: the rename never replaces nor writes through
    it, and the call is one sentence."""
    conf, victim = tmp_path / "conf", tmp_path / "victim"
    victim.mkdir()
    if planted == "filled folder":
        conf.mkdir()

    def lint_then_plant(repo: Path) -> LintReport:
        if planted == "link":
            conf.symlink_to(victim)
        elif planted == "file":
            conf.write_text("theirs\n")
        else:
            (conf / "theirs.txt").write_text("theirs\n")
        return lint_repo(repo)

    monkeypatch.setattr(init, "lint_repo", lint_then_plant)
    code, out, err = run(capsys, str(conf))
    assert list(victim.iterdir()) == []
    assert (code, out) == (2, "")
    assert err.startswith(f"toolkit: {conf} changed while toolkit init wrote the repo (")
    assert err.endswith("): give a new or empty folder; nothing was written.\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["conf", "victim"]  # the staged repo removed
