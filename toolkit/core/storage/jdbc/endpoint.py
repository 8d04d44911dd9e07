"""Where a database is and who connects: what Spark's JDBC source and a connection of the driver's JVM both take.
The password is held here only, kept out of `repr` (and so out of every message that shows the record), as is one
given inside the URL or a property (masked: toolkit/secrets_masking.py): nothing the toolkit prints, records or
sends holds it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from toolkit.core.storage.jdbc.dialect import SqlDialect
from toolkit.core.storage.jdbc.server import server_of
from toolkit.secrets_masking import masked, masked_properties


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
            raise ValueError(f"{masked(self.url)} is not a JDBC URL")
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))

    def __repr__(self) -> str:  # the URL and the properties as shown: a secret given in them masked
        return (f"JdbcEndpoint(url={self.shown_url!r}, user={self.user!r}, driver_class={self.driver_class!r}, "
                f"jars={self.jars!r}, dialect={self.dialect.name!r}, "
                f"properties={masked_properties(self.properties)!r})")

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
        """The URL as messages show it: every password or other secret given in it masked (secrets_masking.py)."""
        return masked(self.url)

    @property
    def host_and_port(self) -> tuple[str, str]:
        """The server's host and port as the URL names them, in any of its forms (core/storage/jdbc/server.py):
        ("db", "5432") for `jdbc:postgresql://db:5432/sales`; "" for what it names none of (an embedded database)."""
        server = server_of(self.url)
        return server.host, server.port

    @property
    def database(self) -> str:
        """The database the URL names (a path's first part, SQL Server's `databaseName`, Oracle's service or SID),
        "" when it names none."""
        return server_of(self.url).database
