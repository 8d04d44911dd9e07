"""The JSON Schemas of the three entity kinds, shipped in the wheel (`toolkit/core/entities/schemas/*.json`).

They are draft-07 so that editors' YAML language servers can use them; `validator(kind)` adds the one
check JSON Schema patterns cannot express: a UTC time must be a real calendar time (no 2026-02-30). Patterns are
matched as JSON Schema (ECMA 262) matches them, as fastjsonschema does: `$` is the end of the text, where Python's
`$` also matches before a final line break (`name: "clicks\\n"` would pass).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache, partial
from importlib import resources
from typing import TYPE_CHECKING, Any

import fastjsonschema
from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.ref_resolver import RefResolver

from toolkit.core.el.timestamps import TIMESTAMP_PATTERN, parse_timestamp
from toolkit.core.entities.kinds import Kind
from toolkit.errors import UsageError

if TYPE_CHECKING:
    from jsonschema import Draft7Validator, FormatChecker, ValidationError

TIME_FORMAT = "utc-minute"
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)


def schema_text(kind: Kind) -> str:
    """The schema file's text, as `toolkit schema --write` copies it."""
    schemas = resources.files("toolkit.core.entities").joinpath("schemas")
    return schemas.joinpath(f"{kind.value}.json").read_text("utf-8")


@cache
def schema(kind: Kind) -> dict[str, Any]:
    """The parsed schema of `kind` (shared: do not modify)."""
    return json.loads(schema_text(kind))


@cache
def validator(kind: Kind) -> Draft7Validator:
    """A reusable validator for `kind`, with the calendar check of `utc-minute` times.

    It validates against a copy of the schema with every `$ref` replaced by its definition: resolving
    references on each use was half of the validation time, and the linter validates thousands of files.
    """
    from jsonschema import Draft7Validator, validators  # 45 ms of import that a clean repo's lint never needs

    document = schema(kind)
    checked = validators.extend(Draft7Validator, {"pattern": _pattern})
    return checked(_inline_refs(document, document["definitions"]), format_checker=_format_checker())


_DOLLAR = re.compile(r"(?<!\\)\$")  # an unescaped `$`: the end of the text in ECMA 262


@cache
def _ecma(pattern: str) -> re.Pattern[str]:
    return re.compile(_DOLLAR.sub(r"\\Z", pattern))


def _pattern(validator: Any, pattern: str, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _ecma(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _inline_refs(node: Any, definitions: dict[str, Any]) -> Any:
    """`{"$ref": "#/definitions/x"}` -> a copy of definition x, recursively (the schemas have no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline_refs(definitions[node["$ref"].removeprefix("#/definitions/")], definitions)
        return {key: _inline_refs(value, definitions) for key, value in node.items() if key != "definitions"}
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    return node


@cache
def quick_check(kind: Kind) -> Callable[[Any], bool]:
    """True when a document is valid, about 20 times faster than `validator(kind)`.

    Code generated from the schema by fastjsonschema (_VerdictOnly); it stops at the first error, so it only
    answers yes or no: callers run `validator(kind)` on the (rare) invalid documents to report every error.
    """
    document = schema(kind)
    formats = {TIME_FORMAT: _is_calendar_time}
    resolver = RefResolver.from_schema(document, handlers={}, store={})
    # use_default=False: the generated code would otherwise write each missing property's `default` into the
    # document it checks, values its author never wrote (a mirror's fields of another type among them).
    generator = _VerdictOnly(document, resolver=resolver, formats=formats, use_default=False)
    namespace = generator.global_state
    exec(generator.func_code, namespace)  # the code generated from the schema shipped in the wheel
    compiled = partial(namespace[resolver.get_scope_name()], custom_formats=formats)

    def check(data: Any) -> bool:
        try:
            compiled(data)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return check


class _VerdictOnly(CodeGeneratorDraft07):
    """fastjsonschema's draft-07 code generator whose failures raise without a message. The message it writes
    for each rule embeds the rule's whole definition in the code: three quarters of the feed schema's 317 KB of
    Python, which every process compiled on a parse-cache miss (0.16 s of a `toolkit` call for the feed schema,
    0.33 s for the four) and a yes-or-no check never reads. (Its own `detailed_exceptions=False` fails to generate
    a `const` rule in 2.22.)"""

    def exc(self, msg: str, *args: Any, append_to_msg: str | None = None, rule: str | None = None) -> None:
        self.l('raise JsonSchemaValueException("invalid")')


def _is_calendar_time(value: object) -> bool:
    try:
        return _is_real_time(value)
    except UsageError:
        return False


def _format_checker() -> FormatChecker:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checks(TIME_FORMAT, raises=UsageError)(_is_real_time)
    return checker


def _is_real_time(value: object) -> bool:
    """Only well-formed times are checked here: the schema's pattern reports the malformed ones."""
    if isinstance(value, str) and _TIMESTAMP.match(value):
        parse_timestamp(value)  # raises UsageError with the reason for 2026-02-30T00:00Z
    return True
