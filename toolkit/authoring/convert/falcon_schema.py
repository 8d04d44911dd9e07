"""Elements that Falcon's own XML schema does not allow where they stand, as Falcon's server refuses them on submit.

Falcon unmarshals a submitted cluster, feed or process with JAXB against its XSD (`EntityType.getUnmarshaller`), so
an element out of the schema's order is refused before any other validation; the toolkit's converter reads
elements by name and would carry it over. The schemas are vendored unchanged in `falcon_schemas/` (Apache License
2.0) and lxml validates against them. Only misplaced elements are refused here (an element the schema does not
expect where it stands, while an element expected there comes after it or one before it belongs after it): what
else the schema refuses is either reported by the converter by field, checked by the linter on the converted
entity, or one of the toolkit's own extensions of Falcon's XML (the `pyspark`, `spark-sql` engines; a feed without
`<schema>`, which makes libxml2 report the element after it as unexpected). Each misplaced
element is one sentence naming its path (as the conversion's other reports name it) and what Falcon's schema
expects there, without lxml's `{uri:falcon:feed:0.1}` namespaces. lxml parses the document only after the standard
library's parser has accepted it (no DOCTYPE), with entities and the network off.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import cache
from importlib import resources
from typing import Any

from lxml import etree

from toolkit.authoring.convert.tracking import Report, Tracker
from toolkit.errors import UsageError

_MISPLACED = "This element is not expected."
_POSITION = re.compile(r"\*(?:\[(\d+)\])?")  # a step of lxml's path of an element: `*`, `*[8]`
_EXPECTED = re.compile(r"Expected is (?:one of )?\( ([^)]*) \)")
_XS = "{http://www.w3.org/2001/XMLSchema}"


def schema_file(kind: str) -> str:
    """`feed-0.1.xsd` for `feed`."""
    return f"{kind}-0.1.xsd"


@cache
def _schema(kind: str) -> etree.XMLSchema:
    return etree.XMLSchema(_schema_document(kind))


@cache
def _schema_document(kind: str) -> Any:
    with resources.as_file(resources.files("toolkit.authoring.convert") / "falcon_schemas" / schema_file(kind)) as path:
        return etree.parse(str(path))


@cache
def _content_models(kind: str) -> dict[str, dict[str, str | None]]:
    """Each named complex type of the schema: its child elements in the schema's order, with their type's name."""
    models: dict[str, dict[str, str | None]] = {}
    for complex_type in _schema_document(kind).iter(f"{_XS}complexType"):
        if complex_type.get("name") is not None:
            models[complex_type.get("name")] = {
                element.get("name"): element.get("type")
                for element in complex_type.iter(f"{_XS}element")
                if next(element.iterancestors(f"{_XS}complexType")) is complex_type
            }
    return models


def misplaced_elements(content: bytes, root: ET.Element, tracker: Tracker) -> tuple[Report, ...]:
    """One report for each element of `content` that Falcon's schema of `tracker.kind` does not allow where it
    stands; `root` is the document's root element as the standard library parsed it."""
    # huge_tree: no limit on a text's size, as the standard library's parser, which has read the file already
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
    try:
        document = etree.fromstring(content, parser)
    except etree.XMLSyntaxError as err:
        raise UsageError(
            f"{tracker.file} cannot be checked against Falcon's schema {schema_file(tracker.kind)}, as lxml cannot "
            f"read it ({err.msg}): fix the XML there."
        ) from None
    schema = _schema(tracker.kind)
    if schema.validate(document):
        return ()
    reports = []
    for error in schema.error_log:
        expected = _EXPECTED.search(error.message.replace(f"{{{tracker.namespace}}}", ""))
        names = [name.strip() for name in expected.group(1).split(",")] if expected else []
        chain = _chain(error.path, root)
        if _MISPLACED in error.message and _out_of_order(chain, names, tracker):
            path = "/".join(["", tracker.display(root.tag)] + [
                tracker.step(parent, child) for parent, child in zip(chain, chain[1:], strict=False)])
            reports.append(Report(f"{tracker.file}: {path}", _sentence(names, tracker)))
    return tuple(reports)


def _chain(lxml_path: str, root: ET.Element) -> list[ET.Element]:
    """The elements from `root` to the one at lxml's positional path (`/*/*[8]`): the standard library's tree has
    the same elements (it keeps no comments, and the positions count elements only)."""
    chain = [root]
    for step in list(_POSITION.finditer(lxml_path))[1:]:
        chain.append(list(chain[-1])[int(step.group(1) or 1) - 1])
    return chain


def _out_of_order(chain: list[ET.Element], expected: list[str], tracker: Tracker) -> bool:
    """Whether the last element of `chain`, which the schema does not expect where it stands, is out of order: an
    element the schema expects there comes after it, or one before it belongs after it. Otherwise an element the
    schema requires is missing before it (Falcon's `<schema>` of a feed, say), which is no misplacement: the
    toolkit's own schema and the linter judge what a converted entity needs."""
    models = _content_models(tracker.kind)
    model_name: str | None = tracker.kind
    for element in chain[1:-1]:
        model_name = models.get(model_name or "", {}).get(tracker.display(element.tag))
    model = models.get(model_name or "")
    if model is None or len(chain) < 2:
        return True  # not a named type: refused as the schema refuses it
    order = list(model)
    element, siblings = chain[-1], list(chain[-2])
    position = siblings.index(element)
    name = tracker.display(element.tag)
    if any(tracker.display(later.tag) in expected for later in siblings[position + 1 :]):
        return True
    rank = order.index(name) if name in order else len(order)
    earlier = [tracker.display(sibling.tag) for sibling in siblings[:position]]
    return any(order.index(other) > rank for other in earlier if other in order)


def _sentence(expected: list[str], tracker: Tracker) -> str:
    names = [f"<{name}>" for name in expected]
    wanted = f"one of {', '.join(names)}" if len(names) > 1 else "".join(names) or "no further element"
    return (
        f"Falcon's schema {schema_file(tracker.kind)} does not allow this element where it stands (it expects "
        f"{wanted} there), so Falcon refuses this {tracker.kind} on submit and nothing was written for this "
        "file: put the elements in the schema's order."
    )
