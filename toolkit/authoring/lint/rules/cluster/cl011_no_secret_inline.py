"""CL011: no password or other secret is written inline in a cluster's interface URLs or properties.

Why:
A cluster's interfaces are URLs (`thrift://user:password@metastore:9083`, `http://user:password@oozie:11000`),
and its properties reach Spark and the toolkit's own clients (`spark.hadoop.fs.s3a.secret.key`,
`spark.authenticate.secret`, `airflow.token`). A secret written there is in the config repo, where every clone,
review and CI log can read it, although the toolkit masks it wherever it shows the URL or the property. A warning
(`toolkit lint --strict` fails on it); the message names the interface or property, never the value. What the
toolkit reads from the environment or a file is named instead (`airflow.token-env`,
`notification.smtp.password-file`: a name, a path or a `${...}` placeholder is no secret); the SMTP password
written in the repo is CL007's.

Anti-pattern:

    interfaces:
      registry: {endpoint: "thrift://hive:hunter2@metastore:9083", version: "2.3"}
    properties:
      spark.hadoop.fs.s3a.secret.key: hunter2

Best practice:

    interfaces:
      registry: {endpoint: "thrift://metastore:9083", version: "2.3"}
    properties:
      spark.hadoop.fs.s3a.aws.credentials.provider: com.amazonaws.auth.EnvironmentVariableCredentialsProvider
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules._inline_secrets import endpoint_findings
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.problems import Severity
from toolkit.extensions.notification_channels.registry import refused_properties
from toolkit.secrets_masking import inline_secret

ADVICE = ("name the environment variable or the file that holds it instead, or use the component's own "
          "credential store")


@register
class NoSecretInline(EntityRule[Cluster]):
    code = "CL011"
    summary = "No password or other secret is written inline in a cluster's interface URLs or properties."
    severity = Severity.WARNING
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        yield from endpoint_findings(entity, entity.interfaces, ADVICE)
        refused = set(refused_properties())  # CL007's
        for key, value in entity.properties.items():
            if key not in refused and inline_secret(key, str(value)):
                yield Finding(entity, f"properties.{key} writes a secret in the repo: {ADVICE}.", ("properties", key))
