"""Hostile values for the schedule tests: the datasource samples' repo (tests/unit/entities/datasource_samples.py)
with a value of the attacker's choice in its datasource's `driver.jar` or in a cluster property, and what cron
hands /bin/sh for a crontab line (cronie's do_command.c), so that a test reads a generated line as cron runs it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.entities.datasource_samples import CLUSTER, DATASOURCE, write_repo

SAMPLE_JAR = "[/usr/share/java/postgresql.jar]"
# What an attacker puts in a definition: a shell substitution behind one of the crontab's path variables.
SUBSTITUTION = "$CONF_REPO/drivers/$(touch {target}).jar"


def repo_with_jar(root: Path, jar: str) -> Path:
    """The samples' repo whose datasource's driver.jar is `jar` (any text: written as a YAML double-quoted
    scalar)."""
    assert SAMPLE_JAR in DATASOURCE
    return write_repo(root, DATASOURCE.replace(SAMPLE_JAR, f"[{json.dumps(jar)}]"))


def repo_with_cluster_property(root: Path, name: str, value: str) -> Path:
    """The samples' repo whose cluster has the property `name`: `value`."""
    repo = write_repo(root)
    (repo / "clusters" / "primary.yaml").write_text(
        CLUSTER + f"properties:\n  {name}: {json.dumps(value)}\n", encoding="utf-8")
    return repo


def cron_command(line: str) -> str:
    """The command cron runs for a crontab entry: the five time fields dropped, the rest as cron reads it."""
    return cron_reading(line.split(" ", 5)[5])


def cron_reading(text: str) -> str:
    """A crontab entry's command as cronie's do_command.c hands it to /bin/sh: a `\\%` turned into `%` (any other
    backslash kept), the command ended at the first unescaped `%` (the rest would be its standard input)."""
    command: list[str] = []
    escaped = False
    for character in text:
        if escaped:
            if character == "%":
                command[-1] = "%"
            else:
                command.append(character)
            escaped = False
        elif character == "\\":
            escaped = True
            command.append(character)
        elif character == "%":
            break
        else:
            command.append(character)
    return "".join(command)
