"""Where a revision is extracted (toolkit/views/plan/revisions.py): a temporary folder that cannot be made is one
sentence naming it (exit 2), not a traceback."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from toolkit.errors import UsageError
from toolkit.views.plan.revisions import revision_scratch


def test_a_scratch_folder_that_cannot_be_made_is_one_sentence_naming_where(monkeypatch, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("TMPDIR", str(missing))  # TMPDIR set: not in memory
    monkeypatch.setattr(tempfile, "tempdir", str(missing))  # as gettempdir() answers when TMPDIR is that folder
    with pytest.raises(UsageError) as caught, revision_scratch("toolkit-plan-", 0):
        pass
    said = str(caught.value)
    assert said.startswith(f"Cannot make a scratch folder for a revision in {missing}/toolkit-plan-"), said
    assert said.endswith("(set TMPDIR to a folder this user can write).") and "\n" not in said


@pytest.mark.skipif(not os.access("/dev/shm", os.W_OK | os.X_OK), reason="no /dev/shm on this machine")
def test_a_revision_is_written_in_memory_only_while_it_takes_under_a_quarter_of_its_room(monkeypatch,
                                                                                      tmp_path: Path) -> None:
    """/dev/shm is memory: with 4 GiB free there, a revision of just under 1 GiB is written there, one of 1 GiB in
    the temporary folder on disk (the old choice wrote any revision in memory once it had 1 GiB free)."""
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the temporary folder gettempdir() answers
    real = os.statvfs
    free = os.statvfs_result((4096, 4096, 1 << 20, 1 << 20, 1 << 20, 0, 0, 0, 0, 255))  # 4 GiB free
    monkeypatch.setattr(os, "statvfs", lambda path: free if str(path) == "/dev/shm" else real(path))
    with revision_scratch("toolkit-plan-", (1 << 30) - 1) as scratch:
        assert scratch.parent == Path("/dev/shm")
    with revision_scratch("toolkit-plan-", 1 << 30) as scratch:
        assert scratch.parent == tmp_path
