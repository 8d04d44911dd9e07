"""Each attempt's stderr kept beside its record by real runs of the process runner (issue 37, `toolkit logs`): a
pyspark workflow's prints and traceback in the test SparkSession, one log per attempt, secrets masked, and the
same text still on the entrypoint's stderr. The `engine: spark` child's output: test_spark_engine.py."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import (
    TestClock,
    make_repo,
    new_runner,
    utc,
    write_clicks,
    write_process,
)
from toolkit.cli.main import main

T = utc(2026, 11, 21, 10)
FLAKY = '''
import sys

def run(spark, ctx):
    print(f"attempt {ctx.attempt}: reading jdbc:postgresql://etl:s3cret@db/web with password=hunter2",
          file=sys.stderr)
    if ctx.attempt < 2:
        raise RuntimeError("the source database was busy")
    spark.createDataFrame([(ctx.attempt,)], "attempt int").write.json(ctx.outputs["summary"])
'''


def test_each_attempt_keeps_its_own_stderr_masked(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    (repo / "workflows" / "flaky.py").write_text(FLAKY)
    name = write_process(repo, "flaky", {"path: workflows/hourly_clicks_summary.py": "path: workflows/flaky.py"})
    result = new_runner(spark, repo, name, TestClock(T)).run(T)
    assert (result.status, result.attempts) == ("SUCCEEDED", 2)
    folder = root / "feed-toolkit/working/ledger/processes" / name / "20261121T1000Z"
    first, second = ((folder / f"attempt-00{k}.stderr").read_text() for k in (1, 2))
    assert first.startswith("attempt 1: reading jdbc:postgresql://etl:***@db/web with password=***\n")
    # The user's frames of the traceback (python_workflow.py prints them; the error itself is in the record, and a
    # real run's sentence saying it, `process: attempt 1 failed: ...`, follows: test_spark_engine.py).
    assert first.endswith('  File "workflows/flaky.py", line 8, in run\n')
    assert second == "attempt 2: reading jdbc:postgresql://etl:***@db/web with password=***\n"
    assert "hunter2" not in first + second and "s3cret" not in first + second
    assert "attempt 1: reading jdbc:postgresql://etl:s3cret@db/web" in capsys.readouterr().err  # still on stderr

    assert main(["logs", "--repo", str(repo), "--process", name, "--time", "2026-11-21T10:00Z", "--attempt", "1"]) == 0
    out, err = capsys.readouterr()
    assert out == first and "attempt 1 of 2: FAILED, run run1" in err
