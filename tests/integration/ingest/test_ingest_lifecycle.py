"""Ingest in the lifecycle of every feed action (toolkit/services/runtime/lifecycle.py): a call that fails (a commit
injected to fail: the disk under the ledger full) is told to the feed's webhook, a real HTTP server on loopback, as a
FAILED ingest at the call's time with the command that calls it again, and the next call ingests what the failed one
left; a blocked or suspended call is no failure to tell."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.clocks import StoppedClock
from tests.integration.ingest.landing import drop_first_two
from tests.lineage_receiver import lineage_receiver
from tests.notified_feed import notify_by_webhook
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest import runner
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import SkippedError
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.run_context import RunContext

STARTED = datetime(2026, 1, 2, 8, 30, 17, tzinfo=timezone.utc).timestamp()  # the call's clock: 08:30 is its time


def test_a_failed_call_is_told_with_its_rerun_and_the_next_call_ingests_what_it_left(
        spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    fs = HadoopFileSystem(spark)
    with lineage_receiver("/hook") as hook:
        notify_by_webhook(repo.root, "primary", "events", hook.url + "/hook")
        config = ConfigRepo.load(repo.root)

        def context(run_id: str) -> RunContext:
            return RunContext(fs, run_id, notifier=Notifier(fs, config.cluster("primary")), clock=StoppedClock(STARTED))

        def disk_full(*args: object, **kwargs: object) -> None:
            raise StorageError("Cannot write the batch's commit: No space left on device.")

        with monkeypatch.context() as patched:
            patched.setattr(runner, "commit_batch", disk_full)
            with pytest.raises(StorageError, match="No space left on device"):
                runner.run_ingest(spark, config, "events", "primary", context("failing"))
        assert [(n["event"], n["instance"], n["status"], n["run_id"], n["error"], n["rerun"]) for n in hook.events] == [
            ("failed", "2026-01-02T08:30Z", "FAILED", "failing",
             "Cannot write the batch's commit: No space left on device.",
             f"spark-submit entrypoints/ingest.py --repo {config.root} --feed events --cluster primary "
             "--time 2026-01-02T08:30Z")]
        again = runner.run_ingest(spark, config, "events", "primary", context("fixed"))
        assert (again.records, again.rejected) == (4, 3)
        Control(fs, LedgerLayout.of(config.cluster("primary"))).set_suspended("feed", "events", True,
                                                                       "2026-01-02T08:31:00Z", "tests")
        with pytest.raises(SkippedError):
            runner.run_ingest(spark, config, "events", "primary", context("suspended"))
    assert len(hook.events) == 1  # the suspended call told no one
