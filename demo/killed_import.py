"""The demo's killed import: `entrypoints/import.py` whole, as spark-submit runs it, with its process killed by
SIGKILL right after it published the hour's rows and before it moved the high-water mark (a power cut at the worst
moment; tests/kill_points.py, the code under test unchanged). For `make demo` only.

    spark-submit demo/killed_import.py --repo R --feed F --cluster C --time T
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.kill_points import dies_at  # noqa: E402
from toolkit.actions.database_import import runner  # noqa: E402
from toolkit.actions.database_import.import_entry import main  # noqa: E402

if __name__ == "__main__":
    dies_at(runner._Import, "_advance", 1)
    sys.exit(main())
