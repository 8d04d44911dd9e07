"""The local metastore runner refuses what it cannot do before starting Java: a port that already answers,
and a missing command. (Starting the real server is covered by the integration fixtures and `make demo`.)"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from toolkit.devtools.local_metastore import main


def test_a_port_that_already_answers_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        code = main(["--folder", str(tmp_path / "ms"), "--port", str(port), "--", "true"])
    assert code == 1
    assert f"Port {port} already answers on 127.0.0.1: stop what listens there" in capsys.readouterr().err
    assert not (tmp_path / "ms").exists()  # nothing was set up


def test_a_command_is_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--folder", str(tmp_path / "ms")])
    assert stop.value.code == 2
    assert "give the command to run after --" in capsys.readouterr().err
