"""`toolkit schema --write DIR`: the entity JSON Schemas shipped in the package, for editors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.output_files import write_atomically
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.schemas import schema_text
from toolkit.errors import UsageError


def schema_command(
    write: Annotated[Path | None, typer.Option(
        "--write", help="Folder to write the schemas into, one per kind: cluster.json, feed.json, process.json, "
        "datasource.json, mirror.json (created if missing).")] = None,
    kind: Annotated[str | None, typer.Option(
        "--kind", help="Without --write: print the schema of this kind: cluster, feed, process, datasource or "
        "mirror.")] = None,
) -> None:
    """Write the JSON Schemas (draft-07) of the entity kinds, or print one.

    Entity files point at them with a first line such as
    `# yaml-language-server: $schema=../.schemas/feed.json`, so editors complete and check fields.
    """
    if (write is None) == (kind is None) or (kind is not None and kind not in {k.value for k in Kind}):
        kinds = "|".join(k.value for k in Kind)
        raise UsageError(f"Give either --write DIR to write all schemas, or --kind {kinds} to print one.")
    if kind is not None:
        typer.echo(schema_text(Kind(kind)), nl=False)
        return
    assert write is not None  # the check above: exactly one of --write and --kind
    if write.exists() and not write.is_dir():
        raise UsageError(f"--write {write} is a file, not a folder: give the folder to write the schemas into.")
    try:
        write.mkdir(parents=True, exist_ok=True)
        for each in Kind:
            target = write / f"{each.value}.json"
            write_atomically(target, schema_text(each))
            typer.echo(str(target))
    except OSError as err:
        raise UsageError(
            f"Cannot write the schemas into {write}: {err.strerror or err}; give a folder you can write."
        ) from None
