"""Great Expectations imported in a background thread while Spark starts (toolkit/services/quality/expectations.py
`import_early`): the gate then finds it imported, and an import that failed in the background is reported where
the gate needs it, in one sentence. Each case runs in a fresh interpreter: the import is once per process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

EARLY = textwrap.dedent("""
    import sys, threading
    from toolkit.services.quality import expectations
    expectations.import_early()
    names = [t.name for t in threading.enumerate()]
    expectations._early.join()
    print("imported in the background:", "great_expectations" in sys.modules, "great-expectations-import" in names)
    """)
BROKEN = textwrap.dedent("""
    import sys
    sys.modules["great_expectations"] = None  # an interpreter where the import fails
    from toolkit.services.quality import expectations
    expectations.import_early()
    try:
        expectations.validator()
    except expectations.MissingLibraryError as err:
        print("refused:", err)
    """)


def _run(code: str, tmp_path: Path) -> str:
    # A script, as under spark-submit: with `python -c`, PySpark takes the import for a doctest run and exits
    script = tmp_path / "early.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_import_runs_in_a_background_thread(tmp_path: Path) -> None:
    assert _run(EARLY, tmp_path).strip() == "imported in the background: True True"


def test_an_import_that_failed_in_the_background_is_told_where_the_gate_needs_it(tmp_path: Path) -> None:
    out = _run(BROKEN, tmp_path)
    assert out.startswith("refused: A feed declares a quality suite, but Great Expectations cannot be imported here")
    assert "Traceback" not in out
