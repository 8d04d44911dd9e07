"""`toolkit kill` (Falcon's `instance -kill`): the request it leaves beside the instance's lock for the run that
holds it (issue 37). The run's side, with real runs: tests/integration/process_runner/test_kill.py."""

from __future__ import annotations

import json

import pytest

from tests.unit.cli.ledger_site import NOW, NOW_SECONDS, PROCESS, Site, at, run


def kill(capsys: pytest.CaptureFixture[str], site: Site, *argv: str) -> tuple[int, str, str]:
    return run(capsys, "kill", "--repo", str(site.conf), "--process", PROCESS, "--time", "2026-11-21T07:00Z",
               "--now", NOW, *argv)


def test_the_request_names_the_run_holding_the_lock(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    assert site.ledger(NOW_SECONDS - 10).instance_lock(PROCESS, at(7)).try_acquire("run-07").taken
    code, out, err = kill(capsys, site, "--reason", "wrong input")
    assert code == 0, err
    assert out.startswith("Asked run run-07 (") and f"of process '{PROCESS}' at 2026-11-21T07:00Z on cluster " \
                                                     "'primary' to stop" in out
    request = json.loads((site.ledger_root / "processes" / PROCESS / "20261121T0700Z" / "kill").read_text())
    assert (request["run_id"], request["reason"]) == ("run-07", "wrong input")
    assert request["by"] and request["since"].startswith("20")
    assert site.ledger().kill_request(PROCESS, at(7)) is not None


def test_an_instance_no_live_run_holds_is_not_running(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    code, out, err = kill(capsys, site)
    assert (code, out) == (4, "")
    assert err == (f"toolkit: The process '{PROCESS}' at 2026-11-21T07:00Z on cluster 'primary' is not running (no "
                   "live run holds its lock): nothing to kill.\n")
    assert site.ledger(NOW_SECONDS - 3600).instance_lock(PROCESS, at(7)).try_acquire("run-dead").taken
    assert kill(capsys, site)[0] == 4  # its lease expired: the run died
    assert not (site.ledger_root / "processes" / PROCESS / "20261121T0700Z" / "kill").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["kill", "--time", "2026-11-21T07:00Z"], "Give --process P"),
    (["kill", "--process", PROCESS], "Give --time T"),
    (["kill", "--process", PROCESS, "--time", "2026-11-21T07:30Z"], "is no instance of process"),
    (["kill", "--process", PROCESS, "--time", "2026-11-21T07:00Z", "--cluster", "backup"], "is not defined on"),
    (["kill", "--process", "nope", "--time", "2026-11-21T07:00Z"], "Unknown process 'nope'"),
])
def test_bad_calls_exit_2_with_one_sentence(capsys: pytest.CaptureFixture[str], site: Site, argv: list[str],
                                            message: str) -> None:
    code, out, err = run(capsys, *argv, "--repo", str(site.conf))
    assert (code, out) == (2, "")
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1 and message in err
