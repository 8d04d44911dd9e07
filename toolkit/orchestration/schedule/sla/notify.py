"""The notifications of SLA findings: `missed`, `late` and `at-risk`, each sent once per instance and state (the
notifier's exclusive ledger record), to the entity's `notification`; `late-low` is listed only."""

from __future__ import annotations

from toolkit.core.entities.repo import ConfigRepo
from toolkit.orchestration.schedule.sla.check import Finding, Report
from toolkit.orchestration.schedule.sla.states import AT_RISK, LATE, MISSED
from toolkit.services.notifications.message import Notice, rerun_command
from toolkit.services.notifications.notifier import Notifier

NOTIFIED = (MISSED, LATE, AT_RISK)


def notify_findings(repo: ConfigRepo, report: Report, notifier: Notifier) -> None:
    for finding in report.findings:
        if finding.state not in NOTIFIED:
            continue
        entity = repo.feed(finding.entity) if finding.kind == "feed" else repo.process(finding.entity)
        notifier.notify(entity.notification, _notice(repo, finding))


def _notice(repo: ConfigRepo, finding: Finding) -> Notice:
    rerun = rerun_command("process", str(repo.root), "process", finding.entity, finding.cluster, finding.time) \
        if finding.kind == "process" and finding.state != LATE else None
    return Notice(f"sla-{finding.state}", finding.kind, finding.entity, finding.cluster, finding.time, "sla",
                  finding.state.upper(), error=finding.sentence(), late_seconds=finding.late_seconds, rerun=rerun)
