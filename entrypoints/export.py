"""spark-submit entrypoint: export one published instance of a feed into the database table its export policy names
on a cluster (Falcon's datasource and export, Sqoop's export): staged, then loaded in one transaction.

    spark-submit entrypoints/export.py --repo conf/ --feed daily-sales --cluster primary --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 exported, 1 failed (the target table left as it was), 2 bad call or config, 3
waiting (the instance is not published yet), 4 skipped (exported already: --force to export it again; outside the
feed's validity; the feed suspended), 5 blocked (another run holds the export's lease, or safemode). The last line on
stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.database_export.export_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
