"""spark-submit entrypoint: check late data of a process and rerun the instances whose late inputs changed.

    spark-submit entrypoints/late_check.py --repo conf/ --process hourly-clicks-summary --cluster primary --sweep \
        --time 2026-11-21T16:05Z

Exit codes (docs/exit-codes.md): 0 checked (and reruns succeeded), 1 a rerun failed, 2 bad call or config,
3 a rerun's changed input is missing now (tried again at the next call), 4 the process is suspended,
5 blocked (safemode, or a rerun's instance locked). The last line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.process_runner.late_check_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
