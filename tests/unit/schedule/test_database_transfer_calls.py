"""`toolkit schedule` for feeds with a database `import` or `export` (the datasource samples' repo): one call of
entrypoints/import.py or export.py per instance, on the feed's frequency and zone within its validity on the
cluster (Falcon's import and export coordinators, the cluster's `delay` not applied), as the exact crontab lines,
Oozie coordinators and workflows, and Airflow DAG files; an export's exit 3 is "call again later" as for every
waiting call. Each call puts the datasource's JDBC driver on spark-submit's --jars (the driver's class path has it
from the start: no ADD JAR in the run)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from lxml import etree

from tests.unit.entities.datasource_samples import EXPORTED, IMPORTED, write_repo
from tests.unit.schedule.crontab_text import blocks
from tests.unit.schedule.oozie_files import schedule as oozie_schedule
from tests.unit.schedule.test_cron_cover import called
from tests.unit.schedule.test_oozie_format import COORD, NOMINAL_TIME, SHELL, WF, arguments, coordinator, validate_all
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid
from toolkit.orchestration.schedule.calls import plan_calls
from toolkit.orchestration.schedule.nominal import check_given, instance_for_firing

PATHS = ["--spark-submit", "/opt/spark/bin/spark-submit", "--toolkit", "/opt/toolkit/bin/toolkit",
         "--entrypoints", "/opt/toolkit/entrypoints", "--repo-path", "/srv/conf"]

DRIVER_JAR = "/usr/share/java/postgresql.jar"  # the samples' datasource's driver.jar
LOG = ('L="$LOGS/{name}.log"; mkdir -p "$LOGS"; [ -f "$L" ] && [ "$(wc -c < "$L")" -ge "$LOG_BYTES" ] && '
       'mv -f "$L" "$L.1"; ')
IMPORT_LINE = ('0 * * * * ' + LOG.format(name="import-customers")
               + '"$TOOLKIT" call --every \'hours(1)\' --from 2026-01-01T00:00Z --period 60 -- "$SPARK_SUBMIT" '
               '--jars /usr/share/java/postgresql.jar "$ENTRYPOINTS/import.py" --repo "$CONF_REPO" --feed customers '
               '--cluster primary >> "$L" 2>&1')
EXPORT_LINE = ('0 0 * * * ' + LOG.format(name="export-daily-sales")
               + '"$TOOLKIT" call --every \'days(1)\' --from 2026-01-02T00:00Z --lag 1 --wait-first --period 1440 -- '
               '"$SPARK_SUBMIT" --jars /usr/share/java/postgresql.jar "$ENTRYPOINTS/export.py" --repo "$CONF_REPO" '
               '--feed daily-sales --cluster primary >> "$L" 2>&1')


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "conf")


def crontab(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str) -> str:
    code = main(["schedule", "--repo", str(repo), "--cluster", "primary", *PATHS, *extra])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    return out


def test_the_crontab_lines_of_an_import_and_an_export(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    text = crontab(capsys, repo)
    assert blocks(text) == {"UTC": [IMPORT_LINE, EXPORT_LINE]}
    assert ("# import-customers, every hours(1) from 2026-01-01T00:00Z: each instance: the feed's frequency, "
            "imported from datasource 'sales-db'.") in text.splitlines()
    assert ("# export-daily-sales, every days(1) from 2026-01-02T00:00Z: each instance: the feed's frequency, "
            "exported to datasource 'sales-db' one period after it, once published (the call waits for it up to a "
            "period, then exits 3).") in text.splitlines()
    assert "cron cannot say" not in text  # both cadences are exact


def test_the_calls_as_data(repo: Path) -> None:
    plan = plan_calls(ConfigRepo.load(repo), "primary")
    imported, exported = plan.calls
    assert (imported.name, imported.action, imported.script, imported.arguments, imported.time_option) == (
        "import-customers", "import", "import.py", ("--feed", "customers", "--cluster", "primary"), "--time")
    assert (exported.name, exported.action, exported.script, exported.arguments, exported.time_option) == (
        "export-daily-sales", "export", "export.py", ("--feed", "daily-sales", "--cluster", "primary"), "--time")
    # the import fills the feed (an asset event on success), the export reads it once published
    assert ([a.name for a in imported.inlet_assets], [a.name for a in imported.outlet_assets],
            imported.publishes) == ([], ["customers@primary"], True)
    assert ([a.name for a in exported.inlet_assets], [a.name for a in exported.outlet_assets],
            exported.publishes) == (["daily-sales@primary"], [], False)
    assert (imported.concurrency, exported.concurrency) == (1, 1)
    # how long an unpublished instance's export is called again: Falcon's default, 6 x the frequency
    assert (str(imported.wait_limit), str(exported.wait_limit)) == ("hours(6)", "days(6)")
    assert (str(imported.cadence.frequency), imported.cadence.anchor, imported.cadence.timezone,
            imported.cadence.end, imported.lag) == ("hours(1)", utc(2026, 1, 1), "UTC", utc(2027, 1, 1), 0)
    # an export fires one period after its instance (it has ended then), for the instance before the firing's
    assert (str(exported.cadence.frequency), exported.cadence.anchor, exported.cadence.timezone,
            exported.cadence.end, exported.lag) == ("days(1)", utc(2026, 1, 2), "UTC", utc(2027, 1, 2), 1)


def test_the_cadence_is_the_feeds_instances_within_its_validity(repo: Path) -> None:
    config = ConfigRepo.load(repo)
    imported, exported = plan_calls(config, "primary").calls
    for call, feed in ((imported, "customers"), (exported, "daily-sales")):
        grid = feed_grid(config.feed(feed), "primary")  # what the entrypoint accepts as --time
        firings = list(call.cadence.grid.between(utc(2025, 12, 1), utc(2027, 2, 1)))
        passed = [firing - timedelta(days=call.lag) if call.lag else firing for firing in firings]  # --lag
        assert passed == list(grid.between(utc(2025, 12, 1), utc(2027, 2, 1)))
        assert passed[0] == utc(2026, 1, 1) and passed[-1] < utc(2027, 1, 1)
    # the import: every hour on the hour, each firing passing its own hour
    runs, skipped = called(imported.cadence, utc(2026, 3, 28), utc(2026, 3, 30))
    assert runs == [utc(2026, 3, 28) + timedelta(hours=h) for h in range(49)] and skipped == 0
    assert instance_for_firing(imported.cadence, utc(2026, 6, 1, 10, 3), 60) == (utc(2026, 6, 1, 10), "")
    # the export: every day at midnight, for the day that has just ended (toolkit call --lag 1)
    assert instance_for_firing(exported.cadence, utc(2026, 6, 2, 0, 1), 1440) == (utc(2026, 6, 2), "")
    # nothing before the validity start, nothing from its end on
    before, why = instance_for_firing(imported.cadence, utc(2025, 12, 31, 23, 0), 60)
    assert before is None and "before the first call" in why
    after, why = instance_for_firing(exported.cadence, utc(2027, 1, 2, 0, 0), 1440)
    assert after is None and "after the last instance" in why
    assert check_given(exported.cadence, utc(2027, 1, 1)) == ""  # the firing for the last instance
    assert "is not an instance" in check_given(exported.cadence, utc(2026, 6, 1, 5))


def test_the_feeds_zone_and_validity_and_no_delay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A daily export in Europe/Paris from a Paris midnight is a line of the Paris block; the cluster's `delay`
    (a replication setting) does not move an import, as in Falcon's coordinator."""
    repo = write_repo(tmp_path / "conf")
    (repo / "feeds" / "daily-sales.yaml").write_text(
        EXPORTED.replace("frequency: days(1)\n", "frequency: days(1)\ntimezone: Europe/Paris\n")
        .replace("start: 2026-01-01T00:00Z", "start: 2025-12-31T23:00Z"), encoding="utf-8")
    (repo / "feeds" / "customers.yaml").write_text(
        IMPORTED.replace("    type: source\n", "    type: source\n    delay: hours(2)\n")
        .replace("start: 2026-01-01T00:00Z", "start: 2026-01-01T00:30Z"), encoding="utf-8")
    text = crontab(capsys, repo)
    assert [line.split(" L=")[0] for line in blocks(text)["UTC"]] == ["30 * * * *"]
    assert "--every 'hours(1)' --from 2026-01-01T00:30Z --period 60 --" in blocks(text)["UTC"][0]
    [paris] = blocks(text)["Europe/Paris"]
    assert paris.startswith("0 0 * * * ")
    assert ("\"$TOOLKIT\" call --every 'days(1)' --from 2026-01-01T23:00Z --timezone Europe/Paris --lag 1 --wait-first "
            "--period 1440 -- "
            '"$SPARK_SUBMIT" --jars /usr/share/java/postgresql.jar "$ENTRYPOINTS/export.py" --repo "$CONF_REPO" '
            '--feed daily-sales --cluster primary') \
        in paris
    exported = plan_calls(ConfigRepo.load(repo), "primary").calls[1]
    # summer time: the Paris midnight is 22:00 UTC
    assert instance_for_firing(exported.cadence, utc(2026, 6, 30, 22, 0), 1440) == (utc(2026, 6, 30, 22), "")
    assert exported.lag == 1


def test_a_cluster_without_the_policies_gets_no_such_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = write_repo(tmp_path / "conf")
    (repo / "clusters" / "backup.yaml").write_text(
        (repo / "clusters" / "primary.yaml").read_text(encoding="utf-8").replace("primary", "backup"),
        encoding="utf-8")
    feed = repo / "feeds" / "customers.yaml"
    feed.write_text(feed.read_text(encoding="utf-8").replace("locations:\n", """  - name: backup
    type: source
    validity:
      start: 2026-01-01T00:00Z
      end: 2027-01-01T00:00Z
locations:
"""), encoding="utf-8")
    code = main(["schedule", "--repo", str(repo), "--cluster", "backup", *PATHS])
    out, _ = capsys.readouterr()
    assert code == 0 and "import.py" not in out and "export.py" not in out
    assert "Nothing to schedule" in out


def test_the_oozie_coordinators_and_workflows(tmp_path: Path, repo: Path) -> None:
    out = tmp_path / "oozie"
    assert oozie_schedule(repo, out) == 0
    validate_all(out)
    for call, frequency, start, end in (("import-customers", "hours(1)", "2026-01-01T00:00Z", "2027-01-01T00:00Z"),
                                        ("export-daily-sales", "days(1)", "2026-01-02T00:00Z", "2027-01-02T00:00Z")):
        app = coordinator(out, call)
        assert (app.get("frequency"), app.get("start"), app.get("end"), app.get("timezone")) == (
            f"${{coord:{frequency}}}", start, end, "UTC")
        properties = {p.findtext(f"{{{COORD}}}name"): p.findtext(f"{{{COORD}}}value")
                      for p in app.iter(f"{{{COORD}}}property")}
        assert properties == {"nominalTime": NOMINAL_TIME}
        action = etree.parse(str(out / call / "workflow.xml")).getroot().find(f"{{{WF}}}action")
        # 3 (the export's instance not published yet) and 5 fail the shell action, which Oozie retries
        assert (action.get("retry-max"), action.get("retry-interval")) == ("3", "10")
        assert [e.text for e in action.iter(f"{{{SHELL}}}env-var")] == [
            "PYSPARK_PYTHON=${toolkitPython}", "PYSPARK_DRIVER_PYTHON=${toolkitPython}"]
    assert arguments(out, "import-customers") == [
        "${sparkSubmit}", "--jars", DRIVER_JAR, "${entrypoints}/import.py", "--repo", "${confRepo}", "--feed",
        "customers", "--cluster", "primary", "--time", "${nominalTime}"]
    # the export's action fires one period after its instance: `toolkit call --lag 1` passes the instance
    assert arguments(out, "export-daily-sales") == [
        "${toolkit}", "call", "--every", "days(1)", "--from", "2026-01-02T00:00Z", "--lag", "1", "--wait-first",
        "--time", "${nominalTime}", "--", "${sparkSubmit}", "--jars", DRIVER_JAR, "${entrypoints}/export.py",
        "--repo", "${confRepo}", "--feed", "daily-sales", "--cluster", "primary"]

    def controls(call: str) -> tuple[str | None, ...]:
        block = coordinator(out, call).find(f"{{{COORD}}}controls")
        return tuple(block.findtext(f"{{{COORD}}}{name}") for name in ("timeout", "concurrency", "execution",
                                                                       "throttle"))

    # every instance matters (FIFO); the timeout is Falcon's default, 6 x the frequency
    assert controls("import-customers") == ("360", "1", "FIFO", "12")
    assert controls("export-daily-sales") == ("8640", "1", "FIFO", "12")
    bundle = (out / "bundle.xml").read_text(encoding="utf-8")
    assert "${toolkitAppPath}/import-customers" in bundle and "${toolkitAppPath}/export-daily-sales" in bundle
    assert "clockStart" not in (out / "job.properties").read_text(encoding="utf-8")


def dag(tmp_path: Path, repo: Path, call: str) -> str:
    out = tmp_path / "dags"
    assert main(["schedule", "--repo", str(repo), "--cluster", "primary", "--format", "airflow", "--out", str(out),
                 *PATHS]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["feed_toolkit.primary.export-daily-sales.py",
                                                     "feed_toolkit.primary.import-customers.py"]
    return (out / f"feed_toolkit.primary.{call}.py").read_text(encoding="utf-8")


def command_of(text: str) -> list[str]:
    body = text[text.index("    return [\n") + len("    return [\n"):text.index("\n    ]\n")]
    return [token.strip().strip("'") for token in re.split(r",\s*", body.strip().rstrip(","))]


def test_the_airflow_dag_of_an_import(tmp_path: Path, repo: Path) -> None:
    text = dag(tmp_path, repo, "import-customers")
    assert command_of(text) == [
        "/opt/toolkit/bin/toolkit", "call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--time",
        "stamp(logical_date)", "--", "/opt/spark/bin/spark-submit", "--jars", DRIVER_JAR,
        "/opt/toolkit/entrypoints/import.py", "--repo",
        "/srv/conf", "--feed", "customers", "--cluster", "primary"]
    for line in ("    dag_id='feed_toolkit.primary.import-customers',",
                 "    schedule=CronTriggerTimetable('0 * * * *', timezone='UTC'),",
                 "    start_date=datetime(2026, 1, 1, 0, 0, tzinfo=timezone.utc),  # the first instance",
                 "    end_date=datetime(2026, 12, 31, 23, 59, tzinfo=timezone.utc),",
                 "    max_active_runs=1,",
                 "    tags=['feed-toolkit', 'primary', 'import'],",
                 "        task_id='import',",
                 "        emit_events=True,",
                 "        timeout=21600,",
                 "        inlets=[],",
                 "        outlets=[Asset(name='customers@primary', uri='file:///tmp/primary/data/customers')],"):
        assert line in text.splitlines(), line
    assert "--no-wait" not in text


def test_the_airflow_dag_of_an_export_reschedules_while_unpublished(tmp_path: Path, repo: Path) -> None:
    text = dag(tmp_path, repo, "export-daily-sales")
    assert command_of(text) == [
        "/opt/toolkit/bin/toolkit", "call", "--every", "days(1)", "--from", "2026-01-02T00:00Z", "--lag", "1",
        "--wait-first", "--time", "stamp(logical_date)", "--", "/opt/spark/bin/spark-submit", "--jars", DRIVER_JAR,
        "/opt/toolkit/entrypoints/export.py",
        "--repo", "/srv/conf", "--feed", "daily-sales", "--cluster", "primary", "--no-wait"]
    for line in ("    schedule=CronTriggerTimetable('0 0 * * *', timezone='UTC'),",
                 "    start_date=datetime(2026, 1, 2, 0, 0, tzinfo=timezone.utc),  # the first instance",
                 "    end_date=datetime(2027, 1, 1, 23, 59, tzinfo=timezone.utc),",
                 "        task_id='export',",
                 "        emit_events=False,",
                 "        mode='reschedule',",
                 "        poke_interval=300,",
                 "        timeout=518400,",  # days(6): the wait limit of an unpublished instance
                 "        inlets=[Asset(name='daily-sales@primary', uri='file:///tmp/primary/data/daily-sales')],",
                 "        outlets=[],"):
        assert line in text.splitlines(), line
    said = " ".join(text.split())
    assert "3 (waiting, --no-wait) and 5 (blocked) reschedule the task every 300 s until days(6)" in said
