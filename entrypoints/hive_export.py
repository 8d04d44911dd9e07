"""spark-submit entrypoint: export the partition of a table feed for one instance on a cluster into a directory.

    spark-submit entrypoints/hive_export.py --repo conf/ --feed sessions --cluster primary \
        --time 2026-11-21T00:00Z --to hdfs://backup-nn:8020/staging/sessions/20261121

The directory gets the partition's data files under data/ and, last, _metadata.json (schema, partition keys,
storage format, properties, partition values, files with sizes and CRC32C): with it, the export is complete.
Exit codes (docs/exit-codes.md): 0 exported, 1 failed (told to the feed's `notification`), 2 bad call or config, 3
the partition does not exist yet (call again later), 4 outside the feed's validity or the feed suspended, 5
safemode or another export of the instance holding its lease. The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.replication.hive.hive_entry import export_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(export_main())
