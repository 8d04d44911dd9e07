"""Column lineage's module in a fresh interpreter: importing it loads neither OpenLineage's SQL parser nor Spark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[3]


def test_importing_the_module_loads_neither_the_parser_nor_spark() -> None:
    code = ("import sys, toolkit.services.openlineage.column_lineage; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j', 'openlineage_sql')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT)
    assert result.stdout.strip() == "[]"
