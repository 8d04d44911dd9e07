"""Random, mutated, deep and explosive YAML through the loader and every walk over what it loads, in process:
every input gives a document or problems with one-line messages, never an exception; a document the loader accepts
passes every walk with stack to spare (the subprocess cases of tests/integration/cli/test_hostile_input.py cover
the crashes only seen from outside: deep nesting, bombs, 5 MB files)."""

from __future__ import annotations

import json
import re
import signal
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.core.entities.document import Document
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.nesting import MAX_DEPTH
from toolkit.core.entities.parse_cache import _entry
from toolkit.core.entities.schemas import quick_check
from toolkit.core.entities.validation import _holds_password, validate_document
from toolkit.core.entities.yaml_loader import parse_document
from toolkit.views.plan.definitions import _differences

FILE = Path("feeds/x.yaml")
TEMPLATE_FEED = (Path(__file__).resolve().parents[3] / "config_repo_template" / "feeds" / "clicks.yaml").read_bytes()
# Pieces of YAML syntax, so that random documents reach deep into the parser rather than fail at byte 1.
TOKENS = ["kind: feed\n", "name: x\n", "[", "]", "{", "}", ", ", "- ", ": ", "? ", "&a ", "*a", "&b ", "*b",
          "<<: *a\n", "<<: [*a, *b]\n", "!!str ", "!custom ", "!!binary ", "'", '"', "|\n", ">-\n", "# c\n", "---\n",
          "...\n", "%YAML 1.2\n", "%TAG ! tag:x,2026:\n", "\n", "  ", "\t", "\\", "\u00e9", "\ufeff", "\x85", "\u2028",
          "\U0001f600", "2026-11-21T10:00Z", "hours(1)", "0x1F", ".inf", "~", "true", "yes", "on", "a" * 20]
yaml_like = st.lists(st.sampled_from(TOKENS), max_size=60).map(lambda parts: "".join(parts).encode("utf-8"))
mutated = st.tuples(st.integers(0, len(TEMPLATE_FEED)), st.integers(0, 40), st.binary(max_size=40)).map(
    lambda cut: TEMPLATE_FEED[:cut[0]] + cut[2] + TEMPLATE_FEED[cut[0] + cut[1]:])
nested = st.tuples(st.sampled_from(["[", "{a: ", "- ", "? "]), st.integers(1, 3000)).map(
    lambda shape: ("x:\n" + shape[0] * shape[1] + "1").encode())


@settings(max_examples=250, deadline=None)
@given(content=st.one_of(st.binary(max_size=200), yaml_like, mutated, nested))
def test_any_input_is_a_document_or_one_line_problems(content: bytes) -> None:
    document, problems = parse_document(content, FILE)
    assert (document is None) == bool(problems)
    for problem in problems:
        assert problem.line >= 1 and problem.column >= 1 and problem.code[:2] in ("YM", "SC")
        assert problem.message and "\n" not in problem.message, problem.message


# Where a deep value goes in a feed, and how many collections (the top-level mapping included) hold it there: each
# is a field the schemas check, so that schema walks reach into the value (a type error that looks for a password in
# it; an enum error whose message quotes it; a uniqueItems check that compares two deep values).
PLACES = {"tags.owner": ("tags:\n  owner: {0}\n", 2), "format": ("format: {0}\n", 1),
          "groups": ("groups: [{0}, {0}]\n", 2)}
# Nesting of mappings (m), of sequences (s), or both: each shape repeated to the depth asked.
SHAPES = {"mappings": "m", "sequences": "s", "mixed": "ms"}


def nest(shape: str, levels: int, leaf: str) -> str:
    """`leaf` in `levels` flow collections of `shape`."""
    kinds = (SHAPES[shape] * levels)[:levels]
    return ("".join("{a: " if kind == "m" else "[" for kind in kinds) + leaf
            + "".join("}" if kind == "m" else "]" for kind in reversed(kinds)))


def deep_feed(place: str, shape: str, depth: int, leaf: str = "1") -> str:
    """A feed whose deepest collection is `depth` levels down (the top-level mapping is level 1)."""
    template, holders = PLACES[place]
    return "kind: feed\nname: x\n" + template.format(nest(shape, depth - holders, leaf))


# Every walk over a loaded document, in one place: each is called with a document and its twin (the same text with
# its innermost value changed, for walks that compare two). The loader refuses nesting deeper than MAX_DEPTH, so a
# walk that recurses is safe only while MAX_DEPTH times its frames per level fits in the stack its callers leave it:
# test_the_deepest_document_the_loader_accepts_passes_every_walk loads the document (the loader's own walk) and runs
# each walk in HEADROOM frames. A new function that walks a loaded document's data (recursively, or through a library
# that recurses: jsonschema, json, repr, ==) gets a line here, named after where it is, calling it so that it walks
# the whole document; if it does not fit, make it iterative rather than raise HEADROOM or MAX_DEPTH. Walks over
# entities (build_entity, lint rules, definition_hash) see only documents the closed schemas accepted, which no deep
# value passes: validate_document stands before all of them.
WALKS: dict[str, Callable[[Document, Document], object]] = {
    "entities.validation.validate_document (jsonschema, messages)": lambda doc, _: validate_document(doc),
    "entities.validation._holds_password": lambda doc, _: _holds_password((), doc.data),
    "entities.schemas.quick_check (fastjsonschema)": lambda doc, _: quick_check(Kind.FEED)(doc.data),
    "views.plan.definitions._differences": lambda doc, twin: list(_differences(doc.data, twin.data, "")),
    "entities.parse_cache record (json)": lambda doc, _: json.dumps(_entry("0" * 64, doc)),
    "messages quoting a value (repr)": lambda doc, _: repr(doc.data),
}
# Python's default recursion limit is 1,000 frames: loading the deepest document, or walking it, gets at most 300 of
# them, so that 700 are left to the callers (the CLI, a worker pool, pytest). The schema check, the deepest walk,
# takes some 200 (four frames a level).
HEADROOM = 300


@contextmanager
def stack_headroom(frames: int) -> Iterator[None]:
    """Python's recursion limit set to `frames` above the current stack, as if callers had used the rest."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def loaded(text: str) -> Document:
    document, problems = parse_document(text, FILE)
    assert document is not None, problems
    return document


@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("place", PLACES)
def test_the_deepest_document_the_loader_accepts_passes_every_walk(place: str, shape: str, walk: str) -> None:
    with stack_headroom(HEADROOM):
        document, twin = (loaded(deep_feed(place, shape, MAX_DEPTH, leaf)) for leaf in ("1", "2"))
        WALKS[walk](document, twin)


def test_walks_reach_the_innermost_value() -> None:
    """The walks above are not vacuous: they see the whole depth (the change and the password at the bottom)."""
    document, twin = (loaded(deep_feed("tags.owner", "mappings", MAX_DEPTH - 1, leaf))  # the leaf is a level
                      for leaf in ("{passwordTest: p}", "{passwordText: p}"))
    bottom = "tags.owner" + ".a" * (MAX_DEPTH - 3)
    assert list(_differences(document.data, twin.data, "")) == [f"{bottom}.passwordTest", f"{bottom}.passwordText"]
    assert not _holds_password((), document.data) and _holds_password((), twin.data)
    message = next(problem.message for problem in validate_document(twin) if "tags.owner" in problem.message)
    assert message.startswith("Feed 'x': tags.owner must be text"), message
    assert message.endswith("(its value is not shown: it is a password)."), message


TOO_DEEP = f"The YAML is nested more than {MAX_DEPTH:,} levels deep, far deeper than an entity; flatten it."


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 500, 5_000])
@pytest.mark.parametrize("shape", SHAPES)
def test_deeper_nesting_is_one_problem(shape: str, depth: int) -> None:
    document, problems = parse_document(deep_feed("tags.owner", shape, depth), FILE)
    assert document is None
    assert [(problem.code, problem.line, problem.message) for problem in problems] == [("YM006", 4, TOO_DEEP)]


def test_aliases_that_nest_deeper_than_the_text_are_one_problem() -> None:
    """An alias inside a nesting brings the nesting of its anchor: the limit holds for the data, not the text."""
    levels = MAX_DEPTH // 2 - 1  # no line of the text nests deeper than half the limit
    text = (f"kind: feed\nname: x\nfirst: &first {nest('mixed', levels, '1')}\n"
            f"second: &second {nest('mixed', levels, '*first')}\nformat: {nest('mixed', levels, '*second')}\n")
    document, problems = parse_document(text, FILE)
    assert document is None
    assert [(problem.code, problem.line, problem.message) for problem in problems] == [("YM006", 3, TOO_DEEP)]


def merge_bomb(levels: int = 9, width: int = 10) -> str:
    """`<<` merges of the level below, `width` times at each of `levels` levels: a few hundred bytes whose naive
    expansion merges width**levels mappings."""
    lines = ["kind: feed", "name: x", "m0: &m0 {k0: 1}"]
    lines += [f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * width)}], k{i}: 1}}" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raises TimeoutError in the code under test after `seconds` (a bomb would otherwise run for minutes)."""
    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_merge_bomb_is_one_problem_within_a_second() -> None:
    text = merge_bomb()
    assert len(text) < 1_000
    with deadline(10):
        started = time.perf_counter()
        document, problems = parse_document(text, FILE)
        seconds = time.perf_counter() - started
    assert document is None
    assert [(problem.code, problem.message) for problem in problems] == [
        ("YM006", "The YAML expands to more than 250,000 values (aliases or `<<` merges); simplify it.")]
    assert seconds < 4  # some 0.25 s here; the bound leaves room for a loaded CI machine (the bomb took minutes)


def test_a_merge_bomb_is_refused_in_little_memory() -> None:
    tracemalloc.start()  # it slows the loader some twenty times: the time is measured above
    try:
        with deadline(60):
            document, _ = parse_document(merge_bomb(), FILE)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert document is None and peak < 10 * 2**20, peak  # some 30 kB here


TOO_MANY_VALUES = "The YAML expands to more than 250,000 values (aliases or `<<` merges); simplify it."


def empty_merge_doubling(levels: int = 40) -> str:
    """Each level merges the one below twice, from an empty mapping up: 2**levels merges that bring no entry."""
    lines = ["kind: feed", "name: x", "e0: &e0 {}"]
    lines += [f"e{i}: &e{i} {{<<: [*e{i - 1}, *e{i - 1}]}}" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def repeated(entry: str, times: int = 5_000, aliases: int = 5_000) -> str:
    """A mapping of `entry` written `times` times, aliased `aliases` times: times * aliases steps of the walk."""
    return (f"kind: feed\nname: x\ne: &e {{}}\nd: &a {{{', '.join([entry] * times)}}}\n"
            f"l: [{', '.join(['*a'] * aliases)}]\n")


# Shapes whose every step reaches no value (merges of nothing, skipped duplicates): each step spends from the budget
# all the same, or they run for minutes or forever.
STEPS_OF_NOTHING = {
    "empty mappings merged in 40 doubling levels": empty_merge_doubling(),
    "an empty mapping merged by a merge key written 5,000 times": repeated("<<: *e"),
    "an empty list of merges written 5,000 times": repeated("<<: []"),
    "an empty mapping listed 5,000 times in one merge": repeated(f"<<: [{', '.join(['*e'] * 5_000)}]", 1),
}


@pytest.mark.parametrize("shape", STEPS_OF_NOTHING)
def test_every_step_of_the_walk_spends_from_the_budget(shape: str) -> None:
    text = STEPS_OF_NOTHING[shape]
    with deadline(10):
        started = time.perf_counter()
        document, problems = parse_document(text, FILE)
        seconds = time.perf_counter() - started
    assert document is None
    assert [(problem.code, problem.message) for problem in problems] == [("YM006", TOO_MANY_VALUES)]
    assert seconds < 4  # some 0.1 to 0.25 s here; room for a loaded machine


def test_duplicate_keys_spend_from_the_budget_and_are_each_reported_once() -> None:
    """5,000 aliases of a mapping of 5,000 duplicate keys: the walk stops at the budget; each duplicate written is
    one problem at its own place, however often aliases reach it."""
    with deadline(10):
        started = time.perf_counter()
        document, problems = parse_document(repeated("x: 1"), FILE)
        seconds = time.perf_counter() - started
    assert document is None and seconds < 4  # room for a loaded machine
    *duplicates, last = problems
    assert (last.code, last.message) == ("YM006", TOO_MANY_VALUES)
    assert [(problem.code, problem.line, problem.column) for problem in duplicates] == [
        ("YM003", 4, 8 + 6 * index) for index in range(1, 5_000)]


LONG = 100_000


def text_limit(text: str) -> int:
    """The most text the loader lets a file expand to: 1 MiB, and four times the file's own length."""
    return 2**20 + 4 * len(text)


def too_much_text(text: str) -> str:
    return (f"The YAML expands to more than {text_limit(text):,} characters of text (aliases or `<<` merges); "
            "simplify it.")


def aliased_description(times: int) -> str:
    """The template feed with a description of LONG characters that `times` properties repeat by alias (1 MB
    aliased 600 times made `toolkit plan` write 574 MB into its parse cache)."""
    text = re.sub(r"^description: .*$", "description: &s " + "d" * LONG, TEMPLATE_FEED.decode(), count=1, flags=re.M)
    return text + "properties:\n" + "".join(f"  p{index}: *s\n" for index in range(times))


def _long_key_merged(times: int) -> str:
    """A key of LONG characters (an explicit key: a plain one ends within 1,024) in a mapping merged `times` times."""
    return (f"kind: feed\nname: x\nm: &m\n  ? {'k' * LONG}\n  : 1\n"
            f"l: [{', '.join(['{<<: *m}'] * times)}]\n")


# Where the repeated text is reached from: each time counts, whatever the way.
LONG_TEXT_REACHED = {
    "aliases of a scalar": aliased_description,
    "aliases of a mapping holding it": lambda times: (f"kind: feed\nname: x\nm: &m {{a: {'v' * LONG}}}\n"
                                                      f"l: [{', '.join(['*m'] * times)}]\n"),
    "merges of a mapping holding it": lambda times: (f"kind: feed\nname: x\nm: &m {{a: {'v' * LONG}}}\n"
                                                     f"l: [{', '.join(['{<<: *m}'] * times)}]\n"),
    "merges of a mapping whose key it is": _long_key_merged,
}


@pytest.mark.parametrize("reached", LONG_TEXT_REACHED)
def test_text_repeated_by_aliases_or_merges_past_the_limit_is_one_problem(reached: str) -> None:
    text = LONG_TEXT_REACHED[reached](600)
    with deadline(10):
        started = time.perf_counter()
        document, problems = parse_document(text, FILE)
        seconds = time.perf_counter() - started
    assert document is None
    assert [(problem.code, problem.message) for problem in problems] == [("YM006", too_much_text(text))]
    assert seconds < 4  # some 0.1 to 0.25 s here; room for a loaded machine


@pytest.mark.parametrize("reached", LONG_TEXT_REACHED)
def test_what_an_accepted_document_expands_to_downstream_is_bounded(reached: str) -> None:
    """The most repetitions the loader accepts, and one more: what the parse cache records (the data and the paths
    of its values), the definition hash digests and the plan compares stays within a few times the limit."""
    build = LONG_TEXT_REACHED[reached]
    times = next((times for times in range(1, 100) if parse_document(build(times + 1), FILE)[0] is None), None)
    assert times is not None, "a hundred repetitions of 100,000 characters accepted"
    text = build(times)
    document, twin = loaded(text), loaded(text.replace("d" * LONG, "e" * LONG).replace("v" * LONG, "w" * LONG))
    assert LONG * (times + 1) <= text_limit(text) < LONG * (times + 3)  # the limit, not another, stopped the next one
    assert len(json.dumps(_entry("0" * 64, document))) < 3 * text_limit(text)
    assert len(json.dumps(document.data, sort_keys=True, default=str)) < 2 * text_limit(text)  # definition_hash's
    assert len(list(_differences(document.data, twin.data, ""))) <= times + 1


def test_merges_chained_deeper_than_the_limit_are_one_problem() -> None:
    """Each mapping merges the one before: no value is deep, but the merging is."""
    lines = ["kind: feed", "name: x", "m0: &m0 {k0: 1}"]
    lines += [f"m{i}: &m{i} {{<<: *m{i - 1}, k{i}: 1}}" for i in range(1, 3 * MAX_DEPTH)]
    document, problems = parse_document("\n".join(lines) + "\n", FILE)
    assert document is None
    assert [(problem.code, problem.message) for problem in problems] == [("YM006", TOO_DEEP)]


# Deep documents of every shape and place, some deeper than the loader takes: refused in one problem, or accepted
# and then walked by every walk.
deep_documents = st.tuples(st.sampled_from(sorted(PLACES)), st.sampled_from(sorted(SHAPES)),
                           st.integers(3, 3 * MAX_DEPTH))


@settings(max_examples=60, deadline=None)
@given(case=deep_documents)
def test_any_deep_document_is_one_problem_or_passes_every_walk(case: tuple[str, str, int]) -> None:
    place, shape, depth = case
    document, problems = parse_document(deep_feed(place, shape, depth), FILE)
    if document is None:
        assert depth > MAX_DEPTH and [problem.message for problem in problems] == [TOO_DEEP]
        return
    with stack_headroom(HEADROOM):
        twin = loaded(deep_feed(place, shape, depth, "2"))
        for walk in WALKS.values():
            walk(document, twin)
