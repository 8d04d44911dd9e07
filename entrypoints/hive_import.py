"""spark-submit entrypoint: import a partition that hive_export.py wrote into a table feed's table on a cluster.

    spark-submit entrypoints/hive_import.py --repo conf/ --feed sessions --cluster backup \
        --from hdfs://backup-nn:8020/staging/sessions/20261121

The table (named by the feed's catalog URI on --cluster) is created from the export when missing, or checked
against it (columns, partition keys, storage format); the files are moved into the partition's directory and only
then is the partition added or switched to them. Exit codes (docs/exit-codes.md): 0 imported, 1 failed (an incompatible
table or a damaged export changes nothing; told to the feed's `notification` when the export records an instance), 2
bad call or config, 4 another import consumed this export into the partition already, the export's instance is
outside the feed's validity, or the feed is suspended, 5 blocked (safemode, or another run holds the partition's
import lease). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.replication.hive.hive_entry import import_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(import_main())
