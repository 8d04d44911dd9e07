"""A real Hive metastore on this machine, for the demo, the tests and benchmarks (docs/architecture.md, "Real
parts on one machine").

The Thrift metastore server runs from the jars pyspark ships, with a Derby database and a warehouse in one
folder. Clients use 127.0.0.1 (Hive 2.3's server has no bind-address setting: it listens on every interface).

    python -m toolkit.devtools.local_metastore --folder /tmp/ms --port 9083 -- make demo-tables

starts a server, runs the command while it answers, stops it and exits with the command's exit code.
`MetastoreServer.start(folder)` does the same from Python (tests/integration/metastore.py builds fixtures on it).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_HIVE_SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName={db};create=true</value></property>
  <property><name>datanucleus.schema.autoCreateAll</name><value>true</value></property>
  <property><name>hive.metastore.schema.verification</name><value>false</value></property>
  <property><name>hive.metastore.warehouse.dir</name><value>{warehouse}</value></property>
  <property><name>hive.async.log.enabled</name><value>false</value></property>
</configuration>
"""


class MetastoreStartError(RuntimeError):
    """The server did not answer: the message names the folder, why, and the end of its log."""


def spark_jars() -> Path:
    """pyspark's jars folder, found without importing pyspark (no JVM is started here)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise MetastoreStartError("pyspark is not installed: install the toolkit with its spark extra "
                                  "(pip install 'feed-toolkit[spark]').")
    return Path(spec.origin).parent / "jars"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def listens(pid: int, port: int) -> bool | None:
    """Whether process `pid` holds the listening socket of TCP `port` (Linux's /proc); None where it cannot be told.
    A free port chosen before a JVM binds it can be taken meanwhile by another process, whose answer is not the
    server's."""
    try:
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as rows:
                next(rows)
                for row in rows:
                    fields = row.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                        inodes.add(f"socket:[{fields[9]}]")
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for descriptor in descriptors:
        try:
            if os.readlink(f"/proc/{pid}/fd/{descriptor}") in inodes:
                return True
        except OSError:
            continue
    return False


def java_executable() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise MetastoreStartError("No java on PATH (and no JAVA_HOME): the metastore server needs Java 17.")
    return found


@dataclass
class MetastoreServer:
    """One running Thrift metastore: its folder, port and process."""

    folder: Path
    port: int
    process: subprocess.Popen[bytes]
    started_in: float  # seconds from launch until the port answered

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    @property
    def warehouse(self) -> Path:
        return self.folder / "warehouse"

    @property
    def log(self) -> Path:
        return self.folder / "metastore.log"

    @classmethod
    def start(cls, folder: Path, port: int | None = None, timeout: float = 60.0,
              attempts: int = 3, java_options: Sequence[str] = ()) -> MetastoreServer:
        """Start a server in `folder` and wait until its port answers. Without `port`, a free one is picked
        (a new one if it was taken meanwhile); a given port that already answers is refused. `java_options` go
        to its JVM before the class path (the tests give theirs: tests/jvm_options.py)."""
        folder = Path(folder).resolve()
        if port is not None and port_answers(port):
            raise MetastoreStartError(f"Port {port} already answers on 127.0.0.1: stop what listens there "
                                      "(another metastore?) or choose another port.")
        conf = folder / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        (folder / "warehouse").mkdir(exist_ok=True)
        (folder / "tmp").mkdir(exist_ok=True)
        (conf / "hive-site.xml").write_text(_HIVE_SITE.format(db=folder / "derby",
                                                              warehouse=(folder / "warehouse").as_uri()))
        classpath = f"{conf}{os.pathsep}{spark_jars() / '*'}"
        failure = ""
        server: MetastoreServer | None = None
        for _ in range(1 if port is not None else attempts):
            chosen = port if port is not None else free_port()
            launched = time.monotonic()
            with open(folder / "metastore.log", "ab") as log:
                process = subprocess.Popen(
                    [java_executable(), "-Xmx512m", *java_options, f"-Djava.io.tmpdir={folder / 'tmp'}",
                     f"-Dderby.stream.error.file={folder / 'derby.log'}", "-cp", classpath,
                     "org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", str(chosen)],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
            server = cls(folder, chosen, process, 0.0)
            while time.monotonic() - launched < timeout:
                if process.poll() is not None:
                    failure = f"it exited with code {process.returncode}"
                    break
                if port_answers(chosen):
                    if listens(process.pid, chosen) is False:
                        failure = f"another process took port {chosen} before the server could bind it"
                        server.stop()
                        break
                    server.started_in = time.monotonic() - launched
                    return server
                time.sleep(0.2)
            else:
                failure = f"port {chosen} did not answer within {timeout:g} s"
                server.stop()
        tail = server.log.read_text(errors="replace")[-3000:] if server and server.log.exists() else ""
        raise MetastoreStartError(f"The metastore server in {folder} did not start ({failure}); its log ends:\n{tail}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.devtools.local_metastore",
        description="Run a command while a local Hive metastore (Thrift, Derby) answers on 127.0.0.1:PORT; "
                    "exit with the command's exit code.")
    parser.add_argument("--folder", type=Path, required=True,
                        help="Where the server keeps its Derby database, warehouse and log.")
    parser.add_argument("--port", type=int, default=9083, help="The Thrift port (default 9083).")
    parser.add_argument("--fresh", action="store_true", help="Empty the folder first: a new, empty metastore.")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run.")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if args.fresh and args.folder.exists():
        shutil.rmtree(args.folder)
    try:
        server = MetastoreServer.start(args.folder, args.port)
    except MetastoreStartError as err:
        print(f"local_metastore: {err}", file=sys.stderr)
        return 1
    print(f"local_metastore: {server.uri} answered in {server.started_in:.1f} s (folder {args.folder})", flush=True)
    try:
        return subprocess.run(command, check=False).returncode
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
