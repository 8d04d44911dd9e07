"""A revision planned or read by `toolkit plan` and `toolkit status --changed-since` is someone else's commit (a
pull request's ref, a fetched branch): git accepts trees no checkout makes, such as a symbolic link `clusters` to
a folder of this machine beside entries `clusters/...`. Materialising such a revision writes nothing through a link
and reads nothing outside the revision: every link that is not one of its files is one sentence naming it (exit 2),
and a revision's big files are streamed, never held in memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.cli.test_plan_git import GIT_ENV, git, toolkit
from tests.unit.retention.retention_repo import make_repo

NOW = "2026-11-26T00:00Z"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A git work tree holding the template's config repo in conf/, one commit on main."""
    work = tmp_path / "work"
    work.mkdir()
    make_repo(work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "conf")
    git(work, "commit", "-q", "-m", "base")
    return work


def blob(work: Path, content: bytes) -> str:
    done = subprocess.run(["git", "-C", str(work), "hash-object", "-w", "--stdin"], input=content,
                          capture_output=True, check=True, env={**os.environ, **GIT_ENV})
    return done.stdout.decode().strip()


def tree(work: Path, lines: list[str]) -> str:
    done = subprocess.run(["git", "-C", str(work), "mktree"], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, check=True, env={**os.environ, **GIT_ENV})
    return done.stdout.strip()


def listing(work: Path, treeish: str) -> list[str]:
    return git(work, "ls-tree", treeish).splitlines()


def commit_with(work: Path, conf_lines: list[str], replacing: str | None = None) -> str:
    """A commit on main whose conf/ holds main's entries (less `replacing`) and `conf_lines` (`git mktree` lines):
    a tree only `git mktree` makes, as a pull request's ref can deliver."""
    kept = [line for line in listing(work, "main:conf") if line.split("\t")[1] != replacing]
    conf = tree(work, [*kept, *conf_lines])
    top = tree(work, [line for line in listing(work, "main^{tree}") if not line.endswith("\tconf")]
               + [f"040000 tree {conf}\tconf"])
    return git(work, "commit-tree", top, "-p", "main", "-m", "hostile")


def clusters_through_a_link(work: Path, target: str) -> str:
    """conf/clusters a link to `target`, and also a folder of main's cluster files plus planted.txt."""
    planted = blob(work, b"planted by the commit\n")
    clusters = tree(work, [*listing(work, "main:conf/clusters"), f"100644 blob {planted}\tplanted.txt"])
    return commit_with(work, [f"120000 blob {blob(work, target.encode())}\tclusters",
                              f"040000 tree {clusters}\tclusters"], replacing="clusters")


def calls(revision: str) -> list[tuple[str, ...]]:
    """The commands that materialise `revision`: planned as the head, as the base, and read by status."""
    return [("plan", "--repo", "conf", "--base", "main", "--head", revision, "--now", NOW, "--offline"),
            ("plan", "--repo", "conf", "--base", revision, "--now", NOW, "--offline"),
            ("status", "--repo", "conf", "--process", "hourly-clicks-summary", "--cluster", "primary", "--now", NOW,
             "--changed-since", revision)]


def contents(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in folder.iterdir()}


@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
@pytest.mark.parametrize("call", range(3), ids=["plan-head", "plan-base", "status-changed-since"])
def test_a_link_out_of_the_revision_with_entries_below_it_writes_nothing_through_it(work, tmp_path, relative, call):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "planted.txt").write_text("the user's own file\n")
    target = os.path.relpath(victim, work / "conf") if relative else str(victim)
    revision = clusters_through_a_link(work, target)
    done = toolkit(work, *calls(revision)[call])
    assert contents(victim) == {"planted.txt": "the user's own file\n"}  # nothing created, nothing overwritten
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"toolkit: The revision {revision[:12]} holds a symbolic link 'conf/clusters' "
                                  f"to {target!r}, which is not a file of the config repo at that revision")


def test_a_link_whose_target_holds_a_nul_byte_is_one_sentence(work):
    revision = commit_with(work, [f"120000 blob {blob(work, b'a' + bytes(1) + b'b')}\tnotes"])
    done = toolkit(work, *calls(revision)[0])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"toolkit: The revision {revision[:12]} holds a symbolic link 'conf/notes' to 'a\\x00b', "
                           "which is not a file of the config repo at that revision: a revision's links are read only "
                           "when they name one of its files; replace the link with the file it stands for.\n")


def test_an_entry_below_a_link_to_a_file_of_the_revision_is_refused(work):
    """A link that names a file of the revision is read as that file (as a working tree reads it); an entry below
    it is a tree no checkout makes: refused, never written through the link."""
    below = tree(work, [f"100644 blob {blob(work, b'planted')}\tplanted.txt"])
    revision = commit_with(work, [f"120000 blob {blob(work, b'feeds/clicks.yaml')}\tnotes",
                                  f"040000 tree {below}\tnotes"])
    done = toolkit(work, *calls(revision)[0])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == (f"toolkit: The revision {revision[:12]} holds 'conf/notes/planted.txt' below its symbolic "
                           "link 'conf/notes', a tree no checkout makes: fix the commit.\n")


def test_a_link_to_a_folder_of_the_revision_is_refused(work):
    revision = commit_with(work, [f"120000 blob {blob(work, b'feeds')}\tmore-feeds"])
    done = toolkit(work, *calls(revision)[0])
    assert done.returncode == 2
    assert done.stderr.startswith(f"toolkit: The revision {revision[:12]} holds a symbolic link 'conf/more-feeds' "
                                  "to 'feeds', which is not a file of the config repo at that revision")


def test_a_link_to_a_file_of_the_revision_is_read_as_that_file_through_a_chain(work):
    """feeds/clicks.yaml a link to a link to the file: the head plans as the base (no change); nothing in the
    scratch folder is a link (the planned revision's files are copies)."""
    clicks = git(work, "rev-parse", "main:conf/feeds/clicks.yaml")
    shared = tree(work, [f"100644 blob {clicks}\tclicks.yaml",
                         f"120000 blob {blob(work, b'clicks.yaml')}\tclicks-link.yaml"])
    feeds = [line for line in listing(work, "main:conf/feeds") if not line.endswith("\tclicks.yaml")]
    feeds.append(f"120000 blob {blob(work, b'../shared/./clicks-link.yaml')}\tclicks.yaml")
    revision = commit_with(work, [f"040000 tree {tree(work, feeds)}\tfeeds", f"040000 tree {shared}\tshared"],
                           replacing="feeds")
    done = toolkit(work, "plan", "--repo", "conf", "--base", "main", "--head", revision, "--now", NOW, "--offline",
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == []


def test_a_big_file_of_a_revision_is_streamed_not_held_in_memory(work, tmp_path):
    """A 256 MiB file in the planned revision (a jar, say, which plan never reads) costs the plan no memory: its
    peak resident size stays below the file's size (the old reader held the whole revision's output, then a copy)."""
    size = 256 << 20
    zeros = tmp_path / "zeros"
    with zeros.open("wb") as sparse:
        sparse.truncate(size)
    big = git(work, "hash-object", "-w", str(zeros))
    revision = commit_with(work, [f"100644 blob {big}\tbig.jar"])
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    measured = ("import resource, sys\n"
                "from toolkit.cli.main import main\n"
                "code = main(sys.argv[1:])\n"
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, file=sys.stderr)\n"
                "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", measured, "plan", "--repo", "conf", "--base", "main", "--head",
                           revision, "--now", NOW, "--offline", "--format", "json"],
                          capture_output=True, text=True, cwd=work, timeout=300,
                          env={**os.environ, "TMPDIR": str(scratch),
                               "GIT_CEILING_DIRECTORIES": str(work.parent.parent)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == []
    peak = int(done.stderr.strip().splitlines()[-1])
    assert peak < size, f"peak resident size {peak >> 20} MiB"


def test_a_streamed_file_is_written_byte_for_byte(work):
    """A workflow file bigger than one run of `git cat-file --batch` (16 MiB) is streamed by git into its file: the
    base revision's copy equals the working tree's (no change), and one byte edited in the working tree is seen."""
    workflow = work / "conf/workflows/hourly_clicks_summary.py"
    workflow.write_bytes(b"# " + os.urandom(9 << 20).hex().encode() + b"\n")
    git(work, "commit", "-q", "-am", "a big workflow file")
    same = toolkit(work, "plan", "--repo", "conf", "--base", "HEAD", "--now", NOW, "--offline", "--format", "json")
    assert (same.returncode, json.loads(same.stdout)["changes"]) == (0, []), same.stderr
    content = bytearray(workflow.read_bytes())
    content[-2] = ord("0") if content[-2] != ord("0") else ord("1")
    workflow.write_bytes(bytes(content))
    edited = toolkit(work, "plan", "--repo", "conf", "--base", "HEAD", "--now", NOW, "--offline", "--format", "json")
    assert [(change["entity"], change["change"]) for change in json.loads(edited.stdout)["changes"]] == [
        ("hourly-clicks-summary", "edited workflow file")]
