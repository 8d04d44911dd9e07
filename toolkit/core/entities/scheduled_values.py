"""The values of a definition that `toolkit schedule` writes into the files it generates (crontab lines, Oozie
workflows, Airflow DAGs), each with its entity and field, and the characters none of them may hold.

Every generated line is read by a program that splits or rejects on them: a line break in a value would end a
crontab line and start an entry of its own; NUL, escape and the other control characters (Unicode Cc) make an XML
file no parser reads and a line no shell reads as written; a line or paragraph separator (U+2028, U+2029) ends a
line for Python's `splitlines`; a lone surrogate cannot be written in UTF-8; U+FFFE and U+FFFF are no characters of
XML 1.0 either (with Cc and the surrogates, all it refuses). A bidirectional override or isolate (U+202A-202E,
U+2066-2069, the ones toolkit/shown_text.py escapes in messages) breaks nothing, but shows a crontab line or an
Airflow DAG's docstring in another order than cron or Python reads it, hiding what it runs from its reviewer. Lint
RP010 reports them anywhere in a repo, and `toolkit schedule` refuses them in what reaches the cluster it generates
for (exit 2), as it may be run without lint. How the formats quote the other characters:
toolkit/orchestration/schedule/words.py.

The values that reach a generated file:
- every entity's `name` (call names and arguments, generated file names, Airflow DAG ids);
- a cluster's properties its calls pass on (trigger.submit-args, each word as a shell splits it; jvm.class-archive;
  metrics.textfile; report.out) and its `write` and `registry` endpoints (in the Airflow assets' URIs);
- a feed's and a process's `timezone` (CRON_TZ, the Oozie and Airflow time zones), a feed's data location and
  table, its own and each cluster's (the assets' URIs);
- a datasource's `driver.jar`, its own and each interface's (spark-submit's --jars).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from toolkit.core.entities.document import FieldPath, format_path
from toolkit.core.entities.host_paths import METRICS_TEXTFILE, REPORT_OUT
from toolkit.core.entities.model import Cluster, Datasource, Driver, Entity, Feed, Process

# Cluster properties that a scheduled call passes to spark-submit (toolkit/services/runtime/submit.py,
# class_archive.py).
SUBMIT_ARGS_PROPERTY = "trigger.submit-args"
CLASS_ARCHIVE_PROPERTY = "jvm.class-archive"
_PASSED_PROPERTIES = (SUBMIT_ARGS_PROPERTY, CLASS_ARCHIVE_PROPERTY, METRICS_TEXTFILE, REPORT_OUT)
_ENDPOINTS = ("write", "registry")

# Unicode's control characters (Cc), line and paragraph separators (Zl, Zp), surrogates (Cs), the bidirectional
# embeddings, overrides and isolates, and the two noncharacters XML 1.0 refuses, exactly.
_UNWRITABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
_NAMED = {"\n": "a line break", "\r": "a carriage return", "\t": "a tab", "\x00": "a NUL",
          "\u2028": "a line separator", "\u2029": "a paragraph separator"}
_KINDS = (("\ud800", "\udfff", "a lone surrogate"), ("\ufffe", "\uffff", "a noncharacter"),
          ("\u202a", "\u202e", "a bidirectional formatting character"),
          ("\u2066", "\u2069", "a bidirectional formatting character"))


def unwritable_character(text: str) -> str | None:
    """The first character of `text` no generated line may hold, said as `a line break (U+000A)`; None if none."""
    found = _UNWRITABLE.search(text)
    if found is None:
        return None
    character = found.group()
    code = f"U+{ord(character):04X}"
    if character in _NAMED:
        return f"{_NAMED[character]} ({code})"
    for first, last, kind in _KINDS:
        if first <= character <= last:
            return f"{kind} ({code})"
    return f"the control character {code}"


@dataclass(frozen=True)
class ScheduledValue:
    """A value of `entity` at `path` (as the YAML writes it) that the generated schedule holds."""

    entity: Entity
    path: FieldPath
    text: str

    def problem(self) -> str | None:
        """`driver.jar[0] holds a line break (U+000A): ...`, the sentence lint and the schedule say; None when the
        value can be written."""
        what = unwritable_character(self.text)
        if what is None:
            return None
        return (f"{format_path(self.path)} holds {what}: the files toolkit schedule generates (crontab lines, Oozie "
                "workflows, Airflow DAGs) hold no control character, no character XML refuses and no bidirectional "
                "override: it would end a line, break an XML file or show a line in another order than it runs; "
                "remove it.")


def scheduled_values(entity: Entity) -> Iterator[ScheduledValue]:
    """The values of `entity` a generated schedule may hold (the module's list)."""
    yield ScheduledValue(entity, ("name",), entity.name)
    if isinstance(entity, Cluster):
        yield from _cluster(entity)
    elif isinstance(entity, Feed):
        yield from _feed(entity)
    elif isinstance(entity, Process):
        yield ScheduledValue(entity, ("timezone",), entity.timezone)
    elif isinstance(entity, Datasource):
        yield from _drivers(entity, (), entity.driver)
        for type_, interface in entity.interfaces.items():
            if interface.driver is not None:
                yield from _drivers(entity, ("interfaces", type_), interface.driver)


def _cluster(cluster: Cluster) -> Iterator[ScheduledValue]:
    for name in _PASSED_PROPERTIES:
        value = cluster.properties.get(name)
        if value is None:
            continue
        words = _arguments(str(value)) if name == SUBMIT_ARGS_PROPERTY else [str(value)]
        yield from (ScheduledValue(cluster, ("properties", name), word) for word in words)
    for type_ in _ENDPOINTS:
        interface = cluster.interfaces.get(type_)
        if interface is not None:
            yield ScheduledValue(cluster, ("interfaces", type_, "endpoint"), interface.endpoint)


def _arguments(text: str) -> list[str]:
    """spark-submit's arguments as a shell splits them (a line break between two is a space); an unclosed quote
    keeps the text whole."""
    try:
        return shlex.split(text)
    except ValueError:
        return [text]


def _feed(feed: Feed) -> Iterator[ScheduledValue]:
    yield ScheduledValue(feed, ("timezone",), feed.timezone)
    storages: list[tuple[FieldPath, dict[str, str], str | None]] = [((), dict(feed.locations), feed.table)]
    storages += [(("clusters", index), dict(on.locations), on.table) for index, on in enumerate(feed.clusters)]
    for at, locations, table in storages:
        if "data" in locations:
            yield ScheduledValue(feed, (*at, "locations", "data"), locations["data"])
        if table is not None:
            yield ScheduledValue(feed, (*at, "table"), table)


def _drivers(datasource: Datasource, at: FieldPath, driver: Driver) -> Iterator[ScheduledValue]:
    for index, jar in enumerate(driver.jars):
        yield ScheduledValue(datasource, (*at, "driver", "jar", index), jar)
