"""Where a secret is: a property names an environment variable (never holds the secret). A value that is no
variable name is most likely the secret itself, pasted by mistake: it is refused without being repeated."""

from __future__ import annotations

import re

from toolkit.errors import UsageError

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def variable_name(value: str, prop: str, where: str) -> str:
    """`value` when it is an environment variable's name, else a UsageError naming the property, not the value."""
    name = value.strip()
    if not _NAME.match(name):
        raise UsageError(f"The property {prop} {where} is not an environment variable's name (letters, digits and "
                         "_): put there the name of the variable that holds the secret, never the secret itself.")
    return name
