"""Schema validation of a parsed document: every violation becomes a located, actionable `Problem`.

jsonschema's own messages ("'x' is not one of [...]") name neither the entity nor the field; here each
message names the entity, the field path as written in YAML (`inputs[0].start`) and what would be valid,
and points at the offending value's line (at the key's line for unknown keys).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolkit.core.el.frequency import FREQUENCY_PATTERN
from toolkit.core.el.timestamps import TIMESTAMP_PATTERN
from toolkit.core.entities.document import Document, FieldPath, SourceSpan, format_path
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.problems import SCHEMA, Problem, Severity
from toolkit.core.entities.schemas import quick_check, schema, validator

if TYPE_CHECKING:
    from jsonschema import ValidationError

NAME_PATTERN = "^[A-Za-z][A-Za-z0-9-]*$"

# What to write instead, for the patterns of the schemas (keyed by the pattern itself).
_PATTERN_HINTS = {
    FREQUENCY_PATTERN: "write minutes(n), hours(n), days(n) or months(n) with n a positive integer",
    TIMESTAMP_PATTERN: "write a UTC time as yyyy-MM-ddTHH:mmZ, e.g. 2026-11-21T10:00Z",
    NAME_PATTERN: "use letters, digits and hyphens, starting with a letter",
    "^[A-Za-z0-9_]+$": "use letters, digits and underscores",
    "^[A-Za-z0-9_-]+$": "use letters, digits, underscores and hyphens",
    "^[A-Za-z0-9_+-]+$": "use letters, digits, underscores, hyphens and +",
    "^[A-Z]{2}[0-9]{3}$": "write a rule code such as FD001",
    "^/": "give an absolute folder under the cluster root, starting with /",
    "^(time|data)$": "write data (run when the inputs are published) or time (at nominal times)",
    "\\.json$": "give the path of a Great Expectations suite's JSON file in the config repo, e.g. quality/clicks.json",
}

_KINDS = {kind.value for kind in Kind}

_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "text",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "empty",
}


def entity_ref(doc: Document) -> EntityRef | None:
    """The entity a document defines, when its `kind` and `name` are usable."""
    kind, name = doc.data.get("kind"), doc.data.get("name")
    if isinstance(kind, str) and kind in _KINDS and isinstance(name, str):
        return EntityRef(Kind(kind), name)
    return None


def validate_document(doc: Document) -> list[Problem]:
    """All schema problems of `doc`, sorted by position; empty when the document is a valid entity."""
    kind_value = doc.data.get("kind")
    if not isinstance(kind_value, str) or kind_value not in _KINDS:
        return [_kind_problem(doc, kind_value)]
    kind = Kind(kind_value)
    if quick_check(kind)(doc.data):
        return []
    name = doc.data.get("name")
    subject = f"{kind.label} '{name}'" if isinstance(name, str) else f"This {kind.value}"
    reporter = _Reporter(doc, subject, entity_ref(doc))
    problems = [problem for error in validator(kind).iter_errors(doc.data) for problem in reporter.problems(error)]
    return sorted(problems)


def _doc_kind(doc: Document) -> Kind | None:
    kind = doc.data.get("kind")
    return Kind(kind) if isinstance(kind, str) and kind in _KINDS else None


def _kind_problem(doc: Document, value: Any) -> Problem:
    allowed = ", ".join(kind.value for kind in Kind)
    if "kind" not in doc.data:
        message = "The entity has no 'kind': add kind: cluster, feed, process, datasource or mirror as its first line."
    else:
        message = f"kind is {value!r}; allowed values are {allowed}."
    span = doc.span(("kind",))
    return Problem(span.file, span.line, span.column, SCHEMA, Severity.ERROR, message)


class _Reporter:
    """Turns jsonschema errors of one document into problems."""

    def __init__(self, doc: Document, subject: str, entity: EntityRef | None) -> None:
        self.doc = doc
        self.subject = subject
        self.entity = entity

    def problems(self, error: ValidationError) -> Iterator[Problem]:
        path: FieldPath = tuple(error.absolute_path)
        if error.absolute_schema_path and error.absolute_schema_path[0] == "else":
            yield self._at(self.doc.span(path), _batch_consumer_message(path))
            return
        if error.validator == "additionalProperties":
            yield from self._unknown_keys(error, path)
            return
        if "propertyNames" in error.relative_schema_path:
            key: Any = error.instance  # the key, a JSON value (set on every error a validator yields)
            hint = _PATTERN_HINTS.get(str(error.validator_value), "") if error.validator == "pattern" else ""
            reason = hint or "keys must not be empty"
            yield self._at(
                self.doc.key_span((*path, key)), f"the key {key!r} in {_where(path)} is not valid: {reason}."
            )
            return
        yield self._at(self.doc.span(path), self._message(error, path))

    def _message(self, error: ValidationError, path: FieldPath) -> str:
        # JSON values, set on every error a validator yields.
        value: Any = error.instance
        rule: Any = error.validator_value
        where = _where(path)
        if error.validator == "not" and path[-1:] == ("credential",):
            return (f"{where} holds a password field its type does not use: keep only the one of its type "
                    "(passwordFile for password-file, passwordText for password-text, passwordAlias for "
                    "password-alias).")
        if error.validator == "anyOf" and path == ("interfaces",) and _doc_kind(self.doc) is Kind.DATASOURCE:
            return ("interfaces has neither readonly nor write: add the JDBC endpoint imports read (readonly) or "
                    "the one exports write (write).")
        if error.validator == "not" and _doc_kind(self.doc) is Kind.MIRROR:
            return _foreign_field_message(path, self.doc.data.get("type"))
        if error.validator == "oneOf" and path == ("sourceTables",):
            return (f"{where} is {value!r}; give * (every table of sourceDatabases) or a list of table names, "
                    "e.g. [orders, customers].")
        if error.validator == "required":
            missing = next((name for name in rule if error.message == f"{name!r} is a required property"), None)
            if missing is not None:
                return f"the required field {format_path((*path, missing))} is missing; add it."
        if _holds_password(path, value):
            return _password_message(error, where)
        if error.validator == "enum":
            return f"{where} is {value!r}; allowed values are {', '.join(map(str, rule))}."
        if error.validator == "const":
            return f"{where} is {value!r}; it must be {rule!r}."
        if error.validator == "type":
            return _type_message(where, value, rule)
        if error.validator == "pattern":
            hint = _PATTERN_HINTS.get(rule, f"it must match {rule}")
            return f"{where} is {value!r}, which is not valid: {hint}."
        if error.validator == "format":
            return f"{where} is {value!r}, which is not a real time: {_reason(error)}."
        if error.validator == "minimum":
            return f"{where} is {value!r}; it must be at least {rule}."
        if error.validator == "minItems":
            return f"{where} is empty; give at least {rule} item{'s' if rule != 1 else ''}."
        if error.validator == "minLength":
            return f"{where} is empty text; give a value."
        if error.validator == "uniqueItems":
            repeated = next((item for index, item in enumerate(value) if item in value[:index]), None)
            if repeated is not None:
                return f"{where} lists {repeated!r} more than once; keep it once."
        return f"{where}: {error.message}."

    def _unknown_keys(self, error: ValidationError, path: FieldPath) -> Iterator[Problem]:
        schema: Any = error.schema  # the object schema whose additionalProperties failed
        instance: Any = error.instance
        allowed = list(schema.get("properties", {}))
        for key in instance:
            if key in allowed:
                continue
            close = difflib.get_close_matches(key, allowed, n=1)
            suggestion = f" (did you mean {close[0]!r}?)" if close else ""
            where = "at the top level" if not path else f"in {format_path(path)}"
            message = f"unknown key {key!r} {where}{suggestion}; the allowed keys are {', '.join(allowed)}."
            yield self._at(self.doc.key_span((*path, key)), message)

    def _at(self, span: SourceSpan, message: str) -> Problem:
        return Problem(
            span.file, span.line, span.column, SCHEMA, Severity.ERROR, f"{self.subject}: {message}", self.entity
        )


def _batch_consumer_message(path: FieldPath) -> str:
    """Why a document fails the schemas' only root `else`: the process schema's, which holds for a process
    without frequency (a batch consumer)."""
    if not path or path == ("trigger",):
        return ("it has no frequency, so it is a batch consumer, run on published data: add `trigger: data`, or "
                "give it a frequency to run it at nominal times.")
    return (f"{format_path(path)} is set, but the process has no frequency: a batch consumer's inputs and outputs "
            "name only their name and feed (it reads batches of published instances); remove it, or give the "
            "process a frequency.")


def _foreign_field_message(path: FieldPath, type_: Any) -> str:
    """Why a mirror's field is refused by its type's branch of the schema (`not: {}`): it belongs to another type."""
    key = path[-1] if path else ""
    owners = [branch["if"]["properties"]["type"]["const"] for branch in schema(Kind.MIRROR)["allOf"]
              if key not in branch["then"]["properties"]]
    return (f"{format_path(path)} is a field of {' and '.join(owners)} mirrors, and this mirror's type is {type_!r}: "
            "remove it, or change type.")


PASSWORD_KEY = "passwordText"


def _holds_password(path: FieldPath, value: Any) -> bool:
    """True when the value at `path` is a datasource's `passwordText` or holds one: its message must not show it."""
    if PASSWORD_KEY in path:
        return True
    if isinstance(value, dict):
        return any(key == PASSWORD_KEY or _holds_password((), item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_password((), item) for item in value)
    return False


def _password_message(error: ValidationError, where: str) -> str:
    """The message of an error on a value that holds a password, which names the field and the rule only."""
    rule: Any = error.validator_value
    if error.validator == "type":
        names = [_TYPE_NAMES[name] for name in ([rule] if isinstance(rule, str) else rule)]
        return f"{where} must be {' or '.join(dict.fromkeys(names))} (its value is not shown: it is a password)."
    return f"{where} is not valid ({error.validator}); its value is not shown, as it holds a password."


def _where(path: FieldPath) -> str:
    return format_path(path) if path else "the entity"


def _type_message(where: str, value: Any, expected: str | list[str]) -> str:
    names = [_TYPE_NAMES[name] for name in ([expected] if isinstance(expected, str) else expected)]
    wanted = " or ".join(dict.fromkeys(names))
    hint = ""
    if "text" in names and isinstance(value, (bool, int, float)):
        hint = "; put the value in quotes"
    return f"{where} must be {wanted}, not {_describe(value)}{hint}."


def _describe(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return f"the text {value!r}"


def _reason(error: ValidationError) -> str:
    """The calendar reason from `parse_timestamp` (its message ends with the reason)."""
    text = str(error.cause) if error.cause is not None else error.message
    return text.rsplit(": ", 1)[-1].rstrip(".")
