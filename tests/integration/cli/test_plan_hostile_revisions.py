"""A revision planned or read by `toolkit plan` and `toolkit status --changed-since` is someone else's commit (a
pull request's ref, a fetched branch): git accepts trees no checkout makes, such as a symbolic link `clusters` to
a folder of this machine beside entries `clusters/...`. Materialising such a revision writes nothing through a link
and reads nothing outside the revision: every link that is not one of its files is one sentence naming it (exit 2),
and a revision's big files are streamed, never held in memory: a file the plan reads is hashed in bounded reads, a
file it does not read is not written, and a revision with many links holds no more than its listing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.integration.cli.test_plan_git import GIT_ENV, git, toolkit
from tests.unit.retention.retention_repo import TEMPLATE, make_repo

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


class Measured(NamedTuple):
    """A toolkit call run in a Python that says, after it, its peak resident size and the bytes it and its git
    commands wrote (`wchar` of /proc/self/io counts the children waited for: git streaming a blob into a file)."""

    done: subprocess.CompletedProcess[str]
    peak: int
    written: int


# The peak is VmHWM, the high-water mark of this process's own memory: getrusage's ru_maxrss keeps, across exec, the
# peak of the memory it replaced, which for a child spawned by vfork is the pytest process's own (207 MiB after the
# rest of tests/integration/cli had run in it), not the toolkit's.
MEASURED = ("import json, sys\n"
            "from toolkit.cli.main import main\n"
            "code = main(sys.argv[1:])\n"
            "written = next(int(line.split()[1]) for line in open('/proc/self/io') if line.startswith('wchar'))\n"
            "peak = 1024 * next(int(line.split()[1]) for line in open('/proc/self/status')\n"
            "                   if line.startswith('VmHWM'))\n"
            "print(json.dumps({'peak': peak, 'written': written}), file=sys.stderr)\n"
            "sys.exit(code)\n")


def measured(work: Path, tmp_path: Path, *argv: str, before: str = "") -> Measured:
    """`toolkit argv` in `work`, its scratch folder on disk (TMPDIR), `before` run first in its Python."""
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", before + MEASURED, *argv], capture_output=True, text=True, cwd=work,
                          timeout=300, env={**os.environ, "TMPDIR": str(scratch),
                                            "GIT_CEILING_DIRECTORIES": str(work.parent.parent)})
    *said, last = done.stderr.splitlines()
    numbers = json.loads(last)
    toolkit_said = subprocess.CompletedProcess(done.args, done.returncode, done.stdout,
                                               "".join(f"{line}\n" for line in said))
    return Measured(toolkit_said, numbers["peak"], numbers["written"])


def zeros_blob(work: Path, tmp_path: Path, size: int) -> str:
    """A blob of `size` zero bytes in the repository (hashed from a sparse file: no disk spent)."""
    zeros = tmp_path / "zeros"
    with zeros.open("wb") as sparse:
        sparse.truncate(size)
    return git(work, "hash-object", "-w", str(zeros))


def test_a_big_file_of_a_revision_is_streamed_not_held_in_memory(work, tmp_path):
    """A 256 MiB file in the planned revision (a jar, say, which plan never reads) costs the plan no memory: its
    peak resident size stays below the file's size (the old reader held the whole revision's output, then a copy)."""
    size = 256 << 20
    revision = commit_with(work, [f"100644 blob {zeros_blob(work, tmp_path, size)}\tbig.jar"])
    run = measured(work, tmp_path, "plan", "--repo", "conf", "--base", "main", "--head", revision, "--now", NOW,
                   "--offline", "--format", "json")
    assert run.done.returncode == 0, run.done.stderr
    assert json.loads(run.done.stdout)["changes"] == []
    assert run.peak < size, f"peak resident size {run.peak >> 20} MiB"


def file_replaced(work: Path, folder: str, name: str, content: str) -> str:
    """A commit on main whose conf/`folder`/`name` is the blob `content`."""
    kept = [line for line in listing(work, f"main:conf/{folder}") if not line.endswith(f"\t{name}")]
    replaced = tree(work, [*kept, f"100644 blob {content}\t{name}"])
    return commit_with(work, [f"040000 tree {replaced}\t{folder}"], replacing=folder)


def with_quality_gate(work: Path) -> None:
    """main's clicks-hourly-summary feed checked by its template suite (quality/clicks-hourly-summary.json)."""
    shutil.copy(TEMPLATE / "feeds/clicks-hourly-summary.yaml", work / "conf/feeds/clicks-hourly-summary.yaml")
    git(work, "commit", "-q", "-am", "a quality gate")


@pytest.mark.parametrize(("folder", "name", "call", "said"), [
    ("workflows", "hourly_clicks_summary.py", 0, ("hourly-clicks-summary", "edited workflow file")),
    ("workflows", "hourly_clicks_summary.py", 2, None),
    ("quality", "clicks-hourly-summary.json", 0,
     ("clicks-hourly-summary", "quality gate quality/clicks-hourly-summary.json edited (its expectations changed): "
                               "checked before publishing by process hourly-clicks-summary")),
], ids=["workflow-plan", "workflow-status-changed-since", "quality-suite-plan"])
def test_a_big_file_a_definition_names_is_hashed_in_bounded_reads(work, tmp_path, folder, name, call, said):
    """A process's workflow file, or a feed's quality suite, of 256 MiB in the revision: the plan (and status
    --changed-since, which hashes the process's definition) compares it in reads of bounded size, so its peak
    resident size stays below the file's size (the old plan held the whole file, 448 MB for a 400 MB one)."""
    with_quality_gate(work)
    size = 256 << 20
    revision = file_replaced(work, folder, name, zeros_blob(work, tmp_path, size))
    run = measured(work, tmp_path, *calls(revision)[call], *(("--format", "json") if call == 0 else ()))
    assert run.done.returncode == 0, run.done.stderr
    if said is not None:
        assert [(change["entity"], change["change"]) for change in json.loads(run.done.stdout)["changes"]] == [said]
    assert run.peak < size, f"peak resident size {run.peak >> 20} MiB"


def test_a_file_the_plan_never_reads_is_not_written(work, tmp_path):
    """Three entries of a 256 MiB blob outside the kind folders and every file a definition names: the plan writes
    none of them into its scratch folder (the old reader wrote all three, 768 MiB, in /dev/shm when it had room)."""
    size = 256 << 20
    big = zeros_blob(work, tmp_path, size)
    junk = tree(work, [f"100644 blob {big}\t{name}" for name in ("a", "b", "c")])
    revision = commit_with(work, [f"040000 tree {junk}\tjunk"])
    run = measured(work, tmp_path, "plan", "--repo", "conf", "--base", "main", "--head", revision, "--now", NOW,
                   "--offline", "--format", "json")
    assert run.done.returncode == 0, run.done.stderr
    assert json.loads(run.done.stdout)["changes"] == []
    assert run.written < size, f"{run.written >> 20} MiB written"


FREE_MIB = ("import os\n"  # every file system says it has 1 MiB free
            "os.statvfs = lambda path: os.statvfs_result((4096, 4096, 1 << 20, 256, 256, 0, 0, 0, 0, 255))\n")


def test_a_revision_whose_files_do_not_fit_where_they_would_be_written_is_refused(work, tmp_path):
    """A workflow file of 2 MiB where the scratch folder's file system has 1 MiB free: one sentence naming the
    revision, the bytes to write and the room, saying to set TMPDIR, before the workflow file is written (the old
    reader wrote until the disk was full)."""
    revision = file_replaced(work, "workflows", "hourly_clicks_summary.py", blob(work, b"#" * (2 << 20)))
    run = measured(work, tmp_path, *calls(revision)[0], before=FREE_MIB)
    assert (run.done.returncode, run.done.stdout) == (2, ""), run.done.stderr
    assert run.done.stderr.count("\n") == 1 and "Traceback" not in run.done.stderr
    assert run.done.stderr.startswith(f"toolkit: The revision {revision[:12]} of conf needs ")
    assert run.done.stderr.endswith(" bytes free there: set TMPDIR to a folder with room.\n")
    assert run.written < 2 << 20, f"{run.written >> 10} KiB written"


def test_many_links_are_resolved_in_bounded_memory(work, tmp_path):
    """100,000 links sharing one 4,000-byte target that is no file of the revision: refused in one sentence naming
    the first, its peak resident size far below what holding every target takes (the old reader kept each link's
    target, 517 MB, before refusing any)."""
    target = blob(work, b"a/" * 2000)
    links = tree(work, [f"120000 blob {target}\tl{index}" for index in range(100_000)])
    revision = commit_with(work, [f"040000 tree {links}\tlinks"])
    run = measured(work, tmp_path, *calls(revision)[0])
    assert (run.done.returncode, run.done.stdout) == (2, ""), run.done.stderr
    assert run.done.stderr == (f"toolkit: The revision {revision[:12]} holds a symbolic link 'conf/links/l0' to "
                               f"{'a/' * 2000!r}, which is not a file of the config repo at that revision: a "
                               "revision's links are read only when they name one of its files; replace the link with "
                               "the file it stands for.\n")
    assert run.peak < 200 << 20, f"peak resident size {run.peak >> 20} MiB"


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
