"""A replication pull's look at its sources before any JVM starts (`toolkit call --wait-first`, issue 71 item 1;
toolkit/actions/replication/wait_before_spark.py): every source instance missing before the feed's timeout ends
the call WAITING here, with the run record and status line the entrypoint writes; anything else is left to the
entrypoint (None). The template's `clicks`, primary to backup, on the local file system."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import instance, replication_clusters, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.actions.replication.wait_before_spark import wait_for_data
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21, 10)


def _call(repo: Path, *extra: str, now: str = "2026-11-21T12:00Z") -> list[str]:
    return ["--repo", str(repo), "--feed", "clicks", "--target", "backup", "--time", "2026-11-21T10:00Z",
            "--now", now, *extra]


def _record(backup: Path) -> dict[str, object]:
    return json.loads((backup / "feed-toolkit/working/replication/clicks/20261121T1000Z.json").read_text())


def test_every_source_missing_ends_waiting_here_as_the_entrypoint_would(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, backup = replication_clusters(tmp_path)
    assert wait_for_data(_call(repo)) == 3
    out, err = capsys.readouterr()
    line = json.loads(out)
    assert (line["status"], line["action"], line["entity"], line["cluster"], line["instance"]) == \
        ("WAITING", "replication", "clicks", "backup", "2026-11-21T10:00Z")
    assert line["record"].endswith("/replication/clicks/20261121T1000Z.json")
    assert err.startswith("replication: primary: the instance 2026-11-21T10:00Z is not available on 'primary' yet")
    here = _record(backup)
    # what the entrypoint's own code writes for the same call (its run id aside)
    run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, utc(2026, 11, 21, 12)),
                    RunContext(LocalFileSystem(), run_id=str(here["run_id"])))
    assert _record(backup) == here
    on = ConfigRepo.load(repo).cluster("backup")
    assert Ledger.of(LocalFileSystem(), on).replication_lock("clicks", T).current().state == "RELEASED"


@pytest.mark.parametrize("case", ["source there", "timeout passed", "catch-up window", "recopy", "bad option"])
def test_anything_else_is_the_entrypoints(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    repo, primary, backup = replication_clusters(tmp_path)
    argv = _call(repo)
    if case == "source there":
        instance(primary, "data/clicks", T, {"part-0.json": b"{}\n"})
    elif case == "timeout passed":  # hours(6) after the instance (the feed's timeout)
        argv = _call(repo, now="2026-11-21T16:00Z")
    elif case == "catch-up window":
        argv = [*argv, "--from", "2026-11-21T09:00Z", "--to", "2026-11-21T10:00Z"]
    elif case == "recopy":
        argv = [*argv, "--recopy"]
    else:
        argv = [*argv, "--no-such-option"]
    assert wait_for_data(argv) is None
    assert capsys.readouterr() == ("", "")
    assert not (backup / "feed-toolkit/working/replication").exists()  # nothing written


def test_a_table_feed_is_left_to_the_entrypoint(tmp_path: Path) -> None:
    repo, _, _ = replication_clusters(tmp_path)
    call = ["--repo", str(repo), "--feed", "visits", "--target", "backup", "--time", "2026-11-21T00:00Z", "--now",
            "2026-11-21T01:00Z"]
    assert wait_for_data(call) is None
    # the same feed as files (its table made a folder per day, nothing there yet) waits here: the table alone decided
    feed = repo / "feeds" / "visits.yaml"
    feed.write_text(feed.read_text().replace("table:\n  uri: catalog:web:visits#ds=${YEAR}-${MONTH}-${DAY}\n",
                                             "locations:\n  data: /data/visits/${YEAR}-${MONTH}-${DAY}\n"))
    assert wait_for_data(call) == 3


def test_refusals_are_the_entrypoints_own_sentences_and_codes(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, _ = replication_clusters(tmp_path)
    assert wait_for_data(["--repo", str(repo), "--feed", "nope", "--target", "backup", "--time",
                          "2026-11-21T10:00Z"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "INVALID" and err.startswith("replication: ")
    on = ConfigRepo.load(repo).cluster("backup")
    assert Ledger.of(LocalFileSystem(), on).replication_lock("clicks", T).try_acquire("other", LeaseDetails()).taken
    assert wait_for_data(_call(repo)) == 5  # another run holds the instance: told, as the entrypoint tells it
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "BLOCKED" and "other" in err
