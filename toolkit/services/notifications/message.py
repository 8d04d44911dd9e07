"""What a notification says: one `Notice` about one instance, as an e-mail (subject and body) and as the JSON a
webhook gets, with the same fields. Its error (a failure's text, which can quote a password a driver or a
workflow echoed) is masked when the notice is made (toolkit/secrets_masking.py)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage

from toolkit.core.el.timestamps import format_timestamp
from toolkit.secrets_masking import masked

FAILED, TIMEDOUT, SUCCEEDED, ATTEMPT_FAILED = "failed", "timedout", "succeeded", "attempt-failed"
QUALITY_WARNING = "quality-warning"  # published although a data-quality gate whose on-failure is warn failed
SLA_EVENTS = ("sla-missed", "sla-late", "sla-at-risk")


@dataclass(frozen=True)
class Notice:
    """`event` is failed, timedout, succeeded, attempt-failed (a failed attempt that is retried, with `level:
    attempt`) or sla-<state>; `kind` process or feed; `action` the action that ran (process, replication,
    retention) or sla; `late_seconds` how late an SLA miss is."""

    event: str
    kind: str
    entity: str
    cluster: str
    time: datetime
    action: str
    status: str
    run_id: str | None = None
    attempt: int | None = None
    error: str | None = None
    late_seconds: int | None = None
    rerun: str | None = None
    batch: int | None = None  # a batch consumer's batch (its `time` is the newest input instance it consumed)

    def __post_init__(self) -> None:
        if self.error is not None:
            object.__setattr__(self, "error", masked(self.error))

    @property
    def key(self) -> str:
        """The record's name: SLA states once per instance; an attempt once; a run's outcome once per run."""
        if self.event in SLA_EVENTS:
            return self.event
        batch = f"batch-{self.batch}-" if self.batch is not None else ""
        if self.event == ATTEMPT_FAILED:
            return f"{batch}attempt-{self.attempt or 0:03d}-failed"
        return f"{batch}{self.action}-{self.event}-{self.run_id}"

    @property
    def subject(self) -> str:
        label = self.event.upper().replace("-", " ")
        what = f"{self.action} of feed" if self.kind == "feed" and self.action != "sla" else self.kind
        batch = f" batch {self.batch}" if self.batch is not None else ""
        return f"[feed-toolkit] {label} {what} {self.entity}{batch} {format_timestamp(self.time)} on {self.cluster}"

    def fields(self) -> dict[str, object]:
        """The facts of the notice, as the webhook's JSON and the body's lines."""
        return {"event": self.event, "kind": self.kind, "entity": self.entity, "cluster": self.cluster,
                "instance": format_timestamp(self.time), "batch": self.batch, "action": self.action,
                "status": self.status, "attempt": self.attempt, "run_id": self.run_id, "error": self.error,
                "late_by": describe_duration(self.late_seconds) if self.late_seconds is not None else None,
                "late_seconds": self.late_seconds, "rerun": self.rerun}

    def body(self) -> str:
        lines = [self.subject.removeprefix("[feed-toolkit] "), ""]
        labels = {"late_by": "late by", "run_id": "run id", "rerun": "to rerun"}
        lines += [f"{labels.get(name, name)}: {value}" for name, value in self.fields().items()
                  if value is not None and name not in ("late_seconds", "event")]
        return "\n".join(lines) + "\n"

    def email(self, sender: str, recipients: tuple[str, ...]) -> EmailMessage:
        message = EmailMessage()
        message["Subject"], message["From"], message["To"] = self.subject, sender, ", ".join(recipients)
        message.set_content(self.body())
        return message

    def webhook_json(self, recipients: tuple[str, ...]) -> dict[str, object]:
        """The fields, the subject as `text` (what Slack/Mattermost-style incoming webhooks show) and the `to`."""
        return {"text": self.subject, **self.fields(), "to": list(recipients)}


def describe_duration(seconds: int) -> str:
    """`1d 2h 5m`, `45m`, `30s`: how late, as people read it."""
    if seconds < 60:
        return f"{seconds}s"
    days, rest = divmod(seconds // 60, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
    return " ".join(part for part in parts if part)


def rerun_command(action: str, repo: str, option: str, entity: str, cluster: str, t: datetime | None,
                  more: tuple[str, ...] = ()) -> str:
    """The call that runs the instance again, e.g. `spark-submit entrypoints/process.py --repo conf --process p
    --cluster primary --time 2026-11-21T10:00Z` (`t` None: a batch consumer's next batch, `--batch`), then `more`
    arguments the call needs besides (a Hive export's `--to DIR`); every word quoted for a shell, so that a repo
    path with a space is pasted back whole."""
    cluster_option = "--target" if action == "replication" else "--cluster"
    when = ["--time", format_timestamp(t)] if t is not None else ["--batch"]
    return shlex.join(["spark-submit", f"entrypoints/{action}.py", "--repo", repo, f"--{option}", entity,
                       cluster_option, cluster, *when, *more])
