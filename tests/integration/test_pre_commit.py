"""pre-commit runs the lint hook on a config repo: the template's own hook config, and the hook that
this repository publishes (`.pre-commit-hooks.yaml`, installed by pre-commit into its own env)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
TEMPLATE = PROJECT / "config_repo_template"
BIN = Path(sys.executable).parent

GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.org"}



def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_IDENTITY, "PRE_COMMIT_HOME": str(home),
           "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture
def config_git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "conf"
    shutil.copytree(TEMPLATE, repo)
    for args in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "template"]):
        subprocess.run(args, cwd=repo, check=True, env={**os.environ, **GIT_IDENTITY})
    return repo


def test_template_hook_passes_then_blocks_deleting_a_used_feed(config_git_repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    clean = _run([str(BIN / "pre-commit"), "run", "--all-files"], config_git_repo, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "toolkit lint" in clean.stdout and "Passed" in clean.stdout

    subprocess.run(["git", "rm", "-q", "feeds/clicks-hourly-summary.yaml"], cwd=config_git_repo, check=True)
    broken = _run([str(BIN / "pre-commit"), "run"], config_git_repo, home)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "RP004" in broken.stdout and "'clicks-hourly-summary' is not defined" in broken.stdout


def test_published_hook_installs_and_reports_file_and_line(config_git_repo: Path, tmp_path: Path) -> None:
    feed = config_git_repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("frequency: hours(1)", "frequency: hourly"))
    subprocess.run(["git", "add", "-A"], cwd=config_git_repo, check=True)
    result = _run([str(BIN / "pre-commit"), "try-repo", str(PROJECT), "toolkit-lint", "--all-files"],
                  config_git_repo, tmp_path / "pre-commit-home")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "feeds/clicks.yaml:9:12: SC001" in result.stdout


def test_schedule_check_hook_fails_while_the_generated_crontab_is_stale(config_git_repo: Path,
                                                                        tmp_path: Path) -> None:
    """The schedule hook as a config repo declares it (`repo: local`; the published hook's entry is the same)."""
    toolkit = str(BIN / "toolkit")
    arguments = ["--repo", ".", "--cluster", "primary", "--out", "schedule/primary", "--repo-path", "/srv/conf",
                 "--toolkit", "/opt/toolkit/bin/toolkit", "--spark-submit", "/opt/spark/bin/spark-submit",
                 "--entrypoints", "/opt/toolkit/entrypoints"]
    assert _run([toolkit, "schedule", *arguments], config_git_repo, tmp_path).returncode == 0
    (config_git_repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: toolkit-schedule-check\n"
        "        name: toolkit schedule --check\n        entry: toolkit schedule --check\n"
        "        language: system\n        pass_filenames: false\n"
        "        files: (^|/)(clusters|feeds|processes)/[^/]+\\.ya?ml$\n"
        f"        args: {arguments!r}\n".replace("'", '"'))
    subprocess.run(["git", "add", "-A"], cwd=config_git_repo, check=True)
    home = tmp_path / "pre-commit-home"
    clean = _run([str(BIN / "pre-commit"), "run", "--all-files"], config_git_repo, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    process = config_git_repo / "processes" / "top-pages.yaml"
    process.write_text(process.read_text().replace("start: 2026-01-02T00:00Z", "start: 2026-01-02T06:00Z"))
    subprocess.run(["git", "add", "-A"], cwd=config_git_repo, check=True)
    stale = _run([str(BIN / "pre-commit"), "run"], config_git_repo, home)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "changed: schedule/primary/crontab" in stale.stdout


PLAN_HOOK = ("repos:\n  - repo: local\n    hooks:\n      - id: toolkit-plan\n        name: toolkit plan --offline\n"
             "        entry: toolkit plan --offline --base HEAD\n        language: system\n"
             "        files: (^|/)(clusters|feeds|processes|datasources|workflows|quality)/\n"
             "        pass_filenames: false\n        require_serial: true\n        always_run: true\n"
             "        verbose: true\n")


def test_plan_hook_lists_the_staged_definition_changes_without_reading_storage(config_git_repo: Path,
                                                                               tmp_path: Path) -> None:
    """The hook as `.pre-commit-hooks.yaml` publishes it (`repo: local` here, to use this checkout's toolkit):
    the staged edit is listed by field, the unstaged one is not (pre-commit stashes it), and it says that no
    storage was read."""
    (config_git_repo / ".pre-commit-config.yaml").write_text(PLAN_HOOK)
    feed = config_git_repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("limit: days(90)", "limit: days(7)"))
    subprocess.run(["git", "add", "-A"], cwd=config_git_repo, check=True)
    process = config_git_repo / "processes" / "top-pages.yaml"
    process.write_text(process.read_text().replace("owner: web-analytics", "owner: web"))  # not staged
    result = _run([str(BIN / "pre-commit"), "run"], config_git_repo, tmp_path / "pre-commit-home")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "changed: feed 'clicks': edited clusters[primary].retention.limit" in result.stdout
    assert "top-pages" not in result.stdout
    assert "storage not read (--offline)" in result.stdout


def test_plan_hook_passes_the_first_commit_of_a_repo(tmp_path: Path) -> None:
    repo = tmp_path / "conf"
    shutil.copytree(TEMPLATE, repo)
    (repo / ".pre-commit-config.yaml").write_text(PLAN_HOOK)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    result = _run([str(BIN / "pre-commit"), "run"], repo, tmp_path / "pre-commit-home")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "toolkit plan: no commit yet -> working tree" in result.stdout
    assert "changed: feed 'clicks': added" in result.stdout


def test_plan_hook_runs_when_only_a_deletion_is_staged(config_git_repo: Path, tmp_path: Path) -> None:
    (config_git_repo / ".pre-commit-config.yaml").write_text(PLAN_HOOK)
    subprocess.run(["git", "add", ".pre-commit-config.yaml"], cwd=config_git_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "hook", "--no-verify"], cwd=config_git_repo, check=True,
                   env={**os.environ, **GIT_IDENTITY})
    subprocess.run(["git", "rm", "-q", "feeds/shop-orders.yaml"], cwd=config_git_repo, check=True)
    result = _run([str(BIN / "pre-commit"), "run"], config_git_repo, tmp_path / "pre-commit-home")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "changed: feed 'shop-orders': removed" in result.stdout
