"""The YAML loader: positions of every value, YAML 1.2 scalars, and every defect as a located problem."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from toolkit.core.entities.document import SourceSpan, format_path
from toolkit.core.entities.problems import Severity
from toolkit.core.entities.yaml_loader import load_document, parse_document

FILE = Path("feeds/clicks.yaml")


def parse(text: str):
    return parse_document(textwrap.dedent(text).encode("utf-8"), FILE)


def only_problem(text: str | bytes):
    doc, problems = parse_document(textwrap.dedent(text).encode() if isinstance(text, str) else text, FILE)
    assert doc is None
    assert len(problems) == 1, problems
    return problems[0]


def test_positions_of_values_and_keys_are_one_based():
    doc, problems = parse(
        """\
        kind: process
        inputs:
          - name: clicks
            start: now(-2,0)
          - {name: views, start: "today(0,0)"}
        """
    )
    assert problems == []
    assert doc.span(("inputs", 0, "start")) == SourceSpan(FILE, 4, 12)
    assert doc.key_span(("inputs", 0, "start")) == SourceSpan(FILE, 4, 5)
    assert doc.span(("inputs", 1, "start")) == SourceSpan(FILE, 5, 26)
    assert doc.span(("inputs", 1)) == SourceSpan(FILE, 5, 5)
    assert doc.span(("kind",)) == SourceSpan(FILE, 1, 7)


def test_span_of_a_missing_path_falls_back_to_the_nearest_parent():
    doc, _ = parse(
        """\
        kind: process
        inputs:
          - name: clicks
        """
    )
    assert doc.span(("inputs", 0, "partition")) == doc.span(("inputs", 0)) == SourceSpan(FILE, 3, 5)
    assert doc.span(("outputs", 3)) == SourceSpan(FILE, 1, 1)


def test_scalars_follow_yaml_1_2_and_times_stay_text():
    doc, _ = parse(
        """\
        start: 2026-11-21T10:00Z
        day: 2026-11-21
        flag: on
        answer: yes
        optional: true
        parallel: 3
        hex: 0x1F
        ratio: 0.5
        version: "4.0"
        empty:
        """
    )
    assert doc.data == {
        "start": "2026-11-21T10:00Z",
        "day": "2026-11-21",
        "flag": "on",
        "answer": "yes",
        "optional": True,
        "parallel": 3,
        "hex": 31,
        "ratio": 0.5,
        "version": "4.0",
        "empty": None,
    }


def test_keys_are_always_text():
    doc, _ = parse("8080: port\ntrue: flag\n")
    assert doc.data == {"8080": "port", "true": "flag"}


def test_duplicate_key_is_reported_at_the_duplicate_line():
    problem = only_problem(
        """\
        kind: feed
        clusters:
          - name: primary
            type: source
            name: backup
        """
    )
    assert (problem.line, problem.column, problem.code) == (5, 5, "YM003")
    assert problem.severity is Severity.ERROR
    assert "'clusters[0].name'" in problem.message and "line 3" in problem.message


def test_every_duplicate_key_is_reported():
    _, problems = parse("a: 1\nb: 2\na: 3\nb: 4\n")
    assert [(p.line, p.code) for p in problems] == [(3, "YM003"), (4, "YM003")]


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n", "null\n"])
def test_empty_file(text):
    problem = only_problem(text)
    assert (problem.line, problem.code) == (1, "YM004")
    assert "empty" in problem.message


def test_syntax_error_points_at_its_line():
    problem = only_problem("kind: feed\nname: clicks\nfrequency: hours(1\n  bad: [\n")
    assert problem.code == "YM002"
    assert problem.line == 4
    assert problem.message.startswith("YAML syntax error")


def test_bad_indentation_is_a_syntax_error_on_that_line():
    problem = only_problem("kind: feed\nname: clicks\n  frequency: hours(1)\n")
    assert (problem.code, problem.line) == ("YM002", 3)


def test_binary_content():
    problem = only_problem(b"kind: feed\n\x00\x01\x02binary")
    assert (problem.code, problem.line, problem.column) == ("YM001", 2, 1)
    assert "binary" in problem.message


def test_non_utf8_text_points_at_the_bad_byte():
    problem = only_problem("kind: feed\nname: caf\xe9\n".encode("latin-1"))
    assert (problem.code, problem.line, problem.column) == ("YM001", 2, 10)
    assert "0xe9" in problem.message and "UTF-8" in problem.message


def test_utf8_bom_is_accepted():
    doc, problems = parse_document(b"\xef\xbb\xbfkind: feed\n", FILE)
    assert problems == [] and doc.data == {"kind": "feed"}


def test_forbidden_control_character():
    problem = only_problem(b"kind: feed\nname: a\x07b\n")
    assert (problem.code, problem.line, problem.column) == ("YM002", 2, 8)


@pytest.mark.parametrize(
    ("text", "what"),
    [("- kind: feed\n- kind: cluster\n", "not a list"), ("just text\n", "not the value 'just text'")],
)
def test_top_level_must_be_a_mapping(text, what):
    problem = only_problem(text)
    assert (problem.code, problem.line) == ("YM005", 1)
    assert what in problem.message


def test_more_than_one_document():
    problem = only_problem("kind: feed\n---\nkind: cluster\n")
    assert (problem.code, problem.line) == ("YM002", 2)
    assert "more than one YAML document" in problem.message


def test_merge_keys_apply_with_explicit_keys_winning():
    doc, problems = parse(
        """\
        defaults: &validity
          start: 2026-01-01T00:00Z
          end: 2027-01-01T00:00Z
        validity:
          <<: *validity
          end: 2028-01-01T00:00Z
        """
    )
    assert problems == []
    assert doc.data["validity"] == {"start": "2026-01-01T00:00Z", "end": "2028-01-01T00:00Z"}
    assert doc.span(("validity", "end")).line == 6
    assert doc.span(("validity", "start")).line == 2


def test_recursive_alias_is_a_problem_not_a_crash():
    problem = only_problem("a: &loop\n  b: *loop\n")
    assert problem.code == "YM006"
    assert "recursive" in problem.message


def test_alias_bomb_is_stopped():
    lines = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for previous, name in zip("abcdef", "bcdefg", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    problem = only_problem("\n".join(lines) + "\n")
    assert problem.code == "YM006"
    assert "aliases" in problem.message


@pytest.mark.parametrize("use", ["[*a, *a, [*a, *a]]", "{<<: [*a, *b]}"])
def test_a_defect_in_an_aliased_or_merged_mapping_is_reported_once(use):
    """An alias or merge walks the same mapping again under another path: its defect is still one problem."""
    doc, problems = parse(f"a: &a {{k: 1, k: 2, t: !x 1}}\nb: &b {{<<: *a}}\nc: {use}\n")
    assert doc is None
    assert [(problem.line, problem.column, problem.code) for problem in problems] == [
        (1, 14, "YM003"), (1, 23, "YM006")]


def test_a_defect_in_an_alias_bomb_is_reported_once():
    lines = ["a0: &a0 {k: 1, k: 2}"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    doc, problems = parse("\n".join(lines) + "\n")
    assert doc is None
    assert [(problem.code, problem.message) for problem in problems] == [
        ("YM003", "Duplicate key 'a0.k' (first written at line 1); keep only one of them."),
        ("YM006", "The YAML expands to more than 250,000 values (aliases or `<<` merges); simplify it.")]


def test_custom_tags_and_complex_keys_are_unsupported():
    assert only_problem("name: !secret clicks\n").code == "YM006"
    complex_key = only_problem("? [a, b]\n: value\n")
    assert (complex_key.code, complex_key.line) == ("YM006", 1)


def test_load_document_reads_files_and_reports_unreadable_ones(tmp_path):
    path = tmp_path / "clicks.yaml"
    path.write_text("kind: feed\nname: clicks\n", encoding="utf-8")
    doc, problems = load_document(path)
    assert problems == [] and doc.file == path and doc.data["name"] == "clicks"
    missing = tmp_path / "missing.yaml"
    doc, problems = load_document(missing)
    assert doc is None and [(p.file, p.code) for p in problems] == [(missing, "YM001")]


def test_problem_renders_as_file_line_column():
    problem = only_problem("a: 1\na: 2\n")
    assert str(problem).startswith("feeds/clicks.yaml:2:1: YM003 Duplicate key")
    assert problem.to_dict()["line"] == 2 and problem.to_dict()["severity"] == "error"


def test_format_path():
    assert format_path(("inputs", 0, "start")) == "inputs[0].start"
    assert format_path(("late-arrival", "cut-off")) == "late-arrival.cut-off"
    assert format_path(("properties", "spark.sql.shuffle.partitions")) == "properties['spark.sql.shuffle.partitions']"


def test_a_file_far_bigger_than_an_entity_is_one_problem_before_it_is_read(tmp_path):
    """A commit can hold a file of gigabytes in an entity folder (toolkit plan writes it from git for the loader):
    its size is checked before a byte is read, by the loader, the parse cache and the pre-scan alike."""
    import time

    from toolkit.core.entities.loading import load_entity
    from toolkit.core.entities.parse_cache import ParseCache
    from toolkit.core.entities.prescan import declared

    big = tmp_path / "feeds" / "big.yaml"
    big.parent.mkdir()
    big.write_bytes(b"kind: feed\nname: big\n")
    os.truncate(big, 2**30)  # a sparse gigabyte: read whole, it would take a gigabyte of memory
    started = time.perf_counter()
    results = [load_document(big), load_entity(big), ParseCache(tmp_path, directory=tmp_path / "cache").load(big)]
    assert time.perf_counter() - started < 2
    for document, problems in results:
        assert document is None
        assert [(problem.code, problem.line, problem.message) for problem in problems] == [
            ("YM006", 1, "The file is 1,073,741,824 bytes, far more than an entity (at most 8,388,608): keep only "
                         "the entity's YAML in it.")]
    assert declared(big) is None


def test_a_fifo_where_an_entity_file_goes_is_one_problem_and_never_waited_on(tmp_path):
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)
    document, problems = load_document(fifo)
    assert document is None
    assert [(problem.code, problem.message) for problem in problems] == [
        ("YM001", "The file cannot be read: it is no regular file.")]
