"""`toolkit logs` (Falcon's `instance -logs`): an attempt's stderr as the process runner kept it in the ledger,
read from a local cluster (issue 37). The runner's writing is tested with real runs in
tests/integration/process_runner/test_attempt_logs.py."""

from __future__ import annotations

import pytest

from tests.unit.cli.ledger_site import PROCESS, Site, at, run
from toolkit.core.ledger.attempt_logs import CappedLog
from toolkit.core.ledger.records import AttemptRecord


def attempt(site: Site, number: int, status: str, text: str | None) -> None:
    ledger = site.ledger()
    ledger.write_attempt(AttemptRecord(process=PROCESS, cluster="primary", time="2026-11-21T04:00Z", attempt=number,
                                       run_id=f"run-{number}", kind="RUN", status=status,  # type: ignore[arg-type]
                                       started=f"2026-11-21T04:0{number}:00Z", ended=f"2026-11-21T04:0{number}:30Z"))
    if text is not None:
        log = CappedLog()
        log.write(text)
        ledger.write_attempt_log(PROCESS, at(4), number, log)


def logs(capsys: pytest.CaptureFixture[str], site: Site, *argv: str) -> tuple[int, str, str]:
    return run(capsys, "logs", "--repo", str(site.conf), "--process", PROCESS, "--time", "2026-11-21T04:00Z", *argv)


def test_the_newest_attempt_by_default_and_any_by_number(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    attempt(site, 1, "FAILED", "attempt one\nValueError: bad row with password=hunter2\n")
    attempt(site, 2, "SUCCEEDED", "attempt two\n")
    code, out, err = logs(capsys, site)
    assert (code, out) == (0, "attempt two\n")
    assert err == (f"process '{PROCESS}' at 2026-11-21T04:00Z on cluster 'primary', attempt 2 of 2: SUCCEEDED, run "
                   "run-2, 2026-11-21T04:02:00Z .. 2026-11-21T04:02:30Z\n")
    code, out, err = logs(capsys, site, "--attempt", "1")
    assert (code, out) == (0, "attempt one\nValueError: bad row with password=***\n")
    assert "attempt 1 of 2: FAILED, run run-1" in err


BAD_CALLS = [
    ([], "No attempt of process 'hourly-clicks-summary' at 2026-11-21T04:00Z on cluster 'primary' is recorded"),
    (["--attempt", "3"], "has no attempt 3: its attempts are 1, 2."),
    (["--attempt", "2"], "Attempt 2 of process 'hourly-clicks-summary' at 2026-11-21T04:00Z on cluster 'primary' "
                         "(SUCCEEDED) kept no stderr"),
    (["--attempt", "0"], "--attempt 0 is no attempt"),
    (["--time", "2026-11-21T04:30Z"], "--time 2026-11-21T04:30Z is no instance of process 'hourly-clicks-summary' on "
                                      "cluster 'primary'; the one before is 2026-11-21T04:00Z."),
    (["--cluster", "backup"], "is not defined on cluster 'backup'"),
    (["--process", "nope"], "Unknown process 'nope'"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_CALLS, ids=[" ".join(a)[:50] or "none" for a, _ in BAD_CALLS])
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                            message: str) -> None:
    if argv[:1] != []:
        attempt(site, 1, "FAILED", "one\n")
        attempt(site, 2, "SUCCEEDED", None)
    code, out, err = logs(capsys, site, *argv)
    assert code == 2, err
    assert out == ""
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1, err
    assert message in err


@pytest.mark.parametrize(("argv", "message"), [
    (["logs", "--time", "2026-11-21T04:00Z"], "Give --process P"),
    (["logs", "--process", PROCESS], "Give --time T"),
])
def test_missing_options_are_named(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                   message: str) -> None:
    code, out, err = run(capsys, *argv, "--repo", str(site.conf))
    assert (code, out) == (2, "") and err.startswith(f"toolkit: {message}")
