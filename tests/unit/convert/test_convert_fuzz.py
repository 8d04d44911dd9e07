"""Random, mutated, deep and hostile XML through the converter, in process: every input converts (with one-line
reports) or is refused with a UsageError of one sentence (exit 2), never another exception (a RecursionError
included)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.convert.conftest import FALCON
from toolkit.authoring.convert.falcon_xml import convert_file
from toolkit.errors import UsageError

SAMPLES = [path.read_bytes() for path in sorted(FALCON.glob("*.xml"))]
TAGS = ["feed", "process", "cluster", "clusters", "cluster", "frequency", "locations", "location", "validity",
        "retention", "properties", "property", "inputs", "input", "outputs", "output", "workflow", "late-process",
        "late-input", "interfaces", "interface", "table", "tags", "u", "x:y"]
ATTRIBUTES = ["name", "type", "path", "start", "end", "limit", "action", "value", "feed", "xmlns", "xmlns:x"]
TEXTS = ["", "hours(1)", "2026-11-21T10:00Z", "&amp;", "&lt;", "&#x41;", "&#0;", "&undefined;", "<![CDATA[<x>]]>",
         "<!-- c -->", "<?pi x?>", "\u00e9", "\U0001f600", " \n\t", "days(", "${YEAR}"]


@st.composite
def elements(draw: st.DrawFn, depth: int = 0) -> str:
    tag = draw(st.sampled_from(TAGS))
    attributes = "".join(f' {name}="{draw(st.sampled_from(TEXTS[:3] + ["primary", "uri:falcon:feed:0.1"]))}"'
                         for name in draw(st.lists(st.sampled_from(ATTRIBUTES), max_size=3, unique=True)))
    children = draw(st.lists(elements(depth + 1), max_size=4)) if depth < 3 else []
    text = draw(st.sampled_from(TEXTS))
    return f"<{tag}{attributes}>{text}{''.join(children)}</{tag}>"


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["feed", "process", "cluster", "datasource", "workflow-app"]))
    prologue = draw(st.sampled_from(["", '<?xml version="1.0"?>\n', '<?xml version="1.0" encoding="UTF-16"?>',
                                     '<!DOCTYPE x [<!ENTITY e "e">]>', '<!DOCTYPE x SYSTEM "http://127.0.0.1:9/d">']))
    body = "".join(draw(st.lists(elements(), max_size=4)))
    return f'{prologue}<{kind} name="n" xmlns="uri:falcon:{kind}:0.1">{body}</{kind}>'.encode()


@st.composite
def deep_documents(draw: st.DrawFn) -> bytes:
    """Elements the converter reads, then thousands of levels of any element: its walks follow the shapes Falcon
    has, so none may recurse once per level of the input (the YAML it writes is then as deep as an entity)."""
    kind = draw(st.sampled_from(["feed", "process", "cluster", "datasource"]))
    path = draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=3))
    levels, tag = draw(st.integers(1, 5_000)), draw(st.sampled_from(TAGS))
    inner = f"<{tag} name=\"n\">" * levels + f"</{tag}>" * levels
    opened = "".join(f"<{step}>" for step in path) + inner + "".join(f"</{step}>" for step in reversed(path))
    return f'<{kind} name="n" xmlns="uri:falcon:{kind}:0.1">{opened}</{kind}>'.encode()


mutated = st.tuples(st.sampled_from(SAMPLES), st.integers(0, 4000), st.integers(0, 40), st.binary(max_size=40)).map(
    lambda cut: cut[0][:cut[1]] + cut[3] + cut[0][cut[1] + cut[2]:])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.one_of(st.binary(max_size=200), documents(), deep_documents(), mutated))
def test_any_xml_converts_or_is_refused_in_one_sentence(
    content: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = tmp_path_factory.getbasetemp() / "fuzz-input.xml"
    source.write_bytes(content)
    try:
        conversion = convert_file(source)
    except UsageError as err:
        message = str(err)
        assert message.startswith(str(source)) or message.startswith("Cannot read"), message
        assert "\n" not in message and message.endswith("."), message
        return
    for report in conversion.reports:
        assert "\n" not in str(report) and str(report).startswith(str(source)), str(report)
