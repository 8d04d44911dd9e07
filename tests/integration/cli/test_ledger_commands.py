"""The ledger commands as separate programs: `toolkit rerun --execute` runs each rerun (spark-submit a stand-in
script) and exits with the worst code, and the real `python -m toolkit` refuses an hdfs:// cluster without WebHDFS in
one line. The in-process tests are tests/unit/cli/test_ledger_commands.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.unit.cli.ledger_site import (
    NOW,
    PROCESS,
    Site,
    hdfs_backup,
)
from toolkit.cli.commands import rerun as rerun_command
from toolkit.cli.main import main


@pytest.mark.jvm
def test_rerun_execute_runs_each_and_exits_with_the_worst_code(capfd: pytest.CaptureFixture[str], history: Site,
                                                               tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for spark-submit: exits 3 (waiting) for 04:00, 1 (failed) for 05:00, 0 for 06:00."""
    fake = tmp_path / "spark-submit"
    fake.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import sys
        t = sys.argv[sys.argv.index("--time") + 1]
        print("fake spark-submit", t, flush=True)
        sys.exit({{"2026-11-21T04:00Z": 3, "2026-11-21T05:00Z": 1}}.get(t, 0))
        """))
    fake.chmod(0o755)
    monkeypatch.setattr(rerun_command, "spark_submit", lambda: str(fake))
    code = main(["rerun", "--repo", str(history.conf), "--process", PROCESS, "--cluster", "primary", "--now", NOW,
                 "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T12:00Z", "--execute"])
    out, err = capfd.readouterr()
    assert code == 1, err
    assert [line for line in out.splitlines() if line.startswith("fake")] == [
        "fake spark-submit 2026-11-21T04:00Z", "fake spark-submit 2026-11-21T05:00Z",
        "fake spark-submit 2026-11-21T06:00Z"]
    assert [line.rsplit(" ", 1)[1] for line in out.splitlines() if ": exit " in line] == ["3", "1", "0"]


def test_hdfs_cluster_without_webhdfs_through_the_real_command(site: Site) -> None:
    """The real `python -m toolkit` process: one line, exit 2, no traceback; an hdfs:// readonly endpoint is no
    WebHDFS address (docs/hdfs.md)."""
    hdfs_backup(site)
    result = subprocess.run([sys.executable, "-m", "toolkit", "safemode", "on", "--repo", str(site.conf),
                             "--cluster", "backup"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == ("toolkit: The cluster 'backup' interfaces.readonly.endpoint 'hdfs://nn:8020' is not a "
                             "WebHDFS address; the command line reads this cluster's ledger through WebHDFS at the "
                             "readonly interface: write the namenode's HTTP address, e.g. webhdfs://namenode:9870 "
                             "(swebhdfs:// or https:// for HTTPS).\n")
