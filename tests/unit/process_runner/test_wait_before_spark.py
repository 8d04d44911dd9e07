"""The wait before Spark (`toolkit call --wait-first`, issue 71): a process instance waits for its inputs in the
call, through the runner's own wait (its records, timeout, kill and holds), and is handed to its entrypoint only once
they are there. In process here, the polls made short; tests/integration/schedule/test_wait_before_spark.py runs the
generated line with real spark-submit."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, make_runner_repo, process_yaml, utc, write_file
from toolkit.actions.process_runner import input_wait
from toolkit.actions.process_runner.wait_before_spark import wait_for_data
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.statuses import Status

WAITS = process_yaml("waits", "hours(1)", """\
    timeout: hours(2)
    inputs:
      - {name: clicks, feed: clicks, start: "now(0,0)", end: "now(0,0)"}
    """)
READS_TABLE = process_yaml("reads-table", "days(1)", """\
    inputs:
      - {name: daily, feed: clicks-daily-table, start: "today(0,0)", end: "today(0,0)"}
    """)
T = "2026-11-30T10:00Z"
WHILE_WAITING = "2026-11-30T10:30Z"  # --now: inside the instance's two-hour timeout
POLL = 0.05


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunnerRepo:
    made = make_runner_repo(tmp_path)
    (Path(made.repo.root) / "processes" / "waits.yaml").write_text(WAITS)
    (Path(made.repo.root) / "processes" / "reads-table.yaml").write_text(READS_TABLE)
    monkeypatch.setattr(input_wait, "poll_intervals", lambda: iter(lambda: POLL, None))
    return RunnerRepo(ConfigRepo.load(Path(made.repo.root)), made.root)


def command(repo: RunnerRepo, *extra: str, process: str = "waits", time_: str = T) -> list[str]:
    """The arguments `toolkit call` gives the process entrypoint, with the time (a broken test ends within its
    --max-wait)."""
    return ["--repo", str(repo.repo.root), "--process", process, "--cluster", "primary", "--now", WHILE_WAITING,
            "--max-wait", "30", *extra, "--time", time_]


def ledger(repo: RunnerRepo) -> Ledger:
    return Ledger.of(LocalFileSystem(), repo.repo.cluster("primary"))


def live_holder(repo: RunnerRepo) -> str | None:
    """The run id of the instance lease's live holder."""
    lease = ledger(repo).instance_lock("waits", utc(2026, 11, 30, 10)).current()
    return lease.run_id if lease is not None and lease.live(time.time()) else None


def publish_input(repo: RunnerRepo) -> None:
    folder = repo.root / "data/clicks/2026/11/30/10"
    write_file(folder / "part-00000.json", '{"page": "/"}\n')
    write_file(folder / "_SUCCESS")


def status_line(out: str) -> dict[str, object]:
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def helper() -> Iterator[list[threading.Thread]]:
    """Threads that act while the wait runs in the main thread (its SIGTERM handler needs the main thread)."""
    started: list[threading.Thread] = []
    yield started
    for thread in started:
        thread.join(timeout=10)


def later(helper: list[threading.Thread], action: Callable[[], object], when: Callable[[], bool]) -> None:
    """Run `action()` once `when()` holds."""
    def body() -> None:
        deadline = time.monotonic() + 10
        while not when() and time.monotonic() < deadline:
            time.sleep(0.01)
        action()
    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    helper.append(thread)


def waiting(repo: RunnerRepo) -> bool:
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    return record is not None and record.status == Status.WAITING


def test_a_waiting_instance_is_recorded_waiting_and_handed_over_once_its_input_is_published(
        repo: RunnerRepo, helper: list[threading.Thread], capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[str, list[str], str | None]] = []

    def publish() -> None:
        record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
        assert record is not None
        seen.append((record.status, record.missing, live_holder(repo)))
        publish_input(repo)

    later(helper, publish, lambda: waiting(repo))
    assert wait_for_data(command(repo)) is None  # start spark-submit now
    [(status, missing, holder)] = seen
    assert (status, missing) == (Status.WAITING,
                                 [f"clicks 2026-11-30T10:00Z ({repo.uri('data/clicks/2026/11/30/10')})"])
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    assert record is not None and holder == record.run_id  # the wait holds the instance while it waits
    out, err = capsys.readouterr()
    assert out == ""  # the entrypoint prints the status line
    assert "waiting for 1 input instance(s) until 2026-11-30T12:00Z (its timeout)" in err
    assert live_holder(repo) is None  # released for the run


def test_an_instance_whose_inputs_are_there_is_handed_over_at_once(repo: RunnerRepo,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    publish_input(repo)
    assert wait_for_data(command(repo)) is None
    assert ledger(repo).instance("waits", utc(2026, 11, 30, 10)) is None  # nothing to say: the run records it
    assert capsys.readouterr() == ("", "")


def test_a_call_that_does_not_wait_ends_waiting_without_spark(repo: RunnerRepo,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Airflow's task (`--no-wait`): checked here, exit 3, so the reschedule costs no JVM."""
    assert wait_for_data(command(repo, "--no-wait")) == 3
    line = status_line(capsys.readouterr().out)
    assert (line["status"], line["action"], line["entity"], line["time"], line["cluster"]) == (
        "WAITING", "process", "waits", T, "primary")
    assert line["missing"] == [f"clicks 2026-11-30T10:00Z ({repo.uri('data/clicks/2026/11/30/10')})"]
    assert line["record"] == repo.uri("feed-toolkit/working/ledger/processes/waits/20261130T1000Z/instance.json")
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    assert record is not None and (record.status, record.run_id) == (Status.WAITING, line["run_id"])


def test_a_killed_wait_is_recorded_killed_and_never_starts(repo: RunnerRepo, helper: list[threading.Thread],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    later(helper, lambda: main(["kill", "--repo", str(repo.repo.root), "--cluster", "primary", "--process", "waits",
                                "--time", T]), lambda: waiting(repo))
    assert wait_for_data(command(repo)) == 1
    line = status_line(capsys.readouterr().out)
    assert line["status"] == "KILLED"
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    assert record is not None and record.status == Status.KILLED
    assert ledger(repo).kill_request("waits", utc(2026, 11, 30, 10)) is None


def test_a_hold_met_while_waiting_ends_the_call_skipped(repo: RunnerRepo, helper: list[threading.Thread],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    later(helper, lambda: main(["suspend", "--repo", str(repo.repo.root), "--cluster", "primary", "--process",
                                "waits", "--time", T]), lambda: waiting(repo))
    assert wait_for_data(command(repo)) == 4
    out, err = capsys.readouterr()
    assert status_line(out.splitlines()[-1])["status"] == "SKIPPED"
    assert "is suspended" in err and f"toolkit resume --process waits --cluster primary --time {T}" in err
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    assert record is not None and record.status == Status.WAITING


def test_past_its_timeout_the_wait_records_the_timeout_as_the_runner_does(
        repo: RunnerRepo, capsys: pytest.CaptureFixture[str]) -> None:
    argv = command(repo)
    argv[argv.index("--now") + 1] = "2026-11-30T12:00Z"
    assert wait_for_data(argv) == 1
    line = status_line(capsys.readouterr().out)
    assert (line["status"], line["attempts"]) == ("TIMEDOUT", 1)
    [attempt] = ledger(repo).attempts("waits", utc(2026, 11, 30, 10))
    assert (attempt.status, attempt.attempt) == (Status.TIMEDOUT, 1)
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    assert record is not None and record.status == Status.TIMEDOUT


def test_a_second_caller_is_told_who_waits(repo: RunnerRepo, helper: list[threading.Thread],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    answers: list[int | None] = []

    def second() -> None:
        answers.append(wait_for_data(command(repo, "--no-wait")))
        publish_input(repo)

    later(helper, second, lambda: waiting(repo))
    assert wait_for_data(command(repo)) is None
    assert answers == [5]
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [blocked] = [line for line in lines if line["status"] == "BLOCKED"]
    assert "instance 2026-11-30T10:00Z of process 'waits'" in str(blocked["error"])


def test_what_is_no_plain_wait_goes_to_the_entrypoint_untouched(repo: RunnerRepo,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A window, --force, --explain, a bad argument: None at once, nothing written."""
    calls = [command(repo, "--force"), command(repo, "--explain"), command(repo, "--bogus")]
    window = command(repo)[:-2]
    calls.append([*window, "--from", "2026-11-30T08:00Z", "--to", T])
    for argv in calls:
        assert wait_for_data(argv) is None, argv
    assert not (repo.root / "feed-toolkit/working/ledger/processes").exists()
    assert capsys.readouterr() == ("", "")



def test_a_workflow_the_entrypoint_would_refuse_is_handed_over_at_once_not_after_the_wait(
        repo: RunnerRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A workflow file that is not there, or an `engine: spark` process on a host whose SPARK_HOME has no
    spark-submit (a scheduler's bare environment): no wait, nothing written; the entrypoint says it (exit 2) where
    it runs, and where it can run (spark-submit sets SPARK_HOME for its driver), it runs."""
    waits = Path(repo.repo.root) / "processes" / "waits.yaml"
    text = waits.read_text()
    waits.write_text(text.replace("workflows/daily_clicks_rollup.sql", "workflows/not_there.sql"))
    assert wait_for_data(command(RunnerRepo(ConfigRepo.load(Path(repo.repo.root)), repo.root))) is None
    waits.write_text(text.replace("engine: spark-sql, path: workflows/daily_clicks_rollup.sql",
                                  "engine: spark, path: workflows/daily_clicks_rollup.sql"))
    monkeypatch.setenv("SPARK_HOME", str(repo.root / "no-spark-here"))
    assert wait_for_data(command(RunnerRepo(ConfigRepo.load(Path(repo.repo.root)), repo.root))) is None
    assert capsys.readouterr() == ("", "")
    assert not (repo.root / "feed-toolkit/working/ledger/processes").exists()  # no lock, no record


def test_a_table_input_without_a_remote_metastore_waits_in_spark(repo: RunnerRepo) -> None:
    """No `registry`: the cluster's tables are in Spark's own metastore, which only its JVM reads."""
    cluster = Path(repo.repo.root) / "clusters" / "primary.yaml"
    text = cluster.read_text()
    start = text.index("  registry:")
    cluster.write_text(text[:start] + text[text.index("  workflow:", start):])
    fresh = RunnerRepo(ConfigRepo.load(Path(repo.repo.root)), repo.root)
    assert fresh.repo.cluster("primary").registry_endpoint is None
    assert wait_for_data(command(fresh, process="reads-table", time_="2026-11-30T00:00Z")) is None
    assert not (repo.root / "feed-toolkit/working/ledger/processes").exists()


def test_a_metastore_not_reached_without_a_jvm_hands_the_wait_to_spark(repo: RunnerRepo) -> None:
    """A metastore that does not answer the plain Thrift client (down here; SASL in production): the entrypoint
    waits, its own catalog saying what is wrong; the lease the wait took is released."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    cluster = Path(repo.repo.root) / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace("thrift://127.0.0.1:9083", f"thrift://127.0.0.1:{port}"))
    fresh = RunnerRepo(ConfigRepo.load(Path(repo.repo.root)), repo.root)
    assert wait_for_data(command(fresh, process="reads-table", time_="2026-11-30T00:00Z")) is None
    lease = ledger(fresh).instance_lock("reads-table", utc(2026, 11, 30)).current()
    assert lease is not None and lease.state == "RELEASED"


def test_storage_not_reached_without_a_jvm_hands_the_wait_to_spark(repo: RunnerRepo,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """An HDFS cluster whose WebHDFS does not answer (a closed port here; a firewall, a standby namenode, Kerberos
    without its extension in production): the entrypoint runs, reaching HDFS through Hadoop's client, rather than
    the call failing where spark-submit used to run."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    cluster = Path(repo.repo.root) / "clusters" / "primary.yaml"
    text = cluster.read_text()
    root = repo.repo.cluster("primary").write_endpoint
    assert root is not None
    readonly, write = text.index(root), text.index(root, text.index(root) + 1)  # interfaces.readonly, then write
    text = (text[:readonly] + f"webhdfs://127.0.0.1:{port}" + text[readonly + len(root):write]
            + "hdfs://nn:8020/lake" + text[write + len(root):])
    cluster.write_text(text.replace("properties:\n", "properties:\n  webhdfs.user: etl\n", 1))
    fresh = RunnerRepo(ConfigRepo.load(Path(repo.repo.root)), repo.root)
    assert fresh.repo.cluster("primary").write_endpoint == "hdfs://nn:8020/lake"
    assert wait_for_data(command(fresh)) is None
    assert capsys.readouterr().out == ""


def test_a_wait_whose_lease_another_run_took_over_stops_and_writes_nothing_more(
        repo: RunnerRepo, helper: list[threading.Thread], capsys: pytest.CaptureFixture[str]) -> None:
    """A waiter stalled past its lease (stopped, a storage outage) and taken over: at its next poll it stops, exit
    1, so that one run, not two, goes on (nothing published either way: it only waited)."""
    taken: list[str] = []

    def take_over() -> None:
        folder = repo.root / "feed-toolkit/working/ledger/processes/waits/20261130T1000Z"
        generations = sorted(int(path.name.split(".")[1]) for path in folder.glob("lock.*"))
        lease = json.loads((folder / f"lock.{generations[-1]}").read_text())
        taken.append(lease["run_id"])
        thief = {**lease, "run_id": "thief", "holder": "other-host:1", "expires": time.time() + 600}
        (folder / f"lock.{generations[-1] + 1}").write_text(json.dumps(thief))

    later(helper, take_over, lambda: waiting(repo))
    assert wait_for_data(command(repo, "--lease", "3")) == 1  # its renewals every second find the takeover
    out, err = capsys.readouterr()
    assert status_line(out)["status"] == "FAILED"
    assert "is not held by this run" in err or "another run may take it over" in err or "taken" in err, err
    record = ledger(repo).instance("waits", utc(2026, 11, 30, 10))
    assert record is not None and (record.status, record.run_id) == (Status.WAITING, taken[0])



def test_storage_failing_while_it_waits_hands_the_wait_to_spark_telling_no_failure(
        repo: RunnerRepo, helper: list[threading.Thread], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The storage fails under the wait (injected: every write fails once it waits; WebHDFS down, a namenode gone
    standby in production): at its next poll the wait hands the instance to the entrypoint, which reaches the
    storage through Hadoop's client and tells a failure itself if it has one; this wait tells none."""
    from toolkit.core.storage.filesystem import StorageError
    from toolkit.core.storage.local import LocalFileSystem

    broken = threading.Event()
    write = LocalFileSystem.write_atomically

    def failing(self: LocalFileSystem, path: str, data: bytes) -> None:
        if broken.is_set():
            raise StorageError(f"Cannot write {path}: the WebHDFS endpoint cannot be reached (ConnectionError).")
        write(self, path, data)

    monkeypatch.setattr(LocalFileSystem, "write_atomically", failing)
    waits = Path(repo.repo.root) / "processes" / "waits.yaml"
    waits.write_text(waits.read_text() + "notification: {type: email, to: ops@example.org}\n")
    fresh = RunnerRepo(ConfigRepo.load(Path(repo.repo.root)), repo.root)
    later(helper, broken.set, lambda: waiting(fresh))
    assert wait_for_data(command(fresh)) is None
    assert capsys.readouterr().out == ""
    assert not list(repo.root.glob("feed-toolkit/working/ledger/notifications/**/*.json"))  # no failure told


def test_a_command_that_cannot_run_is_refused_before_the_wait(repo: RunnerRepo,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`toolkit call --wait-first` with a spark-submit path that is wrong: exit 2 at once, not after the wait."""
    code = main(["call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--time", T, "--wait-first", "--",
                 "/opt/nowhere/spark-submit", "/opt/toolkit/entrypoints/process.py", *command(repo)[:-2]])
    assert code == 2
    assert "Cannot run /opt/nowhere/spark-submit (not found, or not executable)" in capsys.readouterr().err
    assert not (repo.root / "feed-toolkit/working/ledger/processes").exists()  # nothing waited, nothing written


def test_help_in_the_entrypoints_arguments_is_left_to_the_entrypoint(repo: RunnerRepo,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert wait_for_data([*command(repo), "--help"]) is None
    assert capsys.readouterr() == ("", "")  # the entrypoint prints its help, once
