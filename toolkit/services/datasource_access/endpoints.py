"""The JDBC endpoint of a datasource for an import (its `readonly` interface, else `write`) or an export (its
`write` interface), with the password read where the credential says:

- `password-file`: a `file:` URI is a file of the machine the action runs on; another URI (`hdfs://nn/...`) is
  read as given, and an absolute path (`/secrets/sales.password`) under the cluster's root, like every path of
  a feed; one trailing line break is not part of the password (editors add one);
- `password-alias`: the alias in the Hadoop credential provider `providerPath` (a JCEKS keystore), read through
  Hadoop's `Configuration.getPassword` in the Spark driver;
- `password-text`: as written (lint DS002 warns about it).

Every failure is one sentence naming the datasource, the field and the file or provider, never the password."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from toolkit.core.entities.model import Cluster, Credential, CredentialType, Datasource, DatasourceInterface
from toolkit.core.instances.feed_locations import under_root
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.jdbc.registry import dialect_for
from toolkit.errors import UsageError

READ, WRITE = "readonly", "write"

# Reads a password from a Hadoop credential provider: (provider path, alias) -> the password, or None when the
# provider holds no such alias. An entrypoint passes core/storage/jdbc/credential_provider.py's, bound to its session.
AliasReader = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class Purpose:
    """What the endpoint is for: the interfaces it may use, in order of preference, and the words of messages."""

    interfaces: tuple[str, ...]
    action: str  # "import", "export"


FOR_IMPORT = Purpose((READ, WRITE), "import")
FOR_EXPORT = Purpose((WRITE,), "export")


def interface_for(datasource: Datasource, purpose: Purpose) -> DatasourceInterface:
    """The interface an import reads (readonly, else write) or an export writes (write); UsageError otherwise."""
    for name in purpose.interfaces:
        if name in datasource.interfaces:
            return datasource.interfaces[name]
    wanted = " or ".join(f"interfaces.{name}" for name in purpose.interfaces)
    raise UsageError(f"Datasource '{datasource.name}' has no {wanted} interface, which an {purpose.action} needs: "
                     f"add one with the JDBC endpoint to {purpose.action} {'from' if purpose is FOR_IMPORT else 'to'}.")


def driver_jars(datasource: Datasource, purpose: Purpose) -> tuple[str, ...]:
    """The jars of the JDBC driver the interface for `purpose` uses, for spark-submit's --jars; none when the
    datasource has no such interface (the action says so when it runs)."""
    try:
        return datasource.driver_of(interface_for(datasource, purpose)).jars
    except UsageError:
        return ()


def endpoint_for(datasource: Datasource, purpose: Purpose, cluster: Cluster, fs: FileSystem,
                 aliases: AliasReader) -> JdbcEndpoint:
    """The endpoint, its password read (`fs`: the cluster's file system, for a password file on it)."""
    interface = interface_for(datasource, purpose)
    credential = datasource.credential_of(interface)
    field = f"interfaces.{interface.type}.credential"
    if credential is None:
        raise UsageError(f"Datasource '{datasource.name}' has no credential for its {interface.type} interface: add "
                         f"{field} (or interfaces.credential) with the user and where the password is.")
    if interface.credential is None:
        field = "interfaces.credential"
    driver = datasource.driver_of(interface)
    return JdbcEndpoint(url=interface.endpoint, user=credential.user_name,
                        password=_password(datasource, credential, field, cluster, fs, aliases),
                        driver_class=driver.clazz, jars=driver.jars, dialect=dialect_for(datasource.type.value),
                        properties=interface.properties)


def _password(datasource: Datasource, credential: Credential, field: str, cluster: Cluster, fs: FileSystem,
              aliases: AliasReader) -> str:
    if credential.type is CredentialType.PASSWORD_TEXT:
        return credential.password_text or ""
    if credential.type is CredentialType.PASSWORD_ALIAS:
        alias = credential.password_alias
        assert alias is not None  # the record's check
        found = aliases(alias.provider_path, alias.alias)
        if found is None:
            raise UsageError(f"The credential provider {alias.provider_path} ({field}.passwordAlias of datasource "
                             f"'{datasource.name}') holds no alias '{alias.alias}': add it with `hadoop credential "
                             "create`, or name the alias it holds.")
        return found
    return _password_file(datasource, credential.password_file or "", f"{field}.passwordFile", cluster, fs)


def _password_file(datasource: Datasource, path: str, field: str, cluster: Cluster, fs: FileSystem) -> str:
    where = f"The password file {path} ({field} of datasource '{datasource.name}')"
    try:
        if path.startswith("file:"):
            data = Path(unquote(urlsplit(path).path)).read_bytes()
        elif "://" in path:
            data = fs.read(path)
        elif path.startswith("/") and cluster.write_endpoint:
            data = fs.read(under_root(cluster.write_endpoint, path))
        else:
            raise UsageError(f"{where} is neither a URI nor an absolute path: give file:///... for a file of this "
                             "machine, or /... for one under the cluster's root.")
    except (OSError, StorageError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else "it cannot be read"
        raise UsageError(f"{where} cannot be read ({reason}): create it, readable by the user the action runs "
                         "as, holding only the password.") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{where} is not UTF-8 text: write the password as text.") from None
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
