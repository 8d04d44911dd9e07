"""The server a JDBC URL names, its host, port and database, read from every form drivers take, so that what is
built from it (a lineage dataset's namespace and name) holds those and nothing else: never a user, a password or
another property of the URL.

- `jdbc:<sub>://[user[:password]@]host[:port][,host2...][/database][?...|;...]` (PostgreSQL, MySQL, MariaDB,
  DB2 `/database:prop=...;`, Netezza, HSQLDB `jdbc:hsqldb:hsql://`); an IPv6 host in brackets;
- SQL Server `jdbc:sqlserver://host[\\instance][:port];databaseName=...` or `;serverName=...;portNumber=...`;
- Teradata `jdbc:teradata://host/DATABASE=...,DBS_PORT=...`;
- Connector/J's `jdbc:mysql://(host=...,port=...)/db` and `jdbc:mysql://address=(host=...)(port=...)/db`;
- Oracle `jdbc:oracle:thin:[user/password]@//host:port/service`, `@host:port:SID`, `@(DESCRIPTION=...(HOST=...)
  (PORT=...)...(SERVICE_NAME=...))`.

A part that is not a plain host name, port number or database name is left out (""), as is every part of a form
not listed (an embedded database: `jdbc:hsqldb:mem:x`) and of a URL holding a blank (no URL). The URL is read as
the one masker (toolkit/secrets_masking.py) shows it, without its user info: the host is what follows the last `@`
of the user info (a password may hold `/ ; ? # , @`), and a parameter is never read from inside a password's
value (`;password=a,databaseName=x;`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.secrets_masking import masked, without_user_info

_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*|\[[0-9A-Fa-f:.]+\]")
_PORT = re.compile(r"[0-9]{1,5}")
_DATABASE = re.compile(r"[A-Za-z0-9_$#][A-Za-z0-9_$#.\-]*")
_PARAMETER = re.compile(r"(?i)(?:^|[;,&?(:/])\s*([\w.]+)\s*=\s*(\{(?:[^}]|\}\})*\}|[^;,&)(]*)")
_ORACLE = re.compile(r"(?is)^jdbc:oracle:[a-z0-9]+:(?:\"[^\"]*\"|[^@\"])*@(?P<rest>.*)$")
_SUBPROTOCOL_AUTHORITY = re.compile(r"(?i)^jdbc:(?:[a-z0-9]+:)+//(?P<rest>.*)$", re.DOTALL)


@dataclass(frozen=True)
class JdbcServer:
    host: str = ""
    port: str = ""
    database: str = ""


def server_of(url: str) -> JdbcServer:
    """The host, port and database `url` names (each "" when it names none, or none a name could hold)."""
    if any(character.isspace() for character in url.strip()):
        return JdbcServer()
    url = without_user_info(masked(url.strip()))
    oracle = _ORACLE.match(url)
    if oracle is not None:
        return _oracle(oracle["rest"])
    found = _SUBPROTOCOL_AUTHORITY.match(url)
    if found is None:
        return JdbcServer()
    rest = found["rest"]
    parameters = _parameters(rest)
    if rest.startswith("(") or rest.lower().startswith("address="):  # Connector/J's key-value hosts
        host, port = parameters.get("host", ""), parameters.get("port", "")
        path = rest[rest.find(")/") + 1:] if ")/" in rest else ""
    else:
        user_info_end = re.split(r"[/?;#]", rest, maxsplit=1)[0].rfind("@")  # a user alone (its password is gone)
        rest = rest[user_info_end + 1:]
        authority_end = re.search(r"[/;?#,]|$", rest)
        assert authority_end is not None  # `$` always matches
        host, port = _host_and_port(rest[:authority_end.start()])
        path = rest[authority_end.start():]
        if path.startswith(","):  # more hosts: the first one is named
            path = path[path.find("/"):] if "/" in path else ""
    host = host or parameters.get("servername", "")
    port = port or parameters.get("portnumber", "") or parameters.get("dbs_port", "")
    database = ""
    if path.startswith("/"):
        database = re.split(r"[/;?:,&]", path[1:])[0]
        if "=" in database:  # Teradata's `/DATABASE=...,`: a parameter, no name
            database = ""
    database = database or parameters.get("databasename", "") or parameters.get("database", "")
    return _checked(host, port, database)


def _oracle(rest: str) -> JdbcServer:
    rest = rest.strip()
    if rest.startswith("("):  # a TNS descriptor
        parameters = _parameters(rest)
        return _checked(parameters.get("host", ""), parameters.get("port", ""),
                        parameters.get("service_name", "") or parameters.get("sid", ""))
    address, _, service = rest.removeprefix("//").partition("/")
    host, port, sid = (address.split(":") + ["", ""])[:3]
    return _checked(host, port, (service or sid).split("?")[0])


def _host_and_port(address: str) -> tuple[str, str]:
    """`host`, `host:port`, `[v6]:port`, SQL Server's `host\\instance:port`."""
    if address.startswith("["):
        host, _, port = address.partition("]")
        return host + "]", port.removeprefix(":")
    host, _, port = address.partition(":")
    return host.split("\\")[0], port


def _parameters(text: str) -> dict[str, str]:
    """The `name=value` parameters of a URL, names lower-cased, braces around a value taken off; the first of a
    name wins."""
    found: dict[str, str] = {}
    for name, value in _PARAMETER.findall(text):
        found.setdefault(name.lower(), value.strip().removeprefix("{").removesuffix("}"))
    return found


def _checked(host: str, port: str, database: str) -> JdbcServer:
    host_ok = _HOST.fullmatch(host) is not None
    return JdbcServer(host.lower() if host_ok else "",
                      port if host_ok and _PORT.fullmatch(port) else "",
                      database if _DATABASE.fullmatch(database) else "")
