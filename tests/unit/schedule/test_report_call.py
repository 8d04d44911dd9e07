"""The status page's call: `toolkit report` every 5 minutes, only on a cluster whose property `report.out` names the
page, and only where the toolkit command can read the cluster's ledger."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.orchestration.schedule.cadence import CLOCK, Cadence
from toolkit.orchestration.schedule.calls import Program, plan_calls


def _ask_for_the_page(conf: Path, cluster: str, page: str) -> None:
    path = conf / "clusters" / f"{cluster}.yaml"
    text = path.read_text()
    assert "\nproperties:\n" in text
    path.write_text(text.replace("\nproperties:\n", f"\nproperties:\n  report.out: {page}\n", 1))


def test_no_page_is_made_unless_the_cluster_asks(tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    assert [call.name for call in plan_calls(ConfigRepo.load(conf), "primary").calls if call.action == "report"] == []


def test_the_cluster_property_adds_the_report_every_5_minutes(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    conf, _ = make_repo(tmp_path)
    _ask_for_the_page(conf, "primary", "/srv/www/status.html")
    [call] = [call for call in plan_calls(ConfigRepo.load(conf), "primary").calls if call.action == "report"]
    assert (call.name, call.program, call.arguments, call.cadence, call.time_option) == (
        "report", Program.TOOLKIT, ("report", "--cluster", "primary", "--out", "/srv/www/status.html"),
        Cadence(Frequency(TimeUnit.MINUTES, 5), CLOCK), "--now")
    assert main(["schedule", "--repo", str(conf), "--cluster", "primary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    [line] = [line for line in lines if " report " in line]
    assert line.startswith('*/5 * * * * L="$LOGS/report.log";')
    assert line.endswith('"$TOOLKIT" report --repo "$CONF_REPO" --cluster primary --out /srv/www/status.html '
                         '>> "$L" 2>&1')
    assert lines[lines.index(line) - 1] == "# report, every minutes(5): the status page: the cluster sets report.out."


def test_the_report_is_left_out_where_the_ledger_cannot_be_read(tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    _ask_for_the_page(conf, "backup", "/srv/www/backup.html")
    cluster = conf / "clusters" / "backup.yaml"
    text = cluster.read_text()
    cluster.write_text(text.replace(text.split("endpoint: ")[2].split("\n")[0], "hdfs://namenode:8020/"))
    plan = plan_calls(ConfigRepo.load(conf), "backup")
    assert [call for call in plan.calls if call.action == "report"] == []
    assert len(plan.left_out) == 1 and "toolkit report" in plan.left_out[0]
