"""What the converters read from a Falcon element tree, so that whatever they did not read is reported.

Converters read attributes, child elements and text only through `Node`, which marks what it hands out as
taken. Afterwards `Tracker.report_leftovers` walks the whole tree and reports every attribute, element or
text that no converter took: a Falcon field the toolkit has no place for is never dropped silently.
Reports name the element path, XPath-like, with repeated elements told apart by their name, type or input
(`/feed/clusters/cluster[@name='primary']/import`), since ElementTree keeps no line numbers; they come in
document order, whatever the order the converters read in.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from toolkit.secrets_masking import masked
from toolkit.shown_text import printable, shown

# Schema plumbing (xsi:schemaLocation ...), not a field of the entity.
_XSI = "{http://www.w3.org/2001/XMLSchema-instance}"
_IDENTIFYING_ATTRIBUTES = ("name", "type", "input")
_WHAT_TO_DO = "redo by hand what it did, or drop it"
# Reports listed per file; past them, what was not converted is only counted, in one last report: a file of a
# million unknown elements would print a million lines, and building them was most of the conversion's time.
MAX_REPORTS = 1_000


@dataclass(frozen=True)
class Report:
    """Something not carried over as it was: where (file and element path, or file:line:column) and what to do. Its
    location and message are fit to show when it is made, as a lint problem's (toolkit/shown_text.py: a quoted
    password masked, a control character an escape)."""

    location: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "location", printable(self.location))  # an element path quotes Falcon's names
        object.__setattr__(self, "message", shown(self.message))

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class Tracker:
    """The taken parts and the reports of one document whose elements are in `namespace`."""

    def __init__(self, file: Path, namespace: str, kind: str) -> None:
        self.file = file
        self.namespace = namespace
        self.kind = kind
        self._reports: list[tuple[ET.Element, int, Report]] = []  # (at element, rank, report)
        self._root: ET.Element | None = None
        self._taken: set[tuple[int, str]] = set()  # (id(element), "" | "@attribute" | "#text")
        self._settled: set[int] = set()  # elements reported as a whole: their content is not walked
        self._unlisted = 0  # reports past MAX_REPORTS
        # (id(parent), tag) -> id(child) -> the child's number among its siblings of that tag, counted once per
        # parent and tag: counting per child made a file of many siblings quadratic (minutes for 5 MB)
        self._numbers: dict[tuple[int, str], dict[int, int]] = {}

    def root(self, element: ET.Element) -> Node:
        self._root = element
        return Node(element, f"/{self.display(element.tag)}", self)

    @property
    def reports(self) -> list[Report]:
        """The reports in document order: an element, then its attributes, then its text; then the count of
        those not listed, if any."""
        order = self._document_order({id(element) for element, _, _ in self._reports})
        entries = sorted(self._reports, key=lambda entry: (order[id(entry[0])], entry[1]))
        listed = [report for _, _, report in entries]
        if self._unlisted:
            listed.append(Report(str(self.file), f"{self._unlisted:,} more things were not converted and are not "
                                 f"listed (only the first {MAX_REPORTS:,} are): fix those, then convert again."))
        return listed

    def _document_order(self, wanted: set[int]) -> dict[int, int]:
        """id(element) -> its index in document order, for the `wanted` elements (the walk stops at the last)."""
        order: dict[int, int] = {}
        if wanted and self._root is not None:
            for index, element in enumerate(self._root.iter()):
                if id(element) in wanted:
                    order[id(element)] = index
                    if len(order) == len(wanted):
                        break
        return order

    @property
    def full(self) -> bool:
        """MAX_REPORTS are listed: further reports are only counted."""
        return len(self._reports) >= MAX_REPORTS

    def report(self, element: ET.Element, path: str, message: str, rank: int = 0) -> None:
        """Report `path`, in or at `element`; `rank` orders reports at the same element (0 the element,
        1 an attribute, 2 its text, 3 text after it)."""
        if self.full:
            self._unlisted += 1
            return
        self._reports.append((element, rank, Report(f"{self.file}: {path}", message)))

    def take(self, element: ET.Element, part: str = "") -> None:
        self._taken.add((id(element), part))

    def settle(self, element: ET.Element) -> None:
        self._settled.add(id(element))

    def display(self, name: str) -> str:
        """A tag or attribute name as messages show it: local in the document's namespace, else `{uri}name`."""
        prefix = f"{{{self.namespace}}}"
        return name[len(prefix) :] if name.startswith(prefix) else name

    def step(self, parent: ET.Element, child: ET.Element) -> str:
        """The path step from `parent` to `child`: `cluster[@name='primary']`, or `frequency[2]` for a repeat."""
        tag = self.display(child.tag)
        for attribute in _IDENTIFYING_ATTRIBUTES:
            value = child.get(attribute)
            if value is not None:
                quote = "'" if "'" not in value else '"'
                return f"{tag}[@{attribute}={quote}{value}{quote}]"
        numbers = self._numbers.get((id(parent), child.tag))
        if numbers is None:
            same = [sibling for sibling in parent if sibling.tag == child.tag]
            numbers = self._numbers[(id(parent), child.tag)] = {id(s): n for n, s in enumerate(same, 1)}
        return tag if len(numbers) == 1 else f"{tag}[{numbers[id(child)]}]"

    def report_leftovers(self, node: Node) -> None:
        """Report everything under `node` that no converter took."""
        self._leftovers(node.element, node.path)

    def _leftovers(self, element: ET.Element, path: str) -> None:
        for attribute in element.attrib:
            if (id(element), f"@{attribute}") not in self._taken and not attribute.startswith(_XSI):
                name = self.display(attribute)
                self.report(
                    element,
                    f"{path}/@{name}",
                    f"the attribute {name} is not a Falcon {self.kind} field the toolkit converts, so it was not "
                    f"converted: {_WHAT_TO_DO}.",
                    rank=1,
                )
        if (id(element), "#text") not in self._taken:
            self._stray_text(element, element.text, path)
        for child in element:
            if id(child) in self._settled:
                pass
            elif (id(child), "") in self._taken:
                self._leftovers(child, f"{path}/{self.step(element, child)}")
            elif self.full:
                self._unlisted += 1
            else:
                self.report(
                    child,
                    f"{path}/{self.step(element, child)}",
                    f"<{self.display(child.tag)}> is not a Falcon {self.kind} element the toolkit converts, so it "
                    f"was not converted: {_WHAT_TO_DO}.",
                )
            if child.tail is not None and child.tail.strip():
                last = child  # text after the child comes after everything inside it
                while len(last):
                    last = last[-1]
                self._stray_text(last, child.tail, path, rank=3)

    def _stray_text(self, at: ET.Element, text: str | None, path: str, rank: int = 2) -> None:
        if text is not None and text.strip():
            quoted = " ".join(masked(text).split())  # masked whole: a password cut at the 60th character is no setting
            message = f"the text {quoted[:60]!r} has no place here and was not converted: drop it."
            self.report(at, f"{path}/text()", message, rank)


class Node:
    """One element being converted; everything read through it is marked as taken."""

    def __init__(self, element: ET.Element, path: str, tracker: Tracker) -> None:
        self.element = element
        self.path = path
        self._tracker = tracker
        tracker.take(element)

    def attr(self, name: str) -> str | None:
        """The attribute's text as written, or None."""
        self._tracker.take(self.element, f"@{name}")
        return self.element.get(name)

    def text(self) -> str:
        """The element's own text, stripped of surrounding whitespace (XML files are indented)."""
        self._tracker.take(self.element, "#text")
        return (self.element.text or "").strip()

    def child(self, tag: str) -> Node | None:
        """The child element `tag`, which Falcon allows once; repeats are reported and not converted."""
        matches = self.children(tag)
        for repeat in matches[1:]:
            repeat.reject(
                f"<{tag}> appears {len(matches)} times where Falcon allows it once; only the first was converted: "
                "keep one."
            )
        return matches[0] if matches else None

    def children(self, tag: str) -> list[Node]:
        """The child elements `tag`, in document order."""
        qualified = f"{{{self._tracker.namespace}}}{tag}"
        return [
            Node(child, f"{self.path}/{self._tracker.step(self.element, child)}", self._tracker)
            for child in self.element.findall(qualified)
        ]

    def report(self, message: str) -> None:
        """Report something about this element that was not carried over as it was."""
        self._tracker.report(self.element, self.path, message)

    def reject(self, message: str) -> None:
        """Report this whole element as not converted; nothing inside it is reported again."""
        self.report(message)
        self._tracker.settle(self.element)

    def unsupported(self, tag: str, message: str) -> None:
        """Reject the child elements `tag`, a Falcon feature the toolkit does not have, with `message`."""
        for child in self.children(tag):
            child.reject(message)
