"""spark-submit entrypoint: pull one instance of a feed from its source clusters into a target cluster.

    spark-submit entrypoints/replication.py --repo conf/ --feed clicks --source primary --target backup \
        --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 done or nothing to do, 1 failed (a copy failed, a source instance did not come
before the feed's timeout, or an instance failed the feed's `block` quality gate on the target), 2 bad call or
config, 3 waiting for a source instance, 4 skipped (outside the overlap of the source's and target's validity),
5 blocked (safemode, or another run holds the instance's lease on the target). The last line on stdout is the JSON
status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.replication.replication_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
