"""A data-quality gate's suite file, read without Great Expectations: the linter checks it in pre-commit, and the
runner hands the same expectations to Great Expectations (toolkit/services/quality/).

The file is Great Expectations' own suite JSON, so a suite made with it (`suite.to_json_dict()`, or a
`gx/expectations/*.json` of a file context) is used as it is: a `name` and a list of `expectations`, each a `type`
and its `kwargs` (other keys, such as `id`, `meta` or `notes`, are allowed and ignored). The 0.x names
`expectation_suite_name` and `expectation_type` are read too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from toolkit.core.entities.nesting import MAX_DEPTH, nesting
from toolkit.errors import UsageError

# The kwargs through which Great Expectations' expectations name columns: one column, a pair, or a list or set.
_ONE_COLUMN = ("column", "column_A", "column_B")
_MANY_COLUMNS = ("column_list", "column_set")
# A suite is parsed whole, and its parsed objects take several times its bytes: no suite comes near this (one of a
# thousand expectations is a few hundred kilobytes), and a bigger file is refused before it is read.
MAX_SUITE_BYTES = 4 << 20


class SuiteError(UsageError):
    """A suite file that is missing or is no suite (exit 2): one sentence naming the file and what to do."""


@dataclass(frozen=True)
class ExpectationSpec:
    """One expectation as the suite file states it: Great Expectations' type and its arguments."""

    type: str
    kwargs: Mapping[str, Any]

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns this expectation names (none for a table-level one such as a row count)."""
        named = [self.kwargs[key] for key in _ONE_COLUMN if isinstance(self.kwargs.get(key), str)]
        for key in _MANY_COLUMNS:
            value = self.kwargs.get(key)
            if isinstance(value, list | tuple | set):
                named.extend(str(column) for column in value)
        return tuple(named)

    @property
    def label(self) -> str:
        """`type(column)`, or the type alone: how messages and the status line name it."""
        return f"{self.type}({', '.join(self.columns)})" if self.columns else self.type


@dataclass(frozen=True)
class QualitySuite:
    """A suite read from `path` (relative to the config repo's root)."""

    path: str
    name: str
    expectations: tuple[ExpectationSpec, ...]


def suite_file(root: Path | str, path: str) -> Path:
    """Where `path` (a gate's `suite`) is: inside the config repo, or SuiteError."""
    base = Path(root).resolve()
    where = (base / path).resolve()
    if not where.is_relative_to(base):
        raise SuiteError(f"The quality suite {path} is outside the config repo {base}: keep suites in the repo "
                         "(for example quality/<feed>.json), so that they are versioned with the feed.")
    return where


def read_suite(root: Path | str, path: str) -> QualitySuite:
    """The suite at `path` under the config repo `root`, checked for Great Expectations' shape; SuiteError (one
    sentence naming the file) when it is missing, bigger than MAX_SUITE_BYTES, not JSON, or no suite."""
    where = suite_file(root, path)
    try:
        with where.open(encoding="utf-8") as file:
            size = os.fstat(file.fileno()).st_size
            if size > MAX_SUITE_BYTES:
                raise _too_big(path, size)
            text = file.read(MAX_SUITE_BYTES + 1)  # characters: as many bytes at least
        if len(text) > MAX_SUITE_BYTES:  # the file grew since
            raise _too_big(path, len(text.encode("utf-8")))
    except FileNotFoundError:
        raise SuiteError(f"The quality suite {path} does not exist in the config repo {Path(root)}: add the "
                         "Great Expectations suite file there, or correct the path.") from None
    except (OSError, UnicodeDecodeError) as err:
        raise SuiteError(f"The quality suite {path} cannot be read ({err}): make it a readable UTF-8 JSON file.") \
            from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise SuiteError(f"The quality suite {path} is not JSON (line {err.lineno}, column {err.colno}: "
                         f"{err.msg}): write it as Great Expectations' suite JSON.") from None
    except RecursionError:  # json's decoder recurses per level: thousands of levels
        raise _too_deep(path) from None
    if nesting(document) > MAX_DEPTH:  # lint rules, the gate and Great Expectations walk it
        raise _too_deep(path)
    return parse_suite(path, document)


def _too_big(path: str, size: int) -> SuiteError:
    return SuiteError(f"The quality suite {path} is {size:,} bytes, more than the {MAX_SUITE_BYTES:,} a suite may be: "
                      "check that the path names a Great Expectations suite.")


def _too_deep(path: str) -> SuiteError:
    return SuiteError(f"The quality suite {path} nests more than {MAX_DEPTH} levels deep, far deeper than a suite: "
                      "flatten it.")


def parse_suite(path: str, document: Any) -> QualitySuite:
    """A suite from its JSON `document` (read from `path`), or SuiteError naming what is wrong."""
    if not isinstance(document, dict):
        raise SuiteError(f"The quality suite {path} is not a JSON object: a suite is {{\"name\": ..., "
                         "\"expectations\": [{\"type\": ..., \"kwargs\": {...}}, ...]}.")
    name = document.get("name", document.get("expectation_suite_name"))
    if not isinstance(name, str) or not name:
        raise SuiteError(f"The quality suite {path} has no name: give it a \"name\".")
    items = document.get("expectations")
    if not isinstance(items, list) or not items:
        raise SuiteError(f"The quality suite {path} lists no expectations: give \"expectations\" a list of "
                         "{\"type\": ..., \"kwargs\": {...}} (a gate without expectations would pass anything).")
    expectations = tuple(_expectation(path, index, item) for index, item in enumerate(items, 1))
    _refuse_repeats(path, expectations)
    return QualitySuite(path, name, expectations)


def _refuse_repeats(path: str, expectations: tuple[ExpectationSpec, ...]) -> None:
    """Great Expectations keeps one of two equal expectations: the second would have no result of its own."""
    seen: dict[str, int] = {}
    for index, spec in enumerate(expectations, 1):
        key = json.dumps([spec.type, dict(spec.kwargs)], sort_keys=True, default=str)
        if key in seen:
            raise SuiteError(f"Expectations {seen[key]} and {index} of the quality suite {path} are the same "
                             f"({spec.label}): remove one of them.")
        seen[key] = index


def _expectation(path: str, index: int, item: Any) -> ExpectationSpec:
    where = f"Expectation {index} of the quality suite {path}"
    if not isinstance(item, dict):
        raise SuiteError(f"{where} is not a JSON object: write {{\"type\": ..., \"kwargs\": {{...}}}}.")
    kind = item.get("type", item.get("expectation_type"))
    if not isinstance(kind, str) or not kind.startswith("expect_"):
        raise SuiteError(f"{where} has no Great Expectations type (a \"type\" such as "
                         "expect_column_values_to_not_be_null): give it one.")
    kwargs = item.get("kwargs", {})
    if not isinstance(kwargs, dict):
        raise SuiteError(f"{where} ({kind}) has \"kwargs\" that are not a JSON object: give its arguments as one.")
    return ExpectationSpec(kind, MappingProxyType(dict(kwargs)))
