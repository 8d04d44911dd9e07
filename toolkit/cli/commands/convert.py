"""`toolkit convert-falcon`: Falcon XML definitions and mirroring jobs' properties into the YAML files of a config
repo.

Exit codes (docs/exit-codes.md): 0 when everything was converted; 1 when something was reported (a Falcon element
the toolkit does not support, a value the written file's schema check rejects, or an element out of the order of
Falcon's XSD, which refuses its whole file), the rest being written;
2 when an input is not a readable Falcon entity definition (or mirroring job's properties) or a target is taken,
with nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.authoring.convert.extension_job import convert_extension_job
from toolkit.authoring.convert.falcon_xml import convert_file
from toolkit.authoring.convert.repo_writer import write_conversions


def convert_falcon_command(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE.xml|FILE.properties",
                                   help="Falcon cluster, feed, process and datasource XML files, and the properties "
                                        "files of Falcon mirroring jobs.")
    ],
    out: Annotated[Path, typer.Option("--out", help="The config repo to write into (created if missing).")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite entity files that already exist.")] = False,
) -> None:
    """Convert Falcon cluster, feed, process and datasource XML definitions into YAML entity files in the repo
    layout (clusters/NAME.yaml, feeds/NAME.yaml, processes/NAME.yaml, datasources/NAME.yaml), every field carried
    over (a feed's import and export with their Sqoop arguments named without their leading --).

    A .properties file is a Falcon mirroring job's (what `falcon extension -submit -extensionName E -file F` took:
    hdfs-mirroring, hdfs-snapshot-mirroring or hive-mirroring): it becomes mirrors/NAME.yaml (docs/mirrors.md).

    What the toolkit has no place for (such as a cluster location it does not know) is listed on stderr with its
    file, element path and what to do, and the command exits 1. A file with an element out of the order of Falcon's
    XSD, which Falcon refuses on submit, is refused: nothing is written for it, and its misplaced elements are
    listed the same way.

    \b
    toolkit convert-falcon falcon/*.xml falcon/sales-dr.properties --out conf
    """
    conversions = [convert_extension_job(file) if file.suffix.lower() == ".properties" else convert_file(file)
                   for file in files]
    result = write_conversions(conversions, out, force)
    for path in result.written:
        typer.echo(f"wrote {path}")
    for report in result.reports:
        typer.echo(str(report), err=True)
    if result.reports:
        count = len(result.reports)
        typer.echo(
            f"toolkit: {count} thing{'s' if count > 1 else ''} not converted as written (listed above); everything "
            "else was written: fix or redo them by hand.",
            err=True,
        )
        raise typer.Exit(1)
