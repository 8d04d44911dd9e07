"""How an `oozie`/`pig` attempt follows its job while the instance is held (`toolkit suspend --time`, issue 37),
against the STAND-IN of Oozie's REST API with job states set by the test (no step runs here): a running job is
suspended while held and resumed once released, the time held not counted against the process's timeout; a job
found SUSPENDED (the run that suspended it died) is resumed when the instance is no longer held. A whole run on the
stand-in: tests/integration/process_runner/test_oozie_engine_on_a_stand_in.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.oozie_server import StandInOozie, stand_in_oozie
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.extensions.workflow_engines.oozie_settings import OozieAccess
from toolkit.extensions.workflow_engines.oozie_workflow import OozieWorkflow

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
HOUR = 3600.0  # each poll moves the test's clock an hour: the process's timeout of hours(4) is four polls


@pytest.fixture
def server() -> Iterator[StandInOozie]:
    with stand_in_oozie() as stand_in:
        yield stand_in


class Journal:
    def __init__(self) -> None:
        self.hold: str | None = None
        self.status: str | None = None

    def followed(self) -> str | None:
        return None

    def record(self, job: str) -> None:
        raise AssertionError("nothing is submitted here")

    def ended(self, status: str) -> None:
        self.status = status

    def held(self) -> str | None:
        return self.hold


class Clock:
    def __init__(self, on_sleep: Callable[[int], None]) -> None:
        self.current, self.polls, self.on_sleep = datetime(2026, 11, 21, 10, tzinfo=timezone.utc), 0, on_sleep

    def now(self) -> datetime:
        return self.current

    def sleep(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)
        self.polls += 1
        self.on_sleep(self.polls)


def _workflow(server: StandInOozie, clock: Clock) -> OozieWorkflow:
    config = ConfigRepo.load(TEMPLATE)
    access = OozieAccess(url=server.url, user="falcon", kerberos=False, ca_file=None, poll_seconds=HOUR)
    return OozieWorkflow("file:///apps/x", config.process("hourly-clicks-summary"), config.cluster("primary"),
                         LocalFileSystem(), access, pig=False, clock=clock)


def _puts(server: StandInOozie) -> list[str]:
    return [call[2]["action"] for call in server.calls if call[0] == "PUT"]


def test_a_held_running_job_is_suspended_past_the_timeout_and_resumed_once_released(server: StandInOozie,
                                                                                   capsys: pytest.CaptureFixture[str]
                                                                                   ) -> None:
    job = server.submit("falcon", b"<configuration><property><name>oozie.wf.application.path</name>"
                                  b"<value>file:///apps/x</value></property></configuration>", start=False)
    server.jobs[job].status = "RUNNING"  # as a started job is
    journal = Journal()
    journal.hold = "held by alice@edge at 2026-11-21T10:00:00Z: repair"

    def on_sleep(polls: int) -> None:
        if polls == 8:  # eight hours held, twice the timeout
            assert server.jobs[job].status == "SUSPENDED"
            journal.hold = None
        if polls == 10:
            assert server.jobs[job].status == "RUNNING"
            server.jobs[job].status = "SUCCEEDED"

    info = _workflow(server, Clock(on_sleep)).follow(job, journal)
    assert info.status == "SUCCEEDED" and _puts(server) == ["suspend", "resume"]
    assert capsys.readouterr().err == (
        f"process: the Oozie workflow job {job} of file:///apps/x is suspended: the instance is held by alice@edge at "
        "2026-11-21T10:00:00Z: repair.\n"
        f"process: the Oozie workflow job {job} of file:///apps/x is resumed: its instance is no longer held.\n")


def test_a_job_left_suspended_by_a_dead_run_is_resumed_when_the_instance_is_not_held(server: StandInOozie) -> None:
    job = server.submit("falcon", b"<configuration><property><name>oozie.wf.application.path</name>"
                                  b"<value>file:///apps/x</value></property></configuration>", start=False)
    server.jobs[job].status = "SUSPENDED"

    def on_sleep(polls: int) -> None:
        if polls == 1:
            server.jobs[job].status = "SUCCEEDED" if server.jobs[job].status == "RUNNING" else "FAILED"

    info = _workflow(server, Clock(on_sleep)).follow(job, Journal())
    assert info.status == "SUCCEEDED" and _puts(server) == ["resume"]
