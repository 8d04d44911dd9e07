"""`toolkit lint` in a fresh interpreter: linting the template repo loads neither pyspark nor py4j."""

from __future__ import annotations

import subprocess
import sys

from tests.unit.lint.overlay import TEMPLATE


def test_linting_leaves_pyspark_out() -> None:
    code = (
        "import sys; from toolkit.cli.main import main; "
        f"rc = main(['lint', {str(TEMPLATE)!r}]); "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')); "
        "print(rc, loaded)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "0 []"
