"""Where an engine-spark process's application and its extra files are: a path starting with / on the cluster's
file system (under its write endpoint), a URI as given, a relative path in the config repo; a missing one is a
usage error naming the field, the path and the cluster, found before anything runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, write_file
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Process
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.spark_application import resolve_application
from toolkit.extensions.workflow_engines.spark_command import SparkApplication

OWNER = "process 'sessions'"


def resolve(runner_repo: RunnerRepo, jar: str, lib: str | None = None) -> SparkApplication:
    workflow = "{engine: spark, path: /apps/sessions" + (f", lib: '{lib}'" if lib else "") + "}"
    entity, problems = parse_entity(textwrap.dedent(f"""\
        kind: process
        name: sessions
        clusters:
          - name: primary
            validity: {{start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}}
        frequency: hours(1)
        workflow: {workflow}
        spark-attributes: {{jar: '{jar}'}}
        """), Path("processes/sessions.yaml"))
    assert problems == [] and isinstance(entity, Process)
    return resolve_application(runner_repo.repo.root, runner_repo.repo.cluster("primary"), entity,
                               LocalFileSystem(), OWNER)


def test_each_entry_where_it_is_and_the_extra_files_by_kind(runner_repo: RunnerRepo, tmp_path: Path) -> None:
    write_file(runner_repo.root / "apps/sessions/sessions.py", "print(1)\n")
    write_file(runner_repo.root / "apps/sessions/util.zip")
    write_file(runner_repo.repo.root / "workflows/helpers.py")
    write_file(tmp_path / "elsewhere/dn.jar")
    uri = f"file://{tmp_path}/elsewhere/dn.jar"
    app = resolve(runner_repo, "/apps/sessions/sessions.py, /apps/sessions/util.zip", f"workflows/helpers.py,{uri}")
    assert app == SparkApplication(
        "/apps/sessions/sessions.py", runner_repo.uri("apps/sessions/sessions.py"), jars=(uri,),
        py_files=(runner_repo.uri("apps/sessions/util.zip"), str(runner_repo.repo.root / "workflows/helpers.py")))


def test_a_missing_application_on_the_cluster(runner_repo: RunnerRepo) -> None:
    with pytest.raises(UsageError) as raised:
        resolve(runner_repo, "/apps/sessions/sessions.jar")
    assert str(raised.value) == (
        f"The spark-attributes.jar of {OWNER} names {runner_repo.uri('apps/sessions/sessions.jar')}, which does "
        "not exist on cluster 'primary': put the file there or fix spark-attributes.jar.")
    assert raised.value.exit_code == 2


def test_a_missing_library_in_the_config_repo(runner_repo: RunnerRepo) -> None:
    write_file(runner_repo.repo.root / "jobs/sessions.py")
    with pytest.raises(UsageError) as raised:
        resolve(runner_repo, "jobs/sessions.py", "jobs/missing.zip")
    assert str(raised.value) == (
        f"The workflow.lib of {OWNER} names jobs/missing.zip, which does not exist in the config repo "
        f"{runner_repo.repo.root}: add the file or fix workflow.lib.")


def test_a_path_leaving_the_config_repo_is_refused(runner_repo: RunnerRepo) -> None:
    write_file(runner_repo.repo.root.parent / "outside.py")
    with pytest.raises(UsageError) as raised:
        resolve(runner_repo, "../outside.py")
    assert str(raised.value) == (f"The spark-attributes.jar of {OWNER} names '../outside.py', which leaves the "
                                 "config repo: give a path inside it.")


def test_no_application_at_all(runner_repo: RunnerRepo) -> None:
    with pytest.raises(UsageError) as raised:
        resolve(runner_repo, " , ")
    assert str(raised.value) == (f"The {OWNER} has engine spark but names no application: set "
                                 "spark-attributes.jar to its .jar or .py file.")
