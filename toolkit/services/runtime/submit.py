"""How the `toolkit` command starts entrypoints: which spark-submit, where entrypoints/process.py is, and which
exit code of several runs to report. Shared by `toolkit rerun` and the data-trigger sweep (`toolkit trigger`)."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
from pathlib import Path

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.scheduled_values import CLASS_ARCHIVE_PROPERTY, SUBMIT_ARGS_PROPERTY
from toolkit.core.storage.jvm_classes import jar_file_name, jar_path
from toolkit.errors import UsageError
from toolkit.services.runtime.class_archive import with_class_archive

# SUBMIT_ARGS_PROPERTY: the arguments the toolkit gives spark-submit before an entrypoint, on a cluster (the
# data-trigger sweep's runs and the generated schedules' calls); named beside the values lint and the schedule check.

# The worst exit code of several runs (docs/exit-codes.md): failed and usage errors beat blocked, waiting, skipped.
_SEVERITY = (0, 4, 3, 5, 1, 2)


def spark_submit(explicit: str | None = None) -> str:
    """`explicit` (checked), else `spark-submit` on the PATH, else SPARK_HOME's, else pyspark's own (found
    without importing pyspark)."""
    if explicit is not None:
        if not (Path(explicit).is_file() and os.access(explicit, os.X_OK)):
            raise UsageError(f"--spark-submit {explicit} is not an executable file: give the path of spark-submit.")
        return explicit
    on_path = shutil.which("spark-submit")
    if on_path is not None:
        return on_path
    home = os.environ.get("SPARK_HOME")
    if home and (Path(home) / "bin" / "spark-submit").is_file():
        return str(Path(home) / "bin" / "spark-submit")
    spec = importlib.util.find_spec("pyspark")
    if spec is not None and spec.origin is not None:
        return str(Path(spec.origin).parent / "bin" / "spark-submit")
    return "spark-submit"


def runnable_spark_submit(explicit: str | None, log_dir: Path) -> str:
    """The spark-submit that starts a command's runs (`spark_submit`) and `log_dir` made for their logs, else a
    UsageError saying which is missing: checked before a run starts, so that none starts without the other."""
    program = spark_submit(explicit)
    if shutil.which(program) is None:
        raise UsageError(f"Cannot start runs: spark-submit is not found ({program}); put it on PATH, set SPARK_HOME, "
                         "or give --spark-submit PATH.")
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"Cannot write the runs' logs in --log-dir {log_dir} ({err.strerror}): give a folder this "
                         "user can write.") from None
    return program


def submit_arguments(given: str | None, cluster: Cluster, jar: str | None = "") -> list[str]:
    """`given` (an option's text), else the cluster property trigger.submit-args, split as a shell splits it, with
    the driver JVM options that map the class-data archive the cluster property jvm.class-archive names
    (toolkit/services/runtime/class_archive.py), and the toolkit's jar on `--jars` (`with_jar`): `jar`, or this
    installation's when it is "", none when None (a run on another host, whose driver finds the jar of its own
    installation)."""
    text = given if given is not None else str(cluster.properties.get(SUBMIT_ARGS_PROPERTY, ""))
    try:
        arguments = shlex.split(text)
    except ValueError as err:
        raise UsageError(f"The spark-submit arguments {text!r} do not parse ({err}): quote them as in a "
                         "shell.") from None
    archive = cluster.properties.get(CLASS_ARCHIVE_PROPERTY)
    if archive:
        arguments = with_class_archive(arguments, str(archive))
    if jar is None:
        return arguments
    return with_jar(arguments, jar or jar_path())


def with_jar(arguments: list[str], jar: str) -> list[str]:
    """`arguments` with `jar` on `--jars`, so that the driver's class path and every executor have its classes from
    the start: the toolkit's Java classes (the distributed copy runs them on the executors), a datasource's JDBC
    driver. Added to the `--jars` given (spark-submit keeps only the last one), unless a jar of the same file name
    is there already (the path on the cluster's hosts, say)."""
    for index, argument in enumerate(arguments):
        if argument == "--jars" and index + 1 < len(arguments):
            return [*arguments[:index + 1], _joined(arguments[index + 1], jar), *arguments[index + 2:]]
        if argument.startswith("--jars="):
            return [*arguments[:index], "--jars=" + _joined(argument.removeprefix("--jars="), jar),
                    *arguments[index + 1:]]
    return [*arguments, "--jars", jar]


def _joined(jars: str, jar: str) -> str:
    names = [jar_file_name(entry) for entry in jars.split(",")]
    return jars if jar_file_name(jar) in names else ",".join(filter(None, (jars, jar)))


def process_entrypoint() -> str:
    """entrypoints/process.py beside the toolkit package (a checkout or an editable install), else the
    relative path the documentation uses."""
    return entrypoint("process.py")


def entrypoint(name: str) -> str:
    """entrypoints/`name` beside the toolkit package, else the relative path the documentation uses."""
    beside = Path(__file__).resolve().parents[3] / "entrypoints" / name
    return str(beside) if beside.is_file() else f"entrypoints/{name}"


def worst(codes: list[int]) -> int:
    """The exit code that matters most; a code outside the contract (a signal, a crash) counts as a failure."""
    known = [code if code in _SEVERITY else 1 for code in codes]
    return max(known, key=_SEVERITY.index, default=0)
