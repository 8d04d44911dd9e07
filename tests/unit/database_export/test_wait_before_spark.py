"""An export's wait for its instance before Spark (`toolkit call --wait-first`, issue 71): the export's own wait,
through the cluster's file system without a JVM; the entrypoint starts once the instance is published, or past the
feed's timeout to give it up as it always has. The template's `top-pages`, exported daily into `shop-db`."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import make_repo
from toolkit.actions.database_export.wait_before_spark import wait_for_data

YESTERDAY = (datetime.now(timezone.utc) - timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


def arguments(repo: Path, *extra: str, day: datetime = YESTERDAY) -> list[str]:
    return ["--repo", str(repo), "--feed", "top-pages", "--cluster", "primary", *extra, "--time",
            day.strftime("%Y-%m-%dT%H:%MZ")]


def publish(root: Path, day: datetime = YESTERDAY) -> None:
    folder = root / "data/top-pages" / day.strftime("%Y/%m/%d")
    folder.mkdir(parents=True)
    (folder / "part-00000.json").write_text('{"page": "/", "clicks": 3}\n')
    (folder / "_SUCCESS").touch()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    return make_repo(tmp_path)


def test_an_unpublished_instance_ends_the_call_waiting_without_spark(repo: tuple[Path, Path],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder, root = repo
    began = time.monotonic()
    assert wait_for_data(arguments(folder, "--max-wait", "0.3")) == 3
    assert time.monotonic() - began >= 0.3  # it waited its --max-wait
    out, err = capsys.readouterr()
    line = json.loads(out)
    assert (line["status"], line["action"], line["entity"], line["cluster"], line["datasource"], line["table"],
            line["load"]) == ("WAITING", "export", "top-pages", "primary", "shop-db", "top_pages_latest", "snapshot")
    assert f"The instance {YESTERDAY:%Y-%m-%dT%H:%MZ} of feed 'top-pages' on cluster 'primary' is not available" in err
    assert not (root / "feed-toolkit").exists()  # the wait only reads: no lease, no record


def test_a_published_instance_starts_the_entrypoint(repo: tuple[Path, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    folder, root = repo
    publish(root)
    assert wait_for_data(arguments(folder)) is None
    assert capsys.readouterr() == ("", "")


def test_an_instance_published_while_it_waits_starts_the_entrypoint(repo: tuple[Path, Path]) -> None:
    folder, root = repo
    publisher = threading.Timer(0.2, publish, (root,))
    publisher.start()
    try:
        assert wait_for_data(arguments(folder, "--max-wait", "0.8")) is None  # looks again at its end
    finally:
        publisher.join()


def test_past_the_feeds_timeout_the_entrypoint_gives_it_up(repo: tuple[Path, Path],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = repo
    assert wait_for_data(arguments(folder, day=datetime(2026, 1, 10, tzinfo=timezone.utc))) is None
    assert capsys.readouterr() == ("", "")


def test_refusals_are_said_as_the_entrypoint_says_them(repo: tuple[Path, Path],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = repo
    assert wait_for_data(arguments(folder, day=datetime(2025, 6, 1, tzinfo=timezone.utc))) == 4  # before validity
    assert json.loads(capsys.readouterr().out)["status"] == "SKIPPED"
    off_grid = arguments(folder)
    off_grid[-1] = YESTERDAY.strftime("%Y-%m-%dT05:00Z")
    assert wait_for_data(off_grid) == 2
    assert json.loads(capsys.readouterr().out)["status"] == "INVALID"
    assert wait_for_data([*arguments(folder), "--bogus"]) is None  # argparse's message is the entrypoint's
    assert capsys.readouterr() == ("", "")


def test_a_suspended_feed_is_skipped_at_once_as_the_entrypoint_skips_it(repo: tuple[Path, Path],
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from toolkit.cli.main import main

    folder, _ = repo
    assert main(["suspend", "top-pages", "--kind", "feed", "--repo", str(folder), "--cluster", "primary"]) == 0
    capsys.readouterr()
    began = time.monotonic()
    assert wait_for_data(arguments(folder, "--max-wait", "5")) == 4
    assert time.monotonic() - began < 5  # not after its wait
    assert json.loads(capsys.readouterr().out)["status"] == "SKIPPED"


def test_storage_not_reached_without_a_jvm_hands_the_export_to_spark(repo: tuple[Path, Path],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """WebHDFS on a closed port: a listing that fails reads as an empty folder, so the wait would take a
    published instance for an unpublished one; the storage is looked at first, and the entrypoint runs."""
    import socket

    folder, _ = repo
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    cluster = folder / "clusters" / "primary.yaml"
    text = cluster.read_text()
    root = text.split("endpoint: ", 1)[1].split("\n", 1)[0]
    readonly, write = text.index(root), text.index(root, text.index(root) + 1)
    text = (text[:readonly] + f"webhdfs://127.0.0.1:{port}" + text[readonly + len(root):write]
            + "hdfs://nn:8020/lake" + text[write + len(root):])
    cluster.write_text(text.replace("properties:\n", "properties:\n  webhdfs.user: etl\n", 1))
    assert wait_for_data(arguments(folder, "--max-wait", "5")) is None
    assert capsys.readouterr().out == ""
