"""Where a database is and who connects: what Spark's JDBC source and a connection of the driver's JVM both take.
The password is held here only, kept out of `repr` (and so out of every message that shows the record), as is one
given inside the URL: nothing the toolkit prints, records or sends holds it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import urlsplit

from toolkit.storage.jdbc.dialect import SqlDialect

_PASSWORD_IN_URL = re.compile(r"(?i)\b(password|pwd)=[^;&]*")


@dataclass(frozen=True)
class JdbcEndpoint:
    """A JDBC URL, the user and password, the driver class and the jars that hold it, the connection properties,
    and the dialect of SQL the database speaks."""

    url: str
    user: str
    password: str = field(repr=False)
    driver_class: str
    jars: tuple[str, ...]
    dialect: SqlDialect
    properties: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.url.startswith("jdbc:"):
            raise ValueError(f"{self.url} is not a JDBC URL")
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))

    def __repr__(self) -> str:  # the URL as shown: a password given in it masked
        return (f"JdbcEndpoint(url={self.shown_url!r}, user={self.user!r}, driver_class={self.driver_class!r}, "
                f"jars={self.jars!r}, dialect={self.dialect.name!r})")

    def connection_properties(self) -> dict[str, str]:
        """What Spark's JDBC source and the driver take: the properties, the user, the password and the driver."""
        return {**self.properties, "user": self.user, "password": self.password, "driver": self.driver_class}

    def spark_options(self) -> dict[str, str]:
        """The options of Spark's JDBC source: the URL as Spark's dialect of this database wants it, the properties,
        the user, the password and the driver."""
        url, extra = self.dialect.spark_url(self.url)
        return {**extra, **self.connection_properties(), "url": url}

    @property
    def shown_url(self) -> str:
        """The URL as messages show it: a password given in it (`password=`, `pwd=`) masked."""
        return _PASSWORD_IN_URL.sub(lambda found: f"{found.group(1)}=***", self.url)

    @property
    def host_and_port(self) -> tuple[str, str]:
        """The server's host and port as the URL names them (`jdbc:postgresql://db:5432/sales`); ("", "") when it
        names none (an embedded database)."""
        rest = self.url[len("jdbc:"):]
        parts = urlsplit(rest if "://" in rest else "")
        try:
            port = str(parts.port or "")
        except ValueError:
            port = ""
        return parts.hostname or "", port

    @property
    def database(self) -> str:
        """The database the URL names (its path's first part), "" when it names none."""
        rest = self.url[len("jdbc:"):]
        path = urlsplit(rest).path if "://" in rest else ""
        return path.strip("/").split("/")[0].split(";")[0]
