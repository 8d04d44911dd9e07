"""Which definition ran, end to end in a real git repository: 10 instances of the template's hourly summary run by
the whole entrypoint record the config repo's commit and their definition's hash; its workflow file edited and
committed, `toolkit plan` names those 10 and `toolkit status --changed-since HEAD` lists them; after the rerun
command's runs, neither names any. A run from a dirty tree (retention through `toolkit retain`) records
`dirty: true`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import make_repo, utc, write_clicks
from tests.unit.retention.retention_repo import hourly_instances
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
PROCESS = "hourly-clicks-summary"
LEDGER = "feed-toolkit/working/ledger/processes/hourly-clicks-summary"
WINDOW = ("--from", "2026-11-20T00:00Z", "--to", "2026-11-20T09:00Z")
NOW = "2026-11-20T12:05Z"


def git(work: Path, *argv: str) -> str:
    done = subprocess.run(["git", "-C", str(work), *argv], capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV})
    return done.stdout.strip()


def toolkit(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkit", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env={**os.environ, **GIT_ENV})


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, Path]:
    """(the config repo, a git work tree of its own with one commit, and the primary cluster's root outside it)."""
    repo, root = make_repo(tmp_path)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo, root


def records(root: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    return {folder.name: json.loads((folder / "instance.json").read_text())
            for folder in sorted((root / LEDGER).iterdir()) if (folder / "instance.json").is_file()}


def process_run(run_entrypoint, repo: Path, tmp_path: Path, *extra: str) -> None:  # type: ignore[no-untyped-def]
    done = run_entrypoint("process", "--repo", str(repo), "--process", PROCESS, "--cluster", "primary", *WINDOW,
                          "--now", NOW, *extra, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def stale(repo: Path, *argv: str) -> list[str]:
    done = toolkit(repo, "status", "--repo", str(repo), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
                   *WINDOW, "--format", "json", *argv)
    assert done.returncode == 0, done.stderr
    return [row["time"] for row in json.loads(done.stdout)]


def planned(repo: Path) -> list[str]:
    done = toolkit(repo, "plan", "--repo", str(repo), "--base", "HEAD~1", "--cluster", "primary", "--now", NOW,
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    changes = [c for c in json.loads(done.stdout)["changes"] if c["kind"] == "process" and c["warning"]]
    return [item["time"] for change in changes for item in change["instances"]]


def test_runs_record_the_commit_and_the_plan_names_what_the_old_definition_computed(run_entrypoint, work, tmp_path):
    repo, root = work
    write_clicks(root, utc(2026, 11, 19, 22), 12)
    process_run(run_entrypoint, repo, tmp_path)
    first = git(repo, "rev-parse", "HEAD")
    ran = records(root)
    old_hash = definition_hash(ConfigRepo.load(repo).process(PROCESS), repo)
    assert len(ran) == 10 and {json.dumps(r["definition"], sort_keys=True) for r in ran.values()} == {
        json.dumps({"commit": first, "definition": old_hash, "dirty": False}, sort_keys=True)}
    attempt = json.loads((root / LEDGER / "20261120T0000Z" / "attempt-001.json").read_text())
    assert attempt["definition"]["commit"] == first
    events = [json.loads(p.read_text()) for p in (root / "feed-toolkit/working/ledger/events/clicks-hourly-summary")
              .rglob("*.json")]
    assert len(events) == 10 and {event["definition"]["definition"] for event in events} == {old_hash}

    workflow = repo / "workflows" / "hourly_clicks_summary.py"
    workflow.write_text(workflow.read_text() + "\n# counted differently from now on\n")
    git(repo, "commit", "-q", "-am", "count differently")
    times = [f"2026-11-20T{hour:02d}:00Z" for hour in range(10)]
    assert planned(repo) == times
    assert stale(repo, "--changed-since", "HEAD") == times
    assert stale(repo, "--changed-since", "HEAD~1") == []

    process_run(run_entrypoint, repo, tmp_path, "--force")  # what the plan's command lists, in one call
    assert planned(repo) == [] and stale(repo, "--changed-since", "HEAD") == []
    assert {r["definition"]["commit"] for r in records(root).values()} == {git(repo, "rev-parse", "HEAD")}
    shown = toolkit(repo, "status", "--repo", str(repo), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
                    *WINDOW, "--wide")
    assert f"  {git(repo, 'rev-parse', 'HEAD')[:12]}  " in shown.stdout.splitlines()[1]


def test_a_run_from_a_dirty_tree_says_so(work):
    """`toolkit retain` evicts from a repo whose feed file is edited and not committed: its batch says dirty."""
    repo, root = work
    hourly_instances(root, utc(2026, 8, 1, 0), 2)
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("limit: days(90)", "limit: days(60)", 1))
    done = toolkit(repo, "retain", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary", "--time",
                   "2026-11-20T00:00Z")
    assert done.returncode == 0, done.stdout + done.stderr
    [batch] = [json.loads(p.read_text()) for p in (root / "feed-toolkit/working/ledger").rglob("evictions/**/*.json")]
    assert len(batch["instances"]) == 2
    assert batch["definition"]["commit"] == git(repo, "rev-parse", "HEAD") and batch["definition"]["dirty"] is True
    assert batch["definition"]["definition"] == definition_hash(ConfigRepo.load(repo).feed("clicks"), repo)
