"""A process attempt whose error holds a password (a workflow that fails quoting its database's URL), with real
Spark and a real SMTP server: the attempt's and the instance's records, the runner's sentences, the e-mail, the
ledger's record of the notice, `toolkit status` and the report page hold none of it, masked by the one masker
(toolkit/secrets_masking.py) that `toolkit logs` uses too."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.integration.process_runner.test_notifications import notifying_process
from tests.smtp_server import SmtpServers
from toolkit.cli.main import main

T = utc(2026, 11, 21, 10)
PASSWORD, SSL_PASSWORD = "hunter2-pw", "s3cret-ssl"
LEAKING = f'''
def run(spark, ctx):
    raise ConnectionError("cannot reach jdbc:mysql://etl:{PASSWORD}@db:3306/web?sslpassword={SSL_PASSWORD}&x=1")
'''


def test_an_attempts_error_reaches_no_record_message_or_page_with_its_password(
        spark, tmp_path: Path, mail: SmtpServers, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = notifying_process(repo, "leaky", "notification: {to: ops@example.com, level: attempt}\n",
                             mail.none.properties(mail.ca_file))
    (repo / "workflows" / f"{name}.py").write_text(LEAKING)
    said: list[str] = []

    result = new_runner(spark, repo, name, TestClock(T), run_id="runleak", log=said.append).run(T)

    assert (result.status, result.attempts) == ("FAILED", 3)
    ledger = root / "feed-toolkit/working/ledger"
    records = {path: path.read_text() for path in ledger.rglob("*.json")}
    attempt = records[ledger / "processes" / name / "20261121T1000Z" / "attempt-001.json"]
    assert "cannot reach jdbc:mysql://etl:***@db:3306/web?sslpassword=***&x=1" in attempt
    bodies = [received.message.get_content() for received in mail.none.received]
    assert len(bodies) == 3 and all("cannot reach jdbc:mysql://etl:***@db:3306/web" in body for body in bodies)
    assert main(["status", "--repo", str(repo), "--process", name, "--cluster", "primary",
                 "--from", "2026-11-21T10:00Z", "--to", "2026-11-21T10:00Z", "--now", "2026-11-21T11:00Z",
                 "--format", "json"]) == 0
    page = tmp_path / "status.html"
    assert main(["report", "--repo", str(repo), "--cluster", "primary", "--now", "2026-11-21T11:00Z",
                 "--out", str(page)]) == 0
    out, err = capsys.readouterr()
    for where, text in [*records.items(), ("said", "\n".join(said)), ("mail", "\n".join(bodies)),
                        ("status and report", out + err), ("page", page.read_text())]:
        assert PASSWORD not in text and SSL_PASSWORD not in text, where
