"""Path templates (`/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}`) and catalog URIs
(`catalog:db:table#ds=${YEAR}-${MONTH}-${DAY};region=us`): one definition both formats an instance
and parses an instance time back, strictly.

Strict parsing: the literal text must match exactly, each variable must be digits of its width and a
valid value, repeated variables must agree, and the parsed time must format back to the same text (a
wall-clock time inside a DST gap is therefore not an instance). A text that does not parse is not an
instance: `parse` returns None, it never guesses.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, lru_cache
from zoneinfo import ZoneInfo

from toolkit.core.el.frequency import TimeUnit
from toolkit.core.el.timezones import from_local
from toolkit.errors import UsageError

# Width of each variable's digits, coarsest first; the order also gives a template's granularity.
DATE_VARIABLES: Mapping[str, int] = {"YEAR": 4, "MONTH": 2, "DAY": 2, "HOUR": 2, "MINUTE": 2}
_GRANULARITY = {"YEAR": None, "MONTH": TimeUnit.MONTHS, "DAY": TimeUnit.DAYS, "HOUR": TimeUnit.HOURS,
                "MINUTE": TimeUnit.MINUTES}
_VARIABLE = re.compile(r"\$\{([^}]*)\}")


# How each variable renders from a datetime, as a str.format field: rendering is one format() call.
_FIELD_FORMAT = {"YEAR": "{0.year:04d}", "MONTH": "{0.month:02d}", "DAY": "{0.day:02d}",
                 "HOUR": "{0.hour:02d}", "MINUTE": "{0.minute:02d}"}


@dataclass(frozen=True)
class TemplateText:
    """One string with date variables; the shared core of path templates and partition values."""

    text: str
    # Derived from `text` in __post_init__ (so neither compared nor shown).
    variables: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = _VARIABLE.findall(self.text)
        unknown = [name for name in names if name not in DATE_VARIABLES]
        if unknown:
            raise UsageError(
                f"Unknown variable ${{{unknown[0]}}} in template {self.text!r}: the variables are "
                + ", ".join(f"${{{name}}}" for name in DATE_VARIABLES) + "."
            )
        object.__setattr__(self, "variables", frozenset(names))

    @cached_property
    def _format(self) -> str:
        """Worked out on the first render only (`toolkit metrics` builds a template for each of thousands of feeds
        to find its folder, and renders none)."""
        return _pattern_and_format(self.text)[1]

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        """Compiled on the first parse only: the linter builds thousands of templates and parses none."""
        return re.compile(_pattern_and_format(self.text)[0])

    def render(self, local: datetime) -> str:
        """The text for a time, its variables taken from `local` (a datetime already in the zone)."""
        return self._format.format(local)

    def match(self, value: str) -> dict[str, int] | None:
        """The variables' values in `value`, or None when it does not match or repeats disagree."""
        found = self._regex.fullmatch(value)
        if found is None:
            return None
        values: dict[str, int] = {}
        for name, digits in zip(self._names, found.groups(), strict=True):
            number = int(digits)
            if values.setdefault(name, number) != number:
                return None
        return values

    @cached_property
    def _names(self) -> tuple[str, ...]:
        """The variable of each group of the pattern, in the groups' order (retention's walk matches a name per
        folder it lists: the names are worked out once)."""
        return tuple(group.rsplit("_", 1)[0] for group, _ in sorted(self._regex.groupindex.items(),
                                                                    key=lambda item: item[1]))


@lru_cache(maxsize=1024)
def _pattern_and_format(text: str) -> tuple[str, str]:
    """The regular expression that matches the text's instances (a named group of digits a variable) and the
    str.format field string that renders them, of a text whose variables are known."""
    pieces, formats = [], []
    position = 0
    for match in _VARIABLE.finditer(text):
        literal = text[position:match.start()]
        pieces.append(re.escape(literal))
        formats.append(literal.replace("{", "{{").replace("}", "}}"))
        name = match.group(1)
        pieces.append(f"(?P<{name}_{len(pieces)}>[0-9]{{{DATE_VARIABLES[name]}}})")
        formats.append(_FIELD_FORMAT[name])
        position = match.end()
    pieces.append(re.escape(text[position:]))
    formats.append(text[position:].replace("{", "{{").replace("}", "}}"))
    return "".join(pieces), "".join(formats)


def _granularity(variables: frozenset[str]) -> TimeUnit | None:
    """The finest unit the variables date, e.g. HOURS for YEAR/MONTH/DAY/HOUR; None without a variable."""
    finest = None
    for name in DATE_VARIABLES:
        if name in variables:
            finest = name
    if finest == "YEAR":
        return TimeUnit.MONTHS  # yearly instances are dated to the month of January
    return _GRANULARITY[finest] if finest else None


def _time_from(values: Mapping[str, int], zone: ZoneInfo) -> datetime | None:
    try:
        wall = datetime(values["YEAR"], values.get("MONTH", 1), values.get("DAY", 1), values.get("HOUR", 0),
                        values.get("MINUTE", 0))
        return from_local(wall, zone)
    except (ValueError, KeyError, OverflowError):  # no such date, or beyond the years 1 to 9999 in UTC
        return None


class _Dated(ABC):
    """What a path template and a catalog URI tell from their variables alone."""

    @property
    @abstractmethod
    def variables(self) -> frozenset[str]:
        """The date variables the template uses."""

    @property
    def can_date_instances(self) -> bool:
        """A dated template needs ${YEAR}; without it an instance cannot be turned back into a time."""
        return "YEAR" in self.variables

    @property
    def granularity(self) -> TimeUnit | None:
        """The finest unit the variables date (HOURS for .../${DAY}/${HOUR}); None without variables."""
        return _granularity(self.variables)


@dataclass(frozen=True)
class PathTemplate(_Dated):
    """A feed location template; formats the path of an instance and parses an instance back."""

    text: str
    _template: TemplateText = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_template", TemplateText(self.text))

    @property
    def variables(self) -> frozenset[str]:
        return self._template.variables

    @property
    def is_dated(self) -> bool:
        """True when the path has date variables (retention and instance listing need them)."""
        return bool(self.variables)

    @property
    def static_prefix(self) -> str:
        """The directory before the first variable (`/data/clicks` of `/data/clicks/${YEAR}/...`)."""
        first = self.text.find("${")
        if first < 0:
            return self.text.rstrip("/") or "/"
        cut = self.text.rfind("/", 0, first)
        return self.text[:cut] if cut > 0 else ("/" if cut == 0 else "")

    def format(self, t: datetime, zone: ZoneInfo) -> str:
        """The path of the instance at t, with variables rendered in `zone`."""
        return self._template.render(t.astimezone(zone))

    def parse(self, path: str, zone: ZoneInfo) -> datetime | None:
        """The instance time of `path`, or None when `path` is not an instance of this template."""
        if not self.can_date_instances:
            return None
        values = self._template.match(path)
        if values is None:
            return None
        t = _time_from(values, zone)
        return t if t is not None and self.format(t, zone) == path else None


_CATALOG = re.compile(r"^catalog:(?P<db>[A-Za-z0-9_]+):(?P<table>[A-Za-z0-9_]+)#(?P<spec>.+)$")
_PARTITION = re.compile(r"^(?P<key>[A-Za-z0-9_]+)=(?P<value>[^;=#]+)$")
_OPEN_VALUE = re.compile(r"^\$\{(?P<name>[A-Za-z_][A-Za-z0-9_.]*)\}$")


@dataclass(frozen=True)
class CatalogTemplate(_Dated):
    """A table feed's URI `catalog:db:table#k1=v1;k2=v2`; values may carry date variables.

    A key whose whole value is another variable (`region=${region}`, as Falcon's definitions write) is open: an
    instance is every partition of its dated keys' values, as if the URI did not name the key (Falcon's
    retention filtered on the dated keys alone). Its name must not be a date variable in other letters
    (`${year}`), and the URI needs a dated key besides."""

    uri: str
    # Parsed from `uri` in __post_init__.
    database: str = field(init=False, repr=False, compare=False)
    table: str = field(init=False, repr=False, compare=False)
    _partitions: dict[str, TemplateText] = field(init=False, repr=False, compare=False)
    open_keys: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        match = _CATALOG.match(self.uri.strip()) if isinstance(self.uri, str) else None
        if match is None:
            raise UsageError(
                f"Invalid catalog URI {self.uri!r}: write catalog:database:table#key=value;key=value, "
                "e.g. catalog:clicks_db:clicks#ds=${YEAR}-${MONTH}-${DAY}."
            )
        partitions: dict[str, TemplateText] = {}
        open_keys: dict[str, str] = {}  # key -> its variable's name
        for item in match.group("spec").split(";"):
            part = _PARTITION.match(item.strip())
            if part is None:
                raise UsageError(
                    f"Invalid partition {item!r} in catalog URI {self.uri!r}: write key=value, separated by ';'."
                )
            key, value = part.group("key"), part.group("value")
            if key in partitions or key in open_keys:
                raise UsageError(f"Partition key {key!r} repeats in catalog URI {self.uri!r}.")
            other = _OPEN_VALUE.match(value)
            if other is not None and other.group("name").upper() not in DATE_VARIABLES:
                open_keys[key] = other.group("name")
            else:
                partitions[key] = TemplateText(value)
        if open_keys and not any(value.variables for value in partitions.values()):
            key, name = next(iter(open_keys.items()))
            raise UsageError(
                f"Unknown variable ${{{name}}} in catalog URI {self.uri!r}, and no key of the URI is dated: the "
                "variables are " + ", ".join(f"${{{variable}}}" for variable in DATE_VARIABLES)
                + f" (a key such as {key}=${{{name}}} matches every value only beside a dated key)."
            )
        object.__setattr__(self, "database", match.group("db"))
        object.__setattr__(self, "table", match.group("table"))
        object.__setattr__(self, "_partitions", partitions)
        object.__setattr__(self, "open_keys", tuple(open_keys))

    @property
    def partition_keys(self) -> tuple[str, ...]:
        return tuple(self._partitions)

    @property
    def variables(self) -> frozenset[str]:
        return frozenset().union(*(value.variables for value in self._partitions.values()))

    @property
    def dated_keys(self) -> tuple[str, ...]:
        return tuple(key for key, value in self._partitions.items() if value.variables)

    @property
    def static_partitions(self) -> dict[str, str]:
        """Keys whose value has no variable, with that value (`region=us`)."""
        return {key: value.text for key, value in self._partitions.items() if not value.variables}

    def format(self, t: datetime, zone: ZoneInfo) -> dict[str, str]:
        """The partition spec of the instance at t, in URI order."""
        local = t.astimezone(zone)
        return {key: value.render(local) for key, value in self._partitions.items()}

    def format_spec(self, t: datetime, zone: ZoneInfo) -> str:
        """The partition spec as `k1=v1;k2=v2` text."""
        return ";".join(f"{key}={value}" for key, value in self.format(t, zone).items())

    def parse(self, spec: Mapping[str, str], zone: ZoneInfo) -> datetime | None:
        """The instance time of a partition, or None when it is not an instance of this URI.

        Every key of the URI must be present; static values must be equal; keys of the partition that
        the URI does not name (a table partitioned more finely) are not looked at.
        """
        if not self.can_date_instances:
            return None
        values: dict[str, int] = {}
        for key, template in self._partitions.items():
            if key not in spec:
                return None
            found = template.match(str(spec[key]))
            if found is None:
                return None
            for name, number in found.items():
                if values.setdefault(name, number) != number:
                    return None
        t = _time_from(values, zone)
        if t is None:
            return None
        rendered = self.format(t, zone)
        return t if all(rendered[key] == str(spec[key]) for key in rendered) else None


@lru_cache(maxsize=65536)
def segment_shape(segment: str) -> str:
    """A path segment with each digit and each variable's digits as '#' (`v${YEAR}` -> `v####`): two segments
    can name the same folder only when their shapes are equal."""
    shape = _VARIABLE.sub(lambda found: "#" * DATE_VARIABLES.get(found.group(1), 1), segment)
    return "".join("#" if char.isdigit() else char for char in shape)


@lru_cache(maxsize=65536)
def segments_compatible(a: str, b: str) -> bool:
    """Whether some folder name matches both segments (a literal digit against a variable's digit counts; the
    calendar is not: `${MONTH}` and `13` are compatible). Cached: `${YEAR}` and friends repeat in every template."""
    if a == b or ("${" not in a and "${" not in b):
        return a == b
    if segment_shape(a) != segment_shape(b):
        return False
    return all(x == y or "#" in (x, y) for x, y in zip(_digits_as_hash(a), _digits_as_hash(b), strict=True))


def _digits_as_hash(segment: str) -> str:
    """The segment with its variables' digits as '#' and its literal digits kept."""
    return _VARIABLE.sub(lambda found: "#" * DATE_VARIABLES.get(found.group(1), 1), segment)


def path_segments(text: str) -> tuple[str, ...]:
    """The folder names of a path template (`/data/x/${YEAR}` -> ('data', 'x', '${YEAR}'))."""
    return tuple(part for part in text.split("/") if part)


def templates_overlap(a: PathTemplate, b: PathTemplate) -> bool:
    """Whether an instance path of one can equal, or lie inside, an instance path of the other: the shorter
    template's segments are each compatible with the longer one's at the same depth. Two feeds whose templates
    overlap share folders, so the retention of one can delete the other's instances."""
    first, second = path_segments(a.text), path_segments(b.text)
    return all(segments_compatible(x, y) for x, y in zip(first, second, strict=False))
