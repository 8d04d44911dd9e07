"""Benchmark of the command line on an HDFS cluster through WebHDFS (docs/hdfs.md), against the same commands on a
`file://` cluster (the baseline), in the same run: `toolkit trigger` with nothing due, as cron calls it every minute,
and `toolkit status` for one process and one day. The HDFS cluster is the loopback WebHDFS endpoint of the tests
(tests/webhdfs_server.py, a local folder behind HTTP on 127.0.0.1), so the ratio is the price of the WebHDFS
client and its HTTP round trips without a network; the number of calls per command is printed too, to estimate a
real cluster (calls x round trip). A JVM start (what the sweep no longer pays) is 6 to 19 s on this machine.
The ledger's runs all succeeded after their inputs were published, so the first sweep reads every event and starts
nothing, and the next ones have nothing due. Target: the sweep with nothing due and `status` within 3x of their
file:// baseline (the first sweep, one call per event file and more, is printed but not held to it), and never
pyspark or py4j loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from tests.webhdfs_server import LoopbackWebHdfs  # noqa: E402
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402
from toolkit.core.instances.fingerprints import Fingerprint  # noqa: E402
from toolkit.core.ledger.records import InstanceRecord, PublicationFacts, wall_clock_stamp  # noqa: E402
from toolkit.core.ledger.store import Ledger  # noqa: E402
from toolkit.statuses import Status  # noqa: E402
from toolkit.views.ledger_access import cluster_file_system  # noqa: E402

FEEDS, HOURS, RUNS = 5, 24, 3
START = datetime(2026, 11, 20, tzinfo=timezone.utc)
DRIVER = ("import sys\nfrom toolkit.cli.main import main\ncode = main(sys.argv[1:])\n"
          "assert 'pyspark' not in sys.modules and 'py4j' not in sys.modules, 'Spark was loaded'\nsys.exit(code)\n")
CLUSTER = """kind: cluster
name: primary
interfaces:
  readonly: {{endpoint: "{readonly}", version: "3.4"}}
  write: {{endpoint: "{write}", version: "3.4"}}
  execute: {{endpoint: yarn, version: "3.4"}}
  workflow: {{endpoint: "cron://localhost", version: "1.0"}}
locations: {{working: /working}}
"""
FEED = """kind: feed
name: f{n}
frequency: hours(1)
clusters:
  - {{name: primary, type: source, validity: {{start: 2026-11-01T00:00Z, end: 2099-12-31T00:00Z}}}}
locations: {{data: "/data/f{n}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"}}
"""
PROCESS = """kind: process
name: p{n}
clusters:
  - {{name: primary, validity: {{start: 2026-11-01T00:00Z, end: 2099-12-31T00:00Z}}}}
frequency: hours(1)
trigger: data
inputs:
  - {{name: raw, feed: f{n}, start: "now(0,0)", end: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/noop.py}}
"""


def make_repo(folder: Path, readonly: str, write: str) -> Path:
    repo = folder / "conf"
    for sub in ("clusters", "feeds", "processes", "workflows"):
        (repo / sub).mkdir(parents=True)
    (repo / "clusters/primary.yaml").write_text(CLUSTER.format(readonly=readonly, write=write))
    for n in range(FEEDS):
        (repo / f"feeds/f{n}.yaml").write_text(FEED.format(n=n))
        (repo / f"processes/p{n}.yaml").write_text(PROCESS.format(n=n))
    (repo / "workflows/noop.py").write_text("def run(spark, ctx):\n    pass\n")
    cluster = ConfigRepo.load(repo).cluster("primary")
    ledger = Ledger.of(cluster_file_system(cluster), cluster)
    for n in range(FEEDS):
        for hour in range(HOURS):
            ledger.record_publication(PublicationFacts(f"f{n}", "primary", START + timedelta(hours=hour),
                                                       producer="external", run_id=f"r{n}-{hour}",
                                                       location=f"{write}/data/f{n}/{hour}",
                                                       fingerprint=Fingerprint(f"{n}-{hour}".ljust(64, "0"), 1, 100)))
    stamp = wall_clock_stamp(time.time() + 1)  # each run succeeded after its input was published: nothing is due
    for n in range(FEEDS):
        for hour in range(HOURS):
            t = f"{START + timedelta(hours=hour):%Y-%m-%dT%H:%MZ}"
            ledger.write_instance(InstanceRecord(process=f"p{n}", cluster="primary", time=t, status=Status.SUCCEEDED,
                                                 attempts=1, run_id=f"run{n}-{hour}", updated=stamp, started=stamp,
                                                 ended=stamp, succeeded=stamp))
    return repo


def command(repo: Path, folder: Path, *argv: str) -> float:
    """Seconds of one `toolkit` call in a new Python, as cron makes it (exit 0 required)."""
    program = folder / "spark-submit"
    if not program.exists():
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    extra = ["--spark-submit", str(program), "--log-dir", str(folder / "logs")] if argv[0] == "trigger" else []
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", DRIVER, *argv, "--repo", str(repo), "--cluster", "primary", *extra],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - began


def best(repo: Path, folder: Path, *argv: str) -> float:
    return min(command(repo, folder, *argv) for _ in range(RUNS))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="webhdfs-bench-") as temp:
        base = Path(temp)
        (base / "local/root").mkdir(parents=True)
        local_root = f"file://{base / 'local/root'}"
        local = make_repo(base / "local", local_root, local_root)
        with LoopbackWebHdfs(base / "hdfs-folder") as served:
            served.folder.mkdir()
            remote = make_repo(base / "hdfs", served.url.replace("http://", "webhdfs://"), "hdfs://nn:8020")
            status = ("status", "--process", "p0", "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T23:00Z",
                      "--now", "2026-11-22T00:00Z")
            ok = True
            print(f"webhdfs_bench: {FEEDS} feeds x {HOURS} hourly events, {FEEDS} data-triggered processes; "
                  f"best of {RUNS}")
            # the first sweep reads the new events (all already consumed by succeeded runs); then nothing is new
            for label, argv in (("trigger, first sweep", ("trigger",)), ("trigger, nothing due", ("trigger",)),
                                ("status, one day", status)):
                if label == "trigger, first sweep":
                    baseline, started = command(local, base / "local", *argv), len(served.calls)
                    measured = command(remote, base / "hdfs", *argv)
                else:
                    baseline, started = best(local, base / "local", *argv), len(served.calls)
                    measured = best(remote, base / "hdfs", *argv)
                calls = (len(served.calls) - started) // (1 if label == "trigger, first sweep" else RUNS)
                ratio = measured / baseline
                print(f"{label:22s} file:// {baseline:6.2f} s   webhdfs (loopback) {measured:6.2f} s   ratio "
                      f"{ratio:4.2f}   WebHDFS calls per command {calls}")
                if label != "trigger, first sweep":
                    ok = report("webhdfs_bench", f"{label}: webhdfs / file://", ratio, 3.0) and ok
        print("targets met" if ok else "a command is more than 3x its file:// baseline")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
