"""The ledger commands on an `hdfs://` cluster, served by the loopback WebHDFS endpoint (tests/webhdfs_server.py, the
stand-in for a namenode, which cannot run here): the ledger is written by the toolkit's own Ledger over WebHDFS,
each command reads or writes it through the same client, and what lands is checked in the served folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.local_cluster import hourly_feed_yaml
from tests.webhdfs_server import LoopbackWebHdfs
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.attempt_logs import CappedLog
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import AttemptRecord, InstanceRecord, PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.webhdfs import WebHdfsFileSystem
from toolkit.services.runtime.cluster_files import cluster_file_system

PROJECT = Path(__file__).resolve().parents[3]
ROOT = "hdfs://nn.example:8020"  # never contacted: the command line reaches the cluster through WebHDFS
T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
NOW = "2026-11-21T11:30Z"
HOURLY = """kind: process
name: hourly
clusters:
  - name: primary
    validity: {start: 2026-11-21T00:00Z, end: 2099-12-31T00:00Z}
frequency: hours(1)
trigger: data
inputs:
  - {name: raw, feed: raw, start: "now(0,0)", end: "now(0,0)"}
outputs:
  - {name: summary, feed: summary, instance: "now(0,0)"}
workflow: {engine: pyspark, path: workflows/noop.py}
"""
RECORDER = "#!/bin/sh\necho \"$@\" >> {log}\n"


def hdfs_cluster_yaml(readonly: str) -> str:
    return (f"kind: cluster\nname: primary\ninterfaces:\n  readonly: {{endpoint: \"{readonly}\", version: \"3.4\"}}\n"
            f"  write: {{endpoint: \"{ROOT}\", version: \"3.4\"}}\n  execute: {{endpoint: yarn, version: \"3.4\"}}\n"
            "  workflow: {endpoint: \"cron://localhost\", version: \"1.0\"}\n"
            "locations: {staging: /feed-toolkit/staging, working: /feed-toolkit/working}\n"
            "properties: {webhdfs.user: etl}\n")


@dataclass
class Site:
    conf: Path
    served: LoopbackWebHdfs  # its folder is the cluster's `/`
    submitted: Path  # what the stand-in spark-submit was called with
    spark_submit: Path

    def ledger(self, clock: float | None = None) -> Ledger:
        cluster = ConfigRepo.load(self.conf).cluster("primary")
        return Ledger.of(cluster_file_system(cluster), cluster, clock=(lambda: clock) if clock else None)

    def local(self, path: str) -> Path:
        return self.served.folder / path.lstrip("/")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with LoopbackWebHdfs(tmp_path / "hdfs") as served:
        served.folder.mkdir()
        conf = tmp_path / "conf"
        for folder in ("clusters", "feeds", "processes", "workflows"):
            (conf / folder).mkdir(parents=True)
        webhdfs = served.url.replace("http://", "webhdfs://")
        (conf / "clusters/primary.yaml").write_text(hdfs_cluster_yaml(webhdfs))
        for feed in ("raw", "summary"):
            (conf / f"feeds/{feed}.yaml").write_text(hourly_feed_yaml(feed))
        (conf / "processes/hourly.yaml").write_text(HOURLY)
        (conf / "workflows/noop.py").write_text("def run(spark, ctx):\n    pass\n")
        program = tmp_path / "spark-submit"
        program.write_text(RECORDER.format(log=tmp_path / "submitted.log"))
        program.chmod(0o755)
        yield Site(conf, served, tmp_path / "submitted.log", program)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def history(site: Site) -> None:
    """09:00 FAILED, 10:00 SUCCEEDED with its raw input published, 11:00 RUNNING by a live run (its lock and slot
    renewed 10 s before NOW): written by the toolkit's Ledger over WebHDFS."""
    ledger = site.ledger()
    for hour, status in ((9, "FAILED"), (10, "SUCCEEDED"), (11, "RUNNING")):
        ledger.write_instance(InstanceRecord(process="hourly", cluster="primary", time=f"2026-11-21T{hour:02d}:00Z",
                                             status=status, attempts=1, run_id=f"run-{hour}",
                                             updated=f"2026-11-21T{hour:02d}:05:00Z",
                                             started=f"2026-11-21T{hour:02d}:01:00Z",
                                             error="boom" if status == "FAILED" else None))
    now = datetime(2026, 11, 21, 11, 30, tzinfo=timezone.utc).timestamp()
    live = site.ledger(now - 10)  # the run's lock and its `parallel` slot
    assert live.instance_lock("hourly", datetime(2026, 11, 21, 11, tzinfo=timezone.utc)).try_acquire("run-11").taken
    assert live.take_slot("hourly", 1, "run-11", LeaseDetails(time="2026-11-21T11:00Z"))[0] is not None
    ledger.record_publication(PublicationFacts("raw", "primary", T, producer="external", run_id="ext-1",
                                               location=f"{ROOT}/data/raw/2026/11/21/10",
                                               fingerprint=Fingerprint("d", 1, 1)))


def test_status_summary_running_and_rerun_read_the_ledger_on_loopback_webhdfs(
        capsys: pytest.CaptureFixture[str], site: Site) -> None:
    history(site)
    assert (site.local("/feed-toolkit/working/ledger")).is_dir()  # written where the cluster's paths say
    code, out, err = run(capsys, "status", "--repo", str(site.conf), "--process", "hourly", "--cluster", "primary",
                         "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T11:00Z", "--now", NOW, "--format", "json")
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [(row["time"], row["status"], row["run_id"]) for row in rows] == [
        ("2026-11-21T09:00Z", "FAILED", "run-9"), ("2026-11-21T10:00Z", "SUCCEEDED", "run-10"),
        ("2026-11-21T11:00Z", "RUNNING", "run-11")]
    assert rows[0]["error"] == "boom"
    code, out, err = run(capsys, "summary", "--repo", str(site.conf), "--process", "hourly", "--cluster", "primary",
                         "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T11:00Z", "--now", NOW, "--format", "json")
    assert (code, err) == (0, "")
    counts = json.loads(out)["counts"]
    assert {key: counts[key] for key in ("FAILED", "SUCCEEDED", "RUNNING", "KILLED")} == {
        "FAILED": 1, "SUCCEEDED": 1, "RUNNING": 1, "KILLED": 0}, counts
    code, out, err = run(capsys, "running", "--repo", str(site.conf), "--cluster", "primary", "--now", NOW)
    assert (code, err) == (0, "")
    assert [line.split()[:3] for line in out.splitlines()[1:]] == [["hourly", "2026-11-21T11:00Z", "run-11"]]
    code, out, err = run(capsys, "rerun", "--repo", str(site.conf), "--process", "hourly", "--cluster", "primary",
                         "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T11:00Z", "--now", NOW)
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == 1 and out.split("process.py ", 1)[1].split() == [
        "--repo", str(site.conf), "--process", "hourly", "--cluster", "primary", "--time", "2026-11-21T09:00Z",
        "--force"]
    assert {call.user for call in site.served.calls} == {"etl"}  # webhdfs.user on every call


def test_entity_status_triage_and_logs_read_the_ledger_and_the_data_on_loopback_webhdfs(
        capsys: pytest.CaptureFixture[str], site: Site) -> None:
    history(site)
    ledger = site.ledger()
    ledger.write_attempt(AttemptRecord(process="hourly", cluster="primary", time="2026-11-21T09:00Z", attempt=1,
                                       run_id="run-9", kind="RUN", status="FAILED",  # type: ignore[arg-type]
                                       started="2026-11-21T09:01:00Z", ended="2026-11-21T09:02:00Z", error="boom"))
    log = CappedLog()
    log.write("process: hourly 2026-11-21T09:00Z attempt 1: running\nboom with token=abc\n")
    ledger.write_attempt_log("hourly", datetime(2026, 11, 21, 9, tzinfo=timezone.utc), 1, log)
    assert site.local("/feed-toolkit/working/ledger/processes/hourly/20261121T0900Z/attempt-001.stderr").read_text() \
        == "process: hourly 2026-11-21T09:00Z attempt 1: running\nboom with token=***\n"

    code, out, err = run(capsys, "logs", "--repo", str(site.conf), "--process", "hourly", "--time",
                         "2026-11-21T09:00Z")
    assert (code, out) == (0, "process: hourly 2026-11-21T09:00Z attempt 1: running\nboom with token=***\n"), err
    code, out, err = run(capsys, "entity-status", "hourly", "--repo", str(site.conf), "--now", NOW, "--format",
                         "json")
    assert code == 0, err
    [primary] = json.loads(out)["clusters"]
    assert (primary["state"], primary["last_instance"]) == ("RUNNING", {"time": "2026-11-21T11:00Z",
                                                                        "status": "RUNNING"})
    code, out, err = run(capsys, "triage", "--repo", str(site.conf), "--process", "hourly", "--time",
                         "2026-11-21T09:00Z", "--now", NOW, "--format", "json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["causes"] == ["feed raw 2026-11-21T09:00Z"]  # the failed run's input never came
    assert [(node["status"], node["why"]) for node in answer["instances"]] == [
        ("FAILED", "failed: boom; 1 required input instance(s) missing"),
        ("MISSING", "no folder; no process of the repo writes it on cluster 'primary': its outside producer "
                    "publishes it (`toolkit publish` once the data is complete)")]
    site.local("/data/raw/2026/11/21/09").mkdir(parents=True)  # the data came since: the run's own error is left
    (site.local("/data/raw/2026/11/21/09") / "part-0").write_text("x\n")
    code, out, err = run(capsys, "triage", "--repo", str(site.conf), "--process", "hourly", "--time",
                         "2026-11-21T09:00Z", "--now", NOW)
    assert code == 0, err
    assert out.splitlines()[:2] == ["process hourly 2026-11-21T09:00Z on cluster primary: FAILED; 1 cause(s):",
                                    "  process hourly 2026-11-21T09:00Z: FAILED: failed: boom; its inputs are all "
                                    "available"]


def test_suspend_resume_and_safemode_write_the_switches_on_loopback_webhdfs(
        capsys: pytest.CaptureFixture[str], site: Site) -> None:
    code, out, err = run(capsys, "suspend", "hourly", "--repo", str(site.conf), "--cluster", "primary",
                         "--reason", "bad upstream data")
    assert (code, err) == (0, ""), err
    suspended = site.local("/feed-toolkit/working/ledger/control/suspended/process/hourly")
    assert json.loads(suspended.read_text())["reason"] == "bad upstream data"
    assert site.ledger().control.suspension("process", "hourly").on
    assert run(capsys, "resume", "hourly", "--repo", str(site.conf), "--cluster", "primary")[0] == 0
    assert not site.ledger().control.suspension("process", "hourly").on
    code, out, err = run(capsys, "safemode", "on", "--repo", str(site.conf), "--cluster", "primary", "--reason",
                         "upgrade")
    assert (code, err) == (0, "") and "Safemode is on for cluster 'primary'" in out
    assert site.ledger().control.safemode().on
    code, out, _ = run(capsys, "safemode", "status", "--repo", str(site.conf), "--cluster", "primary")
    assert code == 0 and "upgrade" in out
    assert run(capsys, "safemode", "off", "--repo", str(site.conf), "--cluster", "primary")[0] == 0
    assert not site.ledger().control.safemode().on
    assert not [path for path in site.served.folder.rglob("*.tmp")]  # every write renamed into place
    assert {"CREATE", "RENAME"} <= {call.op for call in site.served.calls}


def test_events_and_lineage_on_loopback_webhdfs(capsys: pytest.CaptureFixture[str], site: Site) -> None:
    history(site)
    code, out, err = run(capsys, "events", "--repo", str(site.conf), "--cluster", "primary", "--format", "json")
    assert (code, err) == (0, "")
    events = json.loads(out)
    assert [(e["feed"], e["time"], e["kind"], e["run_id"]) for e in events] == [
        ("raw", "2026-11-21T10:00Z", "published", "ext-1")]
    code, out, err = run(capsys, "lineage", "--repo", str(site.conf), "--cluster", "primary", "--feed", "raw",
                         "--time", "2026-11-21T10:00Z", "--format", "json")
    assert (code, err) == (0, ""), err
    document = json.loads(out)
    assert document["root"] == "instance:primary:raw:2026-11-21T10:00Z"
    assert any(node.get("run_id") == "ext-1" for node in document["nodes"]), document["nodes"]


def trigger(site: Site, *argv: str) -> subprocess.CompletedProcess[str]:
    """`toolkit trigger` in its own Python, which reports whether Spark's Python side (pyspark, py4j) was loaded."""
    driver = ("import sys\nfrom toolkit.cli.main import main\ncode = main(sys.argv[1:])\n"
              "print('loaded:', sorted(m for m in ('pyspark', 'py4j') if m in sys.modules))\nsys.exit(code)\n")
    return subprocess.run([sys.executable, "-c", driver, "trigger", "--repo", str(site.conf), "--cluster", "primary",
                           "--spark-submit", str(site.spark_submit), "--log-dir", str(site.submitted.parent / "logs"),
                           *argv], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})


def test_the_trigger_sweep_starts_no_jvm_on_loopback_webhdfs(site: Site) -> None:
    nothing = trigger(site)
    assert nothing.returncode == 0, nothing.stderr
    assert nothing.stdout.splitlines() == ["trigger: 0 new event(s) read on cluster 'primary', 0 run(s) started",
                                           "loaded: []"]
    site.ledger().record_publication(PublicationFacts("raw", "primary", T, producer="external", run_id="ext-1",
                                                      location=f"{ROOT}/data/raw/2026/11/21/10",
                                                      fingerprint=Fingerprint("d", 1, 1)))
    due = trigger(site)
    assert due.returncode == 0, due.stderr
    assert due.stdout.splitlines() == ["started: hourly 2026-11-21T10:00Z",
                                       "trigger: 1 new event(s) read on cluster 'primary', 1 run(s) started",
                                       "loaded: []"]
    deadline = time.monotonic() + 30
    while not site.submitted.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert site.submitted.read_text().split("process.py ", 1)[1].split() == [
        "--repo", str(site.conf), "--cluster", "primary", "--process", "hourly", "--time", "2026-11-21T10:00Z",
        "--no-wait"]
    assert trigger(site).stdout.splitlines() == [  # the sweep's state was kept on the cluster
        "due, not started: hourly 2026-11-21T10:00Z: started by an earlier sweep, not running yet",
        "trigger: 0 new event(s) read on cluster 'primary', 0 run(s) started", "loaded: []"]


def test_a_second_sweep_is_told_who_holds_the_lock_on_loopback_webhdfs(site: Site) -> None:
    site.ledger().record_publication(PublicationFacts("raw", "primary", T, producer="external", run_id="ext-1",
                                                      location=f"{ROOT}/data/raw/2026/11/21/10",
                                                      fingerprint=Fingerprint("d", 1, 1)))
    holder = site.ledger().sweep_lock()
    assert holder.try_acquire("other-sweep").taken
    blocked = trigger(site)
    assert blocked.returncode == 5
    assert "The data-trigger sweep of cluster 'primary' is being run by run other-sweep" in blocked.stderr
    assert len(blocked.stderr.strip().splitlines()) == 1 and not site.submitted.exists()
    holder.release()
    assert trigger(site).returncode == 0
    assert "--time 2026-11-21T10:00Z" in site.submitted.read_text()


def test_suspends_at_once_both_land_whole_on_loopback_webhdfs(site: Site) -> None:
    """Two `toolkit suspend` processes at once: each switch write is a CREATE then a RENAME over the old one, so
    the switch is always one caller's whole record, never a mix or a left temporary."""
    callers = [subprocess.Popen([sys.executable, "-m", "toolkit", "suspend", "hourly", "--repo", str(site.conf),
                                 "--cluster", "primary", "--reason", f"caller {k}"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(PROJECT)})
               for k in (1, 2)]
    results = [(caller.wait(timeout=120), caller.stderr.read() if caller.stderr else "") for caller in callers]
    assert [code for code, _ in results] == [0, 0], results
    switch = site.ledger().control.suspension("process", "hourly")
    assert switch.on and switch.reason in ("caller 1", "caller 2")
    assert not [path for path in site.served.folder.rglob("*.tmp")]


@pytest.mark.parametrize(("readonly", "message"), [
    ("hdfs://nn.example:8020", "interfaces.readonly.endpoint 'hdfs://nn.example:8020' is not a WebHDFS address"),
    ("webhdfs://etl:secret@nn.example:9870", "holds a user name or password"),
    ("webhdfs://127.0.0.1:1", "the WebHDFS endpoint http://127.0.0.1:1 cannot be reached"),
])
def test_a_cluster_the_command_line_cannot_reach_is_one_sentence_on_loopback_webhdfs(
        capsys: pytest.CaptureFixture[str], site: Site, readonly: str, message: str) -> None:
    (site.conf / "clusters/primary.yaml").write_text(hdfs_cluster_yaml(readonly))
    code, out, err = run(capsys, "running", "--repo", str(site.conf), "--cluster", "primary")
    assert (code, out) == ((1 if "reached" in message else 2), "")
    assert err.startswith("toolkit: ") and len(err.strip().splitlines()) == 1 and message in err, err
    assert "secret" not in err


def test_the_cluster_file_system_is_webhdfs_for_hdfs_clusters_on_loopback_webhdfs(site: Site) -> None:
    cluster = ConfigRepo.load(site.conf).cluster("primary")
    fs = cluster_file_system(cluster)
    assert isinstance(fs, WebHdfsFileSystem)
    fs.write_atomically(f"{ROOT}/feed-toolkit/working/probe", b"p")
    assert site.local("/feed-toolkit/working/probe").read_bytes() == b"p"
    assert fs.list(f"{ROOT}/feed-toolkit/working")[0].path == f"{ROOT}/feed-toolkit/working/probe"


@pytest.mark.jvm
def test_the_first_sweeps_journal_rebuild_reads_and_writes_no_event_the_journal_holds_on_loopback_webhdfs(
        capsys: pytest.CaptureFixture[str], site: Site) -> None:
    """A ledger written since the journal exists has an entry for every event: the one-time rebuild of the first
    sweep lists the journal and neither reads those events again nor tries to create their entries (it did both:
    five WebHDFS calls per event, 720 of the 1,012 calls of bench/webhdfs_bench.py's first sweep)."""
    ledger = site.ledger()
    for hour in range(6):
        ledger.record_publication(PublicationFacts("raw", "primary", T.replace(hour=hour), producer="external",
                                                   run_id=f"e{hour}", location=f"{ROOT}/data/raw/{hour}",
                                                   fingerprint=Fingerprint("d", 1, 1)))
    first = len(site.served.calls)
    code, out, err = run(capsys, "trigger", "--repo", str(site.conf), "--cluster", "primary", "--spark-submit",
                         str(site.spark_submit), "--log-dir", str(site.submitted.parent / "logs"))
    assert (code, err) == (0, ""), err
    assert "trigger: 6 new event(s) read" in out, out
    calls = site.served.calls[first:]
    assert [call for call in calls if call.op == "CREATE" and "/journal/" in call.path] == []
    reads = Counter(call.path for call in calls if call.op == "OPEN" and "/events/raw/" in call.path)
    assert set(reads.values()) <= {2}, reads  # at most once each (the namenode's redirect, then the data)
    assert ledger.fs.exists(ledger.layout.journal_rebuilt())  # the rebuild ran, and is not run again


def test_retain_evicts_an_hdfs_clusters_file_feed_through_the_loopback_webhdfs_stand_in(
        capsys: pytest.CaptureFixture[str], site: Site) -> None:
    """`toolkit retain` on an `hdfs://` cluster: no JVM, the WebHDFS client lists and deletes, the instance at the
    cut-off and after it stay, and the run record lands on the cluster."""
    feed = hourly_feed_yaml("raw").replace("    validity:", "    retention: {limit: hours(5), action: delete}\n"
                                                            "    validity:")
    (site.conf / "feeds/raw.yaml").write_text(feed)
    for hour in range(12):
        instance = site.local(f"/data/raw/2026/11/21/{hour:02d}")
        instance.mkdir(parents=True)
        (instance / "part-00000").write_text("x\n")
    code, out, err = run(capsys, "retain", "--repo", str(site.conf), "--feed", "raw", "--cluster", "primary",
                         "--time", "2026-11-21T10:00Z")
    assert (code, err) == (0, ""), out
    status = json.loads(out.splitlines()[-1])
    assert (status["status"], status["instances_evicted"]) == ("SUCCEEDED", 5)
    assert sorted(p.name for p in site.local("/data/raw/2026/11/21").iterdir()) == [f"{h:02d}" for h in range(5, 12)]
    assert status["report"] == f"{ROOT}/feed-toolkit/working/retention/raw/20261121T1000Z.json"
    report = json.loads(site.local("/feed-toolkit/working/retention/raw/20261121T1000Z.json").read_text())
    assert [item["time"] for item in report["evicted"]] == [f"2026-11-21T{h:02d}:00Z" for h in range(5)]
