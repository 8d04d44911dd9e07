"""`toolkit schedule --format crontab`: the template repo's calls and odd cadences as cron lines, CRON_TZ blocks,
the covering note, a generated line run by /bin/sh as cron runs it, and --out/--check."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.unit.schedule.cadence_repo import make_cadence_repo
from tests.unit.schedule.crontab_text import blocks
from toolkit.cli.main import main

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
CHECKOUT = Path(__file__).resolve().parents[3]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# Each line as generated: the call's command inside the wrapper that appends its output to its own log.
LOGGED = re.compile(r'^(?P<cron>(\S+ ){5})L="\$LOGS/(?P<name>[a-z0-9-]+)\.log"; mkdir -p "\$LOGS"; '
                    r'\[ -f "\$L" \] && \[ "\$\(wc -c < "\$L"\)" -ge "\$LOG_BYTES" \] && mv -f "\$L" "\$L\.1"; '
                    r'(?P<command>.*) >> "\$L" 2>&1$')


def line_of(lines: list[str], needle: str) -> str:
    """The one line with `needle`, as cron's time fields and the command inside the log wrapper."""
    matching = [line for line in lines if needle in line]
    assert len(matching) == 1, f"one line with {needle!r} expected in:\n" + "\n".join(lines)
    logged = LOGGED.match(matching[0])
    assert logged, f"not in its log wrapper: {matching[0]}"
    return logged["cron"] + logged["command"]


def test_the_template_primary_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schedule", "--repo", str(TEMPLATE), "--cluster", "primary",
                       "--spark-submit", "/opt/spark/bin/spark-submit", "--toolkit", "/opt/toolkit/bin/toolkit",
                       "--entrypoints", "/opt/toolkit/entrypoints", "--repo-path", "/srv/conf")
    assert code == 0
    assert list(blocks(out)) == ["UTC"]  # every template entity is in UTC
    lines = blocks(out)["UTC"]
    assert "SPARK_SUBMIT=/opt/spark/bin/spark-submit" in out and "CONF_REPO=/srv/conf" in out
    summary = line_of(lines, "process.py\" --repo \"$CONF_REPO\" --process hourly-clicks-summary")
    assert summary == ('0 * * * * "$TOOLKIT" call --every \'hours(1)\' --from 2026-01-01T00:00Z --wait-first '
                       '--period 60 -- '
                       '"$SPARK_SUBMIT" "$ENTRYPOINTS/process.py" --repo "$CONF_REPO" --process '
                       'hourly-clicks-summary --cluster primary')
    # no path of this machine: the Python beside the given toolkit, no jar of this checkout (issue 34)
    assert "PYSPARK_PYTHON=/opt/toolkit/bin/python" in out and "PYSPARK_DRIVER_PYTHON=/opt/toolkit/bin/python" in out
    assert str(CHECKOUT) not in out
    # the one jar named is the shop database's JDBC driver, on the import's and export's lines (its path on the host)
    assert {line.split("--jars ", 1)[1].split(" ", 1)[0] for line in lines if "--jars" in line} == {
        "/usr/share/java/postgresql.jar"}
    assert line_of(lines, "late_check.py").startswith("0 * * * * ")
    assert line_of(lines, "--process top-pages").startswith("0 0 * * * ")
    # a file feed's retention runs without a JVM, through the same toolkit call wrapper; a table feed's in Spark
    assert line_of(lines, "--feed clicks ") == (
        '0 0 * * * "$TOOLKIT" call --every \'days(1)\' --from 2025-12-01T00:00Z --period 1440 -- "$TOOLKIT" retain '
        '--repo "$CONF_REPO" --feed clicks --cluster primary')
    assert line_of(lines, "--feed clicks-daily-table ").endswith(
        '-- "$SPARK_SUBMIT" "$ENTRYPOINTS/retention.py" --repo "$CONF_REPO" --feed clicks-daily-table '
        '--cluster primary')
    assert "retention.py" not in line_of(lines, '"$LOGS/retention-clicks-daily.log"')
    # the shop's orders imported each hour, the day's top pages exported the next midnight, for the day just ended
    # (tests/unit/schedule/test_database_transfer_calls.py has the whole lines)
    assert line_of(lines, '"$ENTRYPOINTS/import.py"').endswith(
        '"$ENTRYPOINTS/import.py" --repo "$CONF_REPO" --feed shop-orders --cluster primary')
    assert line_of(lines, '"$ENTRYPOINTS/import.py"').startswith("0 * * * * ")
    assert line_of(lines, '"$ENTRYPOINTS/export.py"') == (
        '0 0 * * * "$TOOLKIT" call --every \'days(1)\' --from 2026-01-02T00:00Z --lag 1 --wait-first --period 1440 -- '
        '"$SPARK_SUBMIT" --jars /usr/share/java/postgresql.jar "$ENTRYPOINTS/export.py" --repo "$CONF_REPO" '
        '--feed top-pages --cluster primary')
    assert line_of(lines, " trigger ") == '* * * * * "$TOOLKIT" trigger --repo "$CONF_REPO" --cluster primary'
    assert line_of(lines, " sla ") == '*/5 * * * * "$TOOLKIT" sla --repo "$CONF_REPO" --cluster primary'
    assert line_of(lines, "ingest.py").endswith("--feed page-views --cluster primary --for 3540")
    # hourly-page-view-counts has trigger: data: the sweep starts it, no line of its own
    assert "--process hourly-page-view-counts" not in out
    assert "replication.py" not in out  # primary is no target


def test_the_template_backup_cluster_replicates_per_source(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schedule", "--repo", str(TEMPLATE), "--cluster", "backup")
    lines = blocks(out)["UTC"]
    assert code == 0
    assert line_of(lines, "--feed clicks --source primary --target backup").startswith("0 * * * * ")
    assert line_of(lines, "--feed visits --source primary --target backup").startswith("0 0 * * * ")
    assert "process.py" not in out and " trigger " not in out


def test_odd_cadences_are_covered_and_say_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_cadence_repo(tmp_path)
    code, out, _ = run(capsys, "schedule", "--repo", str(repo), "--cluster", "main")
    assert code == 0
    assert list(blocks(out)) == ["UTC", "Europe/Paris"]
    utc_lines, paris = blocks(out)["UTC"], blocks(out)["Europe/Paris"]
    assert line_of(paris, "paris-daily").startswith("30 6 * * * ")  # 05:30Z is 06:30 in Paris in winter
    assert line_of(utc_lines, "every-7-minutes").startswith("* * * * * ")
    assert line_of(utc_lines, "every-5-hours").startswith("0 * * * * ")
    assert line_of(utc_lines, "every-5-months").startswith("0 6 15 * * ")
    assert line_of(utc_lines, "every-2-months").startswith("0 6 15 1,3,5,7,9,11 * ")
    assert line_of(utc_lines, "month-end").startswith("0 0 28-31 * * ")
    notes = [line for line in out.splitlines() if "cron cannot say" in line]
    assert [re.search(r"say (\S+)", note).group(1) for note in notes] == [  # type: ignore[union-attr]
        "hours(5)", "months(5)", "minutes(7)", "months(1)"]
    assert all("toolkit call skips (exit 4) the firings between instances" in note for note in notes)
    # retention: Falcon's rule on the limit (hours(12) -> every 6 hours; days(30) -> daily)
    assert line_of(utc_lines, "--feed minutes --cluster main").startswith("0 */6 * * * ")
    assert line_of(utc_lines, "--feed out --cluster main").startswith("0 0 * * * ")


def test_the_retention_frequency_property_and_lifecycle_win(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_cadence_repo(tmp_path)
    feed = repo / "feeds" / "out.yaml"
    feed.write_text(feed.read_text() + "properties:\n  retention.frequency: hours(2)\n")
    _, out, _ = run(capsys, "schedule", "--repo", str(repo), "--cluster", "main")
    assert line_of(blocks(out)["UTC"], "--feed out --cluster main").startswith("0 */2 * * * ")
    assert "retention-out, every hours(2) from 2026-01-01T00:00Z: the feed property retention.frequency." in out
    feed.write_text(feed.read_text().replace("hours(2)", "weekly"))
    code, _, err = run(capsys, "schedule", "--repo", str(repo), "--cluster", "main")
    assert code == 2 and "Feed 'out'" in err and "retention.frequency" in err and "Traceback" not in err


def test_out_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_cadence_repo(tmp_path)
    out_dir = tmp_path / "cron"
    base = ["schedule", "--repo", str(repo), "--cluster", "main", "--out", str(out_dir)]
    code, out, _ = run(capsys, *base)
    assert code == 0 and "1 file(s) written, 0 unchanged, 0 removed" in out
    crontab = out_dir / "crontab"
    assert crontab.read_text().startswith(
        "# BEGIN feed-toolkit main\n# Generated by toolkit schedule for cluster 'main'")
    assert run(capsys, *base, "--check")[0] == 0
    os.utime(crontab, (1_000_000, 1_000_000))
    code, out, _ = run(capsys, *base)
    assert "0 file(s) written, 1 unchanged" in out and crontab.stat().st_mtime == 1_000_000  # not rewritten
    process = repo / "processes" / "every-5-hours.yaml"
    process.write_text(process.read_text().replace("hours(5)", "hours(4)"))
    code, out, _ = run(capsys, *base, "--check")
    assert code == 1 and f"changed: {crontab}" in out and "1 difference(s)" in out
    stale = out_dir / "old.crontab"
    stale.write_text("# Generated by toolkit schedule for cluster 'main'.\n")
    mine = out_dir / "notes.txt"
    mine.write_text("my own notes\n")
    code, out, _ = run(capsys, *base, "--check")
    assert code == 1 and f"no longer generated: {stale}" in out
    code, out, _ = run(capsys, *base)
    assert code == 0 and f"removed (no longer generated): {stale}" in out
    assert not stale.exists() and mine.read_text() == "my own notes\n"
    assert "0 1-23/4 * * *" in crontab.read_text()
    assert run(capsys, *base, "--check")[0] == 0
    other = out_dir / "backup" / "crontab"  # another cluster's file below the same folder is not this one's
    other.parent.mkdir()
    other.write_text("# Generated by toolkit schedule for cluster 'backup'. Do not edit.\n")
    code, out, _ = run(capsys, *base)
    assert code == 0 and "0 removed" in out and other.exists()
    assert run(capsys, *base, "--check")[0] == 0


def test_bad_calls_say_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "schedule", "--repo", str(TEMPLATE), "--cluster", "primary", "--format", "oozie")
    assert code == 2 and "needs --out DIR" in err
    code, _, err = run(capsys, "schedule", "--repo", str(TEMPLATE), "--cluster", "primary", "--check")
    assert code == 2 and "needs --out DIR" in err
    code, _, err = run(capsys, "schedule", "--repo", str(TEMPLATE), "--cluster", "nowhere")
    assert code == 2 and "nowhere" in err
    afile = tmp_path / "afile"
    afile.write_text("")
    code, _, err = run(capsys, "schedule", "--repo", str(TEMPLATE), "--cluster", "primary", "--out", str(afile))
    assert code == 2 and "is a file" in err
    assert shutil.which("sh")


def test_toolkit_commands_are_left_out_where_they_cannot_read_the_ledger(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_cadence_repo(tmp_path)
    cluster = repo / "clusters" / "backup.yaml"
    cluster.write_text(cluster.read_text().replace(f"file://{tmp_path / 'backup'}", "hdfs://namenode:8020/"))
    feed = repo / "feeds" / "minutes.yaml"
    feed.write_text(feed.read_text() + "sla: {slaLow: hours(1), slaHigh: hours(2)}\n")
    code, out, err = run(capsys, "schedule", "--repo", str(repo), "--cluster", "backup")
    assert code == 0 and " sla " not in out and "replication.py" in out
    assert err.strip() == ("schedule: toolkit sla not scheduled on cluster 'backup': the toolkit command reads a "
                           "cluster's ledger on a file:// write endpoint, or an hdfs:// one through WebHDFS at a "
                           "readonly endpoint such as webhdfs://namenode:9870 (docs/hdfs.md), so it would fail at "
                           "every call here.")
    cluster.write_text(cluster.read_text().replace("hdfs://namenode:8020/", "webhdfs://nn:9870", 1))  # readonly
    code, out, err = run(capsys, "schedule", "--repo", str(repo), "--cluster", "backup")
    assert code == 0 and "sla --repo \"$CONF_REPO\" --cluster backup" in out and err == ""  # through WebHDFS
    code, out, err = run(capsys, "schedule", "--repo", str(repo), "--cluster", "main")
    assert code == 0 and " sla " in out and err == ""


def test_a_cluster_that_sets_metrics_textfile_gets_its_metrics_written_every_5_minutes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "conf"
    shutil.copytree(TEMPLATE, repo)
    cluster = repo / "clusters" / "primary.yaml"
    text = cluster.read_text()
    assert text.count("\nproperties:\n") == 1
    cluster.write_text(text.replace("\nproperties:\n",
                                    "\nproperties:\n  metrics.textfile: /var/lib/prometheus/node-exporter\n"))
    code, out, err = run(capsys, "schedule", "--repo", str(repo), "--cluster", "primary")
    assert code == 0, err
    assert line_of(blocks(out)["UTC"], " metrics ") == (
        '*/5 * * * * "$TOOLKIT" metrics --repo "$CONF_REPO" --cluster primary --textfile '
        '/var/lib/prometheus/node-exporter')
    cluster.write_text(text)
    _, out, _ = run(capsys, "schedule", "--repo", str(repo), "--cluster", "primary")
    assert " metrics " not in out
