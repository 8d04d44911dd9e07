"""docs/getting-started.md, run as written: every command of its ```sh blocks, in order, in one bash with the
virtualenv's bin/ first on PATH and TOOLKIT_HOME set, as its first block (`make install`, `source
.venv/bin/activate`) leaves a newcomer. Its folder /tmp/my-pipelines-* is moved under the test's tmp folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.jvm_options import with_short_lived

PROJECT = Path(__file__).resolve().parents[2]
PAGE = PROJECT / "docs" / "getting-started.md"
BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@pytest.mark.jvm
def test_every_command_of_the_getting_started_page_works(tmp_path: Path) -> None:
    script = "\n".join(BLOCK.findall(PAGE.read_text(encoding="utf-8"))).replace("/tmp/my-pipelines", f"{tmp_path}/p")
    assert script.count("spark-submit") == 2 and "toolkit init" in script
    result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path, capture_output=True,
                            text=True, timeout=600,
                            env=with_short_lived({
                                "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path),
                                "TOOLKIT_HOME": str(PROJECT), "SPARK_LOCAL_IP": "127.0.0.1",
                                "VIRTUAL_ENV": str(Path(sys.executable).parent.parent),
                                "PYSPARK_PYTHON": sys.executable, "LANG": os.environ.get("LANG", "C.UTF-8")}))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout.splitlines()
    process = json.loads(next(line for line in out if '"action": "process"' in line))
    assert (process["status"], process["entity"]) == ("SUCCEEDED", "hourly-event-counts")
    assert '{"event":"click","n":2}' in out and '{"event":"view","n":1}' in out
    assert any(line.startswith("2026-01-01T10:00Z  SUCCEEDED  1 ") for line in out)  # toolkit status
    assert any(line.startswith("would evict 2026-01-01T10:00Z ") for line in out)  # the dry run
    retained = json.loads(out[-1])  # the crontab line's log, its last line
    assert (retained["action"], retained["status"], retained["instances_evicted"]) == ("retention", "SUCCEEDED", 1)
    assert not (tmp_path / "p-data/data/events/2026/01/01/10").exists()
