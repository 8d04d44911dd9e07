"""The lifecycle of an action's call on a feed instance (toolkit/services/runtime/lifecycle.py), on the local file
system without Spark: the call checked where it is built, the definition hashed once, the switches before the lease, a
second caller told who holds it, runs and events carrying the definition, and a failure (exit 1 or unforeseen,
never 2 to 5) told to the feed's webhook, a real HTTP server on loopback."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.lineage_receiver import Receiver, lineage_receiver
from tests.notified_feed import notify_by_webhook
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, SkippedError, TimedOutError, ToolkitError, UsageError, WaitingError
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime import lifecycle as lifecycle_module
from toolkit.services.runtime.entry_frame import error_sentence
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, failures_told, feed_lifecycle
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.status import StatusLine

TEN = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
KIND = ActionKind(name="compaction", script="compact", job="compact", producer="compaction")
FS = LocalFileSystem()


def repo_with_webhook(tmp_path: Path, url: str) -> ConfigRepo:
    repo, _ = make_repo(tmp_path)
    notify_by_webhook(repo.root, "primary", "events", url + "/hook")
    return ConfigRepo.load(repo.root)


def call_of(repo: ConfigRepo, t: datetime = TEN) -> FeedCall:
    return FeedCall.of(KIND, repo, repo.feed("events"), repo.cluster("primary"), t)


def context(repo: ConfigRepo, run_id: str = "run1") -> RunContext:
    return RunContext(FS, run_id, notifier=Notifier(FS, repo.cluster("primary")), lease_seconds=30)


def lock(ledger: Ledger):  # type: ignore[no-untyped-def]
    return ledger.ingest_lock("events")


@pytest.fixture
def hook() -> Receiver:  # type: ignore[misc]
    with lineage_receiver("/hook") as receiver:
        yield receiver


def test_a_call_is_built_only_for_an_instance_inside_the_validity(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    with pytest.raises(SkippedError, match=r"^2027-02-01T10:00Z is outside the validity of feed 'events' on cluster "
                                           r"'primary' \(2026-01-01T00:00Z to 2027-01-01T00:00Z\)") as skipped:
        call_of(repo, TEN.replace(year=2027, month=2))
    assert skipped.value.exit_code == 4
    with pytest.raises(UsageError, match="2026-01-01T10:30Z is not an instance of feed 'events'"):
        call_of(repo, TEN.replace(minute=30))
    built = call_of(repo)
    with pytest.raises(SkippedError):  # checked where built, whoever builds it
        FeedCall(KIND, repo, built.feed, built.cluster, TEN.replace(year=2027), built.definition)


def test_a_call_whose_time_is_its_own_cadence_is_not_checked_against_the_feeds_grid(tmp_path: Path) -> None:
    """Retention's time is when its limit counts back from: off the feed's grid, after its validity, it is built."""
    repo, _ = make_repo(tmp_path)
    cadence = ActionKind(name="retention", script="retention", job="retention", producer="retention",
                         on_instance=False)
    late = TEN.replace(year=2027, month=2, minute=30)
    call = FeedCall.of(cadence, repo, repo.feed("events"), repo.cluster("primary"), late)
    assert (call.nominal, call.definition.definition) == (late, definition_hash(repo.feed("events"), repo.root))


def test_the_definition_is_hashed_once_per_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = make_repo(tmp_path)
    hashed = []
    real = lifecycle_module.provenance
    monkeypatch.setattr(lifecycle_module, "provenance", lambda *a: hashed.append(a) or real(*a))
    call = call_of(repo)
    with feed_lifecycle(call, context(repo), lock=lock, what="ingest of feed 'events'") as life:
        life.run()
        life.published("file:///x", None)
    assert len(hashed) == 1 and call.definition.definition == definition_hash(repo.feed("events"), repo.root)


def test_events_and_runs_carry_the_definition_and_the_actions_producer(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    call = call_of(repo)
    with feed_lifecycle(call, context(repo), lock=lock, what="ingest of feed 'events'") as life:
        event = life.published("file:///data/events/2026/01/01/10", Fingerprint("d", 1, 1))
    assert event is not None
    assert (event.producer, event.run_id, event.kind, event.definition) == (
        "compaction", "run1", "published", call.definition)


@pytest.mark.parametrize("switch", ["safemode", "suspended"])
def test_the_switches_come_before_the_lease_and_are_no_failure(tmp_path: Path, hook: Receiver, switch: str) -> None:
    repo = repo_with_webhook(tmp_path, hook.url)
    control = Control(FS, LedgerLayout.of(repo.cluster("primary")))
    if switch == "safemode":
        control.set_safemode(True, "2026-01-02T00:00:00Z", "test")
    else:
        control.set_suspended("feed", "events", True, "2026-01-02T00:00:00Z", "test")
    entered = []
    with pytest.raises(BlockedError if switch == "safemode" else SkippedError), feed_lifecycle(
            call_of(repo), context(repo), lock=lock, what="ingest of feed 'events'",
            before_lease=lambda: entered.append("checks")):
        entered.append("body")
    assert entered == [] and hook.requests == []
    assert not list((tmp_path / "root").rglob("lock*"))


def test_a_second_caller_is_told_who_holds_the_lease_and_nobody_is_notified(tmp_path: Path, hook: Receiver) -> None:
    repo = repo_with_webhook(tmp_path, hook.url)
    first = feed_lifecycle(call_of(repo), context(repo, "first"), lock=lock, what="ingest of feed 'events'")
    second = feed_lifecycle(call_of(repo), context(repo, "second"), lock=lock, what="ingest of feed 'events'")
    with first, pytest.raises(BlockedError, match="The ingest of feed 'events' is being run by run first") as blocked, \
            second:
        pytest.fail("the second caller entered")
    assert blocked.value.exit_code == 5 and hook.requests == []


@pytest.mark.parametrize("error", [WaitingError("not closed yet"), SkippedError("nothing to compact"),
                                   UsageError("bad property")])
def test_a_wait_a_skip_or_a_usage_error_is_no_failure_to_tell(tmp_path: Path, hook: Receiver,
                                                              error: ToolkitError) -> None:
    repo = repo_with_webhook(tmp_path, hook.url)
    with pytest.raises(type(error)), feed_lifecycle(call_of(repo), context(repo), lock=lock, what="ingest"):
        raise error
    assert hook.requests == []


@pytest.mark.parametrize("error", [ToolkitError("the rows differ"), ZeroDivisionError("division by zero")])
def test_a_failure_is_told_once_to_the_feeds_notification_then_raised(tmp_path: Path, hook: Receiver,
                                                                      error: Exception) -> None:
    repo = repo_with_webhook(tmp_path, hook.url)
    ctx = context(repo, "run7")
    with pytest.raises(type(error)), feed_lifecycle(call_of(repo), ctx, lock=lock, what="ingest"):
        raise error
    [notice] = hook.events
    assert {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id", "error")} == {
        "event": "failed", "kind": "feed", "entity": "events", "cluster": "primary", "instance": "2026-01-01T10:00Z",
        "status": "FAILED", "run_id": "run7", "error": str(error)}
    assert notice["text"] == "[feed-toolkit] FAILED compaction of feed events 2026-01-01T10:00Z on primary"
    assert notice["rerun"] == (f"spark-submit entrypoints/compact.py --repo {repo.root} --feed events --cluster "
                               "primary --time 2026-01-01T10:00Z")
    assert ctx.notifier is not None
    assert ctx.notifier.counters() == {"notifications_sent": 1, "notifications_failed": 0}
    with feed_lifecycle(call_of(repo), context(repo, "run8"), lock=lock, what="ingest of feed 'events'"):
        pass  # the lease was released


def test_a_failure_told_inside_and_outside_the_lifecycle_is_one_notice(tmp_path: Path, hook: Receiver) -> None:
    """An entry wraps its own work (the metastore's connection) in `failures_told` around the core's lifecycle."""
    repo = repo_with_webhook(tmp_path, hook.url)
    ctx = context(repo, "run9")
    with pytest.raises(ToolkitError), failures_told(call_of(repo), ctx.notifier, "run9"), \
            feed_lifecycle(call_of(repo), ctx, lock=lock, what="ingest"):
        raise ToolkitError("the metastore went away")
    assert [notice["run_id"] for notice in hook.events] == ["run9"]


def test_a_timeout_is_told_as_timedout_and_the_status_line_says_so(tmp_path: Path, hook: Receiver) -> None:
    repo = repo_with_webhook(tmp_path, hook.url)
    given_up = TimedOutError("the instance did not come by the feed's timeout")
    with pytest.raises(TimedOutError), feed_lifecycle(call_of(repo), context(repo), lock=lock, what="ingest"):
        raise given_up
    [notice] = hook.events
    assert (notice["event"], notice["status"], given_up.exit_code) == ("timedout", "TIMEDOUT", 1)
    status = StatusLine("export", "run1")
    error_sentence(status, given_up)
    assert status.status.value == "TIMEDOUT"
