"""The words of a generated command, and `written`: the one function through which every format writes every value
it did not make itself (a name, a path, a driver's jar, a cluster property, an option), so that a value is data in
each syntax whatever it holds, and is never read as code.

A word is literal text, after the value of a path of the scheduler's host (`path`: the toolkit, spark-submit, the
entrypoints, the config repo, the log folder) when it has one, which a format names by a variable:
- SH, a word of a POSIX shell (the command an Airflow DAG shows): the variable in double quotes, `"$CONF_REPO"`,
  and the literal after it quoted on its own (`"$CONF_REPO"'/drivers/$(x).jar'`), so that nothing of the literal is
  expanded; a literal of plain path characters after a `/` stays inside the variable's quotes
  (`"$ENTRYPOINTS/process.py"`). A literal is single-quoted unless it is all plain characters (shlex.quote).
- CRON, a word of a crontab line's command: SH with each `%` written outside the quotes as `\\%`. Cron ends a
  command at an unescaped `%` (the rest goes to its standard input) and turns `\\%` into `%` (cronie's
  do_command.c); sh reads `\\%` as `%` too, so the word is right whether or not a cron reads it first, and no other
  backslash is cron's (a quoted part ends in a quote, never in a backslash before our `\\%`).
- CRON_VARIABLE, the value of a crontab's `NAME=value` line: cron takes it literally to the end of the line, with no
  escapes; one with spaces at an end, or starting with a quote, is wrapped in a quote it does not hold.
- OOZIE, a shell action's `<argument>` (the XML writer escapes it): the variable as the job property `${confRepo}`;
  a literal that holds `${` (Oozie would evaluate it) or that Oozie would trim is refused.
- JAVA_PROPERTY, a value of job.properties: backslashes doubled, a leading space kept, anything not ASCII written
  as `\\uXXXX` (the file is read as ISO 8859-1 or UTF-8 alike); `${` is refused (Oozie would expand it).
- PYTHON, a string literal of an Airflow DAG file (`repr`): no variable, the path's value is in the word
  (Invocation.resolved).
A value with a character no generated file holds (a control character, one XML refuses, a bidirectional override:
toolkit/core/entities/scheduled_values.py) is refused in every syntax: the definitions' values are refused earlier,
naming their entity and field (written_values.py), and the options' by Invocation."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from toolkit.core.entities.scheduled_values import unwritable_character
from toolkit.errors import UsageError


class HostPath(str, Enum):
    """A path of the scheduler's host, an Invocation field, that a format may name by a variable."""

    TOOLKIT = "toolkit"
    SPARK_SUBMIT = "spark_submit"
    ENTRYPOINTS = "entrypoints"
    REPO = "repo"
    LOG_DIR = "log_dir"


@dataclass(frozen=True)
class Word:
    """One argument: the value of `path` when given, then `text`, taken literally."""

    text: str
    path: HostPath | None = None


def literal(*texts: str) -> list[Word]:
    return [Word(text) for text in texts]


def host(path: HostPath, text: str = "") -> Word:
    """The word of `path`'s value, then `text` (`host(HostPath.ENTRYPOINTS, "/process.py")`)."""
    return Word(text, path)


class Syntax(Enum):
    SH = "sh"
    CRON = "cron"
    CRON_VARIABLE = "cron-variable"
    OOZIE = "oozie"
    JAVA_PROPERTY = "java-property"
    PYTHON = "python"


_NO_VARIABLES: Mapping[HostPath, str] = MappingProxyType({})
_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./-]*")  # literal inside double quotes and bare alike; no %: cron's


def written(word: Word, syntax: Syntax, variables: Mapping[HostPath, str] = _NO_VARIABLES, *, of: str) -> str:
    """`word` as `syntax` writes it, its path as the variable `variables` names for it (`CONF_REPO`, `confRepo`);
    `of` says whose word it is when it is refused (`call 'import-customers'`, `--repo-path`)."""
    what = unwritable_character(word.text)
    if what is not None:
        raise UsageError(f"The value {word.text!r} of {of} holds {what}: a generated line cannot hold it; change the "
                         "value (or the option that gives it).")
    if syntax in (Syntax.SH, Syntax.CRON):
        return _sh(word, variables, cron=syntax is Syntax.CRON)
    if syntax is Syntax.OOZIE:
        return _oozie(word, variables, of)
    if word.path is not None:
        raise ValueError(f"{syntax.value} names no variable: resolve {word.path.value} first")
    if syntax is Syntax.CRON_VARIABLE:
        return _cron_variable(word.text, of)
    if syntax is Syntax.JAVA_PROPERTY:
        return _java_property(word.text, of)
    return repr(word.text)


def _sh(word: Word, variables: Mapping[HostPath, str], *, cron: bool) -> str:
    literal = _cron_literal(word.text) if cron else shlex.quote(word.text)
    if word.path is None:
        return literal
    variable = variables[word.path]
    if word.text == "" or (word.text.startswith("/") and _PLAIN.fullmatch(word.text)):
        return f'"${variable}{word.text}"'
    return f'"${variable}"{literal}'


def _cron_literal(text: str) -> str:
    """Each part between two `%` quoted (shlex), the `%` as `\\%` between them."""
    if not text:
        return "''"
    return "\\%".join(shlex.quote(part) if part else "" for part in text.split("%"))


def _cron_variable(text: str, of: str) -> str:
    if text and text == text.strip() and not text.startswith(("'", '"')):
        return text
    for quote in ("'", '"'):
        if quote not in text:
            return f"{quote}{text}{quote}"
    raise UsageError(f"The value {text!r} of {of} cannot be a crontab variable: cron reads a value with spaces at "
                     "an end, or starting with a quote, only between quotes it does not hold; change the value.")


def _oozie(word: Word, variables: Mapping[HostPath, str], of: str) -> str:
    text = word.text
    trimmed = text != text.rstrip() if word.path is not None else (not text or text != text.strip())
    if "${" in text or trimmed:
        raise UsageError(f"The argument {text!r} of {of} cannot pass through an Oozie shell action (Oozie evaluates "
                         "${...} and trims spaces): change it (e.g. --submit-args).")
    return text if word.path is None else "${" + variables[word.path] + "}" + text


def _java_property(text: str, of: str) -> str:
    if "${" in text:
        raise UsageError(f"The value {text!r} of {of} cannot be an Oozie job property (Oozie expands ${{...}} in "
                         "it): give a path without '${'.")
    escaped = text.replace("\\", "\\\\")
    escaped = "".join(character if ord(character) < 128 else _unicode_escape(character) for character in escaped)
    return "\\" + escaped if escaped.startswith(" ") else escaped


def _unicode_escape(character: str) -> str:
    """`\\uXXXX`, a character beyond the BMP as its two UTF-16 halves (as Java's strings hold it)."""
    units = character.encode("utf-16-be")
    return "".join(f"\\u{int.from_bytes(units[i:i + 2], 'big'):04x}" for i in range(0, len(units), 2))
