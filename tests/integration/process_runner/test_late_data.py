"""Late data through the real runner: an input rewritten with the same size after success reruns the
instance once (a LATE_RERUN attempt with new fingerprints, its output rewritten); a check with nothing changed
is recorded; after the cut-off nothing reruns."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from toolkit.actions.process_runner.late_check import LateChecker, late_options
from toolkit.actions.process_runner.run_results import RunOptions

T = utc(2026, 11, 21, 10)
RECORDS = "feed-toolkit/working/ledger/processes/hourly-clicks-summary/20261121T1000Z"


def _checker(spark, repo: Path, now, run_id: str) -> LateChecker:  # type: ignore[no-untyped-def]
    def runner_for(workflow_path: str | None):  # type: ignore[no-untyped-def]
        return new_runner(spark, repo, "hourly-clicks-summary", TestClock(now),
                          late_options(RunOptions(), workflow_path), run_id=run_id)

    first = runner_for(None)
    return LateChecker(first.repo, "hourly-clicks-summary", "primary", first.ledger, runner_for)


def _rewrite_same_size(path: Path, old: str, new: str, mtime: float) -> None:
    text = path.read_text()
    assert len(old) == len(new) and old in text
    path.write_text(text.replace(old, new))
    os.utime(path, (mtime, mtime))


def test_a_same_size_rewrite_reruns_once_and_not_after_the_cut_off(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    assert new_runner(spark, repo, "hourly-clicks-summary", TestClock(T)).run(T).status == "SUCCEEDED"
    data = root / "data/clicks/2026/11/21/09/part-00000.json"
    size = data.stat().st_size
    _rewrite_same_size(data, '"/help"', '"/hel2"', data.stat().st_mtime + 60)
    assert data.stat().st_size == size

    # 11:00 is the first check of exp-backoff hours(1): the 10:00 instance reruns (09:00 is in its window).
    result = _checker(spark, repo, T + timedelta(hours=1), "late1").sweep(T + timedelta(hours=1), only=T)
    assert [(o.time, o.result, o.changed, o.rerun.status if o.rerun else None) for o in result.outcomes] == \
        [(T, "CHANGED", ["clicks"], "SUCCEEDED")]
    pages = sorted(r.page for r in spark.read.json(str(root / "data/clicks-hourly-summary/2026/11/21/10")).collect())
    assert pages == ["/", "/cart", "/hel2", "/help"]
    rerun = json.loads((root / RECORDS / "attempt-002.json").read_text())
    assert (rerun["kind"], rerun["status"], rerun["run_id"]) == ("LATE_RERUN", "SUCCEEDED", "late1")

    # Called again soon: nothing due. At 12:00 the next check finds nothing new and records it.
    assert _checker(spark, repo, T, "late2").sweep(T + timedelta(hours=1, minutes=5), only=T).counters() == \
        {"checked": 0, "unchanged": 0, "reruns": 0, "reruns_failed": 0}
    assert _checker(spark, repo, T, "late3").sweep(T + timedelta(hours=2), only=T).counters()["unchanged"] == 1
    checks = json.loads((root / RECORDS / "late-checks.json").read_text())
    assert [(c["at"], c["result"]) for c in checks] == [("2026-11-21T11:00Z", "CHANGED"),
                                                        ("2026-11-21T12:00Z", "UNCHANGED")]

    # After the cut-off (10:00 + 6 hours, closed one delay later) a new change reruns nothing.
    _rewrite_same_size(data, '"/hel2"', '"/hel3"', data.stat().st_mtime + 60)
    late = _checker(spark, repo, T, "late4").sweep(T + timedelta(hours=17, minutes=30), only=T)
    assert late.outcomes == []
    assert not (root / RECORDS / "attempt-003.json").exists()
