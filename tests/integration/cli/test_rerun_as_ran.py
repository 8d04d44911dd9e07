"""`toolkit rerun --as-ran`: each instance rerun with the config repo of the commit that first ran it, read from git
(never the working tree), checked against the definition its first attempt recorded, and refused in one sentence
(exit 2, nothing left behind) when no commit holds what ran. A real git repository; spark-submit, for --execute, a
script that records what it was given."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.processes import running
from tests.unit.cli.ledger_site import NOW, PROCESS, Site, record, run
from toolkit.cli.commands import rerun as rerun_command
from toolkit.core.entities.provenance import Provenance, RepoRevision, definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import AttemptRecord
from toolkit.services.runtime.repo_revision import repo_revision

PROCESS_FILE = f"processes/{PROCESS}.yaml"
WINDOW = ("--from", "2026-11-21T03:00Z", "--to", "2026-11-21T04:00Z")


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})
    return done.stdout.strip()


def commit_all(folder: Path, message: str) -> str:
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", message)
    return git(folder, "rev-parse", "HEAD")


def attempt(hour: int, status: str, definition: Provenance | None) -> AttemptRecord:
    return AttemptRecord(process=PROCESS, cluster="primary", time=f"2026-11-21T{hour:02d}:00Z", attempt=1,
                         run_id=f"run-{hour:02d}", kind="RUN", status=status, started=f"2026-11-21T{hour:02d}:01:00Z",
                         definition=definition)


@pytest.fixture()
def ran(site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Site, str, str]:
    """The repo in git: commit 1 ran 03:00 (succeeded) and 04:00 (failed); commit 2, now checked out, changed the
    process. Scratch folders go to a temporary folder of the test's own."""
    git(site.conf, "init", "-q")
    first = commit_all(site.conf, "first")
    then = ConfigRepo.load(site.conf)
    provenance = Provenance(definition_hash(then.process(PROCESS), then.root), first, False)
    ledger = site.ledger()
    for hour, status in ((3, "SUCCEEDED"), (4, "FAILED")):
        ledger.write_attempt(attempt(hour, status, provenance))
        ledger.write_instance(record(hour, status))
    path = site.conf / PROCESS_FILE
    path.write_text(path.read_text().replace("owner: web-analytics", "owner: changed"))
    second = commit_all(site.conf, "second")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # what TMPDIR says, read once per process
    return site, first, second


def rerun(capsys: pytest.CaptureFixture[str], site: Site, *argv: str) -> tuple[int, str, str]:
    return run(capsys, "rerun", "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
               *WINDOW, "--status", "SUCCEEDED,FAILED", "--as-ran", *argv)


def test_the_commands_rerun_the_commit_that_first_ran_each_instance(capsys: pytest.CaptureFixture[str],
                                                                   ran: tuple[Site, str, str]) -> None:
    site, first, _ = ran
    code, out, err = rerun(capsys, site)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    folders = set()
    for line, hour in zip(lines, (3, 4), strict=True):
        words = shlex.split(line)
        assert words[0].endswith("spark-submit")
        repo = Path(words[words.index("--repo") + 1])
        folders.add(repo)
        assert words[words.index("--time") + 1] == f"2026-11-21T{hour:02d}:00Z" and words[-1] == "--force"
    (repo,) = folders  # one folder for the one commit, kept for the printed commands
    assert list((site.conf.parent / "scratch").iterdir()) == [repo.parent]
    assert repo_revision(repo) == RepoRevision(first, False)  # what the rerun's records will say
    assert (repo / PROCESS_FILE).read_text() == git(site.conf, "show", f"{first}:{PROCESS_FILE}") + "\n"
    assert "owner: changed" in (site.conf / PROCESS_FILE).read_text()  # the working tree is the second commit
    assert (repo / "workflows/hourly_clicks_summary.py").is_file()  # the whole repo: its workflows too
    assert err == (f"toolkit rerun --as-ran: 2 instance(s) as they first ran, at commit {first[:12]} "
                   f"({definition_hash(ConfigRepo.load(repo).process(PROCESS), repo)}); its config repo is written "
                   f"in {repo}\n")


def test_execute_runs_them_with_the_commit_named_and_removes_the_folder(capsys: pytest.CaptureFixture[str],
                                                                        ran: tuple[Site, str, str], tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    site, first, _ = ran
    said = tmp_path / "said"
    fake = tmp_path / "spark-submit"
    fake.write_text('#!/bin/sh\nrepo=""; prev=""\nfor a in "$@"; do [ "$prev" = --repo ] && repo="$a"; prev="$a"; '
                    'done\nprintf "%s %s\\n" "$(cat "$repo/../checked-out-commit")" "$(grep -c changed "$repo/'
                    + PROCESS_FILE + '")" >> "' + str(said) + '"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(rerun_command, "spark_submit", lambda: str(fake))
    code, out, err = rerun(capsys, site, "--execute")
    assert code == 0, err
    assert said.read_text().splitlines() == [f"{first} 0", f"{first} 0"]  # the first commit's file, twice
    assert [line.endswith(f"(as it ran at commit {first[:12]})") for line in out.splitlines()[::2]] == [True, True]
    assert list((tmp_path / "scratch").iterdir()) == []  # the commit's folder is gone


def test_a_folder_written_from_a_commit_is_that_commit_and_no_other_is(ran: tuple[Site, str, str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Even inside another git work tree (a scratch folder could be one), and whatever FEED_TOOLKIT_NO_GIT says; a
    marker that names no commit id, or one beside a folder of another name, is no commit."""
    site, first, second = ran
    assert repo_revision(site.conf) == RepoRevision(second, False)
    inside = site.conf / "as-ran"
    (inside / "repo").mkdir(parents=True)
    (inside / "checked-out-commit").write_text(first + "\n")
    assert repo_revision(inside / "repo") == RepoRevision(first, False)
    monkeypatch.setenv("FEED_TOOLKIT_NO_GIT", "1")  # a monorepo's setting: git is not asked, the marker is no git
    assert repo_revision(inside / "repo") == RepoRevision(first, False)
    monkeypatch.delenv("FEED_TOOLKIT_NO_GIT")
    (inside / "other").mkdir()
    assert repo_revision(inside / "other") == RepoRevision(second, False)  # git's answer
    (inside / "checked-out-commit").write_text("HEAD\n")
    assert repo_revision(inside / "repo") == RepoRevision(second, False)


@pytest.mark.parametrize(("definition", "why"), [
    (None, "The instance 2026-11-21T03:00Z of process 'hourly-clicks-summary' recorded no definition at its first "
           "attempt (an older toolkit ran it): rerun it without --as-ran."),
    (Provenance("v1:ab", None), "The instance 2026-11-21T03:00Z of process 'hourly-clicks-summary' first ran from a "
                                "config repo that was not in git, so no commit holds what ran: rerun it without "
                                "--as-ran."),
    (Provenance("v1:ab", "c" * 40, True), "The instance 2026-11-21T03:00Z of process 'hourly-clicks-summary' first "
                                          f"ran at commit {'c' * 12} with changes not committed, so no commit holds "
                                          "what ran"),
    (Provenance("v1:ab", "c" * 40), f"The commit {'c' * 12} that first ran process 'hourly-clicks-summary' is not in "
                                    "the git history of"),
    (Provenance("v1:ab", "HEAD"), "The instance 2026-11-21T03:00Z of process 'hourly-clicks-summary' recorded 'HEAD' "
                                  "as the commit it first ran, which is no commit id: rerun it without --as-ran."),
])
def test_an_instance_no_commit_holds_is_refused_and_nothing_is_left(
        capsys: pytest.CaptureFixture[str], ran: tuple[Site, str, str], tmp_path: Path,
        definition: Provenance | None, why: str) -> None:
    site, _, _ = ran
    site.ledger().write_attempt(attempt(3, "SUCCEEDED", definition))
    code, out, err = rerun(capsys, site)
    assert (code, out) == (2, "")
    assert err.startswith(f"toolkit: {why}") and err.count("\n") == 1
    assert list((tmp_path / "scratch").iterdir()) == []


def test_a_definition_that_is_not_the_commits_is_refused(capsys: pytest.CaptureFixture[str],
                                                         ran: tuple[Site, str, str], tmp_path: Path) -> None:
    site, first, _ = ran
    site.ledger().write_attempt(attempt(3, "SUCCEEDED", Provenance("v1:" + "0" * 64, first)))
    code, out, err = rerun(capsys, site)
    assert (code, out) == (2, "")
    assert err == (f"toolkit: The process 'hourly-clicks-summary' at commit {first[:12]} is not the definition its "
                   f"instances recorded (v1:{'0' * 64}): rerun without --as-ran.\n")
    assert list((tmp_path / "scratch").iterdir()) == []


def test_a_cluster_that_kept_its_ledger_elsewhere_then_is_refused(capsys: pytest.CaptureFixture[str],
                                                                  ran: tuple[Site, str, str], tmp_path: Path) -> None:
    """Today's ledger says what ran; a rerun as it ran must not write where the cluster was."""
    site, _, _ = ran
    cluster = site.conf / "clusters" / "primary.yaml"
    moved = site.primary.parent / "moved"
    moved.mkdir()
    cluster.write_text(cluster.read_text().replace(f"file://{site.primary}", f"file://{moved}"))
    (site.primary).rename(moved)  # the data and the ledger moved with the cluster's new root
    commit_all(site.conf, "the cluster moved")
    code, out, err = rerun(capsys, site)
    assert (code, out) == (2, "")
    assert "The cluster 'primary' kept its files or its ledger elsewhere at commit" in err
    assert list((tmp_path / "scratch").iterdir()) == []


def test_without_as_ran_the_working_tree_is_rerun(capsys: pytest.CaptureFixture[str],
                                                  ran: tuple[Site, str, str]) -> None:
    site, _, _ = ran
    code, out, err = run(capsys, "rerun", "--repo", str(site.conf), "--process", PROCESS, "--cluster", "primary",
                         "--now", NOW, *WINDOW, "--status", "SUCCEEDED,FAILED")
    assert code == 0 and err == ""
    assert [shlex.split(line)[shlex.split(line).index("--repo") + 1] for line in out.splitlines()] == \
        [str(site.conf)] * 2


def test_sigterm_to_execute_ends_the_running_command_and_removes_the_folder(ran: tuple[Site, str, str],
                                                                           tmp_path: Path) -> None:
    """A scheduler's stop, as Ctrl-C: no spark-submit left running, no copy of the repo left behind."""
    site, _, _ = ran
    bin_folder, started = tmp_path / "bin", tmp_path / "started"
    bin_folder.mkdir()
    fake = bin_folder / "spark-submit"
    fake.write_text(f'#!/bin/sh\necho $$ > "{started}"\nexec sleep 60\n')
    fake.chmod(0o755)
    scratch = tmp_path / "scratch"
    environment = {**os.environ, "PATH": f"{bin_folder}:{os.environ['PATH']}", "TMPDIR": str(scratch)}
    call = subprocess.Popen([sys.executable, "-m", "toolkit", "rerun", "--repo", str(site.conf), "--process", PROCESS,
                             "--cluster", "primary", "--now", NOW, *WINDOW, "--status", "SUCCEEDED,FAILED",
                             "--as-ran", "--execute"], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline and call.poll() is None:
        time.sleep(0.05)
    assert started.exists(), call.communicate()
    child = int(started.read_text())
    assert len(list(scratch.iterdir())) == 1  # the commit's folder, while its rerun runs
    call.send_signal(signal.SIGTERM)
    out, err = call.communicate(timeout=30)
    assert call.returncode != 0 and "Traceback" not in err
    assert list(scratch.iterdir()) == []
    deadline = time.monotonic() + 10
    while running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(child)



# The command run with subprocess.Popen's start patched so that a SIGTERM reaches it right after the child exists and
# before Popen has returned it (where a scheduler's stop lands when the machine is busy); only spark-submit's start,
# not git's. The child's pid is written first, to a file the test reads.
STOP_WHILE_STARTING = """
import os, runpy, signal, subprocess, sys
start = subprocess.Popen._execute_child
def started_then_stopped(self, args, *rest, **kwargs):
    start(self, args, *rest, **kwargs)
    if not str(args[0]).endswith("spark-submit"):  # git, reading the commits
        return
    with open(os.environ["CHILD_PID_FILE"], "w") as out:
        out.write(str(self.pid))
    os.kill(os.getpid(), signal.SIGTERM)
subprocess.Popen._execute_child = started_then_stopped
sys.argv = ["toolkit", *sys.argv[1:]]
runpy.run_module("toolkit", run_name="__main__")
"""


def test_sigterm_while_the_command_starts_kills_it_too(ran: tuple[Site, str, str], tmp_path: Path) -> None:
    """A stop that lands between the child's start and Popen's return (a busy machine widens that moment) must not
    leave the spark-submit running, orphaned, holding the caller's output open."""
    site, _, _ = ran
    bin_folder, pid_file = tmp_path / "bin", tmp_path / "child.pid"
    bin_folder.mkdir()
    fake = bin_folder / "spark-submit"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(0o755)
    scratch = tmp_path / "scratch"
    environment = {**os.environ, "PATH": f"{bin_folder}:{os.environ['PATH']}", "TMPDIR": str(scratch),
                   "CHILD_PID_FILE": str(pid_file)}
    call = subprocess.Popen([sys.executable, "-c", STOP_WHILE_STARTING, "rerun", "--repo", str(site.conf),
                             "--process", PROCESS, "--cluster", "primary", "--now", NOW, *WINDOW, "--status",
                             "SUCCEEDED,FAILED", "--as-ran", "--execute"], env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = call.communicate(timeout=30)
    finally:
        if pid_file.exists() and running(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    child = int(pid_file.read_text())
    assert call.returncode != 0 and "Traceback" not in err, err
    assert "(1/2)" in out and "(2/2)" not in out, (out, err)  # stopped at the first rerun: the second never started
    assert list(scratch.iterdir()) == []
    deadline = time.monotonic() + 10
    while running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(child)


def test_a_commit_whose_tree_links_out_of_the_repo_writes_nothing(capsys: pytest.CaptureFixture[str],
                                                                   ran: tuple[Site, str, str], tmp_path: Path) -> None:
    """A colleague's commit that first ran the instances holds a link to a file outside the repo: no checkout of it is
    written (the link is never followed), the call says so, exit 2."""
    site, _, _ = ran
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n")
    (site.conf / "workflows" / "leak.txt").symlink_to(secret)
    hostile = commit_all(site.conf, "a link out")
    then = ConfigRepo.load(site.conf)
    site.ledger().write_attempt(attempt(3, "SUCCEEDED", Provenance(
        definition_hash(then.process(PROCESS), then.root), hostile, False)))
    code, out, err = rerun(capsys, site)
    assert (code, out) == (2, "")
    assert err.startswith(f"toolkit: The revision {hostile[:12]} holds a symbolic link ") and err.count("\n") == 1
    assert "which is not a file of the config repo at that revision" in err and "hunter2" not in err
    assert list((tmp_path / "scratch").iterdir()) == []


def test_a_backfill_as_ran_runs_what_ran_before_at_its_commit_and_the_rest_with_the_current_files(
        capsys: pytest.CaptureFixture[str], ran: tuple[Site, str, str], tmp_path: Path) -> None:
    """`toolkit backfill --as-ran` (issue 71, item 5): 03:00 succeeded (skipped), 04:00 failed at the first commit
    (run with it), 05:00 never ran (run with the working tree, the second commit)."""
    site, first, _ = ran
    said = tmp_path / "said"
    fake = tmp_path / "spark-submit"
    fake.write_text('#!/bin/sh\nrepo=""; t=""; prev=""\nfor a in "$@"; do [ "$prev" = --repo ] && repo="$a"; '
                    '[ "$prev" = --time ] && t="$a"; prev="$a"; done\nprintf "%s %s %s\\n" "$t" '
                    '"$(cat "$repo/../checked-out-commit" 2>/dev/null || echo current)" "$(grep -c changed "$repo/'
                    + PROCESS_FILE + '")" >> "' + str(said) + '"\n')
    fake.chmod(0o755)
    code, out, err = run(capsys, "backfill", "--repo", str(site.conf), "--cluster", "primary", "--process", PROCESS,
                         "--from", "2026-11-21T03:00Z", "--to", "2026-11-21T05:00Z", "--as-ran", "--spark-submit",
                         str(fake), "--log-dir", str(tmp_path / "logs"))
    assert code == 0, err
    assert said.read_text().splitlines() == [f"2026-11-21T04:00Z {first} 0", "2026-11-21T05:00Z current 1"]
    assert f"toolkit backfill --as-ran: 1 instance(s) as they first ran, at commit {first[:12]}" in err
    assert "toolkit backfill --as-ran: 1 instance(s) that never ran, or replications, run with the current files" in err
    assert out.startswith("backfill: 3 instance(s) of 1 entity") and "1 done before" in out
    assert list((tmp_path / "scratch").iterdir()) == []  # the commit's folder is gone
