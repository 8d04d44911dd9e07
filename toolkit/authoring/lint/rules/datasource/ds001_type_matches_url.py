"""DS001: every endpoint of a datasource is a JDBC URL of the datasource's `type`.

Why:
The type says which database it is (Falcon picks its Sqoop connector by it); an endpoint of another database
means one of the two is wrong, and the import or export would connect with the wrong driver. `generic` takes
any JDBC URL. MySQL and MariaDB share their URLs (`jdbc:mysql:` and `jdbc:mariadb:`), so either type takes both.

Anti-pattern:

    type: postgres
    interfaces:
      readonly: {endpoint: "jdbc:mysql://db:3306/sales"}

Best practice:

    type: postgres
    interfaces:
      readonly: {endpoint: "jdbc:postgresql://db:5432/sales"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Datasource, DatasourceType

URL_PREFIXES = {
    DatasourceType.POSTGRES: ("jdbc:postgresql:",),
    DatasourceType.MYSQL: ("jdbc:mysql:", "jdbc:mariadb:"),
    DatasourceType.MARIADB: ("jdbc:mariadb:", "jdbc:mysql:"),
    DatasourceType.ORACLE: ("jdbc:oracle:",),
    DatasourceType.HSQL: ("jdbc:hsqldb:",),
    DatasourceType.DB2: ("jdbc:db2:",),
    DatasourceType.NETEZZA: ("jdbc:netezza:",),
    DatasourceType.TERADATA: ("jdbc:teradata:",),
    DatasourceType.GENERIC: ("jdbc:",),
}


@register
class TypeMatchesUrl(EntityRule[Datasource]):
    code = "DS001"
    summary = "Every endpoint of a datasource is a JDBC URL of its type."
    kind = Kind.DATASOURCE

    def check_entity(self, entity: Datasource, ctx: LintContext) -> Iterator[Finding]:
        prefixes = URL_PREFIXES[entity.type]
        for name, interface in entity.interfaces.items():
            if not interface.endpoint.lower().startswith(prefixes):
                yield Finding(
                    entity,
                    f"interfaces.{name}.endpoint {interface.endpoint!r} is not a URL of a {entity.type.value} "
                    f"database, which starts with {' or '.join(prefixes)}; fix the URL, or the datasource's type.",
                    ("interfaces", name, "endpoint"),
                )
