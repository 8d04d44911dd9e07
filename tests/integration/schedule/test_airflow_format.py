"""The airflow format, loaded into a real Airflow (its own virtualenv, tests/airflow_venv.py): the generated DAG
files import without errors, their timetables fire at the instances (or on a covering cron whose extra runs
`toolkit call` skips), their tasks carry the feeds' assets, the task maps the toolkit's exit codes to Airflow's
states, and a success posts asset events only when the cluster's notifier does not."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.airflow_venv import airflow_python
from tests.unit.schedule.repos import odd_cadences_repo, template_copy
from toolkit.cli.main import main
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.orchestration.schedule import files
from toolkit.orchestration.schedule.cadence import CLOCK
from toolkit.orchestration.schedule.calls import plan_calls
from toolkit.orchestration.schedule.formats.airflow import render
from toolkit.orchestration.schedule.invocation import Invocation
from toolkit.orchestration.schedule.nominal import check_given

PROBE = Path(__file__).with_name("airflow_probe.py")
INVOCATION = Invocation(repo="/srv/conf", toolkit="/opt/feed-toolkit/bin/toolkit",
                        spark_submit="/opt/spark/bin/spark-submit",
                        entrypoints="/opt/feed-toolkit/entrypoints", python="/opt/feed-toolkit/bin/python",
                        log_dir="/var/log/feed-toolkit")
FAKE_TOOLKIT = """#!/bin/sh
# Stands for toolkit and spark-submit: logs its arguments, exits with $FAKE_EXIT (default 0).
printf '%s\\t' "$@" >> "$FAKE_LOG"; printf '\\n' >> "$FAKE_LOG"
exit "${FAKE_EXIT:-0}"
"""


def generate(repo: Path, cluster: str, out: Path, invocation: Invocation = INVOCATION) -> Path:
    config = ConfigRepo.load(repo)
    files.write(out, render(plan_calls(config, cluster), invocation), files.cluster_mark(cluster))
    return out


def probe(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> dict[str, Any]:
    done = subprocess.run([str(airflow_python()), str(PROBE), *args], capture_output=True, text=True,
                          env=env or airflow_env(Path(os.environ.get("TMPDIR", "/tmp"))), timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def airflow_env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "AIRFLOW_HOME": str(home), "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__UNIT_TEST_MODE": "False", **extra}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The template's DAGs for primary and backup, and the odd cadences' on primary, loaded by one DagBag each."""
    tmp = tmp_path_factory.mktemp("airflow-load")
    template, odd = template_copy(tmp / "template"), odd_cadences_repo(tmp / "odd")
    folders = {"primary": generate(template, "primary", tmp / "dags" / "primary"),
               "backup": generate(template, "backup", tmp / "dags" / "backup"),
               "odd": generate(odd, "primary", tmp / "dags" / "odd")}
    result = probe("load", *(str(f) for f in folders.values()), env=airflow_env(tmp / "home"))
    return {"template": template, "odd_repo": odd, "delta": result["delta_trigger_catchup_false"],
            **{name: result[str(folder)] for name, folder in folders.items()}}


@pytest.mark.parametrize("cluster", ["primary", "backup"])
def test_template_dags_load_with_the_plan_s_schedules_and_assets(loaded: dict[str, Any], cluster: str) -> None:
    bag = loaded[cluster]
    assert bag["import_errors"] == {}
    plan = plan_calls(ConfigRepo.load(loaded["template"]), cluster)
    assert set(bag["dags"]) == {f"feed_toolkit.{cluster}.{call.name}" for call in plan.calls}
    for call in plan.calls:
        dag = bag["dags"][f"feed_toolkit.{cluster}.{call.name}"]
        assert dag["file"] == f"feed_toolkit.{cluster}.{call.name}.py"
        assert dag["catchup"] is False
        assert dag["timetable"]["type"] == "CronTriggerTimetable"
        [task] = dag["tasks"]
        assert (task["type"], task["retries"], task["mode"]) == ("ToolkitCall", 0, "reschedule")
        # Every one of the template's cadences is exact: Airflow's first runs are the first instances.
        # (The clock's cadences have no start_date: the probe starts them at 2026-01-01.)
        grid = call.cadence.grid
        start = datetime(2026, 1, 1, tzinfo=timezone.utc) if call.cadence.anchor == CLOCK else call.cadence.anchor
        first = grid.floor_index(start)
        assert dag["runs"] == [format_timestamp(grid.time_of(first + i)) for i in range(12)], call.name


def test_primary_dags_in_detail(loaded: dict[str, Any]) -> None:
    dags = loaded["primary"]["dags"]
    summary = dags["feed_toolkit.primary.process-hourly-clicks-summary"]
    assert summary["timetable"] == {"type": "CronTriggerTimetable", "expression": "0 * * * *", "timezone": "UTC",
                                    "delta": None}
    assert (summary["start_date"], summary["end_date"]) == ("2026-01-01T00:00Z", "2099-12-30T23:59Z")
    assert summary["max_active_runs"] == 2  # the process's parallel
    [task] = summary["tasks"]
    assert task["timeout"] == 4 * 3600  # the process's timeout: hours(4)
    assert task["poke_interval"] == 300
    assert task["inlets"] == [{"name": "clicks@primary", "uri": "file:///tmp/feed-toolkit-demo/primary/data/clicks"}]
    assert task["outlets"] == [{"name": "clicks-hourly-summary@primary",
                                "uri": "file:///tmp/feed-toolkit-demo/primary/data/clicks-hourly-summary"}]
    assert task["emit_events"] is True
    late = dags["feed_toolkit.primary.late-check-hourly-clicks-summary"]["tasks"][0]
    assert late["outlets"] == task["outlets"] and late["emit_events"] is False  # a late check mostly finds nothing
    retention = dags["feed_toolkit.primary.retention-clicks"]
    assert retention["tasks"][0]["outlets"] == []  # evictions are no new data
    assert retention["tasks"][0]["inlets"] == [{"name": "clicks@primary",
                                                "uri": "file:///tmp/feed-toolkit-demo/primary/data/clicks"}]
    assert retention["tasks"][0]["timeout"] == 6 * 86400  # Falcon's default: 6 x days(1)
    sla = dags["feed_toolkit.primary.sla"]
    assert (sla["timetable"]["expression"], sla["start_date"], sla["end_date"]) == ("*/5 * * * *", None, None)
    assert sla["tasks"][0]["timeout"] == 1800  # at least 30 minutes
    trigger = dags["feed_toolkit.primary.trigger"]
    assert (trigger["timetable"]["expression"], trigger["tasks"][0]["poke_interval"]) == ("* * * * *", 60)


def test_backup_replication_reads_primary_s_copy_and_writes_its_own(loaded: dict[str, Any]) -> None:
    [task] = loaded["backup"]["dags"]["feed_toolkit.backup.replication-clicks-from-primary"]["tasks"]
    assert task["inlets"] == [{"name": "clicks@primary", "uri": "file:///tmp/feed-toolkit-demo/primary/data/clicks"}]
    assert task["outlets"] == [{"name": "clicks@backup", "uri": "file:///tmp/feed-toolkit-demo/backup/replica/clicks"}]
    visits = loaded["backup"]["dags"]["feed_toolkit.backup.replication-visits-from-primary"]["tasks"][0]
    assert visits["outlets"] == [{"name": "visits@backup", "uri": "hive://127.0.0.1:9084/web.visits"}]


# name -> (cron, zone, the first runs that are instances; the other runs `toolkit call` skips)
ODD = {
    "every-seven-minutes": ("* * * * *", "UTC", ["2026-01-01T00:03Z", "2026-01-01T00:10Z"]),
    "every-five-hours": ("0 * * * *", "UTC", ["2026-01-01T02:00Z", "2026-01-01T07:00Z", "2026-01-01T12:00Z"]),
    "every-five-months": ("0 6 15 * *", "UTC", ["2026-01-15T06:00Z", "2026-06-15T06:00Z", "2026-11-15T06:00Z"]),
    "paris-daily": ("0 6 * * *", "Europe/Paris", ["2026-03-27T05:00Z", "2026-03-28T05:00Z", "2026-03-29T04:00Z",
                                                  "2026-03-30T04:00Z", "2026-03-31T04:00Z", "2026-04-01T04:00Z",
                                                  "2026-04-02T04:00Z", "2026-04-03T04:00Z", "2026-04-04T04:00Z",
                                                  "2026-04-05T04:00Z", "2026-04-06T04:00Z", "2026-04-07T04:00Z"]),
    "month-end": ("0 0 28-31 * *", "UTC", ["2026-01-31T00:00Z", "2026-02-28T00:00Z", "2026-03-31T00:00Z",
                                          "2026-04-30T00:00Z"]),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_cadences_fire_on_a_cron_whose_extra_runs_toolkit_call_skips(loaded: dict[str, Any], name: str) -> None:
    cron, zone, instances = ODD[name]
    assert loaded["odd"]["import_errors"] == {}
    dag = loaded["odd"]["dags"][f"feed_toolkit.primary.process-{name}"]
    assert (dag["timetable"]["expression"], dag["timetable"]["timezone"]) == (cron, zone)
    assert dag["runs"][0] == instances[0] == dag["start_date"]
    call = next(c for c in plan_calls(ConfigRepo.load(loaded["odd_repo"]), "primary").calls
                if c.name == f"process-{name}")
    ran = [t for t in dag["runs"] if not check_given(call.cadence, parse_timestamp(t, "run"))]
    assert ran == instances  # what toolkit call --time <logical date> lets through; it skips the rest (exit 4)


def test_delta_trigger_timetable_would_start_off_the_grid(loaded: dict[str, Any]) -> None:
    """Why minutes(7) is a covering cron and not a DeltaTriggerTimetable: without catchup, Airflow 3.3 starts the
    latter's first run at "now", whatever its start_date."""
    first = datetime.fromisoformat(loaded["delta"]["first"])
    since = first - parse_timestamp(loaded["delta"]["anchor"], "anchor")
    assert since.total_seconds() % 420 != 0


def test_exit_codes_map_to_airflow_states(tmp_path: Path) -> None:
    fake = tmp_path / "fake-toolkit"
    fake.write_text(FAKE_TOOLKIT, encoding="utf-8")
    fake.chmod(0o755)
    invocation = Invocation(repo="/srv/conf", toolkit=str(fake), spark_submit="/opt/spark/bin/spark-submit",
                            entrypoints="/opt/feed-toolkit/entrypoints", python="/opt/feed-toolkit/bin/python",
                            log_dir="/var/log/feed-toolkit")
    out = generate(template_copy(tmp_path), "primary", tmp_path / "dags", invocation)
    log = tmp_path / "argv.log"
    env = airflow_env(tmp_path / "home", FAKE_LOG=str(log))
    dag_id = "feed_toolkit.primary.process-hourly-clicks-summary"
    # A logical date given in another zone: the call gets it in UTC.
    result = probe("poke", str(out / f"{dag_id}.py"), dag_id, "2026-03-01T02:00:00+01:00", env=env)
    assert result["answers"] == {"0": "done", "1": "failed", "2": "failed", "3": "reschedule", "4": "skipped",
                                 "5": "reschedule"}
    calls = [line.rstrip("\t").split("\t") for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(calls) == 6
    assert calls[0] == ["call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--wait-first", "--time",
                        "2026-03-01T01:00Z",
                        "--", "/opt/spark/bin/spark-submit", "/opt/feed-toolkit/entrypoints/process.py",
                        "--repo", "/srv/conf", "--process", "hourly-clicks-summary", "--cluster", "primary",
                        "--no-wait"]
    log.unlink()
    result = probe("poke", str(out / "feed_toolkit.primary.sla.py"), "feed_toolkit.primary.sla",
                   "2026-03-01T01:05:00+00:00", env=env)
    assert result["answers"]["0"] == "done" and result["answers"]["1"] == "failed"
    first = log.read_text(encoding="utf-8").splitlines()[0].rstrip("\t").split("\t")
    assert first == ["sla", "--repo", "/srv/conf", "--cluster", "primary", "--now", "2026-03-01T01:05Z"]


def test_outlets_post_events_only_where_the_notifier_does_not(tmp_path: Path) -> None:
    """dag.test() runs a process DAG of primary and a replication DAG of backup (whose cluster has
    trigger.notify: airflow) with a toolkit that succeeds: only the first posts an asset event; both still declare
    their outlets."""
    fake = tmp_path / "fake-toolkit"
    fake.write_text(FAKE_TOOLKIT, encoding="utf-8")
    fake.chmod(0o755)
    invocation = Invocation(repo="/srv/conf", toolkit=str(fake), spark_submit=str(fake), entrypoints="/opt/ep",
                            python="/opt/ep/python", log_dir="/var/log/feed-toolkit")
    repo = template_copy(tmp_path, notify="backup")
    dags = tmp_path / "dags"
    generate(repo, "primary", dags / "primary", invocation)
    generate(repo, "backup", dags / "backup", invocation)
    env = airflow_env(tmp_path / "home", AIRFLOW__CORE__DAGS_FOLDER=str(dags), FAKE_LOG=str(tmp_path / "argv.log"))
    migrate = subprocess.run([str(airflow_python().parent / "airflow"), "db", "migrate"], env=env,
                             capture_output=True, text=True, timeout=180)
    assert migrate.returncode == 0, migrate.stderr[-3000:]
    result = probe("events", "feed_toolkit.primary.process-hourly-clicks-summary",
                   "feed_toolkit.backup.replication-clicks-from-primary", "2026-03-01T01:00:00+00:00", env=env)
    assert set(result["states"].values()) == {"success"}
    assert result["events"] == ["clicks-hourly-summary@primary"]
    assert {"feed_toolkit.primary.process-hourly-clicks-summary>clicks-hourly-summary@primary",
            "feed_toolkit.backup.replication-clicks-from-primary>clicks@backup"} <= set(result["outlet_references"])


def test_the_notifier_brings_the_sweep_that_posts_the_events(tmp_path: Path) -> None:
    """backup has no data-triggered process: without the notifier it has no trigger call, with it one every minute."""
    assert "trigger" not in {c.name for c in plan_calls(ConfigRepo.load(template_copy(tmp_path / "a")), "backup").calls}
    plan = plan_calls(ConfigRepo.load(template_copy(tmp_path / "b", notify="backup")), "backup")
    assert plan.notifies_airflow
    [sweep] = [c for c in plan.calls if c.name == "trigger"]
    assert (sweep.arguments, str(sweep.cadence.frequency)) == (("trigger", "--cluster", "backup"), "minutes(1)")
    assert "trigger.notify: airflow" in sweep.why


def test_cli_writes_then_checks_and_notices_a_changed_entity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) \
        -> None:
    repo = template_copy(tmp_path)
    out = tmp_path / "dags"
    command = ["schedule", "--repo", str(repo), "--cluster", "primary", "--format", "airflow", "--out", str(out)]
    assert main(command) == 0
    written = {path.name for path in out.glob("feed_toolkit.primary.*.py")}
    assert len(written) == 19
    assert {"feed_toolkit.primary.import-shop-orders.py", "feed_toolkit.primary.export-top-pages.py",
            "feed_toolkit.primary.retention-shop-orders.py"} <= written
    assert main([*command, "--check"]) == 0
    assert main(command) == 0 and "0 file(s) written, 19 unchanged" in capsys.readouterr().out
    process = repo / "processes" / "hourly-clicks-summary.yaml"
    process.write_text(process.read_text(encoding="utf-8").replace("timeout: hours(4)", "timeout: hours(5)"),
                       encoding="utf-8")
    assert main([*command, "--check"]) == 1
    assert f"changed: {out / 'feed_toolkit.primary.process-hourly-clicks-summary.py'}" in capsys.readouterr().out


def test_a_call_gets_the_toolkits_python_in_a_workers_bare_environment(tmp_path: Path) -> None:
    """A worker's environment has no PYSPARK_PYTHON (issue 34): the DAG file's ENVIRONMENT gives the call the
    Python of the toolkit's installation, and the rest of the worker's environment is kept."""
    fake = tmp_path / "fake-toolkit"
    fake.write_text("#!/bin/sh\nprintf '%s|%s|%s\\n' \"$PYSPARK_PYTHON\" \"$PYSPARK_DRIVER_PYTHON\" \"$KEPT\" "
                    "> \"$FAKE_LOG\"\n", encoding="utf-8")
    fake.chmod(0o755)
    invocation = Invocation(repo="/srv/conf", toolkit=str(fake), spark_submit=str(fake), entrypoints="/opt/ep",
                            python="/opt/ep/bin/python", log_dir="/var/log/feed-toolkit")
    out = generate(template_copy(tmp_path), "primary", tmp_path / "dags", invocation)
    dag = "feed_toolkit.primary.sla"
    assert "ENVIRONMENT = {'PYSPARK_PYTHON': '/opt/ep/bin/python', 'PYSPARK_DRIVER_PYTHON': '/opt/ep/bin/python'}" \
        in (out / f"{dag}.py").read_text(encoding="utf-8")
    log = tmp_path / "env.log"
    env = {name: value for name, value in airflow_env(tmp_path / "home", FAKE_LOG=str(log), KEPT="yes").items()
           if not name.startswith("PYSPARK_")}
    probe("poke", str(out / f"{dag}.py"), dag, "2026-03-01T01:05:00+00:00", env=env)
    assert log.read_text(encoding="utf-8") == "/opt/ep/bin/python|/opt/ep/bin/python|yes\n"
