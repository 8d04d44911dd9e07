"""spark-submit entrypoint: rewrite a closed instance of a streamed feed from many batch files into few.

    spark-submit entrypoints/compact.py --repo conf/ --feed clicks --cluster primary --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 compacted (or a killed run's compaction finished), 1 failed (told to the feed's
`notification`), 2 bad call or config (no ingest section, a time that is no instance of the feed), 3 waiting (the
instance is not closed yet), 4 skipped (nothing to compact, outside the feed's validity, or the feed is suspended),
5 blocked (safemode, or an ingest or compaction of the feed holds its lock). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.ingest.compact_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
