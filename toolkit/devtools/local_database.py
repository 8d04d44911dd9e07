"""Real PostgreSQL and MariaDB servers on this machine, for the demo, the tests and benchmarks (docs/architecture.md,
"Real parts on one machine"): what the toolkit reads and writes through JDBC is checked against the servers and
drivers a cluster meets, not a stand-in that accepts SQL they refuse.

Debian's own packages run them (`make databases` installs what is missing): PostgreSQL 15 from
/usr/lib/postgresql/15/bin, named explicitly (/usr/bin/psql is postgresql-common's wrapper, which picks a version by
rules of its own, and what /usr/local/bin holds is up to each machine: on the development machine its postgres and
pg_ctl are links to these), and MariaDB's mariadbd with `--no-defaults` (Debian's /etc/mysql settings are not read).
Each server keeps its data, socket and log in one folder, listens on 127.0.0.1 only, and has a database and a user
`toolkit` whose fixed test password (`PASSWORD`) is checked for real over TCP (scram-sha-256, mysql_native_password):
only its hash is sent to the server, which keeps it in its catalog. The helpers `execute` and `create_database` run
the server's own client as its administrator, through the socket in the folder. As root (CI), PostgreSQL, which
refuses to run as root, runs as the `postgres` system user, owner of its data, with the one capability of searching
and reading folders (CAP_DAC_READ_SEARCH), since pytest's temporary folders are private to root; MariaDB runs as
root (`--user=root`).

    python -m toolkit.devtools.local_database --kind postgres --folder /tmp/pg --fresh -- printenv POSTGRES_JDBC_URL

starts a server (on a free port unless `--port`), runs the command while it answers, with POSTGRES_JDBC_URL,
POSTGRES_PORT, POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DRIVER and POSTGRES_DRIVER_JAR set (MARIADB_... for
`--kind mariadb`), stops it and exits with the command's exit code. `DatabaseServer.start(kind, folder)` does the
same from Python (tests/integration/databases.py builds fixtures on it).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from toolkit.devtools.local_metastore import free_port, port_answers

Kind = Literal["postgres", "mariadb"]
KINDS: tuple[Kind, ...] = get_args(Kind)

USER = "toolkit"
DATABASE = "toolkit"
PASSWORD = "toolkit-test-password"  # a fixed test value: the servers listen on 127.0.0.1 only and hold test data

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
_POSTGRES_ADMIN = "postgres"
_SERVER_USER = "postgres"  # the system user PostgreSQL runs as when started by root

# What each kind needs, and the Debian package that brings it.
_NEEDS: dict[Kind, dict[Path, str]] = {
    "postgres": {POSTGRES_BIN / "initdb": "postgresql-15", POSTGRES_BIN / "postgres": "postgresql-15",
                 POSTGRES_BIN / "psql": "postgresql-client-15",
                 Path("/usr/share/java/postgresql.jar"): "libpostgresql-jdbc-java"},
    "mariadb": {Path("/usr/bin/mariadb-install-db"): "mariadb-server", Path("/usr/sbin/mariadbd"): "mariadb-server",
                Path("/usr/bin/mariadb"): "mariadb-client",
                Path("/usr/share/java/mariadb-java-client.jar"): "libmariadb-java"},
}
_JARS: dict[Kind, Path] = {"postgres": Path("/usr/share/java/postgresql.jar"),
                           "mariadb": Path("/usr/share/java/mariadb-java-client.jar")}
_DRIVERS: dict[Kind, str] = {"postgres": "org.postgresql.Driver", "mariadb": "org.mariadb.jdbc.Driver"}
_SOCKET_PATH_MAX = 107  # a Unix socket's path, in sun_path's 108 bytes on Linux


class DatabaseStartError(RuntimeError):
    """The server did not answer: the message names the folder, why, and the end of its log (or the Debian package
    to install)."""


class DatabaseCommandError(RuntimeError):
    """The server's client failed: the message holds what it said."""


def require_packages(kind: Kind) -> None:
    """Refuse, naming the Debian packages to install, when a binary or JDBC driver `kind` needs is missing."""
    missing = sorted({package for path, package in _NEEDS[kind].items() if not path.exists()})
    if missing:
        paths = ", ".join(str(path) for path in _NEEDS[kind] if not path.exists())
        raise DatabaseStartError(f"{paths} missing: install Debian's {' '.join(missing)} (apt-get install "
                                 f"{' '.join(missing)}, as root, or `make databases`).")


def scram_sha_256(password: str, salt: bytes, iterations: int = 4096) -> str:
    """PostgreSQL's stored form of a password (RFC 5802, RFC 7677): the server checks logins against it."""
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    encode = base64.b64encode
    return (f"SCRAM-SHA-256${iterations}:{encode(salt).decode()}$"
            f"{encode(hashlib.sha256(client_key).digest()).decode()}:{encode(server_key).decode()}")


def mysql_native_password(password: str) -> str:
    """MariaDB's stored form of a password for mysql_native_password: '*' and SHA1(SHA1(password)) in hex."""
    return "*" + hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest().upper()


def _is_root() -> bool:
    return os.geteuid() == 0


def _as_server_user() -> list[str]:
    """How PostgreSQL's programs are run: as the `postgres` system user when we are root, with the one capability
    of searching folders (pytest's temporary folders are private to root), as ourselves otherwise."""
    if not _is_root():
        return []
    try:
        pwd.getpwnam(_SERVER_USER)
    except KeyError:
        raise DatabaseStartError(f"No `{_SERVER_USER}` system user, which PostgreSQL runs as when started by root: "
                                 "install Debian's postgresql-15 (apt-get install postgresql-15).") from None
    return ["setpriv", f"--reuid={_SERVER_USER}", f"--regid={_SERVER_USER}", "--init-groups",
            "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "--bounding-set=-all,+dac_read_search"]


def _client_environment() -> dict[str, str]:
    """Our environment without the clients' own variables (PGHOST, MYSQL_HOST, ...): the arguments say it all."""
    return {key: value for key, value in os.environ.items() if not key.startswith(("PG", "MYSQL", "MARIADB"))}


def _data(folder: Path) -> Path:
    return folder / "data"


def _sockets(folder: Path) -> Path:
    return folder / "run"


def _log(kind: Kind, folder: Path) -> Path:
    return folder / f"{kind}.log"


def _log_tail(kind: Kind, folder: Path) -> str:
    log = _log(kind, folder)
    return log.read_text(errors="replace")[-3000:] if log.exists() else ""


@dataclass
class DatabaseServer:
    """One running PostgreSQL or MariaDB server: its kind, folder, port and process."""

    kind: Kind
    folder: Path
    port: int
    process: subprocess.Popen[bytes]
    started_in: float  # seconds from launch until the test user's login over TCP worked

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def user(self) -> str:
        return USER

    @property
    def password(self) -> str:
        return PASSWORD

    def jdbc_url(self, database: str = DATABASE) -> str:
        """The URL of `database` for Spark's JDBC source. MariaDB's is jdbc:mysql: (MariaDB's driver 2.x takes it),
        so that Spark picks its MySQL dialect (identifiers in backquotes): Spark has no MariaDB dialect, and its
        generic one quotes identifiers with double quotes, which MariaDB reads as strings."""
        scheme = "postgresql" if self.kind == "postgres" else "mysql"
        return f"jdbc:{scheme}://{self.host}:{self.port}/{database}"

    @property
    def driver_class(self) -> str:
        return _DRIVERS[self.kind]

    @property
    def driver_jar(self) -> Path:
        """Debian's JDBC driver (libpostgresql-jdbc-java, libmariadb-java)."""
        return _JARS[self.kind]

    @property
    def jdbc_properties(self) -> dict[str, str]:
        """The `properties` of Spark's `read.jdbc` and `write.jdbc` for the test user."""
        return {"user": self.user, "password": self.password, "driver": self.driver_class}

    @property
    def data(self) -> Path:
        return _data(self.folder)

    @property
    def sockets(self) -> Path:
        """Where the server's Unix socket is (and PostgreSQL's lock file of it)."""
        return _sockets(self.folder)

    @property
    def log(self) -> Path:
        return _log(self.kind, self.folder)

    @classmethod
    def start(cls, kind: Kind, folder: Path, port: int | None = None, timeout: float = 60.0,
              attempts: int = 3) -> DatabaseServer:
        """Start a `kind` server in `folder` and wait until the test user logs in over TCP. The data folder is
        initialised when it is new (a data folder of an earlier run is reused); the database and user `toolkit` are
        made when missing. Without `port`, a free one is picked (a new one if it was taken meanwhile); a given port
        that already answers is refused."""
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} is none of {', '.join(KINDS)}")
        require_packages(kind)
        folder = Path(folder).resolve()
        if len(str(_sockets(folder) / ".s.PGSQL.65535.lock")) > _SOCKET_PATH_MAX:
            raise DatabaseStartError(f"{folder} is too long a path for the server's Unix socket in it (at most "
                                     f"{_SOCKET_PATH_MAX} bytes): choose a shorter one.")
        if port is not None and port_answers(port):
            raise DatabaseStartError(f"Port {port} already answers on 127.0.0.1: stop what listens there (another "
                                     f"{kind} server?) or choose another port.")
        launched = time.monotonic()
        _initialise(kind, folder)
        failure = ""
        for _ in range(1 if port is not None else attempts):
            chosen = port if port is not None else free_port()
            server = cls(kind, folder, chosen, _launch(kind, folder, chosen), 0.0)
            failure = server._wait_for_login(launched, timeout)
            if not failure:
                server.started_in = time.monotonic() - launched
                return server
            exited = server.process.poll() is not None  # as when the port was taken meanwhile: a new attempt
            server.stop()
            if not exited or time.monotonic() - launched >= timeout:
                break
        raise DatabaseStartError(f"The {kind} server in {folder} did not start ({failure}); its log ends:\n"
                                 f"{_log_tail(kind, folder)}")

    # -- helpers for tests and demos ------------------------------------------------------------------------------

    def execute(self, sql: str, database: str = DATABASE, password: str | None = None) -> str:
        """Run `sql` with the server's own client (psql, mariadb) and return its rows, one a line, columns separated
        by tabs. Without `password`, as the server's administrator through its socket; with one, as the test user
        over TCP on 127.0.0.1, as a JDBC client logs in. The SQL goes by standard input, never on a command line."""
        if self.kind == "postgres":
            command = [str(POSTGRES_BIN / "psql"), "-X", "-q", "-w", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                       "-d", database, "-p", str(self.port)]
            command += (["-h", str(self.sockets), "-U", _POSTGRES_ADMIN] if password is None else
                        ["-h", self.host, "-U", self.user])
            secret = "PGPASSWORD"
        else:
            command = ["/usr/bin/mariadb", "--no-defaults", "--batch", "--skip-column-names", f"--database={database}"]
            command += ([f"--socket={self.sockets / 'mariadb.sock'}", f"--user={_os_user()}"] if password is None else
                        ["--protocol=TCP", f"--host={self.host}", f"--port={self.port}", f"--user={self.user}"])
            secret = "MYSQL_PWD"
        environment = _client_environment() | ({secret: password} if password is not None else {})
        client = Path(command[0]).name
        try:
            done = subprocess.run(command, input=sql.encode(), capture_output=True, timeout=60, check=False,
                                  env=environment)
        except subprocess.TimeoutExpired:
            raise DatabaseCommandError(f"{client} did not finish within 60 s") from None
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip()
            raise DatabaseCommandError(f"{client} failed (exit {done.returncode}): {said}")
        return done.stdout.decode(errors="replace")

    def create_database(self, name: str) -> None:
        """An empty database `name` (letters, digits, underscores) the test user may use; an existing one is dropped
        first."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"database name {name!r}: letters, digits and underscores only")
        if self.kind == "postgres":
            self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE);\n'
                         f'CREATE DATABASE "{name}" OWNER {self.user};', database="postgres")
        else:
            self.execute(f"DROP DATABASE IF EXISTS `{name}`; CREATE DATABASE `{name}`; "
                         f"GRANT ALL PRIVILEGES ON `{name}`.* TO '{self.user}'@'{self.host}';", database="mysql")

    def stop(self) -> None:
        """Shut the server down (PostgreSQL's fast shutdown: open sessions are ended) and wait for it."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT if self.kind == "postgres" else signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)

    # -- starting ----------------------------------------------------------------------------------------------------

    def _wait_for_login(self, launched: float, timeout: float) -> str:
        """Wait until the administrator gets in through the socket, make the database and user when missing, then
        wait until the test user logs in over TCP with its password. Returns why not, or "" when it did."""
        set_up = False
        last = "no answer yet"
        while time.monotonic() - launched < timeout:
            if self.process.poll() is not None:
                return f"it exited with code {self.process.returncode}"
            try:
                if not set_up:
                    self.execute(self._setup_sql(), database="postgres" if self.kind == "postgres" else "mysql")
                    set_up = True
                if self.execute("SELECT 1", password=self.password).strip() == "1":
                    return ""
            except DatabaseCommandError as err:
                last = str(err)
            time.sleep(0.1)
        return f"the test user could not log in on port {self.port} within {timeout:g} s: {last}"

    def _setup_sql(self) -> str:
        """The database and user `toolkit`, made when missing; the password goes as its hash."""
        if self.kind == "postgres":
            verifier = scram_sha_256(self.password, os.urandom(16))
            return (f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{self.user}') THEN "
                    f"CREATE ROLE {self.user} LOGIN CREATEDB; END IF; END$$;\n"
                    f"ALTER ROLE {self.user} PASSWORD '{verifier}';\n"
                    f"SELECT 'CREATE DATABASE {DATABASE} OWNER {self.user}' "
                    f"WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{DATABASE}')\\gexec\n")
        account = f"'{self.user}'@'{self.host}'"
        return (f"CREATE USER IF NOT EXISTS {account};\n"
                f"ALTER USER {account} IDENTIFIED BY PASSWORD '{mysql_native_password(self.password)}';\n"
                f"CREATE DATABASE IF NOT EXISTS `{DATABASE}`;\n"
                f"GRANT ALL PRIVILEGES ON `{DATABASE}`.* TO {account};\n")


def _initialise(kind: Kind, folder: Path) -> None:
    """The folders, then initdb or mariadb-install-db into the empty data folder (one of an earlier run is kept)."""
    data, sockets = _data(folder), _sockets(folder)
    for path in (folder, data, sockets, *([folder / "tmp"] if kind == "mariadb" else [])):
        path.mkdir(parents=True, exist_ok=True)
    for path in (data, sockets):
        path.chmod(0o700)
        if kind == "postgres" and _is_root():
            shutil.chown(path, _SERVER_USER, _SERVER_USER)
    if any(data.iterdir()):
        if (data / ("PG_VERSION" if kind == "postgres" else "mysql")).exists():
            return
        raise DatabaseStartError(f"{data} holds files but no {kind} data folder: empty it (or give --fresh).")
    if kind == "postgres":
        program = POSTGRES_BIN / "initdb"
        command = [*_as_server_user(), str(program), "--pgdata", str(data), "--username", _POSTGRES_ADMIN,
                   "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8",
                   "--no-sync", "--no-instructions"]
    else:
        program = Path("/usr/bin/mariadb-install-db")
        command = [str(program), "--no-defaults", f"--datadir={data}", f"--auth-root-socket-user={_os_user()}",
                   "--skip-test-db", "--skip-name-resolve", *(["--user=root"] if _is_root() else [])]
    with open(_log(kind, folder), "ab") as log:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=folder,
                              timeout=300, check=False)
    if done.returncode != 0:
        raise DatabaseStartError(f"{program.name} failed in {data} (exit {done.returncode}); the log ends:\n"
                                 f"{_log_tail(kind, folder)}")


def _launch(kind: Kind, folder: Path, port: int) -> subprocess.Popen[bytes]:
    """The server on 127.0.0.1:`port` and a socket in the folder, its output appended to its log."""
    if kind == "postgres":
        # Test data: no waiting for the disk (fsync and full pages off), as a throwaway server may.
        command = [*_as_server_user(), str(POSTGRES_BIN / "postgres"), "-D", str(_data(folder)), "-p", str(port),
                   "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={_sockets(folder)}",
                   "-c", "unix_socket_permissions=0700", "-c", "fsync=off", "-c", "synchronous_commit=off",
                   "-c", "full_page_writes=off"]
    else:
        command = ["/usr/sbin/mariadbd", "--no-defaults", f"--datadir={_data(folder)}", f"--port={port}",
                   "--bind-address=127.0.0.1", f"--socket={_sockets(folder) / 'mariadb.sock'}",
                   f"--pid-file={_sockets(folder) / 'mariadb.pid'}", f"--tmpdir={folder / 'tmp'}",
                   "--skip-name-resolve", *(["--user=root"] if _is_root() else [])]
    with open(_log(kind, folder), "ab") as log:
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=folder)


def _os_user() -> str:
    """Our system user's name: MariaDB's administrator account, which logs in through the socket as that user
    (unix_socket authentication)."""
    return pwd.getpwuid(os.geteuid()).pw_name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.devtools.local_database",
        description="Run a command while a local PostgreSQL or MariaDB server answers on 127.0.0.1, with "
                    "<KIND>_JDBC_URL, <KIND>_PORT, <KIND>_USER, <KIND>_PASSWORD, <KIND>_DRIVER and <KIND>_DRIVER_JAR "
                    "set (KIND: POSTGRES or MARIADB); exit with the command's exit code.")
    parser.add_argument("--kind", choices=KINDS, required=True, help="Which server.")
    parser.add_argument("--folder", type=Path, required=True, help="Where the server keeps its data, socket and log.")
    parser.add_argument("--port", type=int, default=None, help="The TCP port (default: a free one).")
    parser.add_argument("--timeout", type=float, default=60.0, help="Seconds to wait for the server (default 60).")
    parser.add_argument("--fresh", action="store_true", help="Empty the folder first: a new, empty server.")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run.")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if args.fresh and args.folder.exists():
        shutil.rmtree(args.folder)
    try:
        server = DatabaseServer.start(args.kind, args.folder, args.port, args.timeout)
    except DatabaseStartError as err:
        print(f"local_database: {err}", file=sys.stderr)
        return 1
    prefix = args.kind.upper()
    told = {f"{prefix}_JDBC_URL": server.jdbc_url(), f"{prefix}_PORT": str(server.port),
            f"{prefix}_USER": server.user, f"{prefix}_PASSWORD": server.password,
            f"{prefix}_DRIVER": server.driver_class, f"{prefix}_DRIVER_JAR": str(server.driver_jar)}
    try:
        return subprocess.run(command, check=False, env={**os.environ, **told}).returncode
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
