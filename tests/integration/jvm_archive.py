"""The tests' class-data sharing archive (tests/jvm_options.py): made once by the toolkit's own `make_archive`
(toolkit/runtime/class_archive.py, what `toolkit jvm-archive` runs) with the tests' JVM options, and kept in
pytest's cache under a key of the Java runtime, Spark's jars and those options: a later test session on the same
machine reuses it, a changed JDK or Spark makes another. A JVM that cannot map an archive runs without it, so an
archive is only ever a speed-up."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from tests.integration.spark_submit import SPARK_SUBMIT, environment
from tests.jvm_options import SHORT_LIVED
from toolkit.errors import ToolkitError
from toolkit.runtime.class_archive import JOB, make_archive


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
    except ToolkitError:
        return None
