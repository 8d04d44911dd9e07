"""`toolkit plan --base REV` on a real git repository: the config repo in a folder of it, the base read at a
revision, the working tree or `--head REV` planned, bad revisions refused in one sentence (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, tree, utc

NOW = utc(2026, 11, 26, 0)
CLICKS = "conf/feeds/clicks.yaml"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(work: Path, *argv: str) -> str:
    done = subprocess.run(["git", "-C", str(work), *argv], capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV})
    return done.stdout.strip()


def toolkit(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # git looks no higher than the test's folder: the checkout running the tests is a git repository too
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(cwd.parent.parent)}
    return subprocess.run([sys.executable, "-m", "toolkit", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env=env)


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, Path]:
    """(a git work tree holding the config repo in conf/ and a README beside it, the cluster's root) with clicks
    instances 100, 50 and 5 days old; one commit."""
    work = tmp_path / "work"
    work.mkdir()
    repo, root = make_repo(work)
    (work / "README.md").write_text("the platform team's repository\n")
    for days in (100, 50, 5):
        hourly_instances(root, NOW - timedelta(days=days), 3)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "conf", "README.md")
    git(work, "commit", "-q", "-m", "base")
    assert repo == work / "conf"
    return work, root


def shorten(work: Path) -> None:
    path = work / CLICKS
    path.write_text(path.read_text().replace("limit: days(90)", "limit: days(7)", 1))


def test_the_working_tree_against_a_revision_of_a_config_repo_in_a_folder(work):
    work_tree, root = work
    shorten(work_tree)
    before = tree(root)
    done = toolkit(work_tree / "conf", "plan", "--repo", ".", "--base", "main", "--now", "2026-11-26T00:00Z",
                   "--format", "json")
    assert (done.returncode, done.stderr) == (1, "")
    report = json.loads(done.stdout)
    assert report["base"] == git(work_tree, "rev-parse", "main") and report["head"] == "working tree"
    [lost] = [change for change in report["changes"] if change["destructive"]]
    assert (lost["entity"], lost["cluster"], lost["count"], lost["first"]) == (
        "clicks", "primary", 3, "2026-10-07T00:00Z")
    assert tree(root) == before


def test_two_revisions_and_no_change_between_them(work):
    work_tree, _ = work
    shorten(work_tree)
    git(work_tree, "commit", "-q", "-am", "shorter retention")
    head = toolkit(work_tree, "plan", "--repo", "conf", "--base", "HEAD~1", "--head", "HEAD", "--now",
                   "2026-11-26T00:00Z")
    assert head.returncode == 1 and "LOSES DATA: feed 'clicks' on cluster 'primary'" in head.stdout
    same = toolkit(work_tree, "plan", "--repo", "conf", "--base", "HEAD", "--now", "2026-11-26T00:00Z")
    assert same.returncode == 0 and "no change to any entity" in same.stdout


@pytest.mark.parametrize(("revision", "message"), [
    ("no-such-branch", "toolkit: The revision 'no-such-branch' is not a commit of the git repository of conf"),
    ("--output=/tmp/x", "toolkit: The revision '--output=/tmp/x' starts with '-'"),
])
def test_a_revision_git_does_not_know_is_exit_2_in_one_sentence(work, revision, message):
    work_tree, _ = work
    done = toolkit(work_tree, "plan", "--repo", "conf", f"--base={revision}")
    assert done.returncode == 2 and done.stderr.startswith(message) and "Traceback" not in done.stderr


def test_a_config_repo_outside_git_is_exit_2(tmp_path):
    repo, _ = make_repo(tmp_path)
    done = toolkit(tmp_path, "plan", "--repo", str(repo), "--base", "HEAD")
    assert done.returncode == 2 and "is not in a git repository" in done.stderr


def test_a_folder_the_base_revision_did_not_have_is_compared_with_nothing(work):
    """A config repo added to an existing repository (the hook's first commit of it): every entity is added, and
    what its retention will evict at once is said; a head revision without the folder is refused."""
    work_tree, _ = work
    git(work_tree, "mv", "conf", "config")
    git(work_tree, "commit", "-q", "-m", "moved")
    done = toolkit(work_tree, "plan", "--repo", "config", "--base", "HEAD~1", "--now", "2026-11-26T00:00Z")
    lines = done.stdout.splitlines()
    assert "(without the config repo's folder) -> working tree" in lines[0]
    assert "  changed: feed 'clicks': added" in lines
    assert done.returncode == 1  # clicks' retention evicts its 100-day-old instances at its first call
    refused = toolkit(work_tree, "plan", "--repo", "config", "--base", "HEAD", "--head", "HEAD~1")
    assert refused.returncode == 2 and "did not exist at the head revision HEAD~1" in refused.stderr


def test_a_linked_or_export_ignored_entity_file_of_the_base_is_read(work):
    """The base is written from git's objects, not `git archive`, which leaves links and export-ignore'd files out:
    a feed whose file is a link (or is export-ignore'd) and is then deleted left its data orphaned, said as such."""
    work_tree, root = work
    conf = work_tree / "conf"
    (conf / "shared").mkdir()
    git(work_tree, "mv", "conf/feeds/clicks.yaml", "conf/shared/clicks.yaml")
    (conf / "feeds/clicks.yaml").symlink_to("../shared/clicks.yaml")
    (conf / ".gitattributes").write_text("feeds/page-views.yaml export-ignore\n")
    git(work_tree, "add", "conf")
    git(work_tree, "commit", "-q", "-m", "clicks defined through a link")
    git(work_tree, "rm", "-q", "conf/feeds/clicks.yaml", "conf/shared/clicks.yaml",
        "conf/processes/hourly-clicks-summary.yaml")
    done = toolkit(work_tree, "plan", "--repo", "conf", "--base", "HEAD", "--now", "2026-11-26T00:00Z",
                   "--format", "json", "--cluster", "primary")
    assert done.returncode == 1, done.stdout + done.stderr
    [orphaned] = [c for c in json.loads(done.stdout)["changes"] if c["destructive"]]
    assert (orphaned["entity"], orphaned["count"]) == ("clicks", 9)
    assert not [c for c in json.loads(done.stdout)["changes"] if c["entity"] == "page-views"]  # ignored, not removed
    assert root.exists()



@pytest.mark.parametrize("tmpdir", ["chosen", None])
def test_the_base_is_extracted_in_memory_unless_tmpdir_names_a_place(work, tmp_path, tmpdir):
    """A revision is a thousand small files: extracted in /dev/shm while it takes under a quarter of its room,
    unless TMPDIR names a place (the scheduler host's own choice wins); the plan is the same either way."""
    work_tree, _ = work
    shorten(work_tree)
    env = {key: value for key, value in os.environ.items() if key != "TMPDIR"}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmp_path / tmpdir)
        (tmp_path / tmpdir).mkdir()
    seen = subprocess.run([sys.executable, "-c", "from toolkit.views.plan.revisions import revision_scratch\n"
                           "with revision_scratch('toolkit-plan-', 1 << 20) as scratch: print(scratch.parent)"],
                          capture_output=True, text=True, env=env, check=True)
    room = os.statvfs("/dev/shm") if os.path.isdir("/dev/shm") else None
    in_memory = room is not None and room.f_bavail * room.f_frsize // 4 > 1 << 20  # a revision of 1 MiB
    assert seen.stdout.strip() == (str(tmp_path / tmpdir) if tmpdir else "/dev/shm" if in_memory else "/tmp")
    done = subprocess.run([sys.executable, "-m", "toolkit", "plan", "--repo", "conf", "--base", "HEAD", "--now",
                           "2026-11-26T00:00Z", "--format", "json"], capture_output=True, text=True, cwd=work_tree,
                          env={**env, "GIT_CEILING_DIRECTORIES": str(work_tree.parent.parent)})
    assert done.returncode == 1 and json.loads(done.stdout)["changes"][0]["count"] == 3
    if tmpdir is not None:  # the scratch folder is gone (in /dev/shm another test's may be there meanwhile)
        assert not [name for name in os.listdir(tmp_path / tmpdir) if name.startswith("toolkit-plan-")]
