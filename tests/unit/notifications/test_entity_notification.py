"""The `notification` of an entity as the repo gives it (`on-success`, `level`, the recipients), checked by the
schema; and the message of a feed's failed action (retention), as `toolkit/services/runtime/feed_notices.py` sends
it."""

from __future__ import annotations

from pathlib import Path

from tests.unit.retention.retention_repo import make_repo
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.repo import ConfigRepo


def with_notification(tmp_path: Path, text: str) -> Path:
    repo, _ = make_repo(tmp_path)
    process = repo / "processes/hourly-clicks-summary.yaml"
    process.write_text(process.read_text() + text)
    return repo


def test_on_success_and_level_reach_the_model(tmp_path: Path) -> None:
    repo = with_notification(tmp_path, "notification:\n  to: 'a@example.com, b@example.com'\n  level: attempt\n"
                                       "  on-success: true\n")
    notification = ConfigRepo.load(repo).process("hourly-clicks-summary").notification
    assert notification is not None
    assert (notification.to, notification.level, notification.on_success) == (
        ("a@example.com", "b@example.com"), "attempt", True)


def test_on_success_defaults_to_false(tmp_path: Path) -> None:
    repo = with_notification(tmp_path, "notification: {to: a@example.com}\n")
    notification = ConfigRepo.load(repo).process("hourly-clicks-summary").notification
    assert notification is not None and notification.on_success is False


def test_on_success_must_be_a_boolean(tmp_path: Path) -> None:
    repo = with_notification(tmp_path, "notification: {to: a@example.com, on-success: sometimes}\n")
    problems = [(p.code, p.file.name) for p in lint_paths([repo]).problems]
    assert problems == [("SC001", "hourly-clicks-summary.yaml")]


