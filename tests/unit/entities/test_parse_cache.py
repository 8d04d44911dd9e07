"""The parse cache of `ConfigRepo.load(cached=True)` (parse_cache.py): the same repo and the same problems as an
uncached load; a changed file is read again whatever its mtime; a damaged, foreign or unwritable cache is ignored;
concurrent writers leave a whole record."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from test_config_repo import small_repo

from toolkit.core.entities import ConfigRepo
from toolkit.core.entities import parse_cache as cache_module
from toolkit.core.entities.parse_cache import ParseCache, cache_directory
from toolkit.core.entities.repo import entity_files
from toolkit.errors import UsageError

BROKEN = "kind: feed\nname: broken\nfrequency: weekly\n"  # invalid: no clusters, a bad frequency


def parsed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files a cached load parses (the others come from the cache)."""
    seen: list[str] = []
    real = cache_module.parse_entity

    def counting(content, file):  # type: ignore[no-untyped-def]
        seen.append(f"{file.parent.name}/{file.name}")
        return real(content, file)

    monkeypatch.setattr(cache_module, "parse_entity", counting)
    return seen


def described(repo: ConfigRepo) -> list[tuple[str, object, dict[object, object], dict[object, object]]]:
    """Everything a load gives, per entity: the entity (its repr holds every field and its document's file and
    data) and the positions of its document's values and keys."""
    return [(repr(entity), entity.document.data, dict(entity.document.value_positions),
             dict(entity.document.key_positions)) for entity in repo.entities]


def record_of(root: Path) -> Path:
    path = ParseCache(root).path
    assert path is not None
    return path


def test_cached_and_uncached_loads_give_equal_repos(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf")
    uncached = ConfigRepo.load(root)
    seen = parsed_files(monkeypatch)
    first = ConfigRepo.load(root, cached=True)
    assert len(seen) == 7  # a cold cache parses every file
    second = ConfigRepo.load(root, cached=True)
    assert len(seen) == 7  # a warm one none
    assert described(first) == described(second) == described(uncached)
    assert second.files == uncached.files and second.dependencies(second.process("p2")) == uncached.dependencies(
        uncached.process("p2"))
    assert str(second.feed("mid").document.span(("clusters", 1, "name"))) == str(
        uncached.feed("mid").document.span(("clusters", 1, "name")))
    # kept outside the repo, in $FEED_TOOLKIT_CACHE_DIR (the test's own, tests/conftest.py)
    assert record_of(root).is_file() and record_of(root).is_relative_to(os.environ["FEED_TOOLKIT_CACHE_DIR"])
    assert sorted(path.name for path in root.rglob("*") if path.is_file()) == sorted(
        file.name for file in entity_files(root))


def test_the_cache_folder_is_xdg_cache_home_else_home_unless_feed_toolkit_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FEED_TOOLKIT_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_directory() == tmp_path / "explicit"
    monkeypatch.delenv("FEED_TOOLKIT_CACHE_DIR")
    assert cache_directory() == tmp_path / "xdg" / "feed-toolkit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_directory() == tmp_path / "home" / ".cache" / "feed-toolkit"


@pytest.mark.parametrize("home", ["", "~"])
def test_no_cache_is_written_where_no_home_folder_is_known(tmp_path, monkeypatch, home):
    """A scheduler's `env -i` line, or a container's user with no passwd entry, has no usable home: the cache is
    not kept (never a relative `.cache` or `~` folder in whatever the working folder is), and the load works."""
    root = small_repo(tmp_path / "conf")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("FEED_TOOLKIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec: a relative path is ignored
    monkeypatch.setenv("HOME", home)
    assert cache_directory() is None
    assert [entity.name for entity in ConfigRepo.load(root, cached=True).entities] == [
        entity.name for entity in ConfigRepo.load(root).entities]
    assert list(work.iterdir()) == []


def test_an_edited_file_is_read_again_even_with_the_same_size_and_mtime(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf")
    ConfigRepo.load(root, cached=True)
    process = root / "processes" / "p1.yaml"
    before = process.stat()
    process.write_text(process.read_text().replace("feed: raw", "feed: out"))  # same length
    os.utime(process, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert process.stat().st_size == before.st_size and process.stat().st_mtime_ns == before.st_mtime_ns
    seen = parsed_files(monkeypatch)
    repo = ConfigRepo.load(root, cached=True)
    assert seen == ["processes/p1.yaml"]
    assert repo.process("p1").inputs[0].feed == "out"
    assert described(repo) == described(ConfigRepo.load(root))


def test_a_file_with_problems_reports_them_every_time(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf", **{"feeds/broken.yaml": BROKEN})
    _, expected = ConfigRepo.scan(root)
    with pytest.raises(UsageError) as uncached:
        ConfigRepo.load(root)
    seen = parsed_files(monkeypatch)
    for _ in range(2):
        repo, problems = ConfigRepo.scan(root, cached=True)
        assert problems == expected and len(problems) >= 2
        with pytest.raises(UsageError) as cached:
            ConfigRepo.load(root, cached=True)
        assert str(cached.value) == str(uncached.value)
        assert "broken.yaml" in str(cached.value)
    assert seen.count("feeds/broken.yaml") == 4  # never served from the cache
    assert len(seen) == 7 + 4  # the valid files once, then from the cache


def corrupt(record: Path, how: str) -> None:
    content = record.read_bytes()
    header, body = content.split(b"\n", 1)
    damaged = {
        "truncated": content[: len(content) // 2],
        "empty": b"",
        "not json": b"\x00\xff garbage",
        "body altered": header + b"\n" + body.replace(b'"raw"', b'"rax"', 1),
        "other format": header.replace(b'"format_version": 1', b'"format_version": 99') + b"\n" + body,
        "other toolkit": header.replace(b'"toolkit": "', b'"toolkit": "9.9.9+', 1) + b"\n" + body,
        "body not a mapping": header + b"\n[]",
    }[how]
    assert damaged != content
    record.write_bytes(damaged)


@pytest.mark.parametrize("how", ["truncated", "empty", "not json", "body altered", "other format", "other toolkit",
                                 "body not a mapping"])
def test_a_damaged_or_foreign_cache_is_ignored_and_rewritten(tmp_path, monkeypatch, how):
    root = small_repo(tmp_path / "conf")
    expected = described(ConfigRepo.load(root))
    ConfigRepo.load(root, cached=True)
    corrupt(record_of(root), how)
    seen = parsed_files(monkeypatch)
    assert described(ConfigRepo.load(root, cached=True)) == expected
    assert len(seen) == 7  # nothing taken from the damaged record
    assert described(ConfigRepo.load(root, cached=True)) == expected
    assert len(seen) == 7  # the rewritten record serves every file


def test_an_entry_of_another_shape_is_parsed_not_trusted(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf")
    cache = ParseCache(root)
    for file in entity_files(root):
        cache.load(file)
    cache._kept["feeds/raw.yaml"]["values"] = [[1, 1]]  # a record whose digest is right but whose entry is not
    cache.save()
    seen = parsed_files(monkeypatch)
    assert described(ConfigRepo.load(root, cached=True)) == described(ConfigRepo.load(root))
    assert seen == ["feeds/raw.yaml"]


def test_an_unwritable_cache_folder_still_loads(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be\n")
    monkeypatch.setenv("FEED_TOOLKIT_CACHE_DIR", str(blocker / "cache"))
    for _ in range(2):
        assert described(ConfigRepo.load(root, cached=True)) == described(ConfigRepo.load(root))
    assert blocker.read_text() == "a file where the cache folder would be\n"


def _write_repeatedly(root: Path, files: list[Path], rounds: int) -> None:
    """A writer: each round loads `files` and saves, which differs from what the other writer saved."""
    for _ in range(rounds):
        cache = ParseCache(root)
        for file in files:
            cache.load(file)
        cache.save()


def test_two_concurrent_writers_leave_a_whole_record(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf")
    files = entity_files(root)
    ConfigRepo.load(root, cached=True)
    record = record_of(root)
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_write_repeatedly, args=(root, chosen, 40)) for chosen in (files, files[:3])]
    for writer in writers:
        writer.start()
    reads = 0
    while any(writer.is_alive() for writer in writers):
        entries = ParseCache(root)._recorded  # what a concurrent load would read: always a whole record
        assert sorted(entries) in (sorted(f"{f.parent.name}/{f.name}" for f in chosen) for chosen in (files, files[:3]))
        reads += 1
    assert [writer.exitcode for writer in writers] == [0, 0] and reads > 0
    assert not [path.name for path in record.parent.iterdir() if path != record]  # no temporary file left
    seen = parsed_files(monkeypatch)
    assert described(ConfigRepo.load(root, cached=True)) == described(ConfigRepo.load(root))
    assert len(seen) <= 4  # at most the files the smaller writer left out


def test_a_datasource_with_a_password_text_is_never_copied_into_the_cache(tmp_path, monkeypatch):
    from tests.unit.entities.datasource_samples import DATASOURCE_TEXT, SECRET, write_repo

    root = write_repo(tmp_path / "conf", DATASOURCE_TEXT)
    seen = parsed_files(monkeypatch)
    first = ConfigRepo.load(root, cached=True)
    assert SECRET not in record_of(root).read_text(encoding="utf-8")
    second = ConfigRepo.load(root, cached=True)
    assert seen.count("datasources/sales-db.yaml") == 2  # parsed each time, the others served from the cache
    assert seen.count("feeds/customers.yaml") == 1
    assert described(first) == described(second) == described(ConfigRepo.load(root))


def test_a_file_larger_than_one_read_is_served_whole(tmp_path, monkeypatch):
    """A file is read in parts of 64 KiB: a long description (a comment here) of a feed still comes back whole,
    from the parse as from the cache."""
    root = small_repo(tmp_path / "conf")
    raw = root / "feeds" / "raw.yaml"
    raw.write_text(raw.read_text() + "".join(f"# note {n:06d} {'x' * 60}\n" for n in range(3000)))  # 220 KB
    assert raw.stat().st_size > 3 * (1 << 16)
    seen = parsed_files(monkeypatch)
    first = ConfigRepo.load(root, cached=True)
    second = ConfigRepo.load(root, cached=True)
    assert seen.count("feeds/raw.yaml") == 1  # the second load took it from the cache: its whole bytes matched
    assert described(first) == described(second) == described(ConfigRepo.load(root))
    raw.write_text(raw.read_text()[:-10] + "y" * 9 + "\n")  # its last part changed, same size
    ConfigRepo.load(root, cached=True)
    assert seen.count("feeds/raw.yaml") == 2
