"""spark-submit entrypoint: check a published instance of a feed against its data-quality suite (Great
Expectations), for data that outside systems wrote and for backfills. Nothing is published, moved or deleted.

    spark-submit entrypoints/quality_check.py --repo conf/ --feed clicks-hourly-summary --cluster primary \\
        --time 2026-11-21T10:00Z [--suite quality/other.json]

Exit codes (docs/exit-codes.md): 0 every expectation holds, 1 any fails (whatever the gate's on-failure says),
2 bad call or config (no suite, a suite that does not parse, a time that is no instance of the feed), 3 waiting
(the instance is not available yet). The last line on stdout is the JSON status, with `quality` ("11/12 passed")
and each expectation's result.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.quality_check.quality_check_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
