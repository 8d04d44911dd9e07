"""Reading one XML file into an element tree, safely; every defect is one sentence with the file and line.

Only the standard library's ElementTree parses. A DOCTYPE is refused as soon as the parser meets it, before
its internal subset is read: Falcon definitions never need one, its ENTITY declarations could expand without
bound, and no external entity or DTD is ever fetched. (defusedxml refuses the same, but through the
pure-Python parser, four times slower on a 5 MB file.) ElementTree keeps no element positions, so the lines
of the DOCTYPE and of the root element come from a scan of the raw bytes (exact for ASCII-compatible
encodings such as UTF-8; line 1 otherwise).
"""

from __future__ import annotations

import codecs
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import UsageError

_UNICODE_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # the UTF-32 BOMs start with these too
_FIRST_START_TAG = re.compile(rb"<!--.*?-->|<\?.*?\?>|<([^!?])", re.DOTALL)


@dataclass(frozen=True)
class XmlFile:
    """A parsed file: its root element, the line where the root element starts, and its bytes."""

    file: Path
    root: ET.Element
    root_line: int
    content: bytes


class _DoctypeRefused(Exception):
    """Raised from the parser's doctype callback: parsing stops before the internal subset."""


class _RefusingBuilder(ET.TreeBuilder):
    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise _DoctypeRefused


def read_xml(file: Path) -> XmlFile:
    """Read and parse `file`; UsageError (exit 2) for a file that cannot be read or is not well-formed XML."""
    try:
        content = file.read_bytes()
    except OSError as err:
        raise UsageError(f"Cannot read {file}: {err.strerror or err}; pass a readable Falcon XML file.") from None
    return XmlFile(file, parse_xml(content, file), _root_line(content), content)


def parse_xml(content: bytes, file: Path) -> ET.Element:
    """The root element of `content`, which claims to come from `file`."""
    if not content.strip():
        raise UsageError(f"{file} is empty (line 1): pass a Falcon cluster, feed, process or datasource XML file.")
    if b"\x00" in content and not content.startswith(_UNICODE_BOMS):
        line = _line_of(content, content.index(b"\x00"))
        raise UsageError(
            f"{file} is a binary file, not XML (a NUL byte on line {line}): "
            "pass a Falcon cluster, feed, process or datasource XML file."
        )
    parser = ET.XMLParser(target=_RefusingBuilder())
    try:
        parser.feed(content)
        return parser.close()
    except _DoctypeRefused:
        line = _line_of(content, max(content.find(b"<!DOCTYPE"), 0))
        raise UsageError(
            f"{file} has a DOCTYPE declaration on line {line}, refused because its ENTITY declarations could "
            "expand without bound: remove it (Falcon definitions need none)."
        ) from None
    except ET.ParseError as err:
        line, column = err.position
        reason = str(err).split(": line ", 1)[0]
        raise UsageError(
            f"{file} is not well-formed XML at line {line}, column {column + 1} ({reason}): fix the XML there."
        ) from None
    except LookupError as err:  # an encoding declared in the XML declaration that Python does not know
        raise UsageError(f"{file} declares an encoding Python does not know on line 1 ({err}): use UTF-8.") from None


def _root_line(content: bytes) -> int:
    for match in _FIRST_START_TAG.finditer(content):
        if match.group(1) is not None:
            return _line_of(content, match.start())
    return 1


def _line_of(content: bytes, offset: int) -> int:
    return content.count(b"\n", 0, offset) + 1
