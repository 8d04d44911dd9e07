"""The benchmarks' `find -delete` floor never reaches past their scratch folder: with no starting point, find works
on the current directory (a benchmark started from the checkout would delete it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.find_delete import find_delete_command  # noqa: E402


def test_the_command_names_every_folder_then_delete(tmp_path: Path) -> None:
    folders = [tmp_path / "data/a", tmp_path / "data/b b"]
    assert find_delete_command(folders, tmp_path) == ["find", str(folders[0]), str(folders[1]), "-delete"]


def test_an_empty_list_is_refused_rather_than_deleting_the_current_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no folder"):
        find_delete_command([], tmp_path)


@pytest.mark.parametrize("path", ["data/a", "/etc", "{scratch}/../elsewhere"])
def test_a_relative_path_or_one_outside_the_scratch_folder_is_refused(tmp_path: Path, path: str) -> None:
    with pytest.raises(ValueError, match="not under the benchmark's folder"):
        find_delete_command([path.format(scratch=tmp_path)], tmp_path)
