"""The Spark SQL types a feed's `columns` may have, parsed without pyspark: the linter checks them in pre-commit,
and ingest converts each record field to its column's type, so both must agree on what a type is.

Only the atomic types a record's text field converts to are read; Spark's synonyms are folded into the one name
Spark's DDL prints (`integer` -> `int`, `long` -> `bigint`, `numeric(10,2)` -> `decimal(10,2)`). Complex types
(`array<...>`, `map<...>`, `struct<...>`) are refused: no delimited, regex or JSON field fills them unambiguously.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.errors import UsageError

# Spark's spellings -> the name its DDL prints.
_NAMES = {
    "string": "string", "varchar": "varchar", "char": "char", "boolean": "boolean",
    "tinyint": "tinyint", "byte": "tinyint", "smallint": "smallint", "short": "smallint",
    "int": "int", "integer": "int", "bigint": "bigint", "long": "bigint",
    "float": "float", "real": "float", "double": "double", "decimal": "decimal", "numeric": "decimal",
    "date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp_ntz", "binary": "binary",
}
ACCEPTED = ("string, varchar(n), char(n), boolean, tinyint (byte), smallint (short), int (integer), bigint (long), "
            "float (real), double, decimal[(p[,s])] (numeric), date, timestamp, timestamp_ntz, binary")
_TYPE = re.compile(r"^\s*([a-z_]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$")
_COMPLEX = re.compile(r"^\s*(array|map|struct)\s*<", re.IGNORECASE)
MAX_DECIMAL_PRECISION = 38  # Spark's DecimalType.MAX_PRECISION


@dataclass(frozen=True)
class ColumnType:
    """An atomic Spark SQL type: its DDL name and its parameters (length, or precision and scale)."""

    name: str
    parameters: tuple[int, ...] = ()

    @property
    def sql(self) -> str:
        """The type as Spark's DDL writes it (`decimal(10,2)`, `varchar(20)`, `bigint`)."""
        return f"{self.name}({','.join(map(str, self.parameters))})" if self.parameters else self.name


def is_complex_type(text: str) -> bool:
    """Whether `text` is an array, map or struct type (valid in Spark, but no record field fills it)."""
    return _COMPLEX.match(text) is not None


def parse_column_type(text: str) -> ColumnType:
    """The type `text` names (case-insensitive), or a UsageError saying why it is not one this toolkit reads."""
    if is_complex_type(text):
        raise UsageError(f"The type {text!r} is a complex type, which no record field fills: ingest takes atomic "
                         f"types only ({ACCEPTED}); store the value as a string and parse it in a process.")
    match = _TYPE.match(text.lower())
    name = _NAMES.get(match.group(1)) if match else None
    if match is None or name is None:
        raise UsageError(f"The type {text!r} is not a Spark SQL type this toolkit reads: use one of {ACCEPTED}.")
    parameters = tuple(int(value) for value in match.groups()[1:] if value is not None)
    return ColumnType(name, _checked(text, name, parameters))


def _checked(text: str, name: str, parameters: tuple[int, ...]) -> tuple[int, ...]:
    """The parameters Spark takes for `name`, with decimal's defaults filled in (precision 10, scale 0)."""
    if name in ("varchar", "char"):
        if len(parameters) != 1 or parameters[0] < 1:
            raise UsageError(f"The type {text!r} needs one length of at least 1, as {name}(20).")
        return parameters
    if name == "decimal":
        precision = parameters[0] if parameters else 10
        scale = parameters[1] if len(parameters) > 1 else 0
        if not 1 <= precision <= MAX_DECIMAL_PRECISION or scale > precision:
            raise UsageError(f"The type {text!r} needs a precision from 1 to {MAX_DECIMAL_PRECISION} and a scale "
                             "not above it, as decimal(10,2).")
        return (precision, scale)
    if parameters:
        raise UsageError(f"The type {text!r} takes no parameters: write {name}.")
    return ()
