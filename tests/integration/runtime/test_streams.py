"""The driver's stderr pointed back at the stderr of its parent, which merges the child's streams as spark-submit's
PythonRunner does (a Python parent stands in for the JVM here; tests/integration/runtime/ run the real one)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

CHILD = textwrap.dedent("""
    import sys
    from toolkit.services.runtime.streams import separate_stderr
    moved = separate_stderr()
    print("status", flush=True)
    print(f"for people (moved: {moved})", file=sys.stderr, flush=True)
""")
# Like PythonRunner: the child's stderr merged into its stdout, relayed to the parent's stdout.
PARENT = textwrap.dedent("""
    import subprocess, sys
    child = subprocess.run([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.buffer.write(child.stdout)
""")


def run_merging_parent(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PARENT, CHILD], capture_output=True, text=True, cwd=PROJECT,
                          env={**os.environ, "PYTHONPATH": PROJECT, **env}, timeout=60)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs Linux's /proc")
def test_under_spark_submit_the_sentences_reach_the_parents_stderr_and_stdout_keeps_the_status() -> None:
    result = run_merging_parent({"PYSPARK_GATEWAY_PORT": "1"})
    assert result.stdout == "status\n"
    assert result.stderr == "for people (moved: True)\n"


def test_elsewhere_the_streams_are_left_as_they_are() -> None:
    env = {name: value for name, value in os.environ.items() if name != "PYSPARK_GATEWAY_PORT"}
    result = subprocess.run([sys.executable, "-c", PARENT, CHILD], capture_output=True, text=True, cwd=PROJECT,
                            env={**env, "PYTHONPATH": PROJECT}, timeout=60)
    assert result.stdout == "status\nfor people (moved: False)\n" and result.stderr == ""


def test_a_parent_run_with_its_stderr_on_its_stdout_still_shows_both() -> None:
    """Run as `spark-submit ... 2>&1`: both lines reach the one stream, as the caller asked."""
    result = subprocess.run([sys.executable, "-c", PARENT, CHILD], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=PROJECT, env={**os.environ, "PYTHONPATH": PROJECT,
                                                         "PYSPARK_GATEWAY_PORT": "1"}, timeout=60)
    assert sorted(result.stdout.splitlines()) == ["for people (moved: True)", "status"]
