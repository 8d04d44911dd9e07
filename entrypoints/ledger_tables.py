"""spark-submit entrypoint: register (or refresh) external tables over a cluster's ledger records in the
cluster's metastore, so that the ledger is one SQL query away (docs/ledger.md, "The ledger as tables").

    spark-submit entrypoints/ledger_tables.py --repo conf/ --cluster primary [--dry-run]

Exit codes (docs/exit-codes.md): 0 registered or refreshed (or a dry run), 1 failed (the metastore), 2 bad call or
config (a table of the same name that is not the toolkit's, refused and kept), 5 blocked (safemode). The last
line on stdout is the JSON status.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import toolkit  # noqa: F401
except ImportError:  # run from a checkout without installing: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolkit.actions.ledger_tables.ledger_tables_entry import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
