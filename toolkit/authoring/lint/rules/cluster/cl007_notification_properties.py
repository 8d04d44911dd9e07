"""CL007: the cluster's notification properties are valid, and no password is written in the repo.

Why:
Notifications (e-mail over SMTP, a JSON webhook) are sent with the cluster's `notification.*` properties
(each channel of toolkit/extensions/notification_channels/ reads its own). A password in the config repo is a secret in
git: the SMTP password comes from an environment variable or a file on the machine that runs the actions, named by
`notification.smtp.password-env` or `notification.smtp.password-file`; `notification.smtp.password` is refused
here and at run time. A bad `tls`, `port` or webhook URL would make every notification fail.

Anti-pattern:

    properties:
      notification.smtp.host: smtp.example.com
      notification.smtp.user: feeds
      notification.smtp.password: hunter2

Best practice:

    properties:
      notification.smtp.host: smtp.example.com
      notification.smtp.tls: starttls
      notification.smtp.user: feeds
      notification.smtp.password-env: FEEDS_SMTP_PASSWORD
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster
from toolkit.errors import UsageError
from toolkit.extensions.notification_channels.registry import known_properties, refused_properties, senders


@register
class NotificationProperties(EntityRule[Cluster]):
    code = "CL007"
    summary = "Notification properties are valid and hold no password (name an environment variable or a file)."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        try:
            senders(entity)
        except UsageError as err:
            yield Finding(entity, str(err), ("properties", _named(entity, str(err))))


def _named(cluster: Cluster, sentence: str) -> str:
    """The property the sentence is about (the secret first), for the finding's line."""
    names = [*refused_properties(), *known_properties(), *sorted(cluster.properties)]
    return next((name for name in names if name in cluster.properties and name in sentence),
                next(name for name in sorted(cluster.properties) if name.startswith("notification.")))
