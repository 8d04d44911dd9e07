"""A replication that times out tells the feed's `notification` through the target cluster's SMTP server (a real
aiosmtpd on loopback), through the whole entrypoint; its exit code and status are those of a timed-out run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.smtp_server import SmtpServers
from tests.unit.retention.retention_repo import make_repo


def test_a_timed_out_replication_is_told_once(run_entrypoint, tmp_path: Path, mail: SmtpServers) -> None:
    repo, _ = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text() + "notification: {to: data@example.com}\n")
    backup = repo / "clusters/backup.yaml"
    backup.write_text(backup.read_text() + "".join(f'  {key}: "{value}"\n' for key, value in
                                                   mail.none.properties(mail.ca_file).items()))
    result = run_entrypoint("replication", "--repo", str(repo), "--feed", "clicks", "--target", "backup", "--time",
                            "2026-11-21T11:00Z", "--now", "2026-11-21T18:00Z", cwd=tmp_path)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert (status["status"], status["notifications_sent"], status["notifications_failed"]) == ("FAILED", 1, 0)
    [got] = mail.none.received
    assert got.recipients == ["data@example.com"]
    assert str(got.message["Subject"]).strip() == \
        "[feed-toolkit] TIMEDOUT replication of feed clicks 2026-11-21T11:00Z on backup"
    body = got.message.get_content()
    assert "was not available on 'primary' by 2026-11-21T17:00Z" in body
    assert f"to rerun: spark-submit entrypoints/replication.py --repo {repo} --feed clicks --target backup " \
           "--time 2026-11-21T11:00Z" in body
