"""The Falcon converter in a fresh interpreter: importing it loads neither pyspark nor py4j."""

from __future__ import annotations

import subprocess
import sys


def test_the_converter_leaves_pyspark_out() -> None:
    modules = ("toolkit.authoring.convert.falcon_xml, toolkit.authoring.convert.repo_writer, "
               "toolkit.cli.commands.convert")
    code = f"import sys, {modules}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
