"""Read one YAML file into a `Document`, turning every defect into a `Problem`, never an exception.

Why not `yaml.safe_load`: it forgets where values are, keeps the last of two duplicate keys, and follows
YAML 1.1, where `2026-11-21T10:00Z` becomes a datetime and `on`/`yes` become booleans. Here libyaml (the C
parser, when PyYAML has it) composes the node tree, and a small walker builds plain data with YAML 1.2
core scalars (only `true`/`false` are booleans; timestamps stay strings), recording the position of every
key and value. Mapping keys are always strings: their text as written.
"""

from __future__ import annotations

import codecs
import gc
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

import yaml
from yaml.composer import Composer
from yaml.events import CollectionEndEvent, CollectionStartEvent, StreamEndEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from toolkit.core.entities.document import Document, FieldPath, format_path
from toolkit.core.entities.entity_file import FileTooLarge, read_entity_file
from toolkit.core.entities.nesting import MAX_DEPTH
from toolkit.core.entities.problems import (
    DUPLICATE_KEY,
    EMPTY,
    NOT_A_MAPPING,
    SYNTAX,
    UNREADABLE,
    UNSUPPORTED_YAML,
    Problem,
    Severity,
)

try:
    from yaml._yaml import CParser  # libyaml's parser (what yaml.cyaml re-exports)

    _LIBYAML = True
except ImportError:  # PyYAML built without libyaml: the pure-Python parser gives the same nodes.
    _LIBYAML = False

_TAG = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT, _FLOAT = (_TAG + name for name in ("str", "null", "bool", "int", "float"))
_MERGE = _TAG + "merge"
# Guards against alias and merge bombs ("billion laughs") and absurd nesting; real entities are far below both.
# Every step of the walk spends one: each value, merge key, mapping and entry merged, duplicate key skipped.
_MAX_NODES = 250_000
# Guards against aliases that repeat long text: what a document expands to (its scalars, values and keys, counted
# each time an alias or merge reaches them) is copied whole downstream: the parse cache's record, the definition
# hash, the plan's differences, messages quoting a value. Without aliases a file never expands past its own length,
# so the limit is tied to it rather than fixed: what a file costs downstream stays within a few times what someone
# committed (a fixed limit would let each file of a few bytes cost all of it); the 1 MiB floor is far above what the
# anchors of any real entity repeat.
_TEXT_FLOOR = 2**20
_TEXT_FACTOR = 4
# libyaml's composer recurses in C per level: tens of thousands of levels overflow the stack (a segmentation
# fault, no exception), so a text that may nest deeper than it composes safely is scanned from the parser's events
# first, and refused at MAX_DEPTH. Every level needs one of the indicators `[{-?:`, so a text with fewer of them
# cannot be that deep; one shorter than _MAX_NODES characters cannot hold that many values either: such texts (every
# real entity) are not scanned, and the walker refuses the ones deeper than MAX_DEPTH.
_COMPOSED_DEPTH = 1000
_NESTING_INDICATORS = "[{-?:"


class _Yaml12Resolver(BaseResolver):
    """YAML 1.2 core schema implicit types, plus `<<` merge keys; no timestamps, no yes/no/on/off."""


def reads_as_text(scalar: str) -> bool:
    """True when this loader reads the plain (unquoted) scalar as text, not as a number, bool or null;
    writers of entity files use it to know what to quote."""
    return _Yaml12Resolver().resolve(ScalarNode, scalar, (True, False)) == _STR


for _tag, _pattern, _first in (
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        _FLOAT,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    (_NULL, r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    (_MERGE, r"^(?:<<)$", "<"),
):
    _Yaml12Resolver.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


if _LIBYAML:

    class _NodeLoader(CParser, _Yaml12Resolver):
        """libyaml parser and composer with our resolver: yields nodes, constructs nothing."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _Yaml12Resolver.__init__(self)

else:

    class _NodeLoader(Reader, Scanner, Parser, Composer, _Yaml12Resolver):  # type: ignore[no-redef]
        """Pure-Python parser and composer with our resolver: yields nodes, constructs nothing."""

        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)
            _Yaml12Resolver.__init__(self)


class _Abort(Exception):
    """Stops the walk on a defect that leaves no usable document (the problem is already recorded)."""


def load_document(file: Path) -> tuple[Document | None, list[Problem]]:
    """Read and parse `file`; the document is None whenever a problem was found."""
    try:
        content = read_entity_file(file)
    except FileTooLarge as err:
        return None, [_problem(file, 1, 1, UNSUPPORTED_YAML, str(err))]
    except OSError as err:
        return None, [_problem(file, 1, 1, UNREADABLE, f"The file cannot be read: {err.strerror or err}.")]
    return parse_document(content, file)


def parse_document(content: bytes | str, file: Path) -> tuple[Document | None, list[Problem]]:
    """Parse YAML text (bytes must be UTF-8) that claims to come from `file`."""
    if isinstance(content, bytes):
        text, problem = _decode(content, file)
        if problem is not None:
            return None, [problem]
    else:
        text = content
    with collector_paused():
        return _parse_text(text, file)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: its passes over the many new nodes make big files quadratic."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _parse_text(text: str, file: Path) -> tuple[Document | None, list[Problem]]:
    too_big = _shape_problem(text, file)
    if too_big is not None:
        return None, [too_big]
    loader = _NodeLoader(text)
    try:
        root = loader.get_single_node()
    except RecursionError:  # the pure-Python composer (PyYAML without libyaml) recurses in Python
        return None, [_problem(file, 1, 1, UNSUPPORTED_YAML, _TOO_DEEP)]
    except yaml.MarkedYAMLError as err:
        return None, [_syntax_problem(file, err)]
    except yaml.reader.ReaderError as err:  # a character YAML forbids: it has a position, not a mark
        line, column = _line_column(text, err.position)
        message = f"The file contains a character YAML forbids (#x{err.character:04x}, {err.reason}); remove it."
        return None, [_problem(file, line, column, SYNTAX, message)]
    except yaml.YAMLError as err:
        return None, [_problem(file, 1, 1, SYNTAX, f"YAML cannot be read: {err}; fix the file.")]
    finally:
        loader.dispose()
    if root is None or (isinstance(root, ScalarNode) and root.tag == _NULL):
        return None, [_problem(file, 1, 1, EMPTY, _EMPTY_MESSAGE)]
    if not isinstance(root, MappingNode):
        what = "a list" if isinstance(root, SequenceNode) else f"the value {root.value!r}"
        line, column = _mark(root)
        message = f"The top level must be a mapping of fields (kind: ..., name: ...), not {what}."
        return None, [_problem(file, line, column, NOT_A_MAPPING, message)]
    walker = _Walker(file, _TEXT_FLOOR + _TEXT_FACTOR * len(text))
    try:
        data = walker.node(root, ())
    except _Abort:
        return None, walker.problems
    if walker.problems:
        return None, walker.problems
    return Document(file, data, walker.value_positions, walker.key_positions), []


def _shape_problem(text: str, file: Path) -> Problem | None:
    """A problem when a text that could nest too deep to compose nests deeper than MAX_DEPTH, or holds more than
    _MAX_NODES values, found from the parser's events (no recursion); None otherwise, and for a syntax error, which
    composing reports."""
    indicators = sum(text.count(indicator) for indicator in _NESTING_INDICATORS)
    if len(text) <= _MAX_NODES and indicators <= _COMPOSED_DEPTH:
        return None
    loader = _NodeLoader(text)
    depth = count = 0
    try:
        while not loader.check_event(StreamEndEvent):
            event = loader.get_event()
            count += 1
            if isinstance(event, CollectionStartEvent):
                depth += 1
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
            # Events are keys, values and collection ends: at most three per value the walker counts.
            if depth > MAX_DEPTH or count > 3 * _MAX_NODES:
                assert event is not None and event.start_mark is not None  # the parser's events carry their marks
                line, column = event.start_mark.line + 1, event.start_mark.column + 1
                message = _TOO_DEEP if depth > MAX_DEPTH else (
                    f"The YAML holds more than {_MAX_NODES:,} values, far more than an entity; split or simplify it.")
                return _problem(file, line, column, UNSUPPORTED_YAML, message)
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


_TOO_DEEP = f"The YAML is nested more than {MAX_DEPTH:,} levels deep, far deeper than an entity; flatten it."
_EMPTY_MESSAGE = (
    "The file is empty: write one entity in it (kind: cluster, feed or process, then its fields) or delete it."
)


class _Written(NamedTuple):
    """A mapping's own entries as written: its keys' (key, value) nodes (the first of duplicate keys), the values of
    its `<<` merge keys, and its steps that bring no value: the merge keys and the duplicate keys skipped."""

    entries: dict[str, tuple[Node, Node]]
    merges: list[Node]
    steps: int


class _Walker:
    """Builds plain data from nodes, recording positions and problems as it goes. It counts the steps of its walk
    against _MAX_NODES, the text it reaches against `text_limit`, and the collections and merges open around a value
    against MAX_DEPTH: aliases make data deeper and larger than its text, so the text's limits (_shape_problem) do
    not bound it."""

    def __init__(self, file: Path, text_limit: int) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self.value_positions: dict[FieldPath, tuple[int, int]] = {}
        self.key_positions: dict[FieldPath, tuple[int, int]] = {}
        self._open: set[int] = set()  # the collections and merged mappings being walked: as many as the depth
        self._count = 0
        self._text = 0
        self._text_limit = text_limit
        self._reported: set[tuple[int, int, str]] = set()
        self._read: dict[int, _Written] = {}  # each mapping's own entries, by the node's id

    def node(self, node: Node, path: FieldPath) -> Any:
        self.value_positions[path] = _mark(node)
        if isinstance(node, ScalarNode):
            self._spend(node, 1, len(node.value))
            return self._scalar(node, path)
        if id(node) in self._open:
            self._fail(node, f"{_where(path)} refers to itself through an alias; entities cannot be recursive.")
        self._enter(node)
        try:
            if isinstance(node, SequenceNode):
                self._spend(node)
                return [self.node(item, (*path, index)) for index, item in enumerate(node.value)]
            assert isinstance(node, MappingNode)  # the third kind of node
            entries = self._entries(node, path)
            self._spend(node, 1, sum(map(len, entries)))  # the mapping, and its keys' text
            data = {}
            for key, (key_node, value_node) in entries.items():
                key_path = (*path, key)
                self.key_positions[key_path] = _mark(key_node)
                data[key] = self.node(value_node, key_path)
            return data
        finally:
            self._open.discard(id(node))

    def _entries(self, node: MappingNode, path: FieldPath) -> Mapping[str, tuple[Node, Node]]:
        """The mapping's (key, value) nodes by key: explicit keys, then `<<` merges (earlier merges win)."""
        written = self._written(node, path)
        if not written.steps:  # no merge, no duplicate key: its own entries, which no one changes
            return written.entries
        self._spend(node, written.steps)
        entries = dict(written.entries)
        for merge in written.merges:
            sources = merge.value if isinstance(merge, SequenceNode) else [merge]
            for source in sources:
                self._spend(source)  # a merge of an empty mapping brings no entry, yet is a step
                if not isinstance(source, MappingNode):
                    self._fail(source, "A `<<` merge key needs a mapping or a list of mappings (aliases).")
                if id(source) in self._open:
                    self._fail(source, f"{_where(path)} merges itself; entities cannot be recursive.")
                self._enter(source)
                try:
                    for key, pair in self._entries(source, path).items():
                        self._spend(source)  # a merge of merges is a bomb even though its data is small
                        entries.setdefault(key, pair)
                finally:
                    self._open.discard(id(source))
        return entries

    def _written(self, node: MappingNode, path: FieldPath) -> _Written:
        """The mapping's own entries, read and their duplicates reported the first time it is walked: aliases and
        merges walk the same node again, and each time spend its steps at once."""
        written = self._read.get(id(node))
        if written is None:
            entries: dict[str, tuple[Node, Node]] = {}
            merges: list[Node] = []
            duplicates = 0
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    merges.append(value_node)
                    continue
                key = self._key(key_node, path)
                if key in entries:
                    duplicates += 1
                    first_line = _mark(entries[key][0])[0]
                    self._report(
                        key_node,
                        DUPLICATE_KEY,
                        f"Duplicate key {format_path((*path, key))!r} (first written at line {first_line}); "
                        "keep only one of them.",
                    )
                    continue
                entries[key] = (key_node, value_node)
            written = self._read[id(node)] = _Written(entries, merges, len(merges) + duplicates)
        return written

    def _spend(self, node: Node, steps: int = 1, text: int = 0) -> None:
        """Count steps of the walk (a value, merge key, merged mapping or entry, duplicate key skipped) and the
        characters of the scalars it reaches (values and keys, each time reached): past _MAX_NODES or the text limit,
        the document is refused."""
        self._count += steps
        self._text += text
        if self._count > _MAX_NODES:
            self._fail(node, f"The YAML expands to more than {_MAX_NODES:,} values (aliases or `<<` merges); "
                       "simplify it.")
        if self._text > self._text_limit:
            self._fail(node, f"The YAML expands to more than {self._text_limit:,} characters of text (aliases or "
                       "`<<` merges); simplify it.")

    def _enter(self, node: Node) -> None:
        """Open a collection or merged mapping, one level deeper than the ones open: past MAX_DEPTH, refused."""
        if len(self._open) >= MAX_DEPTH:
            self._fail(node, _TOO_DEEP)
        self._open.add(id(node))

    def _key(self, node: Node, path: FieldPath) -> str:
        if not isinstance(node, ScalarNode):
            self._fail(node, f"{_where(path)} has a key that is a list or mapping; keys must be plain text.")
        return node.value

    def _scalar(self, node: ScalarNode, path: FieldPath) -> Any:
        tag, text = node.tag, node.value
        try:
            if tag == _STR:
                return text
            if tag == _NULL:
                return None
            if tag == _BOOL and text.lower() in ("true", "false"):
                return text.lower() == "true"
            if tag == _INT:
                return _to_int(text)
            if tag == _FLOAT:
                return _to_float(text)
        except ValueError:
            pass
        self._report(
            node,
            UNSUPPORTED_YAML,
            f"{_where(path)}: the YAML tag {tag!r} on {text!r} is not supported; remove the tag.",
        )
        return text

    def _report(self, node: Node, code: str, message: str) -> None:
        """Record a problem once per place: an alias or merge walks the same node again, under other paths."""
        line, column = _mark(node)
        if (line, column, code) not in self._reported:
            self._reported.add((line, column, code))
            self.problems.append(_problem(self.file, line, column, code, message))

    def _fail(self, node: Node, message: str) -> NoReturn:
        self._report(node, UNSUPPORTED_YAML, message)
        raise _Abort


def _to_int(text: str) -> int:
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text)


def _to_float(text: str) -> float:
    lowered = text.lower()
    if lowered.endswith(".inf"):
        return float("-inf") if lowered.startswith("-") else float("inf")
    if lowered == ".nan":
        return float("nan")
    return float(text)


def _where(path: FieldPath) -> str:
    return format_path(path) if path else "The top level"


def _decode(content: bytes, file: Path) -> tuple[str, Problem | None]:
    """UTF-8 text (a BOM is allowed); binary or other encodings are a problem at the first bad byte."""
    if b"\x00" in content:
        line, column = _byte_line_column(content, content.index(b"\x00"))
        message = "The file is binary (it contains NUL bytes), not YAML text; remove it from the repo folder."
        return "", _problem(file, line, column, UNREADABLE, message)
    if content.startswith(codecs.BOM_UTF8):
        content = content[len(codecs.BOM_UTF8) :]
    try:
        return content.decode("utf-8"), None
    except UnicodeDecodeError as err:
        line, column = _byte_line_column(content, err.start)
        message = f"The file is not UTF-8 text (byte 0x{content[err.start]:02x} here); save it as UTF-8."
        return "", _problem(file, line, column, UNREADABLE, message)


def _syntax_problem(file: Path, err: yaml.MarkedYAMLError) -> Problem:
    mark = err.problem_mark or err.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    what = (err.problem or "invalid YAML").rstrip(".")
    context = f" {err.context}" if err.context else ""
    if (err.context or "").startswith("expected a single document"):
        message = "The file holds more than one YAML document (---); keep one entity per file."
    else:
        message = f"YAML syntax error{context}: {what}; fix the YAML at this line."
    return _problem(file, line, column, SYNTAX, message)


def _mark(node: Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _line_column(text: str, position: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, position) + 1
    return text.count("\n", 0, position) + 1, position - line_start + 1


def _byte_line_column(content: bytes, position: int) -> tuple[int, int]:
    line_start = content.rfind(b"\n", 0, position) + 1
    return content.count(b"\n", 0, position) + 1, position - line_start + 1


def _problem(file: Path, line: int, column: int, code: str, message: str) -> Problem:
    return Problem(file, line, column, code, Severity.ERROR, message)
