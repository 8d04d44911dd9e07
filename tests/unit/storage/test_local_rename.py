"""The local file system's rename that refuses an existing target in one step, on the real disk: through
Linux's renameat2(RENAME_NOREPLACE) and through the fallback taken where it is missing (link(2) for a file,
mkdir(2) then rename(2) for a directory), including racing threads."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from toolkit.core.storage import local
from toolkit.core.storage.local import rename_no_replace


@pytest.fixture(params=["renameat2", "fallback"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fallback":
        monkeypatch.setattr(local, "_RENAMEAT2", None)  # as on a libc without it
    return str(request.param)


def test_a_file_and_a_folder_are_renamed_to_a_free_name(tmp_path: Path, way: str) -> None:
    (tmp_path / "file").write_text("data")
    (tmp_path / "folder/sub").mkdir(parents=True)
    (tmp_path / "folder/sub/x").write_text("x")

    rename_no_replace(str(tmp_path / "file"), str(tmp_path / "renamed"))
    rename_no_replace(str(tmp_path / "folder"), str(tmp_path / "moved"))

    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == \
        ["moved", "moved/sub", "moved/sub/x", "renamed"]
    assert (tmp_path / "renamed").read_text() == "data"


@pytest.mark.parametrize(("source", "target"), [("file", "other"), ("file", "empty"), ("folder", "empty"),
                                                ("folder", "other")])
def test_an_existing_target_is_refused_and_both_stay(tmp_path: Path, way: str, source: str, target: str) -> None:
    (tmp_path / "file").write_text("source")
    (tmp_path / "other").write_text("target")
    (tmp_path / "empty").mkdir()
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder/in").write_text("in")

    with pytest.raises(FileExistsError):
        rename_no_replace(str(tmp_path / source), str(tmp_path / target))

    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == \
        ["empty", "file", "folder", "folder/in", "other"]
    assert (tmp_path / "other").read_text() == "target"


def test_a_missing_source_is_refused(tmp_path: Path, way: str) -> None:
    with pytest.raises(FileNotFoundError):
        rename_no_replace(str(tmp_path / "missing"), str(tmp_path / "target"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["files", "empty folders"])
def test_of_eight_racing_renames_onto_one_name_one_wins(tmp_path: Path, way: str, kind: str) -> None:
    for round_ in range(20):
        folder = tmp_path / f"round-{round_}"
        folder.mkdir()
        for k in range(8):
            if kind == "files":
                (folder / f"source-{k}").write_text(f"content {k}")
            else:
                (folder / f"source-{k}").mkdir()
        barrier = threading.Barrier(8)
        won: list[int] = []

        def move(k: int, folder: Path = folder, barrier: threading.Barrier = barrier, won: list[int] = won) -> None:
            barrier.wait()
            try:
                rename_no_replace(str(folder / f"source-{k}"), str(folder / "target"))
                won.append(k)
            except FileExistsError:
                pass

        threads = [threading.Thread(target=move, args=(k,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        assert len(won) == 1, f"round {round_}: {won}"
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            ["target"] + [f"source-{k}" for k in range(8) if k != won[0]])
        if kind == "files":
            assert (folder / "target").read_text() == f"content {won[0]}"
