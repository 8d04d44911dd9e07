"""A directory argument that writes a password into its URI (`--to hdfs://etl:secret@nn:8020/x`) is refused before
Spark starts: exit 2, one sentence naming the option and the URI with the password masked, and the password on
neither stream (the status line, a notice's rerun command and the lineage would otherwise carry it)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.unit.entities.test_object_stores import spark_session
from tests.unit.retention.retention_repo import make_repo
from toolkit.actions.replication.hive.hive_entry import export_main, import_main
from toolkit.actions.replication.replication_entry import main as replication_main

T = "2026-11-21T00:00Z"  # an instance of the daily table feeds
SECRET = "s3cr3t-word"
URI = f"hdfs://etl:{SECRET}@nn:8020/exports/x"
# option -> (its entrypoint's main, its arguments after --repo)
CALLS: dict[str, tuple[Callable[[], int], list[str]]] = {
    "--to": (export_main, ["--feed", "clicks-daily-table", "--cluster", "primary", "--to", URI]),
    "--from": (import_main, ["--feed", "visits", "--cluster", "backup", "--from", URI]),
    "--table-location": (import_main, ["--feed", "visits", "--cluster", "backup", "--from", "/x",
                                       "--table-location", URI]),
    "--staged": (replication_main, ["--feed", "visits", "--target", "backup", "--staged", URI]),
}


@pytest.mark.parametrize("option", CALLS)
def test_a_password_in_a_directory_uri_is_refused_before_spark_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      option: str) -> None:
    main, arguments = CALLS[option]
    repo, _ = make_repo(tmp_path)
    monkeypatch.setattr(sys, "argv", ["entrypoint", "--repo", str(repo), "--time", T, *arguments])
    session = spark_session()
    assert main() == 2
    out, err = capsys.readouterr()
    error = err.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in error
    assert f"{option} hdfs://etl:***@nn:8020/exports/x writes a password into the URI" in error
    assert SECRET not in out + err
    assert spark_session() is session  # refused before a Spark session was built


@pytest.mark.parametrize("option", CALLS)
@pytest.mark.parametrize("character", ["\n", "\r", "\x1b", "\u2028"])
def test_a_control_character_in_a_directory_is_refused_before_spark_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], option: str,
        character: str) -> None:
    """Found by an attack: a line break in `--to` reached the run's record, and `toolkit rerun` printed its command
    as two lines."""
    main, arguments = CALLS[option]
    repo, _ = make_repo(tmp_path)
    bad = f"file:///exports/a{character}b"
    monkeypatch.setattr(sys, "argv", ["entrypoint", "--repo", str(repo), "--time", T,
                                      *[bad if word == URI else word for word in arguments]])
    session = spark_session()
    assert main() == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in error
    escaped = character.encode("unicode_escape").decode()
    assert f"{option} file:///exports/a{escaped}b holds a control character" in error, error
    assert spark_session() is session
