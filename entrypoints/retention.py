"""spark-submit entrypoint: evict the instances of one feed on one cluster older than its retention limit.

    spark-submit entrypoints/retention.py --repo conf/ --feed clicks --cluster primary --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 done or nothing to do, 1 failed, 2 bad call or config (a cluster on an object store
too), 4 skipped (after the feed's validity), 5 blocked (safemode, or another run holds the feed's retention
lease on the cluster). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.retention.retention_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
