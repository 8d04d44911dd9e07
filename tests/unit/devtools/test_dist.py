"""`make dist` refuses, in one sentence naming the folder, a source tree whose jar was not built (the wheel and
--jars need it), and writes nothing; the build itself is run end to end by
tests/integration/cluster/test_packed_environment.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.devtools.dist import PROJECT, DistError, build


def test_a_tree_without_the_jar_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "toolkit" / "core" / "storage" / "jvm").mkdir(parents=True)
    shutil.copy2(PROJECT / "pyproject.toml", project / "pyproject.toml")
    with pytest.raises(DistError, match=r"Expected the toolkit's one jar in .*toolkit/core/storage/jvm, found 0: "
                                        r"build it first \(`make jar`\)"):
        build(tmp_path / "out", [], project)
    assert not (tmp_path / "out").exists()

