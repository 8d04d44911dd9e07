"""DOT of one lineage (tests/unit/lineage/ledger_writer.py) rendered by graphviz's `dot`, where it is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.unit.lineage.ledger_writer import replicated_with_a_late_input
from toolkit.views.lineage.dot import lineage_dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed (apt-get install graphviz)")
def test_dot_renders_with_graphviz(tmp_path: Path) -> None:
    lineage = replicated_with_a_late_input(tmp_path)
    result = subprocess.run(["dot", "-Tsvg"], input="\n".join(lineage_dot(lineage)), capture_output=True, text=True,
                            check=False)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.count('class="node"') == len(lineage.nodes)
    assert result.stdout.count('class="edge"') == len(lineage.edges)
