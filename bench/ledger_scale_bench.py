"""Benchmark of the ledger at scale (issue 20, section 5): 1,000 hourly processes with a year of instances each
(8,760,000 instance records, each with one attempt record), and a config repo defining the 1,000 processes and
their 2,000 feeds (an input and an output each).

The folder layout (a folder, an instance record and an attempt record per instance: ~26 million files at full
size, more than this disk's free inodes and ~4 GB of an HDFS namenode's heap at ~150 bytes per object) is
measured at a size that fits (--old-processes, default 100, x a year); the full size is generated in the roll-up
layout (core/ledger/rollup_records.py: one file per process and month, 12,000 files). Each measurement runs against a
baseline in the same run: the same call on a repo of one process and a ledger of that one process's asked-for
rows. Measured, best of --runs:
1. `toolkit status` for one process and one day (24 rows), a new process as cron or an operator starts it;
2. `toolkit summary` for one process and one month (June: 720 rows);
3. `toolkit trigger` with nothing due (every process data-triggered, the sweep state caught up), its repo load
   served by the parse cache (core/entities/parse_cache.py) as every sweep after the first is; and with --no-cache;
4. a process run's own ledger reads and writes (what actions/process_runner/runner.py does around an instance: the
   switches, the instance lock, the instance record, a slot, the attempt and instance records, the releases),
   in process, without Spark, for an instance of a rolled-up month (a rerun) and for a new one;
and the ledger part of 1 and 2 in process (config loaded), which shows what grows with the process's history.
Targets: 1 to 4 each under 1 s at full size.

    python bench/ledger_scale_bench.py                 # full size (~1 GB of roll-ups, ~3.5 GB of folders)
    python bench/ledger_scale_bench.py --processes 20 --old-processes 5   # a quick check
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report as keep  # noqa: E402
from bench.trigger_bench import CLUSTER  # noqa: E402  (the same local cluster: root and working location)
from toolkit.core.el.timestamps import format_timestamp, instance_key  # noqa: E402
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402
from toolkit.core.instances.grids import process_grid  # noqa: E402
from toolkit.core.ledger.layout import LedgerLayout  # noqa: E402
from toolkit.core.ledger.locks import LeaseDetails  # noqa: E402
from toolkit.core.ledger.records import (  # noqa: E402
    AttemptRecord,
    InstanceRecord,
    PublishedOutput,
    ReadInput,
    Written,
    to_json,
)
from toolkit.core.ledger.rollup_records import (  # noqa: E402
    MonthRollup,
    RolledUp,
    compressed,
    month_of,
    read_rollup,
    read_rollup_digest,
    read_rollup_states,
    rollup_head,
)
from toolkit.core.ledger.store import Ledger  # noqa: E402
from toolkit.core.ledger.switches import require_running_allowed  # noqa: E402
from toolkit.core.storage.local import LocalFileSystem  # noqa: E402
from toolkit.orchestration.triggers.state import ProcessState, SweepState  # noqa: E402
from toolkit.statuses import Status  # noqa: E402
from toolkit.views.status.instance_rows import instance_rows  # noqa: E402

START = datetime(2025, 1, 1, tzinfo=timezone.utc)
HOURS = 8760
NOW = "2026-01-01T00:00Z"  # the year is over: its twelve months are closed
JUNE = datetime(2025, 6, 1, tzinfo=timezone.utc)
DAY = ("2025-06-15T00:00Z", "2025-06-15T23:00Z")
MONTH = ("2025-06-01T00:00Z", "2025-06-30T23:00Z")
TOOLKIT = [sys.executable, "-m", "toolkit"]
TARGET_SECONDS = 1.0

FEED = """kind: feed
name: {name}
description: The {role} of process p{n:04d}, one instance an hour.
frequency: hours(1)
clusters:
  - name: primary
    type: source
    validity: {{start: 2025-01-01T00:00Z, end: 2099-12-31T00:00Z}}
    retention: {{limit: months(13), action: delete}}
locations:
  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""
PROCESS = """kind: process
name: p{n:04d}
description: Process {n} of the scale benchmark, hourly, started by its data.
clusters:
  - name: primary
    validity: {{start: 2025-01-01T00:00Z, end: 2099-12-31T00:00Z}}
frequency: hours(1)
trigger: data
parallel: 2
timeout: hours(6)
inputs:
  - {{name: data, feed: in-{n:04d}, start: "now(0,0)", end: "now(0,0)"}}
outputs:
  - {{name: result, feed: out-{n:04d}, instance: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/noop.py}}
retry: {{policy: periodic, delay: minutes(5), attempts: 3}}
"""


def make_repo(folder: Path, processes: range, cluster_root: Path) -> Path:
    for kind in ("clusters", "feeds", "processes", "workflows"):
        (folder / kind).mkdir(parents=True, exist_ok=True)
    (folder / "clusters/primary.yaml").write_text(CLUSTER.format(root=cluster_root))
    for n in processes:
        for name, role in ((f"in-{n:04d}", "input"), (f"out-{n:04d}", "output")):
            (folder / f"feeds/{name}.yaml").write_text(FEED.format(name=name, role=role, n=n))
        (folder / f"processes/p{n:04d}.yaml").write_text(PROCESS.format(n=n))
    (folder / "workflows/noop.py").write_text("def run(spark, ctx):\n    pass\n")
    return folder


def records(n: int, t: datetime) -> tuple[InstanceRecord, AttemptRecord]:
    """A succeeded instance as the runner records it: its input read (with its fingerprint), its output."""
    stamp, key = format_timestamp(t), instance_key(t)
    run_id = f"r{n:04d}{key}"
    started, ended = f"{t + timedelta(minutes=5):%Y-%m-%dT%H:%M:%SZ}", f"{t + timedelta(minutes=9):%Y-%m-%dT%H:%M:%SZ}"
    inputs = Written(ReadInput, [{"name": "data", "feed": f"in-{n:04d}", "optional": False, "instances": [
        {"time": stamp, "location": f"file:///data/in-{n:04d}/{t:%Y/%m/%d/%H}", "available": True,
         "fingerprint": {"digest": f"{n:08x}{key}", "files": 2, "bytes": 123456}}]}])
    outputs = Written(PublishedOutput, [{"name": "result", "feed": f"out-{n:04d}", "time": stamp,
                                         "path": f"file:///data/out-{n:04d}/{t:%Y/%m/%d/%H}", "files": 1,
                                         "bytes": 4567, "replaced": False}])
    instance = InstanceRecord(process=f"p{n:04d}", cluster="primary", time=stamp, status=Status.SUCCEEDED,
                              attempts=1, run_id=run_id, updated=ended, started=started, ended=ended, inputs=inputs,
                              outputs=outputs, succeeded=ended)
    attempt = AttemptRecord(process=f"p{n:04d}", cluster="primary", time=stamp, attempt=1, run_id=run_id, kind="RUN",
                            status=Status.SUCCEEDED, started=started, ended=ended, inputs=inputs, outputs=outputs,
                            counters={"records": 1000})
    return instance, attempt


def write_folders(ledger: Ledger, processes: range, hours: int, first: datetime = START) -> None:
    """The folder layout: per instance its folder, instance.json and attempt-001.json (as the runner writes)."""
    for n in processes:
        for k in range(hours):
            instance, attempt = records(n, first + timedelta(hours=k))
            folder = ledger.layout.instance_folder(instance.process, instance.nominal)[len("file://"):]
            os.makedirs(folder, exist_ok=True)
            Path(folder, "instance.json").write_bytes(to_json(instance))
            Path(folder, "attempt-001.json").write_bytes(to_json(attempt))


# One instance as a roll-up holds it (RolledUp.to_json, compact): formatted directly, because building and
# serializing 8.76 million record objects takes hours here; `check_template` proves it is the same JSON.
TEMPLATE = (
    '"{key}":{{"attempts":[{{"attempt":1,"cluster":"primary","counters":{{"records":1000}},"definition":null,'
    '"ended":"{ended}","error":null,"format_version":1,"inputs":{inputs},"job":null,"kind":"RUN",'
    '"outputs":{outputs},"process":"p{n4}",'
    '"quality":[],"run_id":"r{n4}{key}","started":"{started}","status":"SUCCEEDED","time":"{stamp}"}}],'
    '"instance":{{"attempts":1,"cluster":"primary","definition":null,"ended":"{ended}","error":null,"format_version":1,'
    '"inputs":{inputs},"missing":[],"outputs":{outputs},"process":"p{n4}","run_id":"r{n4}{key}",'
    '"started":"{started}","status":"SUCCEEDED","succeeded":"{ended}","time":"{stamp}","updated":"{ended}"}},'
    '"late_checks":[]}}')
INPUTS = ('[{{"feed":"in-{n4}","instances":[{{"available":true,"fingerprint":{{"bytes":123456,'
          '"digest":"{nx}{key}","files":2}},"location":"file:///data/in-{n4}/{path}","time":"{stamp}"}}],'
          '"name":"data","optional":false}}]')
OUTPUTS = ('[{{"bytes":4567,"feed":"out-{n4}","files":1,"name":"result","path":"file:///data/out-{n4}/{path}",'
           '"replaced":false,"time":"{stamp}"}}]')


# Its state line in the roll-up (rollup_records.py: its key, then instance_states.state_document).
STATE_TEMPLATE = ('{key} {{"attempts":1,"ended":"{ended}","run_id":"r{n4}{key}","started":"{started}",'
                  '"status":"SUCCEEDED","updated":"{ended}"}}\n')


def instance_values(n4: str, nx: str, t: datetime) -> dict[str, str]:
    """What the templates of instance `t` of process `n4` (its number, 4 digits; `nx` in 8 hex digits) hold."""
    return {"n4": n4, "nx": nx, "key": instance_key(t), "stamp": format_timestamp(t), "path": f"{t:%Y/%m/%d/%H}",
            "started": f"{t + timedelta(minutes=5):%Y-%m-%dT%H:%M:%SZ}",
            "ended": f"{t + timedelta(minutes=9):%Y-%m-%dT%H:%M:%SZ}"}


def instance_json(n4: str, nx: str, t: datetime) -> str:
    """One instance of process `n4`, in the roll-up's JSON."""
    values = instance_values(n4, nx, t)
    return TEMPLATE.format(inputs=INPUTS.format(**values), outputs=OUTPUTS.format(**values), **values)


def month_text(n4: str, nx: str, month: str, times: list[datetime]) -> str:
    """The roll-up of process `n4` for `month` holding `times`, before it is gzipped: its head, its state lines
    and its records."""
    states = "".join(STATE_TEMPLATE.format(**instance_values(n4, nx, t)) for t in times)
    instances = ",".join(instance_json(n4, nx, t) for t in times)
    digested = {instance_key(t): json.loads(STATE_TEMPLATE.format(**instance_values(n4, nx, t))[15:], strict=False)
                for t in times}  # the markers are control characters
    head = rollup_head("p", month, digested).replace('"process":"p"', f'"process":"p{n4}"')
    return f'{head}\n{states}{{"instances":{{{instances}}}}}\n'


def check_template() -> None:
    """The formatted roll-up is what the roll-up writes for the same records, byte for byte."""
    times = [START + timedelta(hours=4000 + k) for k in range(2)]
    month = month_of(times[0])
    real = MonthRollup("p0007", month, "").with_instances({t: RolledUp(*records(7, t)[:1], records(7, t)[1:])
                                                            for t in times})
    assert gzip.decompress(real.to_bytes()).decode() == month_text("0007", f"{7:08x}", month, times), \
        "TEMPLATE is out of date"


def write_rollups(ledger: Ledger, processes: range, hours: int) -> None:
    """The roll-up layout: what `toolkit ledger-rollup` leaves, one file per process and month (each read back
    for the first process, to prove that readers take it)."""
    check_template()
    months: dict[str, list[datetime]] = {}
    for k in range(hours):
        t = START + timedelta(hours=k)
        months.setdefault(month_of(t), []).append(t)
    # every process's month differs in its number only: formatted once, with markers
    texts = {month: month_text("\0N4", "\0NX", month, times) for month, times in months.items()}
    for n in processes:
        for month, text in texts.items():
            path = ledger.layout.rollup_record(f"p{n:04d}", month)[len("file://"):]
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).write_bytes(compressed(text.replace("\0N4", f"{n:04d}").replace("\0NX", f"{n:08x}").encode()))
            if n == processes.start:
                assert len(read_rollup(ledger.fs, ledger.layout, f"p{n:04d}", month).times()) == len(months[month])
                assert read_rollup_states(ledger.fs, ledger.layout, f"p{n:04d}", month).times() == set(months[month])
                assert read_rollup_digest(ledger.fs, ledger.layout, f"p{n:04d}", month).times == tuple(months[month])


def caught_up_sweep(ledger: Ledger, processes: range) -> None:
    """A sweep state whose every process has read the journal (empty here): a sweep with nothing due."""
    ledger.fs.write_atomically(ledger.layout.sweep_state(), to_json(SweepState(
        {f"p{n:04d}": ProcessState(position="20251231T230000000Z-bench-00000000") for n in processes})))
    ledger.fs.write_atomically(ledger.layout.journal_rebuilt(), b"")
    ledger.fs.mkdirs(ledger.layout.journal_folder())


def best_of(runs: int, call: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return min(times)


def best_in_turns(runs: int, *calls: Callable[[], object]) -> list[float]:
    """The best of `runs` runs of each call, the calls run in turns (a b a b ...): a machine whose speed drifts
    meanwhile slows a command and the one it is compared with alike, and their ratio stays fair."""
    best = [float("inf")] * len(calls)
    for _ in range(runs):
        for index, call in enumerate(calls):
            began = time.perf_counter()
            call()
            best[index] = min(best[index], time.perf_counter() - began)
    return best


def command(arguments: list[str]) -> Callable[[], object]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def call() -> None:
        done = subprocess.run([*TOOLKIT, *arguments], capture_output=True, text=True, check=False, env=environment)
        if done.returncode != 0:
            raise SystemExit(f"toolkit {' '.join(arguments)} failed ({done.returncode}): {done.stderr}")
    return call


class Setup:
    """A repo and a cluster root holding its ledger."""

    def __init__(self, folder: Path, processes: range) -> None:
        self.repo = make_repo(folder / "conf", processes, folder / "primary")
        self.ledger = Ledger(LocalFileSystem(), LedgerLayout(f"file://{folder}/primary/working/ledger"))
        (folder / "spark-submit").write_text("#!/bin/sh\nexit 0\n")
        (folder / "spark-submit").chmod(0o755)
        self.folder = folder

    def status(self, window: tuple[str, str], verb: str = "status") -> Callable[[], object]:
        return command([verb, "--repo", str(self.repo), "--process", "p0000", "--cluster", "primary",
                        "--from", window[0], "--to", window[1], "--now", NOW, "--format", "json"])

    def trigger(self, *options: str) -> Callable[[], object]:
        """`toolkit trigger`; the parse cache warmed first (as the previous minute's sweep leaves it)."""
        call = command(["trigger", "--repo", str(self.repo), "--cluster", "primary", "--spark-submit",
                        str(self.folder / "spark-submit"), "--log-dir", str(self.folder / "logs"), *options])
        call()
        return call

    def repo_load(self, cached: bool) -> Callable[[], object]:
        """What `toolkit trigger` loads first: the whole repo (the sweep considers every process of the cluster)."""
        ConfigRepo.load(self.repo, cached=cached)
        return lambda: ConfigRepo.load(self.repo, cached=cached)

    def sweep(self) -> Callable[[], object]:
        """The sweep's own work (repo loaded): what `toolkit trigger` does after loading it."""
        from toolkit.orchestration.triggers.launch import Launcher
        from toolkit.orchestration.triggers.sweep import run_sweep

        config = ConfigRepo.load(self.repo)
        launcher = Launcher(str(self.repo), "primary", [], self.folder / "logs", str(self.folder / "spark-submit"))

        def call() -> None:
            assert not run_sweep(config, "primary", self.ledger, launcher).started
        return call

    def ledger_rows(self, window: tuple[str, str]) -> Callable[[], object]:
        """The ledger part of `toolkit status` (repo loaded): the rows of the window."""
        config = ConfigRepo.load(self.repo)
        process, cluster = config.process("p0000"), config.cluster("primary")
        grid = process_grid(process, "primary")
        first, last = (datetime.strptime(w, "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc) for w in window)
        times = list(grid.between(first, last))
        now = datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp()
        return lambda: instance_rows(config, process, cluster, self.ledger, times, now, with_missing=False)

    def runner_reads(self, first: datetime) -> Callable[[], object]:
        """What the process runner reads and writes in the ledger around one run of an instance: each call runs
        the next hour from `first` (a rerun writes a folder, which the next call must not find)."""
        config = ConfigRepo.load(self.repo)
        cluster = config.cluster("primary")
        ledger = self.ledger
        fs = ledger.fs
        hours = iter(range(10_000))

        def call() -> None:
            t = first + timedelta(hours=next(hours))
            require_running_allowed(fs, cluster, "process", "p0000")
            lock = ledger.instance_lock("p0000", t)
            assert lock.try_acquire("bench", LeaseDetails(time=format_timestamp(t))).taken
            record = ledger.instance("p0000", t)
            slot, _ = ledger.take_slot("p0000", 2, "bench", LeaseDetails(time=format_timestamp(t)))
            assert slot is not None
            instance, attempt = records(0, t)
            number = (record.attempts if record is not None else 0) + 1
            ledger.write_attempt(AttemptRecord(**{**attempt.__dict__, "attempt": number, "run_id": "bench"}))
            ledger.instance("p0000", t)  # _write_instance reads the previous record
            ledger.write_instance(InstanceRecord(**{**instance.__dict__, "attempts": number, "run_id": "bench"}))
            slot.release()
            lock.release()
        return call


def report(what: str, measured: float, baseline: float, *, target: bool = True) -> bool:
    ok = keep("ledger_scale_bench", what, measured, TARGET_SECONDS, unit="s") if target else True
    print(f"  {what:<58} {measured:7.3f} s  baseline {baseline:7.3f} s  ratio {measured / baseline:6.2f}x"
          + (f"  {'ok' if ok else 'OVER 1 s'}" if target else ""))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1000)
    parser.add_argument("--old-processes", type=int, default=10, help="processes of the folder-layout ledger")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the ledgers here and keep them")
    args = parser.parse_args()
    return in_scratch(args.keep, "ledger-scale-bench-",
                      lambda scratch: run(scratch, args.processes, args.old_processes, args.runs))


def in_scratch(keep: Path | None, prefix: str, call: Callable[[Path], int]) -> int:
    """`call` in the folder `keep` (made or reused, and kept), else in a new temporary folder removed after it; the
    parse cache kept there too, the user's own untouched."""
    scratch = keep or Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["FEED_TOOLKIT_CACHE_DIR"] = str(scratch / "parse-cache")
    try:
        return call(scratch)
    finally:
        if keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


def run(scratch: Path, processes: int, old_processes: int, runs: int) -> int:
    base, old, new = (Setup(scratch / name, range(count)) for name, count in
                      (("base", 1), ("folders", old_processes), ("rollups", processes)))
    began = time.perf_counter()
    write_folders(base.ledger, range(1), 24 * 30, JUNE)  # the baseline: one process, June's rows only
    for setup in (base, old, new):
        caught_up_sweep(setup.ledger, range(processes if setup is new else old_processes if setup is old else 1))
    reused = (old.folder / "primary/working/ledger/processes").exists()  # --keep: built by an earlier run
    if not reused:
        write_folders(old.ledger, range(old_processes), HOURS)
    print(f"ledger_scale_bench: folder layout, {old_processes} processes x {HOURS} hourly instances = "
          f"{old_processes * HOURS:,} instances ({3 * old_processes * HOURS:,} files and folders), "
          + ("reused" if reused else f"written in {time.perf_counter() - began:.0f} s"))
    began = time.perf_counter()
    reused = (new.folder / "primary/working/ledger/processes").exists()
    if not reused:
        write_rollups(new.ledger, range(processes), HOURS)
    print(f"ledger_scale_bench: roll-up layout, {processes} processes x {HOURS} = {processes * HOURS:,} instances "
          f"({processes * 12:,} roll-up files), "
          + ("reused" if reused else f"written in {time.perf_counter() - began:.0f} s") + "; repo of "
          f"{processes} processes and {2 * processes} feeds; baseline: a repo of 1 process, its ledger June's rows")
    ok = True
    june_15 = datetime(2025, 6, 15, 10, tzinfo=timezone.utc)
    new_hour = datetime(2026, 1, 1, 0, tzinfo=timezone.utc)
    base_day = best_of(runs, base.status(DAY))
    base_month = best_of(runs, base.status(MONTH, "summary"))
    base_sweep = best_of(runs, base.trigger())
    base_rows_day = best_of(runs, base.ledger_rows(DAY))
    base_rows_month = best_of(runs, base.ledger_rows(MONTH))
    print(f"folder layout ({old_processes} processes x a year; the full 1,000 do not fit this disk's inodes):")
    report("toolkit status, one process, one day", best_of(runs, old.status(DAY)), base_day, target=False)
    report("toolkit summary, one process, one month", best_of(runs, old.status(MONTH, "summary")), base_month,
           target=False)
    report("  its ledger reads (in process): one day", best_of(runs, old.ledger_rows(DAY)), base_rows_day,
           target=False)
    report("  its ledger reads (in process): one month", best_of(runs, old.ledger_rows(MONTH)), base_rows_month,
           target=False)
    print(f"roll-up layout ({processes} processes x a year, {processes * HOURS:,} instance records):")
    ok &= report("toolkit status, one process, one day", best_of(runs, new.status(DAY)), base_day)
    ok &= report("toolkit summary, one process, one month", best_of(runs, new.status(MONTH, "summary")), base_month)
    ok &= report("toolkit trigger, nothing due", best_of(runs, new.trigger()), base_sweep)
    report("  the same with --no-cache (every file parsed and checked)", best_of(runs, new.trigger("--no-cache")),
           best_of(runs, base.trigger("--no-cache")), target=False)
    report("  its repo load (in process), parse cache warm", best_of(runs, new.repo_load(True)),
           best_of(runs, base.repo_load(True)), target=False)
    report("  its repo load (in process), no cache", best_of(runs, new.repo_load(False)),
           best_of(runs, base.repo_load(False)), target=False)
    report("  its sweep, repo loaded (in process)", best_of(runs, new.sweep()), best_of(runs, base.sweep()),
           target=False)
    report("  its ledger reads (in process): one day", best_of(runs, new.ledger_rows(DAY)), base_rows_day,
           target=False)
    report("  its ledger reads (in process): one month", best_of(runs, new.ledger_rows(MONTH)), base_rows_month,
           target=False)
    base_run = best_of(runs, base.runner_reads(june_15))
    ok &= report("a run's ledger reads and writes, rerun of a rolled-up hour", best_of(runs, new.runner_reads(june_15)),
                 base_run)
    ok &= report("a run's ledger reads and writes, a new hour", best_of(runs, new.runner_reads(new_hour)), base_run)
    report("  the same in the folder layout, rerun of an hour", best_of(runs, old.runner_reads(june_15)), base_run,
           target=False)
    print(f"  result: {'PASS' if ok else 'FAIL'} (targets: each under {TARGET_SECONDS:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
