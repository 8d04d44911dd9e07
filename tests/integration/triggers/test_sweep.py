"""The data-trigger sweep on a local ledger: which runs it starts, with which arguments, and what it leaves due.
The runs are started for real, through a stand-in spark-submit (a shell script that records its arguments)."""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.local_cluster import hourly_feed_yaml, local_cluster_yaml
from toolkit.cli.main import main as toolkit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.locks import Lease, LockLostError
from toolkit.core.ledger.records import (
    InstanceRecord,
    PublicationFacts,
    PublishedOutput,
    Written,
    parse_record,
    wall_clock_stamp,
)
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError
from toolkit.orchestration.triggers.launch import Launcher, Run
from toolkit.orchestration.triggers.state import SweepState
from toolkit.orchestration.triggers.sweep import run_sweep

HOURLY = """kind: process
name: hourly
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
frequency: hours(1)
parallel: 3
trigger: data
inputs:
  - {name: raw, feed: raw, start: "now(0,0)", end: "now(0,0)"}
workflow: {engine: pyspark, path: workflows/noop.py}
"""
DAILY = """kind: process
name: daily
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
frequency: days(1)
trigger: data
inputs:
  - {name: raw, feed: raw, start: "yesterday(0,0)", end: "yesterday(23,0)"}
workflow: {engine: pyspark, path: workflows/noop.py}
"""
BATCH = """kind: process
name: batcher
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
trigger: {on: data, condition: all}
inputs:
  - {name: raw, feed: raw}
  - {name: other, feed: other}
workflow: {engine: pyspark, path: workflows/noop.py}
"""
RECORDER = """#!/bin/sh
echo "$@" >> {log}
"""
T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[ConfigRepo, Ledger, Launcher, Path]:
    repo = tmp_path / "conf"
    for folder in ("clusters", "feeds", "processes", "workflows"):
        (repo / folder).mkdir(parents=True)
    locations = {"staging": "/staging", "working": "/working"}
    (repo / "clusters/primary.yaml").write_text(local_cluster_yaml(tmp_path / "primary", locations=locations))
    for name in ("raw", "other"):
        (repo / f"feeds/{name}.yaml").write_text(hourly_feed_yaml(name))
    for name, text in (("hourly", HOURLY), ("daily", DAILY), ("batcher", BATCH)):
        (repo / f"processes/{name}.yaml").write_text(text)
    (repo / "workflows/noop.py").write_text("def run(spark, ctx):\n    pass\n")
    log = tmp_path / "submitted.log"
    program = tmp_path / "spark-submit"
    program.write_text(RECORDER.format(log=log))
    program.chmod(0o755)
    config = ConfigRepo.load(repo)
    ledger = Ledger.of(LocalFileSystem(), config.cluster("primary"))
    return config, ledger, Launcher(str(repo), "primary", ["--master", "local[1]"], tmp_path / "logs",
                                    str(program)), log


def publish(ledger: Ledger, feed: str, t: datetime, fingerprint: str = "a") -> None:
    ledger.record_publication(PublicationFacts(feed, "primary", t, producer="external", run_id=f"r{time.time_ns()}",
                                               location=f"file:///x/{feed}/{t:%Y%m%d%H}",
                                               fingerprint=Fingerprint(fingerprint, 1, 1)))


def submitted(launcher: Launcher, log: Path) -> list[str]:
    """The argument lines of the runs started, once each has written its line."""
    launcher.wait()
    launcher.started.clear()
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [line.split("process.py ", 1)[1] for line in lines]


def sweep(config: ConfigRepo, ledger: Ledger, launcher: Launcher, **options: object) -> list[str]:
    report = run_sweep(config, "primary", ledger, launcher, **options)  # type: ignore[arg-type]
    return [run.label for run in report.started]


def succeeded(ledger: Ledger, process: str, t: datetime, status: str = "SUCCEEDED") -> None:
    stamp = wall_clock_stamp(time.time())
    ledger.write_instance(InstanceRecord(process=process, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}",
                                         status=status, attempts=1, run_id="run", updated=stamp, started=stamp,
                                         ended=stamp, succeeded=stamp if status == "SUCCEEDED" else None))


def test_nothing_published_starts_nothing(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    assert sweep(config, ledger, launcher) == []
    assert submitted(launcher, log) == []


def test_a_publication_starts_the_instance_that_reads_it_and_only_once(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]
    repo = launcher.repo
    assert submitted(launcher, log) == [
        f"--repo {repo} --cluster primary --process hourly --time 2026-11-21T10:00Z --no-wait"]
    assert sweep(config, ledger, launcher) == []  # started already, not yet running: not again
    succeeded(ledger, "hourly", T)
    assert sweep(config, ledger, launcher) == []
    state = parse_record(SweepState, ledger.fs.read(ledger.layout.sweep_state()), "sweep.json")
    assert state.of("hourly").due == ()  # done
    assert [item.time for item in state.of("daily").due] == [T.replace(day=22, hour=0)]  # waits for the other 23 hours


def test_the_runs_a_sweep_starts_get_its_lease(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    launcher.lease = 7.5
    publish(ledger, "raw", T)
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]
    assert submitted(launcher, log) == [
        f"--repo {launcher.repo} --cluster primary --process hourly --time 2026-11-21T10:00Z --no-wait --lease 7.5"]


def test_the_daily_consumer_waits_for_all_24_hours(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    day = datetime(2026, 11, 20, tzinfo=timezone.utc)
    for hour in range(23):
        publish(ledger, "raw", day + timedelta(hours=hour))
    started = sweep(config, ledger, launcher)
    assert "daily 2026-11-21T00:00Z" not in started and len(started) == 3  # hourly: its `parallel` of 3
    publish(ledger, "raw", day + timedelta(hours=23))
    assert "daily 2026-11-21T00:00Z" in sweep(config, ledger, launcher)


def test_an_instance_published_again_after_success_runs_again_if_its_success_is_older(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    sweep(config, ledger, launcher)
    succeeded(ledger, "hourly", T)
    submitted(launcher, log)
    time.sleep(1.1)  # instance records are to the second
    publish(ledger, "raw", T, fingerprint="b")
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]
    [line] = submitted(launcher, log)
    assert re.search(r"--time 2026-11-21T10:00Z --no-wait --force-if-started-before (\S+)$", line)
    assert line.rsplit(" ", 1)[1] > ledger.instance("hourly", T).started  # type: ignore[union-attr]


def test_a_failed_run_is_started_again_by_the_next_sweep(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    sweep(config, ledger, launcher)
    succeeded(ledger, "hourly", T, status="FAILED")
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]


def test_an_eviction_starts_nothing(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    ledger.record_evictions("raw", "primary", [(T, "x")], producer="retention", run_id="ret")
    assert sweep(config, ledger, launcher) == []


def test_a_batch_consumer_with_condition_all_waits_for_both_feeds(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "other", T)
    assert "batcher batch" not in sweep(config, ledger, launcher)
    publish(ledger, "raw", T)
    assert "batcher batch" in sweep(config, ledger, launcher)
    assert f"--repo {launcher.repo} --cluster primary --process batcher --batch" in submitted(launcher, log)


def test_a_second_sweep_at_once_starts_nothing_and_names_the_first(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    holder = ledger.sweep_lock()
    assert holder.try_acquire("other-sweep").taken
    with pytest.raises(BlockedError, match="being run by run other-sweep"):
        sweep(config, ledger, launcher)
    assert submitted(launcher, log) == []
    holder.release()
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]


def test_a_dry_run_starts_nothing_and_writes_nothing(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    assert sweep(config, ledger, launcher, dry_run=True) == ["hourly 2026-11-21T10:00Z"]
    assert submitted(launcher, log) == [] and not ledger.fs.exists(ledger.layout.sweep_state())
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]


def test_a_sweep_whose_lock_is_taken_over_starts_nothing_more_and_writes_nothing(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    publish(ledger, "raw", T + timedelta(hours=1))
    real_start = Launcher.start

    def start_then_lose_the_lock(self: Launcher, run: object, run_id: str) -> Path:
        path = real_start(self, run, run_id)  # type: ignore[arg-type]
        lock = ledger.sweep_lock()
        [(generation, _)] = lock.generations()[-1:]
        taker = Lease(run_id="other-sweep", holder="elsewhere:1", expires=time.time() + 60)
        ledger.fs.create_exclusive(f"{lock.folder}/{lock.name}.{generation + 1}", taker.to_json())
        return path

    monkeypatch.setattr(Launcher, "start", start_then_lose_the_lock)
    with pytest.raises(LockLostError):
        sweep(config, ledger, launcher)
    assert len(submitted(launcher, log)) == 1  # the second instance was not started
    assert not ledger.fs.exists(ledger.layout.sweep_state())
    holder = ledger.sweep_lock().current()
    assert holder is not None and holder.run_id == "other-sweep"  # its lock is left to it


def test_a_process_added_or_resumed_later_sees_the_events_published_before(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    (Path(config.root) / "processes" / "daily.yaml").unlink()  # not there yet
    ledger.control.set_suspended("process", "hourly", True, "2026-11-22T00:00:00Z", "test", "maintenance")
    alone = ConfigRepo.load(config.root)
    assert sweep(alone, ledger, launcher) == []
    day = datetime(2026, 11, 20, tzinfo=timezone.utc)
    for hour in range(24):
        publish(ledger, "raw", day + timedelta(hours=hour))
    assert sweep(alone, ledger, launcher) == []  # hourly suspended
    ledger.control.set_suspended("process", "hourly", False, "2026-11-22T00:00:00Z", "test")
    (Path(config.root) / "processes" / "daily.yaml").write_text(DAILY)
    started = sweep(ConfigRepo.load(config.root), ledger, launcher)
    assert "daily 2026-11-21T00:00Z" in started and "hourly 2026-11-20T00:00Z" in started


def test_the_state_of_another_repos_processes_on_the_cluster_is_kept(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    sweep(config, ledger, launcher)
    (Path(config.root) / "processes" / "hourly.yaml").unlink()  # another team's repo: only daily
    other = ConfigRepo.load(config.root)
    publish(ledger, "raw", T + timedelta(hours=1))
    sweep(other, ledger, launcher)
    state = parse_record(SweepState, ledger.fs.read(ledger.layout.sweep_state()), "sweep.json")
    assert set(state.processes) == {"hourly", "daily"}
    (Path(config.root) / "processes" / "hourly.yaml").write_text(HOURLY)
    assert sweep(ConfigRepo.load(config.root), ledger, launcher) == ["hourly 2026-11-21T11:00Z"]  # 10:00 started


def test_a_success_whose_output_events_are_missing_is_started_once_more_to_write_them(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    sweep(config, ledger, launcher)
    submitted(launcher, log)
    record = InstanceRecord(process="hourly", cluster="primary", time="2026-11-21T10:00Z", status="SUCCEEDED",
                            attempts=1, run_id="run", updated=wall_clock_stamp(time.time()),
                            started=wall_clock_stamp(time.time()), succeeded=wall_clock_stamp(time.time()),
                            outputs=Written.of(PublishedOutput, [PublishedOutput(
                                "out", "other", "2026-11-21T10:00Z", "file:///data/other", 1, 10)]))
    ledger.write_instance(record)  # killed before its output's event: a plain start (no rerun) writes it
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]
    assert submitted(launcher, log)[0].endswith("--time 2026-11-21T10:00Z --no-wait")
    ledger.record_publication(PublicationFacts("other", "primary", T, producer="process:hourly", run_id="run",
                                               location="x", fingerprint=None))  # what that start writes
    assert [run for run in sweep(config, ledger, launcher) if run.startswith("hourly")] == []
    state = parse_record(SweepState, ledger.fs.read(ledger.layout.sweep_state()), "sweep.json")
    assert state.of("hourly").due == ()


def test_a_batch_consumer_outside_its_validity_is_not_started(setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    ended = Path(config.root) / "processes" / "batcher.yaml"
    ended.write_text(BATCH.replace("end: 2099-12-31T00:00Z", "end: 2026-02-01T00:00Z"))
    publish(ledger, "raw", T)
    publish(ledger, "other", T)
    report = run_sweep(ConfigRepo.load(config.root), "primary", ledger, launcher)
    assert [run.label for run in report.started if run.time is None] == []
    assert "batcher: outside its validity on cluster 'primary' (2026-01-01T00:00Z to 2026-02-01T00:00Z)" \
        in report.waiting


def test_a_window_the_sweep_cannot_invert_skips_its_process_and_holds_no_one_back(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    (Path(config.root) / "processes" / "latest.yaml").write_text(
        HOURLY.replace("name: hourly", "name: latest").replace('start: "now(0,0)"', 'start: "latest(-1)"'))
    config = ConfigRepo.load(config.root)
    publish(ledger, "raw", T)
    report = run_sweep(config, "primary", ledger, launcher)
    assert [run.label for run in report.started] == ["hourly 2026-11-21T10:00Z"]
    assert any(line.startswith("latest: the input 'raw' cannot be triggered by data: latest() picks among")
               for line in report.skipped)
    state = parse_record(SweepState, ledger.fs.read(ledger.layout.sweep_state()), "sweep.json")
    assert "latest" not in state.processes and state.of("hourly").position is not None


@pytest.mark.parametrize(("option", "message"), [
    (("--spark-submit", "/nonexistent/spark-submit"), "is not an executable file"),
    (("--log-dir", "/proc/feed-toolkit-logs"), "Cannot write the runs' logs in --log-dir /proc/feed-toolkit-logs"),
    (("--lease", "0"), "--lease 0 is no lease: give a positive number of seconds, at most a year."),
    (("--lease", "inf"), "--lease inf is no lease: give a positive number of seconds, at most a year."),
])
def test_the_command_refuses_what_it_cannot_start_before_anything(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path], capsys: pytest.CaptureFixture[str],
        option: tuple[str, str], message: str) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    code = toolkit(["trigger", "--repo", str(config.root), "--cluster", "primary", *option])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not ledger.fs.exists(ledger.layout.sweep_state())


def test_an_event_id_from_a_clock_that_runs_fast_hides_no_later_event(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path]) -> None:
    config, ledger, launcher, log = setup
    fast = Ledger.of(LocalFileSystem(), config.cluster("primary"))
    real = time.time
    try:
        time.time = lambda: real() + 3600  # type: ignore[assignment]  # a producer host an hour ahead
        fast.record_publication(PublicationFacts("raw", "primary", T, producer="external", run_id="fast", location="x",
                                                 fingerprint=None))
    finally:
        time.time = real  # type: ignore[assignment]
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T10:00Z"]
    publish(ledger, "raw", T + timedelta(hours=1))  # a host with the right clock, after that sweep
    assert sweep(config, ledger, launcher) == ["hourly 2026-11-21T11:00Z"]


def test_the_command_says_the_same_with_and_without_its_parse_cache(
        setup: tuple[ConfigRepo, Ledger, Launcher, Path], capsys: pytest.CaptureFixture[str],
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, ledger, launcher, log = setup
    publish(ledger, "raw", T)
    cache = tmp_path / "cache"
    monkeypatch.setenv("FEED_TOOLKIT_CACHE_DIR", str(cache))
    call = ["trigger", "--repo", str(config.root), "--cluster", "primary", "--dry-run",
            "--spark-submit", launcher.program]

    def outputs(*options: str) -> tuple[int, str, str]:
        code = toolkit([*call, *options])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    uncached = outputs("--no-cache")
    assert not cache.exists()  # --no-cache neither reads nor writes it
    assert uncached[0] == 0 and "would start: hourly 2026-11-21T10:00Z" in uncached[1]
    assert outputs() == outputs() == uncached  # the first call fills the cache, the second is served by it
    assert [path.suffix for path in (cache / "config-repos").iterdir()] == [".json"]
    (Path(config.root) / "feeds" / "other.yaml").write_text("kind: feed\nname: other\nfrequency: weekly\n")
    refused = outputs("--no-cache")
    assert refused[0] == 2 and "feeds/other.yaml" in refused[2] and "Traceback" not in refused[2]
    assert outputs() == outputs() == refused  # a file with problems is reported every time


def test_every_run_a_sweep_starts_has_a_log_of_its_own(tmp_path: Path) -> None:
    """Issue 33 (6): the batch runs of one sweep were all logged to `<process>-batch-<sweep run id>.log`, each
    start truncating the one before: 3 runs started, 1 log left."""
    program = tmp_path / "spark-submit"
    program.write_text("#!/bin/sh\necho \"run $$\"\n")
    program.chmod(0o755)
    launcher = Launcher("/repo", "primary", [], tmp_path / "logs", str(program))
    logs = [launcher.start(Run("batcher"), "sweep-1") for _ in range(3)]
    logs.append(launcher.start(Run("hourly", T), "sweep-1"))
    codes = launcher.wait()
    assert [code for _, code, _ in codes] == [0, 0, 0, 0]
    assert len(set(logs)) == 4 and sorted(logs) == sorted((tmp_path / "logs").iterdir())
    contents = [log.read_text() for log in logs]
    assert all(text.startswith("run ") and text.count("\n") == 1 for text in contents)
    assert len(set(contents)) == 4  # each its own run's output
    again = Launcher("/repo", "primary", [], tmp_path / "logs", str(program))  # a sweep with the same id
    assert again.start(Run("batcher"), "sweep-1") not in logs
    again.wait()
    assert [log.read_text() for log in logs] == contents
