"""The repo every entrypoint loads (`entry_frame.load_repo`): unchanged valid files come from the parse cache, an
edited file is read again, an invalid repo is refused as an uncached load refuses it, and $FEED_TOOLKIT_NO_CACHE
turns the cache off."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_config_repo import small_repo
from test_parse_cache import BROKEN, parsed_files

from toolkit.core.entities import ConfigRepo
from toolkit.core.entities import repo as repo_module
from toolkit.core.entities.parse_cache import cache_directory
from toolkit.errors import UsageError
from toolkit.services.runtime.entry_frame import load_repo


def test_an_action_parses_only_the_files_changed_since_the_last_run(tmp_path, monkeypatch):
    root = small_repo(tmp_path / "conf")
    seen = parsed_files(monkeypatch)
    load_repo(root)
    assert len(seen) == 7
    feed_file = root / "feeds" / "raw.yaml"
    feed_file.write_text(feed_file.read_text().replace("end: 2027-01-01T00:00Z", "end: 2028-01-01T00:00Z"))
    repo = load_repo(root)
    assert seen[7:] == ["feeds/raw.yaml"]  # the edited file only, whatever its mtime
    assert repo.feed("raw").clusters[0].validity.end.year == 2028
    assert [repr(entity) for entity in repo.entities] == [repr(entity) for entity in ConfigRepo.load(root).entities]


def test_an_invalid_file_is_refused_by_an_action_on_every_run(tmp_path):
    root = small_repo(tmp_path / "conf")
    load_repo(root)
    (root / "feeds" / "broken.yaml").write_text(BROKEN)
    with pytest.raises(UsageError) as uncached:
        ConfigRepo.load(root)
    for _ in range(2):  # never kept: refused again, in the same words
        with pytest.raises(UsageError) as cached:
            load_repo(root)
        assert str(cached.value) == str(uncached.value)


@pytest.mark.parametrize("value", ["1", "true", "YES", "on"])
def test_feed_toolkit_no_cache_makes_an_action_parse_every_file(tmp_path, monkeypatch, value):
    root = small_repo(tmp_path / "conf")
    monkeypatch.setenv("FEED_TOOLKIT_NO_CACHE", value)
    parsed: list[Path] = []
    real = repo_module.load_entity
    monkeypatch.setattr(repo_module, "load_entity", lambda file: parsed.append(file) or real(file))
    load_repo(root)
    load_repo(root)
    assert len(parsed) == 14  # every file, both times
    folder = cache_directory()
    assert folder is not None and not (folder / "config-repos").exists()
