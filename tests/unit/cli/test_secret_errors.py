"""The `toolkit` command's one sentence for an error (toolkit/cli/main.py) is masked by the one masker
(toolkit/secrets_masking.py): an error that quotes a URL or a setting of the repo shows no password."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from toolkit.cli import main as cli
from toolkit.errors import UsageError


def test_an_errors_sentence_shows_no_password(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    def app(arguments: list[str]) -> Callable[..., None]:
        def refuse(**_: object) -> None:
            raise UsageError("The Hive metastore at thrift://hive:Pw1-s3cr3t@metastore:9083 does not answer.")
        return refuse

    monkeypatch.setattr(cli, "build_app", app)

    assert cli.main(["status", "--cluster", "primary"]) == 2
    assert capsys.readouterr().err == ("toolkit: The Hive metastore at thrift://hive:***@metastore:9083 does not "
                                       "answer.\n")
