"""`make demo`'s Falcon `engine: oozie` step, on a STAND-IN Oozie (tests/oozie_server.py: Oozie needs Hadoop):
`config_repo_template/demo/oozie_repo.py` writes the repo as the demo calls it, the Falcon XML of
`demo/falcon-oozie/` converts into it with nothing reported and lints clean, and the process counts the hour's
clicks through the Oozie workflow application the script put on the cluster, submitted once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.integration.process_runner.process_repo import TestClock, new_runner, utc, write_clicks
from tests.oozie_server import StandInOozie
from toolkit.authoring.lint.runner import lint_repo
from toolkit.statuses import Status

DEMO = Path(__file__).resolve().parents[3] / "config_repo_template" / "demo"
T = utc(2026, 1, 1, 0)


def test_the_demos_falcon_oozie_process_converts_lints_and_counts_the_clicks_on_the_stand_in_oozie(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    repo, root = tmp_path / "oozie-repo", tmp_path / "oozie-primary"
    wrote = subprocess.run([sys.executable, str(DEMO / "oozie_repo.py"), "--to", str(repo), "--root", str(root),
                            "--oozie", oozie.url], capture_output=True, text=True, check=False)
    assert wrote.returncode == 0, wrote.stderr
    assert (root / "apps/clicks-count/workflow.xml").is_file()
    falcon = sorted(str(path) for path in (DEMO / "falcon-oozie").glob("*.xml"))
    converted = subprocess.run([sys.executable, "-m", "toolkit", "convert-falcon", *falcon, "--out", str(repo)],
                               capture_output=True, text=True, check=False)
    assert (converted.returncode, converted.stderr) == (0, "")
    assert lint_repo(repo).problems == ()
    [clicks] = write_clicks(root, T, 1)
    lines = len((clicks / "part-00000.json").read_text().splitlines())

    result = new_runner(spark, repo, "clicks-count-oozie", TestClock(T)).run(T)

    assert result.status == Status.SUCCEEDED, result.reason
    [job] = oozie.jobs.values()
    assert (job.status, job.conf["nominalTime"], job.conf["clicks"]) == ("SUCCEEDED", "2026-01-01-00-00",
                                                                       f"file://{clicks}")
    counts = root / "data/clicks-hourly-counts/2026/01/01/00/part-00000.json"
    assert json.loads(counts.read_text()) == {"hour": "2026-01-01-00-00", "clicks": lines}
