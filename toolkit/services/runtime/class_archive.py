"""A class-data sharing archive of the classes a spark-submit of an action loads, and the JVM options that map it.

A spark-submit's driver JVM spends most of its start-up parsing and verifying the same 13,000 classes of Spark,
Hadoop and the JDK on every call (an empty spark-submit: about 10 s of CPU here). The JVM can dump the classes a run
loaded into an archive (`-XX:ArchiveClassesAtExit`, JDK 13 and later) and map it in later runs
(`-XX:SharedArchiveFile`), which skips that work. `toolkit jvm-archive` makes one per installation by running the
job beside this module (class_archive_job.py), which touches what the actions touch; the scheduled calls and the
trigger sweep's runs map it when the cluster's property `jvm.class-archive` names it
(toolkit/services/runtime/submit.py).

The JVM checks an archive against its own build and class path when it maps it, and runs without it when they
differ (a JDK or Spark upgraded since, a `--driver-class-path`), with one warning: an archive is only ever a speed-up.
The warnings of the JVM's own log go to stderr, where they cannot mix into the status line on stdout."""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from toolkit.core.entities.scheduled_values import CLASS_ARCHIVE_PROPERTY  # the archive's path where spark-submit runs
from toolkit.errors import BlockedError, ToolkitError, UsageError
from toolkit.forked_map import die_with

JOB = Path(__file__).with_name("class_archive_job.py")
_LOG_TO_STDERR = "-Xlog:disable -Xlog:all=warning:stderr"
_DRIVER_OPTIONS = "--driver-java-options"
_DRIVER_CONF = "spark.driver.extraJavaOptions"
_NAME_MAX = 255  # bytes of a file name (Linux's NAME_MAX)
_PID_MAX = 4194304  # the largest process id Linux gives (2**22)


@dataclass(frozen=True)
class ArchiveMade:
    path: Path
    size: int
    seconds: float


def mapping_options(archive: str) -> str:
    """The driver JVM options that map `archive` when it fits the JVM, and run without it otherwise."""
    if not archive.startswith("/") or _unmappable(archive):
        raise UsageError(f"The class-data archive {archive!r} ({CLASS_ARCHIVE_PROPERTY}) is not an absolute path "
                         "without spaces or colons: give the path `toolkit jvm-archive --out` wrote, on the hosts "
                         "that run spark-submit.")
    return f"-XX:SharedArchiveFile={archive} -Xshare:auto {_LOG_TO_STDERR}"


def _unmappable(path: str) -> bool:
    """spark-submit splits the driver's Java options on spaces, and the JVM reads `A:B` as a base and a top archive
    (and ignores them both, silently, with -Xshare:auto)."""
    return ":" in path or any(character.isspace() for character in path)


def with_class_archive(arguments: Sequence[str], archive: str) -> list[str]:
    """spark-submit's `arguments` with the options mapping `archive` added to the driver's Java options given
    (`--driver-java-options`, which wins over `--conf spark.driver.extraJavaOptions`), else to that --conf, else as
    a --driver-java-options of their own."""
    options = mapping_options(archive)
    listed = list(arguments)
    for index, argument in enumerate(listed):
        if argument == _DRIVER_OPTIONS and index + 1 < len(listed):
            return [*listed[:index + 1], f"{listed[index + 1]} {options}".strip(), *listed[index + 2:]]
        if argument.startswith(_DRIVER_OPTIONS + "="):
            return [*listed[:index], f"{argument} {options}", *listed[index + 1:]]
    for index, argument in enumerate(listed):
        if argument == "--conf" and index + 1 < len(listed) and listed[index + 1].startswith(_DRIVER_CONF + "="):
            return [*listed[:index + 1], f"{listed[index + 1]} {options}", *listed[index + 2:]]
    return [*listed, _DRIVER_OPTIONS, options]


def make_archive(out: Path, spark_submit: str, submit_args: Sequence[str] = (), *, java_options: str = "",
                 timeout: float = 900, environment: Mapping[str, str] | None = None) -> ArchiveMade:
    """Run the archive's job under `spark_submit` with `submit_args` in `environment` (default: this process's) and
    write the classes its driver loaded to `out`, whole or not at all (an archive being made beside it, then renamed
    over it). `java_options` are the driver JVM's other options, those the archive will be mapped with. A failed job
    writes nothing (exit 1)."""
    given = dict(os.environ if environment is None else environment)
    folder = out.parent
    if _unmappable(str(out)):
        raise UsageError(f"--out {out} has a space or a colon: spark-submit splits the driver's Java options on "
                         "spaces and the JVM reads a colon as two archives, so no JVM could map it: give a path "
                         "without either.")
    if len(f".{out.name}.{_PID_MAX}.partial".encode()) > _NAME_MAX:
        raise UsageError(f"--out {out}: its file name is too long for the archive being made beside it "
                         f"(.NAME.PID.partial, {_NAME_MAX} bytes at most): give a shorter name.")
    if not folder.is_dir():
        raise UsageError(f"--out {out}: the folder {folder} does not exist: create it, or give another path.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: this user cannot write in {folder}: give a folder it can write, or run as "
                         "the folder's owner.")
    if out.is_symlink():
        raise UsageError(f"--out {out} is a symbolic link (to {out.resolve()}): give the file's own path, which the "
                         "new archive replaces.")
    if out.exists() and not out.is_file():
        raise UsageError(f"--out {out} is not a file: give the archive's file path (spark.jsa, say).")
    with archive_lock(out):
        return _make(out, spark_submit, submit_args, java_options, timeout, given)


def lock_path(out: Path) -> Path:
    """The file whose kernel lock (flock) one maker of `out` holds: `.NAME.lock` beside it."""
    return out.parent / f".{out.name}.lock"


@contextlib.contextmanager
def archive_lock(out: Path) -> Iterator[None]:
    """One maker of `out` at a time: a second is told who makes it (BlockedError, exit 5) rather than spending a
    minute of two cores on the same archive. The lock is the kernel's (flock) on `.NAME.lock` beside `out`, so a
    maker killed with SIGKILL holds it no longer; the file stays, with the last maker's process, host and start."""
    path = lock_path(out)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise UsageError(f"--out {out}: its lock file {path} cannot be opened ({err.strerror}): remove it if it is "
                         "a link or no file, or give a folder this user can write.") from None
    with os.fdopen(descriptor, "r+b") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise UsageError(f"--out {out}: its lock file {path} is not a regular file: remove it.")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = handle.read(200).decode(errors="replace").splitlines()
            raise BlockedError(f"Another toolkit jvm-archive ({holder[0] if holder else 'which has just started'}) "
                               f"is making {out}: wait for it to end; its archive replaces the last one.") from None
        since = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        handle.truncate(0)
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}, since {since}\n".encode())
        handle.flush()
        yield  # the lock ends with the file's closing


def _make(out: Path, spark_submit: str, submit_args: Sequence[str], java_options: str, timeout: float,
          given: Mapping[str, str]) -> ArchiveMade:
    folder = out.parent
    _remove_abandoned(out)
    partial = folder / f".{out.name}.{os.getpid()}.partial"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="feed-toolkit-class-archive-") as scratch:
        opts = " ".join(filter(None, (_without_archive(given.get("SPARK_SUBMIT_OPTS", "")), java_options,
                                      _LOG_TO_STDERR,
                                      f"-XX:ArchiveClassesAtExit={partial}", f"-Dderby.system.home={scratch}")))
        env = {**given, "SPARK_SUBMIT_OPTS": opts}
        env.setdefault("PYSPARK_PYTHON", sys.executable)
        command = [spark_submit, *submit_args, str(JOB), scratch]
        try:
            parent = os.getpid()
            with _stopped_by_sigterm(out):
                # preexec_fn: the JVM dies with this process (a kill -9 of it), rather than dumping an archive on its
                # own after the lock is gone. The child only calls prctl through libc loaded before the fork, which
                # is safe even when the caller has threads (a test session's Spark).
                done = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                                      timeout=timeout, check=False,
                                      preexec_fn=lambda: die_with(parent))  # noqa: PLW1509 - see above
        except subprocess.TimeoutExpired:
            partial.unlink(missing_ok=True)
            raise ToolkitError(f"The archive's job under {spark_submit} ran past {timeout:.0f} s: nothing was "
                               f"written to {out}.") from None
        except (ToolkitError, KeyboardInterrupt):  # stopped: a dump the kill cut short goes too
            partial.unlink(missing_ok=True)
            raise
        except OSError as err:
            raise UsageError(f"{spark_submit} cannot run ({err.strerror}): give spark-submit's path with "
                             "--spark-submit.") from None
        if done.returncode != 0 or not partial.is_file():
            partial.unlink(missing_ok=True)
            last = _why(f"{done.stdout}\n{done.stderr}")
            raise ToolkitError(f"The archive's job under {spark_submit} exited {done.returncode} ({last}): nothing "
                               f"was written to {out}.")
    os.replace(partial, out)
    return ArchiveMade(out, out.stat().st_size, time.monotonic() - started)


@contextlib.contextmanager
def _stopped_by_sigterm(out: Path) -> Iterator[None]:
    """A SIGTERM (a scheduler stopping the call) raises here rather than ending this process at once, so that
    subprocess.run kills the job's spark-submit on its way out: left running, it would go on for a minute and dump
    an archive that nobody renames."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set a handler; a caller in a thread keeps its own
        return

    def stop(signum: int, frame: object) -> None:
        raise ToolkitError(f"The archive's job was stopped (SIGTERM): nothing was written to {out}.")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _without_archive(options: str) -> str:
    """JVM options without those that map an archive: a JVM that maps one cannot dump another on top."""
    return " ".join(option for option in options.split()
                    if not option.startswith(("-XX:SharedArchiveFile=", "-Xshare:")))


def _remove_abandoned(out: Path) -> None:
    """The partial archives beside `out` of runs that were killed (their process is gone): some 200 MB each. A
    partial archive of a run still going is its own."""
    for partial in out.parent.glob(f".{glob.escape(out.name)}.*.partial"):
        pid = partial.name.removeprefix(f".{out.name}.").removesuffix(".partial")
        if pid.isdigit() and not _alive(int(pid)):
            partial.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


_ERROR = re.compile(r"^(Error|Exception|[\w.]*(Error|Exception))(:|\s)")


# The JVM's fatal messages: a headline, then the reason on the next line; the first here is the more precise (the JVM
# writes it on stderr, and the second on stdout).
_JVM_HEADLINES = {
    "An error has occurred while processing the shared archive file.":
        "the JVM could not process a shared archive file",
    "Error occurred during initialization of VM": "the JVM did not start",
}


def _why(output: str) -> str:
    """The line of the job's output that says why it failed: the JVM's reason after its most precise headline, else
    the last error or exception line (spark-submit's own `Error: ...` before its usage text, a Python exception's last
    line), else the last line that is neither one of the JVM's warnings about classes it leaves out of the archive nor
    one of Spark's INFO lines."""
    lines = [line.strip() for line in output.splitlines()
             if line.strip() and "][warning][" not in line and " INFO " not in line]
    for headline, meaning in _JVM_HEADLINES.items():
        if headline in lines[:-1]:
            return f"{meaning}: {lines[lines.index(headline) + 1]}"
    return next((line for line in reversed(lines) if _ERROR.match(line)), lines[-1] if lines else "no output")
