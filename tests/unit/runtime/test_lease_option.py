"""`--lease` of every entrypoint that takes a lease: one argument, checked by the parser like any other (exit 2 with
argparse's message naming it, before anything is read), whatever the entrypoint."""

from __future__ import annotations

import importlib
import sys

import pytest

ENTRIES = {
    "toolkit.actions.retention.retention_entry": ["--feed", "clicks", "--cluster", "primary"],
    "toolkit.actions.replication.replication_entry": ["--feed", "clicks", "--target", "backup"],
    "toolkit.actions.database_import.import_entry": ["--feed", "clicks", "--cluster", "primary"],
    "toolkit.actions.database_export.export_entry": ["--feed", "clicks", "--cluster", "primary"],
    "toolkit.actions.process_runner.process_entry": ["--process", "hourly", "--cluster", "primary"],
    "toolkit.actions.process_runner.late_check_entry": ["--process", "hourly", "--cluster", "primary"],
}


def _call(module: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, main: str = "main") -> int:
    monkeypatch.setattr(sys, "argv", [module, *argv])
    return int(getattr(importlib.import_module(module), main)())


@pytest.mark.parametrize("lease", ["0", "-1", "inf", "nan", "soon"])
@pytest.mark.parametrize("module", sorted(ENTRIES))
def test_a_lease_that_is_no_positive_number_of_seconds_is_refused_by_the_parser(
        module: str, lease: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: object) -> None:
    code = _call(module, ["--repo", "/nonexistent/repo", *ENTRIES[module], "--lease", lease], monkeypatch)
    err = capsys.readouterr().err
    assert code == 2
    assert f"argument --lease: {lease!r} is not a positive number of seconds, at most a year" in err


def test_the_hive_import_takes_the_same_lease_argument(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code = _call("toolkit.actions.replication.hive.hive_entry", ["--repo", "/nonexistent/repo", "--feed", "clicks",
                                                          "--cluster", "primary", "--from", "/x", "--lease", "0"],
                 monkeypatch, main="import_main")
    assert code == 2
    assert "argument --lease: '0' is not a positive number of seconds, at most a year" in capsys.readouterr().err


def test_the_lease_help_says_what_it_holds_and_the_default(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit):
        _call("toolkit.actions.database_import.import_entry", ["--help"], monkeypatch)
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--lease SECONDS Lease of the import's lock, renewed every third of it; a killed run's lock is taken " \
           "over once it expired (default 60)." in help_text
