"""Benchmark of waiting for inputs before any JVM starts (issue 71, item 1): `toolkit call --wait-first`, as every
generated crontab line, Airflow task and Oozie action of a process calls it, against the same instance waiting
inside `spark-submit ... process.py` (the baseline: how every scheduled process waited before).

The repo is `toolkit init`'s (the hourly process `hourly-event-counts`, its timeout six hours), on a `file://` root.

1. Memory of one waiting instance, once its WAITING record is written: the resident memory of every process of the
   call (RSS; for the wait before Spark also its proportional share, PSS, which counts the interpreter's shared
   pages once), and whether a java process is among them. Target: under 60 MB and no java.
2. 200 instances waiting at once (200 hours of the process, each `--now` half an hour after its instance): the
   load they keep once started, over a minute that holds polls (the first poll after 10 s, then 20 s, 40 s ...): the
   mean number of runnable tasks of the machine, sampled every 0.2 s (the run queue the load average averages),
   less the same mean before they started, and the CPU time they used over the minute. Target: under 1.
3. From an input published to the run started: one instance waits; its hour is published two seconds after its
   WAITING record; the stand-in for spark-submit (a script that records when it starts) is started at the wait's
   next poll. Target: within one poll interval, the first one, 10 s (FIRST_POLL_SECONDS); the wait polls every 10 s,
   then 20 s, 40 s ... up to 5 minutes (toolkit/services/runtime/polling.py), so an input late by hours is seen
   within 5 minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from toolkit.services.runtime.polling import FIRST_POLL_SECONDS  # noqa: E402

TOOLKIT = Path(sys.executable).parent / "toolkit"
SPARK_SUBMIT = Path(str(__import__("pyspark").__file__)).parent / "bin" / "spark-submit"
PROCESS = "hourly-event-counts"
WAITERS = 200
WINDOW_SECONDS = 60.0
FIRST = datetime(2026, 6, 1, tzinfo=timezone.utc)
STAND_IN = """import sys, time
open(sys.argv[1], "w").write(repr(time.time()))
"""


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%MZ")


def make_repo(folder: Path) -> tuple[Path, Path]:
    root = folder / "root"
    subprocess.run([str(TOOLKIT), "init", str(folder / "conf"), "--root", f"file://{root}"], check=True,
                   capture_output=True)
    return folder / "conf", root


def entry_arguments(repo: Path, t: datetime) -> list[str]:
    return ["--repo", str(repo), "--process", PROCESS, "--cluster", "local", "--now", stamp(t + timedelta(minutes=30))]


def wait_first(repo: Path, t: datetime, stand_in: Path, started: Path) -> list[str]:
    """The generated call of instance `t`, its spark-submit replaced by the stand-in (which records its start)."""
    return [str(TOOLKIT), "call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--wait-first", "--time",
            stamp(t), "--", sys.executable, str(stand_in), str(started), "process.py", *entry_arguments(repo, t)]


def in_spark(repo: Path, t: datetime) -> list[str]:
    return [str(SPARK_SUBMIT), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
            str(ROOT / "entrypoints" / "process.py"), *entry_arguments(repo, t), "--time", stamp(t)]


def record_of(root: Path, t: datetime) -> Path:
    return root / "feed-toolkit/working/ledger/processes" / PROCESS / t.strftime("%Y%m%dT%H%MZ") / "instance.json"


def until_waiting(path: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if json.loads(path.read_text())["status"] == "WAITING":
                return
        except (FileNotFoundError, ValueError):
            pass
        time.sleep(0.05)
    raise SystemExit(f"no WAITING record at {path}")


def tree(pid: int) -> list[int]:
    """`pid` and every process below it."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
    found, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, its in parents.items() if its == parent]
        found += children
        frontier += children
    return found


def memory_kb(pid: int, field: str) -> int:
    """`Rss` or `Pss` of a process, from /proc/<pid>/smaps_rollup."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def cpu_seconds(pids: list[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def runnable_mean(seconds: float) -> float:
    """The mean number of runnable tasks (the 4th field of /proc/loadavg, less this sampler) over `seconds`."""
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        samples.append(int(Path("/proc/loadavg").read_text().split()[3].split("/")[0]) - 1)
        time.sleep(0.2)
    return statistics.fmean(samples)


def stop(calls: list[subprocess.Popen[bytes]]) -> None:
    for call in calls:
        if call.poll() is None:
            os.killpg(call.pid, signal.SIGTERM)
    for call in calls:
        try:
            call.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(call.pid, signal.SIGKILL)


def start(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
                   "PYSPARK_DRIVER_PYTHON": sys.executable}
    with open(log, "ab") as out:
        # a process group of its own to stop it whole, in this session: `make bench` counts other sessions' CPU as
        # another user's load
        return subprocess.Popen(argv, stdout=out, stderr=out, preexec_fn=os.setpgrp, env=environment)


def one_waiting(repo: Path, root: Path, argv: list[str], t: datetime, log: Path) -> tuple[float, float, bool]:
    """(RSS MB of the call's processes, their PSS MB, whether one is java) once the instance waits."""
    call = start(argv, log)
    try:
        until_waiting(record_of(root, t))
        time.sleep(1.0)
        pids = tree(call.pid)
        rss = sum(memory_kb(pid, "Rss") for pid in pids) / 1024
        pss = sum(memory_kb(pid, "Pss") for pid in pids) / 1024
        java = any("java" in command_line(pid).split(" ", 1)[0] for pid in pids)
        return rss, pss, java
    finally:
        stop([call])


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="wait-bench-"))
    try:
        repo, root = make_repo(work)
        stand_in = work / "stand_in.py"
        stand_in.write_text(STAND_IN)
        logs = work / "logs"
        logs.mkdir()

        # 1. one waiting instance: in spark-submit (the baseline), then before Spark
        spark_rss, spark_pss, spark_java = one_waiting(repo, root, in_spark(repo, FIRST), FIRST, logs / "spark.log")
        t = FIRST + timedelta(hours=1)
        rss, pss, java = one_waiting(repo, root, wait_first(repo, t, stand_in, work / "never"), t,
                                     logs / "call.log")
        print(f"1. one waiting instance: in spark-submit {spark_rss:.1f} MB RSS ({spark_pss:.1f} MB PSS"
              f"{', java' if spark_java else ''}); toolkit call --wait-first {rss:.1f} MB RSS ({pss:.1f} MB PSS"
              f"{', java' if java else ', no java'}): {spark_rss / rss:.1f}x less")

        # 2. 200 waiting at once
        idle = runnable_mean(10)
        hours = [FIRST + timedelta(hours=2 + k) for k in range(WAITERS)]
        began = time.monotonic()
        calls = [start(wait_first(repo, hour, stand_in, work / "never"), logs / "many.log") for hour in hours]
        try:
            for hour in hours:
                until_waiting(record_of(root, hour), timeout=600)
            settled = time.monotonic() - began
            pids = [pid for call in calls for pid in tree(call.pid)]
            cpu_before = cpu_seconds(pids)
            busy = runnable_mean(WINDOW_SECONDS)
            cpu = cpu_seconds(pids) - cpu_before
            pss_total = sum(memory_kb(pid, "Pss") for pid in pids) / 1024
            java_many = any("java" in command_line(pid).split(" ", 1)[0] for pid in pids)
            alive = sum(call.poll() is None for call in calls)
            one_minute = float(Path("/proc/loadavg").read_text().split()[0])
        finally:
            stop(calls)
        added = busy - idle
        print(f"2. {WAITERS} waiting instances: all WAITING {settled:.0f} s after they were started; over the next "
              f"{WINDOW_SECONDS:.0f} s the machine's run queue held {busy:.2f} tasks on average ({idle:.2f} before "
              f"they started: {added:.2f} added), they used {cpu:.2f} s of CPU ({cpu / WINDOW_SECONDS:.3f} of a "
              f"core), {pss_total:.0f} MB PSS in all ({pss_total / WAITERS:.1f} MB each), {alive} still waiting, "
              f"{'a java process among them' if java_many else 'no java'}; the 1-minute load average then "
              f"{one_minute:.2f} (it still holds their start)")

        # 3. from a publication to the run's start
        t = FIRST + timedelta(hours=WAITERS + 10)
        started = work / "started"
        call = start(wait_first(repo, t, stand_in, started), logs / "latency.log")
        try:
            until_waiting(record_of(root, t))
            time.sleep(2.0)
            folder = root / "data/events" / t.strftime("%Y/%m/%d/%H")
            folder.mkdir(parents=True)
            (folder / "part-0.json").write_text('{"event":"click"}\n')
            (folder / "_SUCCESS").touch()
            published = time.time()
            call.wait(timeout=120)
        finally:
            stop([call])
        latency = float(started.read_text()) - published
        print(f"3. published -> run started: {latency:.2f} s (the wait's first poll interval: "
              f"{FIRST_POLL_SECONDS:.0f} s)")

        ok = all([report("wait_bench", "one waiting instance, toolkit call --wait-first (RSS)", rss, 60, unit="MB"),
                  report("wait_bench", "one waiting instance: spark-submit / toolkit call (RSS)", spark_rss / rss, 5,
                         better="higher"),
                  report("wait_bench", f"{WAITERS} waiting instances: load added", max(added, 0.0), 1, unit="n"),
                  report("wait_bench", "published -> run started", latency, FIRST_POLL_SECONDS, unit="s")])
        ok = ok and not java and not java_many and alive == WAITERS
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
