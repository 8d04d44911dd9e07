"""DS002: a datasource's password is in a file or a credential provider, not in the repo.

Why:
A `password-text` credential writes the database password into the config repo, where every clone, review and
CI log can read it. A `password-file` (a local path, or a path on the cluster's file system, readable only by
the user the actions run as) or a `password-alias` (a Hadoop credential provider) keeps it out. A warning: a
test database may use one; say so with `lint: {ignore: [DS002]}` on that datasource. The message never shows
the password.

Anti-pattern:

    credential: {type: password-text, userName: etl, passwordText: hunter2}

Best practice:

    credential: {type: password-file, userName: etl, passwordFile: /secrets/sales.password}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Credential, CredentialType, Datasource
from toolkit.core.entities.problems import Severity


@register
class NoPasswordText(EntityRule[Datasource]):
    code = "DS002"
    summary = "A datasource's password is in a file or a credential provider, never in the repo."
    severity = Severity.WARNING
    kind = Kind.DATASOURCE

    def check_entity(self, entity: Datasource, ctx: LintContext) -> Iterator[Finding]:
        credentials: list[tuple[FieldPath, Credential | None]] = [
            (("interfaces", name, "credential"), interface.credential) for name, interface in entity.interfaces.items()
        ]
        credentials.append((("interfaces", "credential"), entity.credential))
        for path, credential in credentials:
            if credential is not None and credential.type is CredentialType.PASSWORD_TEXT:
                where = ".".join(str(part) for part in path)
                yield Finding(
                    entity,
                    f"{where} is a password-text: the password of user '{credential.user_name}' is in the repo; "
                    "put it in a file (type: password-file, passwordFile) or a credential provider (type: "
                    "password-alias, passwordAlias), or ignore DS002 for a test database.",
                    (*path, "type"),
                )
