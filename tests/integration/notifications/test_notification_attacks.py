"""The notifier attacked through real `toolkit sla` processes (the SLA check every few minutes is the caller whose
notices repeat): two calls at once, and a call killed with SIGKILL between a notice's ledger record and its send,
between its two channels, and after its send before its outcome is recorded, each followed by a rerun. What the
real servers on loopback received (aiosmtpd, tests/smtp_server.py; an HTTP webhook receiver,
tests/lineage_receiver.py) is counted per notice, and the ledger's records read back.

The promise (docs/sla-and-notifications.md, "Sent once, never fatal"): the record is created exclusively before
anything is sent, so no notice is ever sent twice, by two callers or by a rerun; a call killed after the record
leaves `sending`, and that notice is not sent again (at most once; whatever of it went out before the kill stays
the only copy). Every notice the killed call had not reached is sent by the rerun, once.

The killed call is a real separate process running the real command; the harness there sends itself SIGKILL at
the chosen call (the code under test is not changed)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.lineage_receiver import Receiver, lineage_receiver
from tests.smtp_server import SmtpServers
from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main

PROJECT = Path(__file__).resolve().parents[3]
HOOK = "/hooks/ops"
# No clicks arrived from 03:00 to 07:00: each hour missed its slaHigh (4 h) by 12:00, five notices in this order.
HOURS = ("03", "04", "05", "06", "07")
ARGV = ("sla", "--cluster", "primary", "--now", "2026-11-21T12:00Z", "--from", "2026-11-21T03:00Z", "--to",
        "2026-11-21T07:00Z", "--format", "json")
CALLER = """
import dataclasses, os, signal, sys, time, types
sys.path.insert(0, {project!r})
from pathlib import Path
from toolkit.services.notifications import notifier
from toolkit.extensions.notification_channels import smtp_channel, webhook_channel

from tests.kill_points import dies_at

def channel_dies_at(module, call):  # its send dies at its call-th message (the registry reads CHANNEL later)
    holder = types.SimpleNamespace(send=module.CHANNEL.send)
    dies_at(holder, "send", call, after=False)
    module.CHANNEL = dataclasses.replace(module.CHANNEL, send=holder.send)

point = {point!r}
if point == "between the record and the send":
    channel_dies_at(smtp_channel, 3)  # the third notice's record is created, nothing sent
elif point == "between the two channels":
    channel_dies_at(webhook_channel, 3)  # its e-mail sent, its webhook not
elif point == "after the send, before its outcome":
    dies_at(notifier.Notifier, "_send", 3, after=True)  # both channels took it
first_notice = notifier.Notifier.notify
def at_the_first_notice(self, *args, **kwargs):  # ready to notify: both callers start their notices together
    if not Path({ready!r}).exists():
        Path({ready!r}).touch()
        while not Path({go!r}).exists():
            time.sleep(0.001)
    return first_notice(self, *args, **kwargs)
notifier.Notifier.notify = at_the_first_notice
from toolkit.cli.main import main
sys.exit(main({argv!r}))
"""


def site(tmp_path: Path, mail: SmtpServers, webhook: str) -> Path:
    """The template repo on a temporary root (no data: every hour of clicks missed); the feed tells ops, the cluster
    sends through the plain SMTP server and the webhook."""
    conf, _ = make_repo(tmp_path)
    feed = conf / "feeds/clicks.yaml"
    feed.write_text(feed.read_text() + "notification:\n  type: email\n  to: ops@example.com\n")
    properties = {**mail.none.properties(mail.ca_file), "notification.webhook.url": webhook}
    cluster = conf / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text() + "".join(f'  {key}: "{value}"\n' for key, value in properties.items()))
    return conf


def start(conf: Path, tmp_path: Path, name: str, point: str = "none") -> tuple[subprocess.Popen[str], Path, Path]:
    """A `toolkit sla` process that waits for its go file at its first notice; (it, ready, go)."""
    ready, go = tmp_path / f"{name}.ready", tmp_path / "go"
    script = CALLER.format(project=str(PROJECT), point=point, ready=str(ready), go=str(go),
                           argv=[ARGV[0], "--repo", str(conf), *ARGV[1:]])
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return child, ready, go


def wait_for(paths: list[Path], children: list[subprocess.Popen[str]], seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not all(path.exists() for path in paths):
        for child in children:
            assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, f"the callers were not ready within {seconds:g} s"
        time.sleep(0.05)


def mails(mail: SmtpServers) -> Counter[str]:
    """How many e-mails each hour's notice got."""
    return Counter(str(r.message["Subject"]).split(" 2026-11-21T")[1][:2] for r in mail.none.received)


def posts(hooks: Receiver) -> Counter[str]:
    """How many webhook posts each hour's notice got."""
    return Counter(str(event["instance"])[11:13] for event in hooks.events)


def outcomes(conf: Path) -> dict[str, str]:
    """Each hour's notice record in the ledger: its outcome."""
    folder = conf.parent / "primary/feed-toolkit/working/ledger/notifications/feed/clicks"
    return {path.parent.name[9:11]: json.loads(path.read_text())["outcome"]
            for path in sorted(folder.glob("*/sla-missed.json"))}


def report(out: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(out)
    return document


def test_two_callers_at_once_send_each_notice_once(tmp_path: Path, mail: SmtpServers) -> None:
    with lineage_receiver(HOOK) as hooks:
        conf = site(tmp_path, mail, hooks.url + HOOK)
        calls = [start(conf, tmp_path, name) for name in ("one", "two")]
        wait_for([ready for _, ready, _ in calls], [child for child, _, _ in calls])
        (tmp_path / "go").touch()  # both at once
        done = [child.communicate(timeout=120) for child, _, _ in calls]
    assert [child.returncode for child, _, _ in calls] == [1, 1], done  # both saw the misses (exit 1)
    sent = [report(out)["notifications_sent"] for out, _ in done]
    assert sum(sent) == 5, sent
    assert mails(mail) == Counter({hour: 1 for hour in HOURS})
    assert posts(hooks) == Counter({hour: 1 for hour in HOURS})
    assert outcomes(conf) == {hour: "sent" for hour in HOURS}


# point: (e-mails, webhook posts) of the third notice (05:00) once the killed call and its rerun are done
POINTS = {"between the record and the send": (0, 0), "between the two channels": (1, 0),
          "after the send, before its outcome": (1, 1)}


@pytest.mark.parametrize("point", list(POINTS))
def test_a_caller_killed_around_a_send_then_rerun_sends_no_notice_twice_and_every_other_once(
        tmp_path: Path, mail: SmtpServers, capsys: pytest.CaptureFixture[str], point: str) -> None:
    with lineage_receiver(HOOK) as hooks:
        conf = site(tmp_path, mail, hooks.url + HOOK)
        child, _, go = start(conf, tmp_path, "killed", point)
        go.touch()
        out, err = child.communicate(timeout=120)
        assert child.returncode == -signal.SIGKILL, out + err
        e_mails, webhook_posts = POINTS[point]
        assert mails(mail) == Counter({"03": 1, "04": 1, "05": e_mails} if e_mails else {"03": 1, "04": 1})
        assert outcomes(conf) == {"03": "sent", "04": "sent", "05": "sending"}  # killed after the record

        capsys.readouterr()
        code = main([ARGV[0], "--repo", str(conf), *ARGV[1:]])
        rerun = report(capsys.readouterr().out)
    assert (code, rerun["notifications_sent"], rerun["notifications_failed"]) == (1, 2, 0)
    expected = {"03": 1, "04": 1, "06": 1, "07": 1}
    assert mails(mail) == Counter({**expected, **({"05": e_mails} if e_mails else {})})
    assert posts(hooks) == Counter({**expected, **({"05": webhook_posts} if webhook_posts else {})})
    # The 05:00 notice stays `sending` (at most once: it may not have gone out, and is never sent again).
    assert outcomes(conf) == {"03": "sent", "04": "sent", "05": "sending", "06": "sent", "07": "sent"}
