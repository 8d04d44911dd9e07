"""The tests' class-data sharing archive (tests/jvm_options.py): made once by the toolkit's own `make_archive`
(toolkit/services/runtime/class_archive.py, what `toolkit jvm-archive` runs) with the tests' JVM options, and kept in
pytest's cache under a key of the Java runtime, Spark's jars and their folder, and those options: a later test
session of the checkout reuses it, a changed JDK or Spark makes another (and no other checkout's virtualenv could
use it: a JVM refuses an archive made for another class path). A JVM that cannot map an archive runs without it, so an
archive is only ever a speed-up.

`make test` has it made while the unit tier runs (`prepare`), into the folder the integration tier looks in. Where
the cache has none all the same (a fresh clone whose integration tier runs alone), `ArchiveMaker` makes it in a child
process of each pytest-xdist worker (one of them wins the archive's lock, the others' children see it held and end)
while the tests run: no worker sits a minute waiting for it, and the JVMs the tests start map it from the moment it
is there."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.integration.spark_submit import PROJECT, SPARK_SUBMIT, environment
from tests.jvm_options import SHORT_LIVED
from toolkit.errors import BlockedError, ToolkitError
from toolkit.forked_map import die_with
from toolkit.services.runtime.class_archive import JOB, lock_path, make_archive


def archive_key() -> str:
    """The Java runtime, Spark's jars and their folder, the archive's job and the JVM options the archive is made for
    (a JVM refuses an archive made for another class path: a virtualenv elsewhere is another)."""
    digest = hashlib.sha256(SHORT_LIVED.encode())
    digest.update(JOB.read_bytes())
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=60)
    digest.update(java.stderr.encode())
    jars = SPARK_SUBMIT.parents[1] / "jars"
    digest.update(f"{jars.resolve()}\n".encode())
    for jar in sorted(jars.glob("*.jar")):
        digest.update(f"{jar.name}:{jar.stat().st_size}\n".encode())
    return digest.hexdigest()[:16]


def archive_path(cache: Path) -> Path:
    """Where the archive for this machine's JDK and Spark is kept in `cache`."""
    return cache / f"spark-{archive_key()}.jsa"


class ArchiveMaker:
    """The archive at `archive`, made by a child process when it is missing; `ready()` is the archive once it is
    there (None before), `wait()` waits for the maker."""

    def __init__(self, archive: Path, timeout: float = 600) -> None:
        self.archive, self.timeout = archive, timeout
        self.child: subprocess.Popen[bytes] | None = None
        if not archive.is_file():
            archive.parent.mkdir(parents=True, exist_ok=True)
            self.child = subprocess.Popen(
                [sys.executable, "-m", "tests.integration.jvm_archive", str(archive), str(os.getpid()),
                 str(timeout)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=Path(__file__).resolve().parents[2])

    def ready(self) -> Path | None:
        return self.archive if self.archive.is_file() else None

    def wait(self) -> Path | None:
        """The archive once this worker's maker has ended and no other worker's holds the lock; None when none
        could be made in `timeout`."""
        deadline = time.monotonic() + self.timeout
        if self.child is not None:
            try:
                self.child.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                return None
        while lock_path(self.archive).exists() and _held(lock_path(self.archive)):
            if time.monotonic() > deadline:
                return None
            time.sleep(1)
        return self.ready()

    def stop(self) -> None:
        """The maker stopped (SIGTERM: it removes what it was writing) when the tests end before it."""
        if self.child is not None and self.child.poll() is None:
            self.child.terminate()
            self.child.wait(timeout=60)


def _held(lock: Path) -> bool:
    """Another process holds the archive's lock (a maker at work)."""
    try:
        with lock.open("rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def main(archive: Path, parent: int, timeout: float) -> int:
    """Make `archive` unless it is there or another maker holds its lock; dies with `parent` (the worker)."""
    die_with(parent)
    if archive.is_file():
        return 0
    env = {name: value for name, value in environment().items() if name != "SPARK_SUBMIT_OPTS"}
    try:
        make_archive(archive, str(SPARK_SUBMIT), java_options=SHORT_LIVED, timeout=timeout, environment=env)
    except BlockedError:
        return 0  # another worker's maker makes it
    except ToolkitError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


def prepared_folder() -> Path:
    """Where `make test` has the archive made while the unit tier runs: the folder of the checkout's pytest cache
    that the integration tier maps it from (`request.config.cache.mkdir("jvm-archive")`, tests/integration/conftest.py;
    tests/integration/test_tiers.py holds the two to one folder)."""
    return PROJECT / ".pytest_cache" / "d" / "jvm-archive"


def prepare(parent: int, timeout: float) -> int:
    """`make test`'s step: the archive made, unless there, before the integration tier starts, at the lowest
    priority on what CPU the unit tier leaves free (it keeps some 70% of two cores busy). The tier's JVMs then map it
    from the first, and none of them shares the CPU with its making."""
    folder = prepared_folder()
    folder.mkdir(parents=True, exist_ok=True)
    return main(archive_path(folder), parent, timeout)


if __name__ == "__main__":
    if sys.argv[1] == "--prepare":
        sys.exit(prepare(int(sys.argv[2]), float(sys.argv[3])))
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
