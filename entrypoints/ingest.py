"""spark-submit entrypoint: stream the records that producers drop into a feed's landing folder into its instances.

    spark-submit entrypoints/ingest.py --repo conf/ --feed clicks --cluster primary [--once | --for SECONDS]

Exit codes (docs/exit-codes.md): 0 ingested (or nothing to ingest), 1 failed, 2 bad call or config (no ingest
section, a landing folder that does not exist), 4 skipped (the feed is suspended), 5 blocked (safemode, or another
ingest of the feed holds its lock). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.ingest.ingest_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
