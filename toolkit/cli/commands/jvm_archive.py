"""`toolkit jvm-archive`: the class-data sharing archive that cuts a spark-submit's start-up
(toolkit/services/runtime/class_archive.py), made once per installation and after each upgrade of its JDK or Spark."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from toolkit.errors import UsageError
from toolkit.services.runtime.class_archive import CLASS_ARCHIVE_PROPERTY, make_archive
from toolkit.services.runtime.submit import spark_submit


def jvm_archive_command(
    out: Annotated[Path, typer.Option(
        "--out", help="The archive's file, on the host that runs spark-submit (it must be that host's JDK and "
                      "Spark): replaced whole once the new one is made.")],
    spark_submit_path: Annotated[str | None, typer.Option(
        "--spark-submit", help="The spark-submit the scheduled calls run. Default: the one on PATH, else "
                               "SPARK_HOME's, else pyspark's.")] = None,
    submit_args: Annotated[str | None, typer.Option(
        "--submit-args", help="Arguments for spark-submit before the archive's job that shape the driver's class "
                              "path as the scheduled calls' do (--driver-class-path). The job itself runs in local "
                              "mode. Default: none.")] = None,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds the archive's job may take.", min=1)] = 900,
) -> None:
    """Make a class-data sharing archive of the classes a spark-submit of an action loads, so that later
    spark-submits map them instead of parsing and verifying them again: an action's start-up takes about a third
    less (an empty spark-submit: 10.3 s against 15.4 s on a 2-core machine). It runs a small Spark job (Parquet,
    ORC, JSON, CSV, JDBC, Hive, the FileSystem API) that takes about a minute, and writes the archive (some 230
    MB) whole or not at all.

    The scheduled calls, the trigger sweep's runs and `toolkit rerun`'s commands map it when the cluster has the
    property `jvm.class-archive: <path>`; regenerate the schedule after setting it. A JVM whose JDK, Spark or class
    path differs from the archive's runs without it (one warning on stderr): make the archive again after an
    upgrade.

    Exit 0 made, 1 the job failed (nothing written), 2 bad call, 5 another toolkit jvm-archive makes the same
    file (named).

    \b
    toolkit jvm-archive --out /var/lib/feed-toolkit/spark.jsa
    toolkit jvm-archive --out /var/lib/feed-toolkit/spark.jsa --submit-args "--driver-class-path /opt/ojdbc8.jar"
    """
    try:
        arguments = shlex.split(submit_args or "")
    except ValueError as err:
        raise UsageError(f"--submit-args {submit_args!r} does not parse ({err}): quote it as in a shell.") from None
    made = make_archive(out.absolute(), spark_submit(spark_submit_path), arguments, timeout=timeout)
    typer.echo(f"Made the class-data archive {made.path} ({made.size / 2 ** 20:.0f} MiB) in {made.seconds:.0f} s: "
               f"give the cluster the property `{CLASS_ARCHIVE_PROPERTY}: {made.path}` and regenerate its schedule, "
               "and its spark-submits map it.")
