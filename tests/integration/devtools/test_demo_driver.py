"""The demo's long-lived driver (demo/driver.py), its client and the spark-submit stand-in of its trigger sweep,
run by plain Python here (the protocol; `make demo` runs the driver under the real spark-submit)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.client import SOCKET_VARIABLE, ask

PROJECT = Path(__file__).resolve().parents[3]
SCRIPT = """
import os, sys
print("args", sys.argv[1:])
print("said to people", file=sys.stderr)
print("env", os.environ.get("DEMO_TEST_VALUE"))
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture
def driver(tmp_path: Path) -> Iterator[str]:
    path = str(tmp_path / "calls")
    process = subprocess.Popen([sys.executable, str(PROJECT / "demo" / "driver.py"), "--socket", path], cwd=PROJECT)
    deadline = time.monotonic() + 30
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    yield path
    ask_stop(path)
    assert process.wait(timeout=30) == 0


def ask_stop(path: str) -> None:
    import socket

    with socket.socket(socket.AF_UNIX) as connection:
        connection.connect(path)
        connection.sendall(b'"stop"\n')


def test_a_call_runs_the_script_whole_with_its_arguments_environment_output_and_exit_code(
        driver: str, tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    answer = ask(driver, [str(script), "3", "x y"], {"DEMO_TEST_VALUE": "given"})
    assert (answer.code, answer.stdout, answer.stderr) == (3, "args ['3', 'x y']\nenv given\n", "said to people\n")
    again = ask(driver, [str(script), "0"])  # the environment of a call is not left for the next one
    assert (again.code, again.stdout) == (0, "args ['0']\nenv None\n")


def test_the_stand_in_for_spark_submit_sends_its_script_and_arguments(driver: str, tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    result = subprocess.run([str(PROJECT / "demo" / "submit.py"), "--master", "local[1]", "--conf", "a=b",
                             str(script), "4", "--time", "2026-01-01T00:00Z"], capture_output=True, text=True,
                            env={**os.environ, SOCKET_VARIABLE: driver}, timeout=60)
    assert result.returncode == 4
    assert result.stdout == "args ['4', '--time', '2026-01-01T00:00Z']\nenv None\n"
    assert result.stderr == "said to people\n"
