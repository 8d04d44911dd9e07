"""Generated crontab lines run as cron runs them: `env -i` with cron's PATH (/usr/bin:/bin), the crontab's own
variables and nothing of this virtualenv, by /bin/sh (issue 34: the generated line failed under cron with
ModuleNotFoundError, spark-submit falling back to the system Python). The toolkit, spark-submit and the
entrypoints are this checkout's, given to `toolkit schedule` as a scheduler host's paths would be."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from tests.integration.spark_submit import PROJECT, SPARK_SUBMIT
from tests.unit.retention.retention_repo import make_repo

CRON_PATH = "/usr/bin:/bin"
TOOLKIT = Path(sys.executable).parent / "toolkit"


def generate(tmp_path: Path, *extra: str) -> str:
    repo, _ = make_repo(tmp_path)
    result = subprocess.run([str(TOOLKIT), "schedule", "--repo", str(repo), "--cluster", "primary",
                             "--toolkit", str(TOOLKIT), "--spark-submit", str(SPARK_SUBMIT),
                             "--entrypoints", str(PROJECT / "entrypoints"), "--log-dir", str(tmp_path / "logs"),
                             *extra], capture_output=True, text=True, timeout=120, env={"PATH": CRON_PATH})
    assert result.returncode == 0, result.stderr
    return result.stdout


def cron_environment(crontab: str, home: Path) -> dict[str, str]:
    """What cron gives a line: its own few variables and the crontab's assignments."""
    assignments = dict(line.split("=", 1) for line in crontab.splitlines() if re.match(r"^[A-Z_]+=", line))
    return {"PATH": CRON_PATH, "HOME": str(home), "LOGNAME": "tester", **assignments}


def command_of(crontab: str, needle: str) -> str:
    [line] = [line for line in crontab.splitlines() if needle in line and not line.startswith("#")]
    return line.split(" ", 5)[5].replace("\\%", "%")


def run_as_cron(crontab: str, needle: str, home: Path, **overrides: str) -> subprocess.CompletedProcess[str]:
    env = {**cron_environment(crontab, home), **overrides}
    return subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c",
                           command_of(crontab, needle)], capture_output=True, text=True, timeout=300,
                          env={"PATH": CRON_PATH})


def test_a_spark_submit_line_runs_under_cron_and_logs_its_status_line(tmp_path: Path) -> None:
    crontab = generate(tmp_path)
    assert str(PROJECT / "toolkit") not in crontab  # no jar or package path of the generating checkout
    result = run_as_cron(crontab, "--feed clicks --cluster primary", tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")  # everything went to the log
    log = (tmp_path / "logs" / "retention-clicks.log").read_text()
    assert "ModuleNotFoundError" not in log and "Traceback" not in log
    status = json.loads(log.strip().splitlines()[-1])
    assert (status["action"], status["entity"], status["status"]) == ("retention", "clicks", "SUCCEEDED")


def test_toolkit_lines_run_under_cron_and_each_log_is_bounded(tmp_path: Path) -> None:
    crontab = generate(tmp_path)
    first = run_as_cron(crontab, '"$TOOLKIT" sla ', tmp_path, LOG_BYTES="64")
    assert first.returncode in (0, 1) and first.stdout == "" and first.stderr == ""
    log = tmp_path / "logs" / "sla.log"
    said = log.read_text()
    assert said and len(said.encode()) >= 64
    second = run_as_cron(crontab, '"$TOOLKIT" sla ', tmp_path, LOG_BYTES="64")
    assert second.returncode == first.returncode
    assert (tmp_path / "logs" / "sla.log.1").read_text() == said  # the full log moved aside, one generation
    assert log.read_text() == said  # the new one holds this call only
    sweep = run_as_cron(crontab, '"$TOOLKIT" trigger ', tmp_path)
    assert sweep.returncode == 0, (tmp_path / "logs" / "trigger.log").read_text()


def test_an_airflow_dags_command_runs_in_a_bare_environment(tmp_path: Path) -> None:
    """The command a generated DAG's task runs (its `command(logical_date)` and `ENVIRONMENT`, read from the file:
    Airflow is not needed to run it) in an environment with nothing but cron's PATH."""
    repo, _ = make_repo(tmp_path)
    dags = tmp_path / "dags"
    generated = subprocess.run([str(TOOLKIT), "schedule", "--repo", str(repo), "--cluster", "primary", "--format",
                                "airflow", "--out", str(dags), "--toolkit", str(TOOLKIT), "--spark-submit",
                                str(SPARK_SUBMIT), "--entrypoints", str(PROJECT / "entrypoints")],
                               capture_output=True, text=True, timeout=120, env={"PATH": CRON_PATH})
    assert generated.returncode == 0, generated.stderr
    tree = ast.parse((dags / "feed_toolkit.primary.retention-clicks.py").read_text(encoding="utf-8"))
    [environment] = [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == "ENVIRONMENT" for t in node.targets)]
    [command] = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "command"]
    returned = command.body[-1]
    assert isinstance(returned, ast.Return) and isinstance(returned.value, ast.List)
    argv = ["2026-11-23T00:00Z" if isinstance(item, ast.Call) else ast.literal_eval(item)
            for item in returned.value.elts]  # the one call is stamp(logical_date)
    assert environment == {"PYSPARK_PYTHON": str(TOOLKIT.parent / "python"),
                           "PYSPARK_DRIVER_PYTHON": str(TOOLKIT.parent / "python")}
    result = subprocess.run(["env", "-i", f"PATH={CRON_PATH}", *(f"{k}={v}" for k, v in environment.items()), *argv],
                            capture_output=True, text=True, timeout=300, env={"PATH": CRON_PATH})
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert (status["action"], status["entity"], status["time"], status["status"]) == (
        "retention", "clicks", "2026-11-23T00:00Z", "SUCCEEDED")


def test_a_clusters_one_retention_line_runs_under_cron(tmp_path: Path) -> None:
    """`--retention per-cluster`: one `toolkit retain --all` line for a cluster of file feeds, run as cron runs it,
    retains every due feed and logs a status line per feed and the summary."""
    from toolkit.devtools.feeds_repo import CLUSTER, write_feeds_repo, write_hours

    root = tmp_path / "lake"
    root.mkdir()
    names = write_feeds_repo(tmp_path / "conf", root, 3, start="2026-01-01T00:00Z")
    for name in names:
        write_hours(root, name, datetime(2026, 1, 1, tzinfo=timezone.utc), 24 * 40)  # expired by now (days(30))
    result = subprocess.run([str(TOOLKIT), "schedule", "--repo", str(tmp_path / "conf"), "--cluster", CLUSTER,
                             "--retention", "per-cluster", "--toolkit", str(TOOLKIT), "--log-dir",
                             str(tmp_path / "logs")], capture_output=True, text=True, timeout=120,
                            env={"PATH": CRON_PATH})
    assert result.returncode == 0, result.stderr
    crontab = result.stdout
    assert [line.split(" ", 5)[:5] for line in crontab.splitlines() if "retain" in line and line[0] != "#"] == \
        [["0", "*", "*", "*", "*"]]  # one line, every hour
    ran = run_as_cron(crontab, f"--cluster {CLUSTER} --all", tmp_path)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    lines = [json.loads(line) for line in (tmp_path / "logs" / "retention.log").read_text().splitlines()]
    assert sorted(line["entity"] for line in lines[:-1]) == names
    assert all(line["status"] == "SUCCEEDED" and line["instances_evicted"] > 0 for line in lines)
    assert not (root / "data" / names[0] / "2026" / "01" / "01").exists()
