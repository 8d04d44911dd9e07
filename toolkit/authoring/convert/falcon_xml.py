"""One Falcon XML file into a `Conversion`: the entity's YAML data, and the reports of what was not converted.

The root element says the kind: `<cluster>`, `<feed>`, `<process>` or `<datasource>` in Falcon's namespace of
that kind. Anything else is not a Falcon entity definition (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.authoring.convert.cluster import convert_cluster
from toolkit.authoring.convert.datasource import convert_datasource
from toolkit.authoring.convert.falcon_schema import misplaced_elements
from toolkit.authoring.convert.feed import convert_feed
from toolkit.authoring.convert.process import convert_process
from toolkit.authoring.convert.tracking import Node, Report, Tracker
from toolkit.authoring.convert.xml_input import XmlFile, read_xml
from toolkit.core.entities.kinds import Kind
from toolkit.errors import UsageError

_CONVERTERS: dict[Kind, Callable[[Node], dict[str, Any]]] = {
    Kind.CLUSTER: convert_cluster,
    Kind.FEED: convert_feed,
    Kind.PROCESS: convert_process,
    Kind.DATASOURCE: convert_datasource,
}
# The entity name becomes the file name: nothing that could leave the kind folder or hide the file.
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
MAX_NAME = 128  # the schemas' limit of every entity name; longer, the file could not be written


def _namespace(kind: str) -> str:
    """`uri:falcon:feed:0.1` for `feed`."""
    return f"uri:falcon:{kind}:0.1"


@dataclass(frozen=True)
class ConvertedEntity:
    """An entity's YAML data (a plain mapping in the schema's key order)."""

    kind: Kind
    name: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Conversion:
    """What one file gave: its entity (None when Falcon's schema refuses the file) and the reports of what was
    not converted."""

    source: Path
    entity: ConvertedEntity | None
    reports: tuple[Report, ...]


def convert_file(file: Path) -> Conversion:
    """Read and convert `file`; UsageError (exit 2) when it is not a readable Falcon entity definition."""
    xml = read_xml(file)
    kind = _kind(xml)
    tracker = Tracker(file, _namespace(kind.value), kind.value)
    root = tracker.root(xml.root)
    data = _CONVERTERS[kind](root)
    name = _name(xml, kind, data)
    tracker.report_leftovers(root)
    if not tracker.reports:  # what the converter reports, it names by field; the rest Falcon's schema judges
        refusals = misplaced_elements(xml.content, xml.root, tracker)
        if refusals:
            return Conversion(file, None, refusals)
    return Conversion(file, ConvertedEntity(kind, name, data), tuple(tracker.reports))


def _kind(xml: XmlFile) -> Kind:
    for kind in _CONVERTERS:
        if xml.root.tag == f"{{{_namespace(kind.value)}}}{kind.value}":
            return kind
    local = xml.root.tag.rpartition("}")[2]
    hint = ""
    if local in {kind.value for kind in _CONVERTERS}:
        hint = f' (a Falcon {local} is <{local} xmlns="{_namespace(local)}">)'
    raise UsageError(
        f"{xml.file} has the root element <{xml.root.tag}> on line {xml.root_line}, which is not a Falcon "
        f"cluster, feed, process or datasource{hint}: pass only Falcon entity definitions."
    )


def _name(xml: XmlFile, kind: Kind, data: dict[str, Any]) -> str:
    name = data.get("name")
    if name is not None and _FILE_NAME.fullmatch(name) and len(name) <= MAX_NAME:
        return name
    what = "without a name" if name is None else f"named {name!r}, which cannot be a file name,"
    if name is not None and _FILE_NAME.fullmatch(name):
        what = f"named with {len(name)} characters, more than the {MAX_NAME} an entity name may have,"
    raise UsageError(
        f"{xml.file} defines a {kind.value} {what} on line {xml.root_line}: "
        "give it a Falcon name (letters, digits and hyphens, starting with a letter)."
    )
