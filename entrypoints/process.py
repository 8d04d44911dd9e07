"""spark-submit entrypoint: run one instance of a process on a cluster.

    spark-submit entrypoints/process.py --repo conf/ --process hourly-clicks-summary --cluster primary \
        --time 2026-11-21T10:00Z

Exit codes (docs/exit-codes.md): 0 succeeded, 1 failed or timed out (after the retries), 2 bad call or config,
3 waiting for inputs, 4 skipped (outside validity, suspended, already succeeded without --force), 5 blocked
(safemode, the instance locked by a live run, `parallel` reached). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.process_runner.process_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
