#!/usr/bin/env python3
"""A stand-in for spark-submit in the demo: sends its call to the demo's long-lived driver (demo/driver.py, found
through FEED_TOOLKIT_DEMO_DRIVER) instead of starting a JVM; the trigger sweep of the demo starts its runs with it
(`toolkit trigger --spark-submit demo/submit.py`). Its options are spark-submit's; the script and its arguments
are the call. Output and exit code are the call's."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from demo.client import SOCKET_VARIABLE, ask  # noqa: E402


def main(argv: list[str]) -> int:
    script = next(index for index, arg in enumerate(argv) if arg.endswith(".py"))
    answer = ask(os.environ[SOCKET_VARIABLE], [str(Path(argv[script]).resolve()), *argv[script + 1:]])
    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    return answer.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
