"""The data-trigger sweep (`toolkit trigger`, toolkit/orchestration/triggers/sweep.py) attacked on real files with real
processes: a sweep killed with SIGKILL at several points and the sweep after it, two sweeps at once, and hostile
layouts of its ledger records (a damaged or misplaced `triggers/sweep.json`, a link in its place, a root spelled
otherwise). The runs are started for real through a stand-in spark-submit that records its arguments."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.local_cluster import hourly_feed_yaml, local_cluster_yaml
from tests.unit.ledger.ledger_support import SetClock
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import InstanceRecord, PublicationFacts, parse_record, wall_clock_stamp
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
trigger: data
inputs:
  - {name: raw, feed: raw, start: "now(0,0)", end: "now(0,0)"}
workflow: {engine: pyspark, path: workflows/noop.py}
"""
T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
LEASE = 30.0
CALL_TIMEOUT = 120


class Site:
    """A config repo with one data-triggered process `hourly` over the feed `raw`, its cluster rooted in a local
    folder, and a stand-in spark-submit that appends its arguments to `submitted`."""

    def __init__(self, tmp: Path, endpoint: str | None = None) -> None:
        self.tmp, self.repo, self.root = tmp, tmp / "conf", tmp / "primary"
        for folder in ("clusters", "feeds", "processes", "workflows"):
            (self.repo / folder).mkdir(parents=True, exist_ok=True)
        self.write_cluster(endpoint)
        (self.repo / "feeds/raw.yaml").write_text(hourly_feed_yaml("raw"))
        (self.repo / "processes/hourly.yaml").write_text(HOURLY)
        (self.repo / "workflows/noop.py").write_text("def run(spark, ctx):\n    pass\n")
        self.submitted = tmp / "submitted.log"
        self.program = tmp / "spark-submit"
        self.program.write_text(f'#!/bin/sh\necho "$@" >> {self.submitted}\n')
        self.program.chmod(0o755)
        self.logs = tmp / "logs"

    def write_cluster(self, endpoint: str | None) -> None:
        text = local_cluster_yaml(self.root, locations={"working": "/working"})
        if endpoint is not None:
            text = text.replace(json.dumps(f"file://{self.root}"), json.dumps(endpoint))
        (self.repo / "clusters/primary.yaml").write_text(text)

    def config(self) -> ConfigRepo:
        return ConfigRepo.load(self.repo, cached=False)

    def ledger(self, clock: Callable[[], float] | None = None) -> Ledger:
        return Ledger.of(LocalFileSystem(), self.config().cluster("primary"), lease_seconds=LEASE, clock=clock)

    def launcher(self) -> Launcher:
        return Launcher(str(self.repo), "primary", [], self.logs, str(self.program))

    def starts(self) -> list[str]:
        """The instances started so far (`<process> <time>` or `<process> batch`), in order."""
        lines = self.submitted.read_text().splitlines() if self.submitted.exists() else []
        return [f"{line.split('--process ')[1].split()[0]} {line.split('--time ')[1].split()[0]}"
                for line in lines]

    @property
    def ledger_folder(self) -> Path:
        return self.root / "working" / "ledger"

    @property
    def state_file(self) -> Path:
        return self.ledger_folder / "triggers" / "sweep.json"

    def cli(self, *options: str) -> subprocess.CompletedProcess[str]:
        """`toolkit trigger` as its own process, as cron calls it."""
        return subprocess.run([sys.executable, "-m", "toolkit", "trigger", "--repo", str(self.repo), "--cluster",
                               "primary", "--spark-submit", str(self.program), "--log-dir", str(self.logs),
                               "--no-cache", *options], capture_output=True, text=True, timeout=CALL_TIMEOUT,
                              cwd=self.tmp)


def publish(ledger: Ledger, t: datetime = T) -> None:
    ledger.record_publication(PublicationFacts("raw", "primary", t, producer="external", run_id=f"r{time.time_ns()}",
                                               location=f"file:///x/raw/{t:%Y%m%d%H}",
                                               fingerprint=Fingerprint("d", 1, 1)))


def ran(ledger: Ledger, t: datetime = T) -> None:
    """What the started run leaves when it succeeds: its instance record, started after the event."""
    stamp = wall_clock_stamp(time.time() + 1)
    ledger.write_instance(InstanceRecord(process="hourly", cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}",
                                         status="SUCCEEDED", attempts=1, run_id="run", updated=stamp, started=stamp,
                                         ended=stamp, succeeded=stamp))


def files_under(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` (links as themselves) with a file's content."""
    found: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        found[str(path.relative_to(folder))] = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    return found


def one_sentence(stderr: str) -> str:
    """The error line of a refused call: one line, no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


# -- kill -9 at several points, then the next sweep -----------------------------------------------------------

KILL_POINTS = ["before-starting", "after-starting", "writing-its-state"]


def _sweep_and_die(tmp: str, point: str) -> None:
    """A sweep killed with SIGKILL at `point`: before it starts its run, right after, or while writing its state
    (its temporary file written, not renamed onto sweep.json)."""
    site = Site(Path(tmp))

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    real_start, real_replace = Launcher.start, os.replace

    def start(self: Launcher, run: Run, run_id: str) -> Path:
        if point == "before-starting":
            die()
        log = real_start(self, run, run_id)
        self.wait()  # the stand-in has written its line
        if point == "after-starting":
            die()
        return log

    def replace(source: str, target: str) -> None:
        if str(target).endswith("sweep.json"):
            die()
        real_replace(source, target)

    Launcher.start = start  # type: ignore[method-assign]
    os.replace = replace  # type: ignore[assignment]
    run_sweep(site.config(), "primary", site.ledger(), site.launcher())
    os._exit(0)


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_sweep_killed_at_any_point_leaves_its_lock_to_expire_and_the_next_sweep_starts_the_instance_once(
        tmp_path: Path, point: str) -> None:
    site = Site(tmp_path)
    publish(site.ledger())
    child = multiprocessing.get_context("fork").Process(target=_sweep_and_die, args=(str(tmp_path), point))
    child.start()
    child.join(CALL_TIMEOUT)
    assert child.exitcode == -signal.SIGKILL
    killed_started = site.starts()
    assert killed_started == ([] if point == "before-starting" else ["hourly 2026-11-21T10:00Z"])
    # no state half-written: none at all (a temporary file of the killed write is no state)
    assert not site.state_file.exists()
    # while its lease runs, the next sweep is refused and names the killed holder
    with pytest.raises(BlockedError, match=rf"being run by run \w+ on [^:]+:{child.pid} .*nothing was started"):
        run_sweep(site.config(), "primary", site.ledger(), site.launcher())
    assert site.starts() == killed_started
    if killed_started:
        ran(site.ledger())  # the run the killed sweep started did its work

    later = SetClock(time.time() + LEASE + 1)  # the killed sweep's lease is over
    launcher = site.launcher()
    report = run_sweep(site.config(), "primary", site.ledger(later), launcher)
    launcher.wait()
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]  # once, by the killed sweep or by this one
    assert [r.label for r in report.started] == ([] if killed_started else ["hourly 2026-11-21T10:00Z"])
    state = parse_record(SweepState, site.state_file.read_bytes(), "sweep.json")
    assert state.of("hourly").position is not None
    if not killed_started:
        ran(site.ledger())
    again = run_sweep(site.config(), "primary", site.ledger(later), site.launcher())
    assert again.started == [] and site.starts() == ["hourly 2026-11-21T10:00Z"]
    assert parse_record(SweepState, site.state_file.read_bytes(), "sweep.json").of("hourly").due == ()
    holder = site.ledger(later).sweep_lock().current()
    assert holder is not None and holder.state == "RELEASED"


# -- two sweeps at once ---------------------------------------------------------------------------------------

def _sweep_holding(tmp: str, inside, go) -> None:  # noqa: ANN001
    """A sweep that stops in the middle of starting its run (its lock held and renewed) until told to go on."""
    site = Site(Path(tmp))
    real_start = Launcher.start

    def start(self: Launcher, run: Run, run_id: str) -> Path:
        inside.set()
        assert go.wait(CALL_TIMEOUT)
        return real_start(self, run, run_id)

    Launcher.start = start  # type: ignore[method-assign]
    launcher = site.launcher()
    run_sweep(site.config(), "primary", site.ledger(), launcher)
    launcher.wait()
    os._exit(0)


def test_a_second_sweep_while_one_runs_exits_5_naming_it_and_the_instance_is_started_once(tmp_path: Path) -> None:
    site = Site(tmp_path)
    publish(site.ledger())
    context = multiprocessing.get_context("fork")
    inside, go = context.Event(), context.Event()
    first = context.Process(target=_sweep_holding, args=(str(tmp_path), inside, go))
    first.start()
    try:
        assert inside.wait(CALL_TIMEOUT)
        second = site.cli()
    finally:
        go.set()
        first.join(CALL_TIMEOUT)
    assert first.exitcode == 0
    assert second.returncode == 5, second.stderr
    line = one_sentence(second.stderr)
    assert line.startswith("toolkit: The data-trigger sweep of cluster 'primary' is being run by run ")
    assert f":{first.pid} (its lease ends " in line and line.endswith("nothing was started; call again later.")
    assert second.stdout == ""
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]
    due = parse_record(SweepState, site.state_file.read_bytes(), "sweep.json").of("hourly").due
    assert [item.started_ms is not None for item in due] == [True]  # remembered as started
    third = site.cli()  # after it: nothing new to start (started, not yet running)
    assert third.returncode == 0 and "0 run(s) started" in third.stdout
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]


# -- hostile layouts -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("position", ["garbage", "", "20261321T100000000Z-run-1", "2026-11-21T10:00Z"])
def test_a_damaged_position_in_the_sweep_state_is_a_damaged_record_naming_it(tmp_path: Path, position: str) -> None:
    """Any string passed the check, then reading the journal from it was a ValueError traceback."""
    site = Site(tmp_path)
    ledger = site.ledger()
    publish(ledger)
    run_sweep(site.config(), "primary", ledger, site.launcher()).started  # noqa: B018
    document = json.loads(site.state_file.read_text())
    document["processes"]["hourly"]["position"] = position
    site.state_file.write_text(json.dumps(document))
    before = files_under(site.root)
    result = site.cli()
    assert result.returncode == 1
    line = one_sentence(result.stderr)
    assert "triggers/sweep.json" in line and "position" in line
    after = files_under(site.root)
    assert {k: v for k, v in after.items() if "locks/trigger/" not in k} == \
        {k: v for k, v in before.items() if "locks/trigger/" not in k}  # nothing written but its lock, released
    lease = site.ledger().sweep_lock().current()
    assert lease is not None and lease.state == "RELEASED"
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]


def test_a_folder_where_the_sweep_state_belongs_is_refused_in_one_sentence_and_left(tmp_path: Path) -> None:
    site = Site(tmp_path)
    publish(site.ledger())
    site.state_file.mkdir(parents=True)
    (site.state_file / "keep").write_text("mine")
    result = site.cli()
    assert result.returncode == 1
    line = one_sentence(result.stderr)
    assert line == f"toolkit: Cannot read file://{site.state_file}: Is a directory."
    assert (site.state_file / "keep").read_text() == "mine" and site.starts() == []
    lease = site.ledger().sweep_lock().current()
    assert lease is not None and lease.state == "RELEASED"  # the lock is given back


def test_a_link_where_the_sweep_state_belongs_is_never_written_through(tmp_path: Path) -> None:
    site = Site(tmp_path)
    publish(site.ledger())
    outside = tmp_path / "outside.json"
    outside.write_text('{"format_version": 1, "processes": {}}\n')  # a state that reads well
    site.state_file.parent.mkdir(parents=True)
    site.state_file.symlink_to(outside)
    result = site.cli()
    assert result.returncode == 0, result.stderr
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]
    assert outside.read_text() == '{"format_version": 1, "processes": {}}\n'  # its target is untouched
    assert not site.state_file.is_symlink()  # the state replaced the link itself
    assert parse_record(SweepState, site.state_file.read_bytes(), "sweep.json").of("hourly").position is not None


def test_a_link_where_the_sweep_lock_folder_belongs_is_refused_in_one_sentence_and_nothing_is_written_outside(
        tmp_path: Path) -> None:
    site = Site(tmp_path)
    publish(site.ledger())
    outside = tmp_path / "outside"
    outside.mkdir()
    (site.ledger_folder / "locks").mkdir(parents=True)
    (site.ledger_folder / "locks" / "trigger").symlink_to(outside)
    result = site.cli()
    assert list(outside.iterdir()) == []
    assert result.returncode == 1
    assert one_sentence(result.stderr) == (
        f"toolkit: Cannot list file://{site.ledger_folder}/locks/trigger: it is a symbolic link, which the toolkit "
        "never follows.")
    assert site.starts() == [] and not site.state_file.exists()


def test_a_root_spelled_otherwise_sweeps_the_same_ledger(tmp_path: Path) -> None:
    """`file:///x//y/` and `file:/x/y` name the root `file:///x/y` names: the sweeps share one state and one lock,
    and the instance is started once."""
    site = Site(tmp_path)
    publish(site.ledger())
    parts = str(site.root).strip("/").split("/")
    doubled = "file:///" + parts[0] + "//" + "/".join(parts[1:]) + "/"
    site.write_cluster(doubled)
    first = site.cli()
    assert first.returncode == 0, first.stderr
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]
    site.write_cluster(f"file:{site.root}")
    second = site.cli()
    assert second.returncode == 0 and "0 run(s) started" in second.stdout, second.stdout + second.stderr
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conf", "logs", "primary", "spark-submit", "submitted.log"]
    assert [p.name for p in site.root.iterdir()] == ["working"]
    assert sorted(p.name for p in site.state_file.parent.iterdir()) == ["sweep.json"]


@pytest.mark.parametrize("event_ms", ["1e999", "-1e999", "NaN"])
def test_an_infinite_time_in_the_sweep_state_is_a_damaged_record_naming_it(tmp_path: Path, event_ms: str) -> None:
    """`int(float("inf"))` is an OverflowError, which the parse did not catch: exit 2 and a traceback's last line."""
    site = Site(tmp_path)
    ledger = site.ledger()
    publish(ledger)
    run_sweep(site.config(), "primary", ledger, site.launcher()).started  # noqa: B018
    document = json.loads(site.state_file.read_text())
    [due] = document["processes"]["hourly"]["due"]
    due["event_ms"] = "@"
    site.state_file.write_text(json.dumps(document).replace('"@"', event_ms))
    result = site.cli()
    assert result.returncode == 1
    line = one_sentence(result.stderr)
    assert "triggers/sweep.json" in line and "not a sweep state" in line
    assert site.starts() == ["hourly 2026-11-21T10:00Z"]
