"""The tests' class-data sharing archive (tests/jvm_options.py): made once by the toolkit's own `make_archive`
(toolkit/runtime/class_archive.py, what `toolkit jvm-archive` runs) with the tests' JVM options, and kept in
pytest's cache under a key of the Java runtime, Spark's jars and those options: a later test session on the same
machine reuses it, a changed JDK or Spark makes another. A JVM that cannot map an archive runs without it, so an
archive is only ever a speed-up."""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import time
from pathlib import Path

from tests.integration.spark_submit import SPARK_SUBMIT, environment
from tests.jvm_options import SHORT_LIVED
from toolkit.errors import BlockedError, ToolkitError
from toolkit.runtime.class_archive import JOB, lock_path, make_archive


def archive_key() -> str:
    """The Java runtime, Spark's jars, the archive's job and the JVM options the archive is made for."""
    digest = hashlib.sha256(SHORT_LIVED.encode())
    digest.update(JOB.read_bytes())
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=60)
    digest.update(java.stderr.encode())
    for jar in sorted((SPARK_SUBMIT.parents[1] / "jars").glob("*.jar")):
        digest.update(f"{jar.name}:{jar.stat().st_size}\n".encode())
    return digest.hexdigest()[:16]


def class_archive(cache: Path, timeout: float = 600) -> Path | None:
    """The archive for this machine's JDK and Spark, made when there is none; None when it cannot be made (the
    tests then run without one)."""
    archive = cache / f"spark-{archive_key()}.jsa"
    if archive.is_file():
        return archive
    cache.mkdir(parents=True, exist_ok=True)
    env = {name: value for name, value in environment().items() if name != "SPARK_SUBMIT_OPTS"}
    try:
        return make_archive(archive, str(SPARK_SUBMIT), java_options=SHORT_LIVED, timeout=timeout,
                            environment=env).path
    except BlockedError:  # another pytest-xdist worker of this run is making it: use that one's
        return made_by_another(archive, timeout)
    except ToolkitError:
        return None


def made_by_another(archive: Path, timeout: float) -> Path | None:
    """Wait until the maker holding the archive's lock (toolkit/runtime/class_archive.py's `archive_lock`, on
    `lock_path`) lets go; the archive it made, or None when it made none or took longer than `timeout`."""
    deadline = time.monotonic() + timeout
    with lock_path(archive).open("rb") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return None
                time.sleep(1)
    return archive if archive.is_file() else None
