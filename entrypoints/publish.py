"""spark-submit entrypoint: record that an outside producer published an instance of a feed on a cluster (the
`toolkit publish` command for hdfs:// clusters and table feeds).

    spark-submit entrypoints/publish.py --repo conf/ --feed clicks --cluster primary --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 recorded (or recorded already), 1 failed, 2 bad call or config (a time that is no
instance of the feed), 3 waiting (the instance is not available yet), 4 skipped (outside the feed's validity), 5
blocked (safemode, or another publish of the instance running: named). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.publication.publish_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
