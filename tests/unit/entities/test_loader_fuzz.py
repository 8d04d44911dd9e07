"""Random and mutated YAML through the loader, in process: every input gives a document or problems with
one-line messages, never an exception (the subprocess cases of tests/integration/cli/test_hostile_input.py cover the
crashes only seen from outside: deep nesting, bombs, 5 MB files)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.entities.yaml_loader import parse_document

TEMPLATE_FEED = (Path(__file__).resolve().parents[3] / "config_repo_template" / "feeds" / "clicks.yaml").read_bytes()
# Pieces of YAML syntax, so that random documents reach deep into the parser rather than fail at byte 1.
TOKENS = ["kind: feed\n", "name: x\n", "[", "]", "{", "}", ", ", "- ", ": ", "? ", "&a ", "*a", "&b ", "*b",
          "<<: *a\n", "!!str ", "!custom ", "!!binary ", "'", '"', "|\n", ">-\n", "# c\n", "---\n", "...\n",
          "%YAML 1.2\n", "%TAG ! tag:x,2026:\n", "\n", "  ", "\t", "\\", "\u00e9", "\ufeff", "\x85", "\u2028",
          "\U0001f600", "2026-11-21T10:00Z", "hours(1)", "0x1F", ".inf", "~", "true", "yes", "on", "a" * 20]
yaml_like = st.lists(st.sampled_from(TOKENS), max_size=60).map(lambda parts: "".join(parts).encode("utf-8"))
mutated = st.tuples(st.integers(0, len(TEMPLATE_FEED)), st.integers(0, 40), st.binary(max_size=40)).map(
    lambda cut: TEMPLATE_FEED[:cut[0]] + cut[2] + TEMPLATE_FEED[cut[0] + cut[1]:])
nested = st.tuples(st.sampled_from(["[", "{a: ", "- ", "? "]), st.integers(1, 3000)).map(
    lambda shape: ("x:\n" + shape[0] * shape[1] + "1").encode())


@settings(max_examples=250, deadline=None)
@given(content=st.one_of(st.binary(max_size=200), yaml_like, mutated, nested))
def test_any_input_is_a_document_or_one_line_problems(content: bytes) -> None:
    document, problems = parse_document(content, Path("feeds/x.yaml"))
    assert (document is None) == bool(problems)
    for problem in problems:
        assert problem.line >= 1 and problem.column >= 1 and problem.code[:2] in ("YM", "SC")
        assert problem.message and "\n" not in problem.message, problem.message
