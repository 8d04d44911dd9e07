"""The demo's long-lived Spark driver: runs entrypoint calls one after another in one JVM, so that `make demo` pays
one SparkContext start instead of one per call (each call still runs `entrypoints/<name>.py` whole, as spark-submit
runs it: its arguments, its session, its status line and exit code).

    spark-submit demo/driver.py --socket PATH

It listens on the Unix socket PATH (spark-submit gives a Python application no stdin) and serves one connection at a
time: each line a call as JSON, {"argv": ["retention", "--repo", ...], "env": {...}}, answered by one JSON line,
{"code", "stdout", "stderr", "seconds"}; `demo/submit.py` stands in for spark-submit by sending its call here (the
trigger sweep's runs). A line `"stop"` ends it. For the demo only: production runs one spark-submit per call
(docs/scheduling.md)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import runpy
import socket
import sys
import time
from pathlib import Path

ENTRYPOINTS = Path(__file__).resolve().parents[1] / "entrypoints"


def call(argv: list[str], env: dict[str, str]) -> dict[str, object]:
    """Run `entrypoints/<argv[0]>.py argv[1:]` (or the script argv[0] when it is a path to one) in this process with
    `env` added to the environment for the call; what it printed and its exit code."""
    script = Path(argv[0]) if argv[0].endswith(".py") else ENTRYPOINTS / f"{argv[0]}.py"
    out, err = io.StringIO(), io.StringIO()
    began = time.perf_counter()
    code: object = 0
    saved, saved_env = sys.argv, dict(os.environ)
    sys.argv = [str(script), *argv[1:]]
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        sys.argv = saved
        os.environ.clear()
        os.environ.update(saved_env)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(),
            "seconds": round(time.perf_counter() - began, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(prog="driver.py", description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="The Unix socket to serve the calls on.")
    args = parser.parse_args()
    binding = args.socket + ".new"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(binding)  # left by a driver killed between its bind and its rename
    with socket.socket(socket.AF_UNIX) as server:
        # The path its callers wait for appears only once it listens: a caller that found it right after the bind
        # was refused (seen in CI under load).
        server.bind(binding)
        server.listen()
        os.rename(binding, args.socket)
        while serve(server.accept()[0]):
            pass
    return 0


def serve(connection: socket.socket) -> bool:
    """Answer the calls of one connection; False when told to stop."""
    with connection, connection.makefile("rw", encoding="utf-8") as stream:
        for line in stream:
            request = json.loads(line)
            if request == "stop":
                return False
            stream.write(json.dumps(call(request["argv"], request.get("env", {}))) + "\n")
            stream.flush()
    return True


if __name__ == "__main__":
    sys.exit(main())
