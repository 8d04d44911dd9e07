"""Where a workflow's text comes from: the config repo (never outside it), the cluster's file system for an
absolute path, or a URI; each failure one sentence naming the path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, write_file
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.workflow_source import WorkflowSource, read_workflow

OWNER = "process 'daily-clicks-rollup'"


def read(runner_repo: RunnerRepo, path: str) -> WorkflowSource:
    return read_workflow(runner_repo.repo.root, runner_repo.repo.cluster("primary"), path, LocalFileSystem(), OWNER)


def test_a_path_in_the_config_repo(runner_repo: RunnerRepo) -> None:
    source = read(runner_repo, "workflows/daily_clicks_rollup.sql")
    assert source.name == "workflows/daily_clicks_rollup.sql"
    assert source.text == (runner_repo.repo.root / "workflows/daily_clicks_rollup.sql").read_text()
    assert "INSERT OVERWRITE DIRECTORY '${daily}'" in source.text


def test_a_path_leaving_the_config_repo_is_refused(runner_repo: RunnerRepo) -> None:
    write_file(runner_repo.repo.root.parent / "outside.sql", "SELECT 1")
    with pytest.raises(UsageError) as raised:
        read(runner_repo, "workflows/../../outside.sql")
    assert str(raised.value) == ("The workflow path 'workflows/../../outside.sql' of process 'daily-clicks-rollup' "
                                 "leaves the config repo: give a path inside it.")


def test_a_missing_file_in_the_config_repo(runner_repo: RunnerRepo) -> None:
    with pytest.raises(UsageError) as raised:
        read(runner_repo, "workflows/nope.sql")
    assert str(raised.value) == (f"The workflow of {OWNER}, workflows/nope.sql, does not exist in the config repo "
                                 f"{runner_repo.repo.root}: add the file or fix workflow.path.")
    assert raised.value.exit_code == 2


def test_an_absolute_path_is_read_on_the_clusters_file_system(runner_repo: RunnerRepo) -> None:
    write_file(runner_repo.root / "apps/wf/rollup.sql", "SELECT 2;\n")
    source = read(runner_repo, "/apps/wf/rollup.sql")
    assert source == WorkflowSource(runner_repo.uri("apps/wf/rollup.sql"), "SELECT 2;\n")


def test_a_uri_is_read_as_given(runner_repo: RunnerRepo, tmp_path: Path) -> None:
    write_file(tmp_path / "elsewhere/job.py", "def run(spark, ctx):\n    pass\n")
    uri = f"file://{tmp_path}/elsewhere/job.py"
    assert read(runner_repo, uri) == WorkflowSource(uri, "def run(spark, ctx):\n    pass\n")


def test_a_missing_file_on_the_cluster_names_the_uri_and_cluster(runner_repo: RunnerRepo) -> None:
    with pytest.raises(UsageError) as raised:
        read(runner_repo, "/apps/wf/missing.sql")
    assert str(raised.value) == (f"The workflow of {OWNER}, {runner_repo.uri('apps/wf/missing.sql')}, cannot be read "
                                 "on cluster 'primary': put the file there or fix workflow.path.")


@pytest.mark.parametrize("where", ["repo", "cluster"])
def test_a_workflow_that_is_not_utf8(runner_repo: RunnerRepo, where: str) -> None:
    if where == "repo":
        write_file(runner_repo.repo.root / "workflows/latin1.sql", "SELECT 'café'".encode("latin-1"))
        path, name = "workflows/latin1.sql", "workflows/latin1.sql"
    else:
        write_file(runner_repo.root / "apps/latin1.sql", "SELECT 'café'".encode("latin-1"))
        path, name = "/apps/latin1.sql", runner_repo.uri("apps/latin1.sql")
    with pytest.raises(UsageError) as raised:
        read(runner_repo, path)
    assert str(raised.value) == f"The workflow of {OWNER}, {name}, is not UTF-8 text."
