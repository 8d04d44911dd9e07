"""DS003: no password or other secret is written inline in a datasource's JDBC URL or its properties.

Why:
A JDBC URL takes a password in many forms (`user:password@host`, Oracle's `user/password@//host`, `?password=`,
SQL Server's `;password={...};`, `sslpassword=`), and a driver takes more secrets as connection properties
(`sslpassword`, `trustCertificateKeyStorePassword`, `keyStoreSecret`). Written there, the secret is in the config
repo, where every clone, review and CI log can read it, although the toolkit masks it wherever it shows the URL. A
warning (`toolkit lint --strict` fails on it), as DS002 for a `password-text`; a test database may say so with
`lint: {ignore: [DS003]}`. The message names the setting, never its value; a path, a URI, a boolean or a
`${...}` placeholder is no secret.

Anti-pattern:

    interfaces:
      readonly:
        endpoint: "jdbc:sqlserver://db:1433;databaseName=sales;user=etl;password=hunter2"
        properties: {sslpassword: hunter2}

Best practice:

    interfaces:
      readonly:
        endpoint: "jdbc:sqlserver://db:1433;databaseName=sales"
        credential: {type: password-file, userName: etl, passwordFile: /secrets/sales.password}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules._inline_secrets import endpoint_findings
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Datasource
from toolkit.core.entities.problems import Severity
from toolkit.secrets_masking import inline_secret

ADVICE = ("put the connection's password in the credential (type: password-file or password-alias) and any other "
          "secret in a file the driver reads (a key store, a key file), or ignore DS003 for a test database")


@register
class NoPasswordInline(EntityRule[Datasource]):
    code = "DS003"
    summary = "No password or other secret is written inline in a datasource's JDBC URL or properties."
    severity = Severity.WARNING
    kind = Kind.DATASOURCE

    def check_entity(self, entity: Datasource, ctx: LintContext) -> Iterator[Finding]:
        yield from endpoint_findings(entity, entity.interfaces, ADVICE)
        for name, interface in entity.interfaces.items():
            yield from _properties(entity, interface.properties, ("interfaces", name, "properties"))
        yield from _properties(entity, entity.properties, ("properties",))


def _properties(entity: Datasource, properties: Mapping[str, str], path: FieldPath) -> Iterator[Finding]:
    where = ".".join(str(part) for part in path)
    for key, value in properties.items():
        if inline_secret(key, str(value)):
            yield Finding(entity, f"{where}.{key} writes a secret in the repo: {ADVICE}.", (*path, key))
