"""The three renderings of one lineage (a replicated clicks instance, a late change of one input): the text tree's
lines, the JSON document's shape and references, and DOT's text (tests/integration/lineage/test_formats.py
runs graphviz's `dot` on it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.lineage.ledger_writer import LedgerWriter, a_day_of_runs, make_repo, replicated_with_a_late_input, utc
from toolkit.views.lineage.dot import lineage_dot
from toolkit.views.lineage.graph import Lineage
from toolkit.views.lineage.json_form import lineage_json
from toolkit.views.lineage.text import lineage_lines
from toolkit.views.lineage.walk import trace_feed

T = utc(2026, 11, 21, 10)


@pytest.fixture
def lineage(tmp_path: Path) -> Lineage:
    return replicated_with_a_late_input(tmp_path)


def test_text_is_a_tree_of_what_it_came_from_and_what_read_it(lineage: Lineage) -> None:
    lines = list(lineage_lines(lineage))
    assert lines[0].startswith("clicks-hourly-summary 2026-11-21T10:00Z on primary: published ")
    assert lines[1] == "upstream (2 levels):"
    assert lines[2] == ("  <- [summary] process hourly-clicks-summary 2026-11-21T10:00Z on primary, attempt 1 (RUN), "
                        "run sum10: SUCCEEDED, 2026-11-22T13:00:00Z to 2026-11-22T13:00:00Z")
    assert lines[3].startswith("    <- [clicks] clicks 2026-11-21T08:00Z on primary: read clicks210800 (1 file, "
                               "10 B), unchanged since read (now published ")
    assert lines[5].startswith("    <- [clicks] clicks 2026-11-21T09:00Z on primary: read clicks210900 (1 file, "
                               "10 B), changed since read (now replaced ")
    assert lines[6].startswith("      <- external of clicks 2026-11-21T09:00Z into primary, run late9: replaced, ")
    down = lines.index("downstream (1 level):")
    assert lines[down + 1].startswith("  -> [hourly] process daily-clicks-rollup 2026-11-22T00:00Z on primary, "
                                      "attempt 1 (RUN), run roll1: SUCCEEDED")
    assert lines[down + 1].endswith("; read clicks-hourl (1 file, 30 B), unchanged since read")
    assert [line.split(" on ")[0] for line in lines[down + 2:]] == [
        "    -> [daily] clicks-daily 2026-11-21T00:00Z", "    -> [daily-table] clicks-daily-table 2026-11-21T00:00Z"]


def test_a_node_met_twice_in_the_text_is_shown_once_and_referred_to(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    writer = LedgerWriter(repo)
    a_day_of_runs(writer)
    lines = list(lineage_lines(trace_feed(writer.ledgers(), "clicks-daily", "primary", utc(2026, 11, 21), 3, 0)))
    nine = [line for line in lines if "<- [clicks] clicks 2026-11-21T09:00Z" in line]
    assert len(nine) == 3  # read by three summaries
    assert [line.endswith("(shown above)") for line in nine] == [False, True, True]


def test_json_is_versioned_and_every_edge_names_nodes_it_lists(lineage: Lineage) -> None:
    document = json.loads(json.dumps(lineage_json(lineage)))
    assert (document["format"], document["version"], document["up"], document["down"]) == (
        "feed-toolkit.lineage", 1, 2, 1)
    keys = [node["key"] for node in document["nodes"]]
    assert keys[0] == document["root"] == "instance:primary:clicks-hourly-summary:2026-11-21T10:00Z"
    assert len(keys) == len(set(keys))
    assert all(edge["from"] in keys and edge["to"] in keys for edge in document["edges"])
    run = next(n for n in document["nodes"] if n["key"].startswith("run:primary:process:hourly-clicks-summary"))
    assert {k: run[k] for k in ("type", "kind", "process", "time", "attempt", "run_id", "status")} == {
        "type": "run", "kind": "process", "process": "hourly-clicks-summary", "time": "2026-11-21T10:00Z",
        "attempt": 1, "run_id": "sum10", "status": "SUCCEEDED"}
    read = next(e for e in document["edges"] if e["from"] == "instance:primary:clicks:2026-11-21T09:00Z")
    assert (read["role"], read["name"], read["since_read"], read["fingerprint"]["bytes"]) == (
        "read", "clicks", "changed", 10)
    assert set(document["nodes"][0]) == {"key", "type", "feed", "cluster", "time", "state", "location",
                                         "fingerprint", "event_id", "published", "notes"}


def test_dot_marks_the_changed_input_and_the_start(lineage: Lineage) -> None:
    text = "\n".join(lineage_dot(lineage))
    assert text.startswith("digraph lineage {") and text.endswith("}")
    assert 'n0 [shape=ellipse, label="clicks-hourly-summary\\n2026-11-21T10:00Z\\non primary: published", ' \
           'style=bold];' in text
    assert text.count("color=red") == 1 and 'xlabel="changed since read"' in text


