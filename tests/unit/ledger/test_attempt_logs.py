"""An attempt's stderr as the ledger keeps it (toolkit/core/ledger/attempt_logs.py): capped, the tail rotated, secrets
masked; and the tee the process runner puts on sys.stderr (toolkit/actions/process_runner/stderr_capture.py)."""

from __future__ import annotations

import io
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import local_cluster
from toolkit.actions.process_runner.stderr_capture import captured_stderr
from toolkit.core.ledger.attempt_logs import CAP_BYTES, CappedLog
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.secrets_masking import masked


def test_a_short_log_is_kept_whole() -> None:
    log = CappedLog()
    log.write("process: attempt 1: running\n")
    log.write("Traceback (most recent call last):\nValueError: bad row\n")
    assert log.render() == b"process: attempt 1: running\nTraceback (most recent call last):\nValueError: bad row\n"
    assert log.rotated_out == 0


def test_a_long_log_keeps_its_head_and_its_newest_tail_and_says_what_rotated_out() -> None:
    log = CappedLog(head_bytes=10, tail_bytes=20, segment_bytes=5)
    for index in range(100):
        log.write(f"{index:02d}\n")  # 3 bytes a line, 300 in all
    text = log.render().decode()
    assert text.startswith("00\n01\n02\n0")  # the first 10 bytes
    assert text.endswith("97\n98\n99\n")
    kept_tail = text.split("...]\n", 1)[1]
    assert len(kept_tail.encode()) <= 20 and len(kept_tail.encode()) > 20 - 5  # whole segments, within the cap
    assert log.rotated_out == 300 - 10 - len(kept_tail.encode())
    assert f"[... {log.rotated_out} bytes of this attempt's stderr rotated out (the log keeps the first 10 and the " \
           "last 20 bytes) ...]" in text


def test_however_much_is_written_the_default_cap_holds() -> None:
    log = CappedLog()
    line = "x" * 999 + "\n"
    for _ in range(3000):  # 3 MB
        log.write(line)
    rendered = log.render()
    assert CAP_BYTES - 16 * 1024 < len(rendered) <= CAP_BYTES + 200  # the cap, and the marker line
    assert log.rotated_out == 3000 * 1000 - len(log.head) - log.tail_size


@pytest.mark.parametrize(("text", "expected"), [
    ("connecting with password=hunter2 now", "connecting with password=*** now"),
    ("--conf spark.hadoop.fs.s3a.secret.key=AKIAXYZ --conf spark.ui.enabled=false",
     "--conf spark.hadoop.fs.s3a.secret.key=*** --conf spark.ui.enabled=false"),
    ('{"api_key": "abc123", "page": "/"}', '{"api_key": "***", "page": "/"}'),
    ("jdbc:postgresql://etl:s3cret@db:5432/web", "jdbc:postgresql://etl:***@db:5432/web"),
    ("Authorization: Bearer eyJhbGciOi", "Authorization: Bearer ***"),
    ("PYSPARK_GATEWAY_SECRET=0123abcd", "PYSPARK_GATEWAY_SECRET=***"),
    ("ACCESS_TOKEN: t0k3n, user: web", "ACCESS_TOKEN: ***, user: web"),
    ("the page /password-reset got 3 clicks", "the page /password-reset got 3 clicks"),
    ("hdfs://nn:8020/data/clicks", "hdfs://nn:8020/data/clicks"),
])
def test_secrets_are_masked_and_nothing_else(text: str, expected: str) -> None:
    assert masked(text) == expected


def test_the_log_is_masked_when_rendered() -> None:
    log = CappedLog()
    log.write("token=abc\n")
    assert log.render() == b"token=***\n"


def test_the_tee_writes_through_and_into_the_log_and_puts_stderr_back(monkeypatch: pytest.MonkeyPatch) -> None:
    real = io.StringIO()
    monkeypatch.setattr(sys, "stderr", real)
    with pytest.raises(RuntimeError), captured_stderr() as log:
        print("the workflow says hello", file=sys.stderr)
        sys.stderr.writelines(["a\n", "b\n"])
        sys.stderr.flush()
        raise RuntimeError("the attempt fails")
    assert sys.stderr is real
    assert real.getvalue() == "the workflow says hello\na\nb\n"
    assert log.render() == b"the workflow says hello\na\nb\n"


@pytest.mark.parametrize(("text", "expected"), [
    ("sqoop import --username etl --password hunter2 --table t",
     "sqoop import --username etl --password *** --table t"),
    ("beeline --password=hunter2", "beeline --password=***"),
    ("beeline --password-file /etc/etl.pw", "beeline --password-file /etc/etl.pw"),
])
def test_a_command_lines_password_is_masked(text: str, expected: str) -> None:
    assert masked(text) == expected


def test_the_log_is_masked_when_read_too(tmp_path: Path) -> None:
    """A log kept by an older toolkit, or with a form masked since, is masked when `toolkit logs` reads it."""
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "primary"))
    t = datetime(2026, 11, 20, tzinfo=timezone.utc)
    path = Path(ledger.layout.attempt_log("p", t, 1).removeprefix("file://"))
    path.parent.mkdir(parents=True)
    path.write_bytes(b"connect jdbc:postgresql://etl:Pw/LEAK@db/s\n--password LEAK\npassword=LEAK\n")
    assert ledger.attempt_log("p", t, 1) == b"connect jdbc:postgresql://etl:***@db/s\n--password ***\npassword=***\n"


def test_a_secret_whose_start_rotated_out_is_masked_all_the_same() -> None:
    """The rotation cuts a segment anywhere: a URL's `scheme://user:` may rotate out while its password stays."""
    for pad in range(16):
        log = CappedLog(head_bytes=8, tail_bytes=64, segment_bytes=16)
        log.write("started\n")
        log.write("f" * (100 + pad) + " jdbc:postgresql://etl:hunter2LEAK@db/s password=abcdefghijLEAK end\n")
        log.write("z" * 20 + "\n")
        assert b"LEAK" not in log.render()
