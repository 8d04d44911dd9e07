"""The choice between the driver's copier and the executors' (actions/replication/copier_choice.py) by the feed's
thresholds, and what the run says about it. Without executors (the pure-Python local file system) the driver copies
whatever the thresholds say; the distributed copy itself is tested on Spark (tests/integration/replication/
test_distributed_replication.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.replication.test_file_replication import FILES, T, contents, instance, replicate
from tests.unit.retention.retention_repo import replication_clusters
from toolkit.core.entities.replication_settings import ReplicationSettings, replication_settings
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError


def settings_of(repo: Path, **properties: str) -> ReplicationSettings:
    feed = ConfigRepo.load(repo).feed("clicks")
    return replication_settings(replace(feed, properties={**feed.properties, **properties}))


@pytest.fixture
def clusters(tmp_path: Path) -> tuple[Path, Path, Path]:
    return replication_clusters(tmp_path)


def test_the_defaults_are_1_gib_and_1000_files_and_either_one_beyond_chooses_the_executors(clusters) -> None:
    repo, _, _ = clusters
    default = settings_of(repo)
    assert (default.distributed_above_bytes, default.distributed_above_files) == (2**30, 1000)
    assert not default.distributed(1000, 2**30)
    assert default.distributed(1001, 10) and default.distributed(1, 2**30 + 1)
    assert not default.distributed(0, 0)
    given = settings_of(repo, **{"replication.distributed-above-bytes": "512MB",
                                 "replication.distributed-above-files": "0"})
    assert (given.distributed_above_bytes, given.distributed_above_files) == (512 * 2**20, 0)
    assert given.distributed(1, 0)


@pytest.mark.parametrize(("name", "value", "advice"), [
    ("replication.distributed-above-bytes", "lots", "give a whole number of bytes, or one with a unit"),
    ("replication.distributed-above-files", "1e3", "give a whole number, 0 or more."),
])
def test_a_bad_threshold_is_one_sentence_naming_the_feed_and_the_property(clusters, name: str, value: str,
                                                                          advice: str) -> None:
    repo, _, _ = clusters
    with pytest.raises(UsageError) as raised:
        settings_of(repo, **{name: value})
    assert str(raised.value).startswith(f"The property {name!r} of feed 'clicks' is {value!r}: {advice}")


def test_without_executors_the_driver_copies_and_the_run_says_so(clusters) -> None:
    repo, primary, backup = clusters
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text().replace("ACL:\n", 'properties:\n  replication.distributed-above-files: "0"\n'
                                                       "ACL:\n"))
    source = instance(primary, "data/clicks", T, FILES)
    counters = replicate(repo).counters()
    assert (counters["copier"], counters["files_copied"]) == ("driver", 3)
    assert "copy_tasks" not in counters
    assert contents(backup / "replica/clicks/2026/11/21/10") == contents(source)
    again = replicate(repo).counters()
    assert "copier" not in again  # nothing copied
