"""Finding the modules that extend the toolkit: every module of a package whose name ends with a suffix
(`_engine`, `_channel`, `_action`) defines one description under one name (`ENGINE`, `CHANNEL`, `ACTION`).
Adding one is adding its module; nothing else lists them."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Protocol, TypeVar


class Named(Protocol):
    @property
    def name(self) -> str: ...


Description = TypeVar("Description", bound=Named)


def discover(package: ModuleType, suffix: str, attribute: str, kind: type[Description]) -> dict[str, Description]:
    """Each `*<suffix>` module's `attribute`, by its `name`, in the order of the modules' names. A module without
    one, of another type, or a name defined twice is a TypeError: a mistake of the toolkit's own code."""
    found: dict[str, Description] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        if not info.name.endswith(suffix):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        description = getattr(module, attribute, None)
        if not isinstance(description, kind):
            raise TypeError(f"{module.__name__} defines no {attribute} = {kind.__name__}(...): every *{suffix} "
                            f"module of {package.__name__} describes one.")
        if description.name in found:
            raise TypeError(f"Two modules of {package.__name__} define {description.name!r}.")
        found[description.name] = description
    return found
