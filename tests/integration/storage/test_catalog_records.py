"""The catalog modules in a fresh interpreter: importing them loads neither pyspark nor py4j."""

from __future__ import annotations

import subprocess
import sys


def test_the_catalog_modules_leave_pyspark_out() -> None:
    modules = ["catalog", "catalog_records", "catalog_factory", "catalog_spark", "catalog_thrift", "hive_sql",
               "partition_names", "partition_specs", "spark_table_properties", "table_formats", "table_locations"]
    code = (f"import sys, {', '.join(f'toolkit.core.storage.{name}' for name in modules)}; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
