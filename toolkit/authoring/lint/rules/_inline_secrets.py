"""What DS003 and CL011 share: the finding of an interface whose URL writes a secret, named, never shown
(toolkit/secrets_masking.py tells which part of a URL is one)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

from toolkit.authoring.lint.rule import Finding
from toolkit.core.entities.model import Entity
from toolkit.secrets_masking import inline_secrets


class _Interface(Protocol):
    @property
    def endpoint(self) -> str: ...


def endpoint_findings(entity: Entity, interfaces: Mapping[str, _Interface], advice: str) -> Iterator[Finding]:
    """One finding for each of `interfaces` whose endpoint writes a secret, saying which and what to do."""
    for name, interface in interfaces.items():
        found = inline_secrets(interface.endpoint)
        if found:
            yield Finding(entity, f"interfaces.{name}.endpoint writes a secret in the repo ({', '.join(found)}); "
                                  f"take it out of the URL: {advice}.", ("interfaces", name, "endpoint"))
