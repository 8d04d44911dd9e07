"""Where a revision is extracted (toolkit/change_plan/revisions.py): a temporary folder that cannot be made is one
sentence naming it (exit 2), not a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from toolkit.change_plan.revisions import revision_scratch
from toolkit.errors import UsageError


def test_a_scratch_folder_that_cannot_be_made_is_one_sentence_naming_where(monkeypatch, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    monkeypatch.setenv("TMPDIR", str(missing))  # TMPDIR set: not in memory
    monkeypatch.setattr(tempfile, "tempdir", str(missing))  # as gettempdir() answers when TMPDIR is that folder
    with pytest.raises(UsageError) as caught, revision_scratch("toolkit-plan-"):
        pass
    said = str(caught.value)
    assert said.startswith(f"Cannot make a scratch folder for a revision in {missing}/toolkit-plan-"), said
    assert said.endswith("(set TMPDIR to a folder this user can write).") and "\n" not in said
