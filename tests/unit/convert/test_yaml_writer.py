"""The converter's YAML: laid out like the template's files, and every string reads back as itself, both for
the toolkit's YAML 1.2 loader and for YAML 1.1 readers (PyYAML's safe_load, editors)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.authoring.convert.yaml_writer import render_entity, scalar
from toolkit.core.entities.yaml_loader import parse_document


def test_layout_like_the_template() -> None:
    data = {
        "kind": "feed",
        "name": "clicks",
        "groups": ["web", "bi"],
        "partitions": [],
        "clusters": [
            {"name": "primary", "validity": {"start": "2026-01-01T00:00Z", "end": "2099-12-31T00:00Z"}},
            {"name": "backup", "locations": {"data": "/replica/${YEAR}"}},
        ],
        "properties": {},
        "ACL": {"owner": "etl", "permission": "0755"},
        "args": ["--day", "two words"],
        "retry": {"attempts": 3, "onTimeout": False},
    }
    assert render_entity("feed", data) == """\
# yaml-language-server: $schema=../.schemas/feed.json
kind: feed
name: clicks
groups: [web, bi]
partitions: []
clusters:
  - name: primary
    validity:
      start: 2026-01-01T00:00Z
      end: 2099-12-31T00:00Z
  - name: backup
    locations:
      data: /replica/${YEAR}
properties: {}
ACL:
  owner: etl
  permission: "0755"
args:
  - "--day"
  - two words
retry:
  attempts: 3
  onTimeout: false
"""


@pytest.mark.parametrize(
    "text",
    ["/data/clicks/${YEAR}/${MONTH}", "2026-01-01T00:00Z", "hours(1)", "now(-2,0)", "${cluster.colo}/*",
     "catalog:logs-db:clicks#ds=${YEAR}-${MONTH}", "spark://127.0.0.1:7077", "_SUCCESS", "two words", "don't",
     "a:b", "a#b", "VERY_HIGH", "2.7.3", "ops@example.com,web@example.com", "Café", "yesterday"],
)
def test_plain_when_every_reader_reads_the_same_text(text: str) -> None:
    assert scalar(text) == text


@pytest.mark.parametrize(
    "text",
    ["on", "Off", "yes", "No", "y", "N", "true", "null", "~", "", "0755", "3.4", "1e3", "0o17", "0x1F", "1_000",
     "12:30:00", ".inf", "2026-01-01", "2026-01-01 10:00:00", "*", "*/US", "&anchor", "!tag", "- item", "? key",
     "key: value", "text # comment", "ends with:", " leading", "trailing ", "tab\there", "two\nlines", "---", "...",
     "<<", "=", "%TAG", "@at", "`tick", "|block", ">folded", "'single'", '"double"', "{a: 1}", "[a]", "#comment",
     ",comma", "nbsp\u00a0", "bom\ufeff", "nel\x85", "bell\x07"],
)
def test_quoted_when_some_reader_would_read_something_else(text: str) -> None:
    assert scalar(text).startswith('"')
    assert_reads_back({"kind": "feed", "value": text})


def test_numbers_and_booleans_stay_typed() -> None:
    assert (scalar(2), scalar(True), scalar(False)) == ("2", "true", "false")


# Random text, rich in what YAML treats specially: indicators, `: ` and ` #`, digits, the words of YAML 1.1 types.
FRAGMENTS = [*" #:-?*&!|>'\"%@`,[]{}~\t\n\r.0123456789eExo+_<=", ": ", " #", "- ", "? ", "on", "Yes", "n", "NULL",
             "0755", "3.4", "1e3", "0o17", ".inf", "<<", "2026-01-01", "1:30", "---", "...", "${YEAR}"]
YAML_TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.characters(exclude_categories=["Cs"])), max_size=8).map(
    "".join
)


@settings(max_examples=500, deadline=None)
@given(key=YAML_TEXT.filter(bool), value=YAML_TEXT, words=st.lists(YAML_TEXT, max_size=4))
def test_any_text_reads_back_as_itself(key: str, value: str, words: list[str]) -> None:
    assert_reads_back({"kind": "feed", key: value, "list": words, "nested": [{key: value, "more": {key: value}}]})


def assert_reads_back(data: dict[str, object]) -> None:
    text = render_entity("feed", data)
    document, problems = parse_document(text, Path("t.yaml"))
    assert problems == [] and document is not None, text
    assert document.data == data, text
    assert yaml.safe_load(text) == data, text


@pytest.mark.parametrize("text", ["08", "09", "0x1F", "-07", "+3"])
def test_numbers_our_loader_reads_are_quoted(text: str) -> None:
    # Falcon's `<tags>owner=08</tags>` must stay the text '08', not become the number 8.
    assert scalar(text) == f'"{text}"'
