"""`toolkit sla` in a fresh interpreter: cron calls it every few minutes, so it loads no pyspark and no py4j."""

from __future__ import annotations

import os
from pathlib import Path

from tests.unit.schedule.sla_site import NOW


def test_no_spark_is_imported(site: tuple[Path, Path]) -> None:
    """cron calls it every few minutes: no pyspark, no py4j, so no JVM."""
    import subprocess
    import sys

    conf, _ = site
    code = ("import sys\nfrom toolkit.cli.main import main\n"
            f"main(['sla', '--repo', {str(conf)!r}, '--cluster', 'primary', '--now', {NOW!r}, '--no-notify'])\n"
            "print('pyspark' in sys.modules or 'py4j' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])})
    assert result.stdout.strip().splitlines()[-1] == "False", result.stderr
