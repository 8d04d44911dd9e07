"""File outputs on the local file system: where an output instance and its staging folder are, publishing
(staging renamed into place, then the flag), replacing an earlier version, discarding, clearing leftovers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, utc, write_file
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.output_targets import FileOutput, file_output
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import ToolkitError
from toolkit.services.staged_outputs.file_outputs import NothingWrittenError, clear_leftovers, discard, publish

T = utc(2026, 11, 21, 10)


def output_of(runner_repo: RunnerRepo, feed: str = "clicks-hourly-summary", name: str = "summary") -> FileOutput:
    repo = runner_repo.repo
    return file_output(name, repo.feed(feed), feed_locations(repo.feed(feed), repo.cluster("primary")), T, "k1")


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


class Recording(LocalFileSystem):
    """The local file system, noting its renames, writes and deletes in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def rename(self, source: str, target: str) -> None:
        self.calls.append(("rename", source, target))
        super().rename(source, target)

    def write_atomically(self, path: str, data: bytes) -> None:
        self.calls.append(("write", path))
        super().write_atomically(path, data)

    def delete(self, path: str, *, recursive: bool) -> bool:
        self.calls.append(("delete", path))
        return super().delete(path, recursive=recursive)


def test_file_output_paths(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)

    assert output.path == runner_repo.uri("data/clicks-hourly-summary/2026/11/21/10")
    assert output.folder == runner_repo.uri("data/clicks-hourly-summary/2026/11/21")
    assert output.base == "10"
    assert output.flag == "_SUCCESS"
    assert output.time == T
    assert output.staging("0123456789ab", 2) == \
        runner_repo.uri("data/clicks-hourly-summary/2026/11/21/.10.toolkit-k1-0123456789ab-2")
    assert output.to_json() == {"name": "summary", "feed": "clicks-hourly-summary", "time": "2026-11-21T10:00Z",
                                "path": runner_repo.uri("data/clicks-hourly-summary/2026/11/21/10")}


def test_file_output_of_a_daily_feed_and_a_feed_without_flag(runner_repo: RunnerRepo) -> None:
    daily = output_of(runner_repo, "clicks-daily", "daily")
    assert daily.path == runner_repo.uri("data/clicks-daily/2026/11/21")
    assert daily.staging("r", 1) == runner_repo.uri("data/clicks-daily/2026/11/.21.toolkit-k1-r-1")
    assert output_of(runner_repo, "raw-events", "raw").flag is None


def test_a_table_feed_has_no_file_output(runner_repo: RunnerRepo) -> None:
    with pytest.raises(ToolkitError) as raised:
        output_of(runner_repo, "visits", "visits")
    assert str(raised.value) == ("The output 'visits' (feed 'visits') has no data location on cluster 'primary': "
                                 "give the feed locations.data.")


def test_publish_moves_staging_into_place_and_writes_the_flag_last(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    folder = runner_repo.root / "data/clicks-hourly-summary/2026/11/21"
    staging = folder / ".10.toolkit-k1-r1-1"
    write_file(staging / "part-00000.json", '{"page": "/", "clicks": 3}\n')
    write_file(staging / ".part-00000.json.crc", b"crc")
    write_file(staging / "_SUCCESS", "written by the workflow")
    write_file(staging / "._SUCCESS.crc", b"crc")
    fs = Recording()

    published = publish(fs, output, "r1", 1)

    assert not staging.exists()
    assert sorted(p.name for p in folder.iterdir()) == ["10"]
    assert listing(folder / "10") == [".part-00000.json.crc", "_SUCCESS", "part-00000.json"]
    assert (folder / "10/_SUCCESS").read_bytes() == b""  # ours, not the workflow's
    assert (folder / "10/part-00000.json").read_text() == '{"page": "/", "clicks": 3}\n'
    assert published.to_json() == {**output.to_json(), "files": 1, "bytes": 27, "replaced": False}
    staging_uri, flag_uri = output.staging("r1", 1), f"{output.path}/_SUCCESS"
    assert fs.calls == [("delete", f"{staging_uri}/_SUCCESS"), ("delete", f"{staging_uri}/._SUCCESS.crc"),
                        ("rename", staging_uri, output.path), ("write", flag_uri)]


def test_publish_over_an_existing_instance_replaces_it(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    folder = runner_repo.root / "data/clicks-hourly-summary/2026/11/21"
    write_file(folder / "10/part-00000.json", "old 0\n")
    write_file(folder / "10/part-00001.json", "old 1\n")
    write_file(folder / "10/_SUCCESS")
    write_file(folder / ".10.toolkit-k1-r2-3/part-00000.json", "new\n")
    write_file(folder / ".10.toolkit-k1-r2-3/sub/part-00009.json", "deeper\n")

    published = publish(LocalFileSystem(), output, "r2", 3)

    assert sorted(p.name for p in folder.iterdir()) == ["10"]  # no staging, no replaced version left
    assert listing(folder / "10") == ["_SUCCESS", "part-00000.json", "sub", "sub/part-00009.json"]
    assert (folder / "10/part-00000.json").read_text() == "new\n"
    assert published.replaced is True
    assert (published.files, published.bytes) == (2, 11)


def test_publish_without_flag_leaves_the_workflows_files(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo, "raw-events", "raw")
    folder = runner_repo.root / "data/raw-events/2026/11/21"
    write_file(folder / ".10.toolkit-k1-r-1/part-0", "x")
    write_file(folder / ".10.toolkit-k1-r-1/_SUCCESS", "the workflow's")

    publish(LocalFileSystem(), output, "r", 1)

    assert listing(folder) == ["10", "10/_SUCCESS", "10/part-0"]
    assert (folder / "10/_SUCCESS").read_text() == "the workflow's"


def test_publish_with_nothing_written_names_the_output_and_path(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    write_file(runner_repo.root / "data/clicks-hourly-summary/2026/11/21/10/part-0", "earlier version")

    with pytest.raises(NothingWrittenError) as raised:
        publish(LocalFileSystem(), output, "r1", 2)

    assert str(raised.value) == (
        "The workflow wrote nothing to output 'summary' (feed 'clicks-hourly-summary', 2026-11-21T10:00Z): it "
        "should write its result to ctx.outputs['summary'], "
        f"{runner_repo.uri('data/clicks-hourly-summary/2026/11/21/.10.toolkit-k1-r1-2')}.")
    assert raised.value.exit_code == 1
    # the earlier version is untouched
    assert (runner_repo.root / "data/clicks-hourly-summary/2026/11/21/10/part-0").read_text() == "earlier version"


def test_discard_removes_the_attempts_staging_only(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    folder = runner_repo.root / "data/clicks-hourly-summary/2026/11/21"
    write_file(folder / ".10.toolkit-k1-r1-1/part-0", "half written")
    write_file(folder / ".10.toolkit-k1-r1-2/part-0", "another attempt")
    write_file(folder / "10/part-0", "published")

    discard(LocalFileSystem(), output, "r1", 1)
    discard(LocalFileSystem(), output, "r9", 9)  # nothing to discard: no error

    assert sorted(p.name for p in folder.iterdir()) == [".10.toolkit-k1-r1-2", "10"]


def test_clear_leftovers_deletes_the_outputs_toolkit_siblings_only(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    folder = runner_repo.root / "data/clicks-hourly-summary/2026/11/21"
    for leftover in (".10.toolkit-k1-r1-1/part-0", ".10.toolkit-k1-replaced-r0-2/part-0", ".10.toolkit-k1-x"):
        write_file(folder / leftover, "stale")
    for kept in ("10/part-0", ".11.toolkit-r1-1/part-0", ".100.toolkit-r1-1/part-0", ".10.other/x", "10.toolkit-r1",
                 "_SUCCESS", ".10.toolkit-k2-r1-1/part-0"):  # k2: another process instance's staging
        write_file(folder / kept, "keep")

    assert clear_leftovers(LocalFileSystem(), output) == 3

    assert sorted(p.name for p in folder.iterdir()) == [".10.other", ".10.toolkit-k2-r1-1", ".100.toolkit-r1-1",
                                                         ".11.toolkit-r1-1", "10", "10.toolkit-r1", "_SUCCESS"]
    assert clear_leftovers(LocalFileSystem(), output) == 0


def test_clear_leftovers_without_the_folder(runner_repo: RunnerRepo) -> None:
    assert clear_leftovers(LocalFileSystem(), output_of(runner_repo)) == 0


class FailingSecondRename(LocalFileSystem):
    """The local file system whose rename of the staging folder into place fails (a full name node, a lost
    connection): the moment after the earlier version was moved aside."""

    def rename(self, source: str, target: str) -> None:
        if ".toolkit-" in source and "-replaced-" not in source:
            raise StorageError(f"Cannot rename {source} to {target}: injected failure.")
        super().rename(source, target)


def test_a_failed_publish_keeps_the_earlier_version(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    folder = runner_repo.root / "data/clicks-hourly-summary/2026/11/21"
    write_file(folder / "10/part-0", "earlier version")
    write_file(folder / "10/_SUCCESS")
    write_file(folder / ".10.toolkit-k1-r1-1/part-0", "new version")

    with pytest.raises(StorageError):
        publish(FailingSecondRename(), output, "r1", 1)

    assert (folder / "10/part-0").read_text() == "earlier version"
    assert (folder / "10/_SUCCESS").exists()


def test_clear_leftovers_puts_back_a_version_a_killed_swap_left_aside(runner_repo: RunnerRepo) -> None:
    output = output_of(runner_repo)
    folder = runner_repo.root / "data/clicks-hourly-summary/2026/11/21"
    write_file(folder / ".10.toolkit-k1-replaced-r1-1/part-0", "the published version")
    write_file(folder / ".10.toolkit-k1-r1-1/part-0", "the killed attempt's")

    assert clear_leftovers(LocalFileSystem(), output) == 1

    assert (folder / "10/part-0").read_text() == "the published version"
    assert sorted(p.name for p in folder.iterdir()) == ["10"]
