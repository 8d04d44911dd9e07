"""The entities package in a fresh interpreter: importing it and loading the template repo loads no pyspark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"


def test_importing_the_entities_package_leaves_pyspark_out():
    code = (
        "import sys, toolkit.core.entities; "
        "toolkit.core.entities.ConfigRepo.load(sys.argv[1]); "
        "assert 'pyspark' not in sys.modules, 'pyspark imported'"
    )
    subprocess.run([sys.executable, "-c", code, str(TEMPLATE)], check=True)
