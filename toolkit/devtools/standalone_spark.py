"""A real Spark standalone cluster on this machine (a master and workers from pyspark's own jars), for the demo,
the tests and benchmarks (docs/architecture.md, "Real parts on one machine").

    python -m toolkit.devtools.standalone_spark --folder /tmp/spark-cluster --workers 2 -- make demo-cluster

starts a master on 127.0.0.1 (port 7077 unless `--port`), the workers (one core and `--worker-memory` each), waits
until every worker has registered, runs the command with `SPARK_MASTER` set to the master's URL, stops the cluster
and exits with the command's exit code. `StandaloneCluster.start(folder)` does the same from Python
(tests/integration/conftest.py shares one cluster per test session). Applications run in client deploy mode, so
their drivers stay on this machine and the executors are the workers' JVMs, each with its own Python workers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.devtools.local_metastore import free_port, java_executable, port_answers, spark_jars


class ClusterStartError(RuntimeError):
    """The master or a worker did not come up: the message names which, why, and the end of its log."""


@dataclass
class StandaloneCluster:
    """One running master and its workers: `url` is what `spark-submit --master` takes."""

    folder: Path
    port: int
    ui_port: int
    master: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    started_in: float = 0.0  # seconds from launch until every worker had registered

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    @classmethod
    def start(cls, folder: Path, workers: int = 2, port: int | None = None, worker_memory: str = "1g",
              timeout: float = 90.0) -> StandaloneCluster:
        """Start the master in `folder` (a free port when `port` is None; a given port that answers is refused), then
        `workers` workers of one core each, and wait until the master lists them all ALIVE."""
        folder = Path(folder).resolve()
        if port is not None and port_answers(port):
            raise ClusterStartError(f"Port {port} already answers on 127.0.0.1: stop what listens there (another "
                                    "Spark master?) or choose another port.")
        folder.mkdir(parents=True, exist_ok=True)
        launched = time.monotonic()
        chosen, ui_port = port if port is not None else free_port(), free_port()
        master = _launch(folder, "master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                            "--port", str(chosen), "--webui-port", str(ui_port)])
        cluster = cls(folder, chosen, ui_port, master)
        try:
            cluster._wait(lambda: port_answers(chosen), "master", timeout, launched)
            for index in range(workers):
                work = folder / f"worker-{index}"
                work.mkdir(exist_ok=True)
                cluster.workers.append(_launch(folder, f"worker-{index}", [
                    "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                    "--memory", worker_memory, "--work-dir", str(work), "--webui-port", str(free_port()),
                    cluster.url]))
            cluster._wait(lambda: cluster.alive_workers() >= workers, f"{workers} workers", timeout, launched)
        except BaseException:
            cluster.stop()
            raise
        cluster.started_in = time.monotonic() - launched
        return cluster

    def alive_workers(self) -> int:
        """How many workers the master lists as ALIVE (its web UI's JSON), 0 while it does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as answer:
                state = json.load(answer)
        except (OSError, ValueError):
            return 0
        return sum(1 for worker in state.get("workers", []) if worker.get("state") == "ALIVE")

    def _wait(self, ready: Callable[[], bool], what: str, timeout: float, launched: float) -> None:
        while time.monotonic() - launched < timeout:
            for name, process in [("master", self.master)] + [(f"worker-{i}", p) for i, p in enumerate(self.workers)]:
                if process.poll() is not None:
                    raise ClusterStartError(f"The Spark {name} in {self.folder} exited with code "
                                            f"{process.returncode}; its log ends:\n{_tail(self.folder, name)}")
            if ready():
                return
            time.sleep(0.3)
        raise ClusterStartError(f"The Spark standalone {what} in {self.folder} did not come up within {timeout:g} s; "
                                f"the master's log ends:\n{_tail(self.folder, 'master')}")

    def stop(self) -> None:
        """Workers first (their executors go with them), then the master."""
        for process in [*self.workers, self.master]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.workers, self.master]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=20)


def _launch(folder: Path, name: str, arguments: list[str]) -> subprocess.Popen[bytes]:
    """`$SPARK_HOME/bin/spark-class <class> ARGS` (it sets what the workers' executor launcher needs, such as
    SPARK_SCALA_VERSION, and execs the JVM), logging to `<folder>/<name>.log`."""
    java_executable()  # a clear error when there is no Java, before spark-class prints its own
    home = spark_jars().parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_DAEMON_MEMORY": "512m"}
    with open(folder / f"{name}.log", "ab") as log:
        return subprocess.Popen([str(home / "bin" / "spark-class"), *arguments], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, cwd=folder, env=env)


def _tail(folder: Path, name: str) -> str:
    log = folder / f"{name}.log"
    return log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.devtools.standalone_spark",
        description="Run a command while a Spark standalone master and workers answer on 127.0.0.1, with "
                    "SPARK_MASTER set to the master's URL; exit with the command's exit code.")
    parser.add_argument("--folder", type=Path, required=True, help="Where the master and workers keep logs and "
                        "their executors' work folders.")
    parser.add_argument("--port", type=int, default=7077, help="The master's port (default 7077).")
    parser.add_argument("--workers", type=int, default=2, help="How many workers, one core each (default 2).")
    parser.add_argument("--worker-memory", default="1g", help="Memory each worker offers executors (default 1g).")
    parser.add_argument("--timeout", type=float, default=90.0, help="Seconds to wait for the master and every "
                        "worker to come up (default 90; more on a busy machine).")
    parser.add_argument("--fresh", action="store_true", help="Empty the folder first.")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run.")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.fresh and args.folder.exists():
        shutil.rmtree(args.folder)
    try:
        cluster = StandaloneCluster.start(args.folder, args.workers, args.port, args.worker_memory, args.timeout)
    except ClusterStartError as err:
        print(f"standalone_spark: {err}", file=sys.stderr)
        return 1
    print(f"standalone_spark: {cluster.url} with {args.workers} workers answered in {cluster.started_in:.1f} s "
          f"(folder {args.folder})", flush=True)
    try:
        return subprocess.run(command, check=False, env={**os.environ, "SPARK_MASTER": cluster.url}).returncode
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
