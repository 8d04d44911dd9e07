"""spark-submit entrypoint: import one instance of a feed from the database table its import policy names on a
cluster (Falcon's datasource and import, Sqoop's job), through Spark's JDBC source.

    spark-submit entrypoints/import.py --repo conf/ --feed customers --cluster primary --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 imported, 1 failed (nothing published), 2 bad call or config, 4 skipped (imported
already: --force to import it again; outside the feed's validity; the feed suspended), 5 blocked (another run holds
the import's lease, or safemode). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.database_import.import_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
