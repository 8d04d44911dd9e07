"""The class-data archive of spark-submit's driver JVM (toolkit/services/runtime/class_archive.py) with real
spark-submits: the archive `make_archive` made for this test session (tests/integration/jvm_archive.py: `toolkit
jvm-archive`'s own function) is mapped by a spark-submit given the options a cluster's `jvm.class-archive` puts on its
scheduled calls, with nothing on stdout but the job's output; a JVM whose class path differs from the archive's runs
without it, with a warning on stderr; a job that fails writes nothing and says why in one sentence."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.spark_submit import SPARK_SUBMIT, environment
from tests.unit.entities.datasource_samples import CLUSTER, write_repo
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.services.runtime.class_archive import archive_lock, make_archive
from toolkit.services.runtime.submit import submit_arguments

JOB = "from pyspark.sql import SparkSession\nprint(SparkSession.builder.getOrCreate().range(7).count())\n"


def _run(tmp_path: Path, archive: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """The job under spark-submit with the arguments a cluster naming `archive` gives its calls, and the JVM's
    record of where each class came from."""
    repo = write_repo(tmp_path / "conf")
    (repo / "clusters" / "primary.yaml").write_text(CLUSTER + f"properties:\n  jvm.class-archive: {archive}\n")
    arguments = submit_arguments(None, ConfigRepo.load(repo).clusters["primary"], jar=None)
    loaded = tmp_path / "classes.log"
    arguments[-1] += f" -Xlog:class+load=info:file={loaded}"
    (tmp_path / "job.py").write_text(JOB)
    env = {name: value for name, value in environment().items() if name != "SPARK_SUBMIT_OPTS"}  # ours alone
    done = subprocess.run([str(SPARK_SUBMIT), "--master", "local[1]", *extra, *arguments, str(tmp_path / "job.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    return done, loaded.read_text() if loaded.exists() else ""


@pytest.mark.jvm
def test_the_archive_is_mapped_by_a_spark_submit_of_a_cluster_that_names_it(
        tmp_path: Path, jvm_class_archive: Path | None) -> None:
    assert jvm_class_archive is not None, "make_archive could not make the session's archive"
    done, loaded = _run(tmp_path, jvm_class_archive)
    assert (done.returncode, done.stdout) == (0, "7\n"), done.stderr[-2000:]
    assert "org.apache.spark.SparkContext source: shared objects file (top)" in loaded
    shared = sum("source: shared objects file (top)" in line for line in loaded.splitlines())
    assert shared > 5000, shared  # Spark's, Hadoop's and Scala's classes, not a handful


@pytest.mark.jvm
def test_a_driver_whose_class_path_differs_runs_without_the_archive_and_warns_on_stderr(
        tmp_path: Path, jvm_class_archive: Path | None) -> None:
    assert jvm_class_archive is not None
    done, loaded = _run(tmp_path, jvm_class_archive, "--driver-class-path", "/usr/share/java/postgresql.jar")
    assert (done.returncode, done.stdout) == (0, "7\n"), done.stderr[-2000:]
    assert "[warning][cds" in done.stderr and "Unable to use shared archive" in done.stderr
    assert "source: shared objects file (top)" not in loaded


@pytest.mark.jvm
def test_a_job_that_fails_writes_nothing_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "spark.jsa"
    abandoned = tmp_path / f".spark.jsa.{_dead_pid()}.partial"  # left by a run killed while its JVM dumped
    abandoned.write_bytes(b"partial")
    code = main(["jvm-archive", "--out", str(out), "--spark-submit", str(SPARK_SUBMIT),
                 "--submit-args", "--driver-java-options -Xmx1k"])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert captured.err.startswith(f"toolkit: The archive's job under {SPARK_SUBMIT} exited 1 (Error: Not allowed to "
                                   "specify max heap(Xmx) memory settings through java options")
    assert captured.err.endswith(f"): nothing was written to {out}.\n") and captured.err.count("\n") == 1
    assert [path.name for path in tmp_path.iterdir()] == [".spark.jsa.lock"]  # no archive, no partial one


@pytest.mark.jvm
def test_a_jvm_that_cannot_start_is_named_by_its_reason_not_its_headline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The JVM says why it failed on the line after its headline ("Error occurred during initialization of VM")."""
    out = tmp_path / "spark.jsa"
    code = main(["jvm-archive", "--out", str(out), "--spark-submit", str(SPARK_SUBMIT), "--submit-args",
                 "--driver-java-options '-XX:SharedArchiveFile=/etc/hostname -Xshare:on'"])
    captured = capsys.readouterr()
    assert (code, captured.out) == (1, "")
    assert captured.err == (f"toolkit: The archive's job under {SPARK_SUBMIT} exited 1 (the JVM could not process "
                            "a shared archive file: Unable to read the file header.): nothing was written to "
                            f"{out}.\n")


@pytest.mark.jvm
def test_killed_while_it_makes_an_archive_the_old_one_stays_whole(tmp_path: Path) -> None:
    """`kill -9` of the toolkit's process alone: its job's JVM dies with it (it would otherwise run on without the
    lock and dump an archive of its own)."""
    out, scratch, running = _making(tmp_path)
    try:
        os.kill(running.pid, signal.SIGKILL)
        running.wait(timeout=60)
        time.sleep(2)
        written = sorted(scratch.rglob("*"))
        time.sleep(10)  # a job left running would write its next format meanwhile
        assert sorted(scratch.rglob("*")) == written
        assert out.read_bytes() == b"the archive of the last run"
        assert sorted(path.name for path in out.parent.iterdir()) == [".spark.jsa.lock", "spark.jsa"]
        with archive_lock(out):  # the killed maker holds it no longer: the next call makes the archive
            pass
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.pid, signal.SIGKILL)


@pytest.mark.jvm
def test_stopped_with_sigterm_it_ends_its_job_and_writes_nothing(tmp_path: Path) -> None:
    """A scheduler stops a run with SIGTERM to the toolkit's process alone: the job's spark-submit must end with it,
    not run on for a minute and dump an archive nobody renames."""
    out, scratch, running = _making(tmp_path)
    try:
        running.send_signal(signal.SIGTERM)
        stdout, stderr = running.communicate(timeout=60)
        assert (running.returncode, stdout) == (1, "")
        assert stderr == f"toolkit: The archive's job was stopped (SIGTERM): nothing was written to {out}.\n"
        time.sleep(10)  # a job left running would write its next format into its scratch folder meanwhile
        assert list(scratch.iterdir()) == []
        assert out.read_bytes() == b"the archive of the last run"
        assert sorted(path.name for path in out.parent.iterdir()) == [".spark.jsa.lock", "spark.jsa"]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.pid, signal.SIGKILL)


def _making(tmp_path: Path) -> tuple[Path, Path, subprocess.Popen[str]]:
    """`toolkit jvm-archive` replacing an archive, in a session of its own, once its job has started: the archive,
    the job's TMPDIR and the process."""
    folder, scratch = tmp_path / "out", tmp_path / "tmp"
    folder.mkdir()
    scratch.mkdir()
    out = folder / "spark.jsa"
    out.write_bytes(b"the archive of the last run")
    running = subprocess.Popen([str(Path(sys.executable).parent / "toolkit"), "jvm-archive", "--out", str(out),
                                "--spark-submit", str(SPARK_SUBMIT)], env={**environment(), "TMPDIR": str(scratch)},
                               start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and running.poll() is None and not _job_started(scratch):
        time.sleep(0.2)
    if running.poll() is not None or not _job_started(scratch):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(running.pid, signal.SIGKILL)
        raise AssertionError(f"the archive's job never started: {running.communicate()[1][-2000:]}")
    return out, scratch, running


def _job_started(scratch: Path) -> bool:
    """The archive's job has a Spark session and writes its first files into its scratch folder (under TMPDIR); what
    the driver loads from then on is what its JVM would dump at exit."""
    return any(scratch.glob("feed-toolkit-class-archive-*/parquet"))


def _dead_pid() -> int:
    """A process id no process can have: past the kernel's largest."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


@pytest.mark.jvm
def test_a_spark_submit_that_cannot_run_is_a_bad_call(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"/nonexistent/spark-submit cannot run \(No such file or directory\)"):
        make_archive(tmp_path / "spark.jsa", "/nonexistent/spark-submit")
    assert [path.name for path in tmp_path.iterdir()] == [".spark.jsa.lock"]
