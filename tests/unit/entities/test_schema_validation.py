"""Schema validation: every violation is a located SC001 problem that names the entity, field and fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from entity_samples import CLUSTER, FEED, PROCESS
from jsonschema import Draft7Validator

from toolkit.core.el.frequency import FREQUENCY_PATTERN
from toolkit.core.el.timestamps import TIMESTAMP_PATTERN
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.schemas import schema
from toolkit.core.entities.validation import NAME_PATTERN

FILE = Path("feeds/clicks.yaml")


def problems_of(text: str):
    entity, problems = parse_entity(textwrap.dedent(text), FILE)
    assert entity is None
    assert problems, "expected problems"
    return problems


def feed(extra: str = "", **replace: str) -> str:
    text = FEED.format(name="clicks", cluster="primary")
    for old, new in replace.items():
        text = text.replace(old, new)
    return text + textwrap.dedent(extra)


def test_valid_samples_have_no_problems():
    for text in (
        CLUSTER.format(name="primary"),
        feed(),
        PROCESS.format(name="p", cluster="primary", input="a", output="b"),
    ):
        entity, problems = parse_entity(text, FILE)
        assert problems == [] and entity is not None


def test_unknown_key_names_the_key_a_suggestion_and_the_allowed_keys():
    [problem] = problems_of(feed("frequncy: hours(2)\n"))
    assert problem.code == "SC001"
    assert (problem.line, problem.column) == (11, 1)
    assert problem.entity == EntityRef(Kind.FEED, "clicks")
    assert problem.message.startswith("Feed 'clicks': unknown key 'frequncy' at the top level")
    assert "did you mean 'frequency'?" in problem.message
    assert "availabilityFlag" in problem.message and "late-arrival" in problem.message


def test_unknown_key_in_a_nested_mapping_is_located_at_that_key():
    [problem] = problems_of(feed(**{"locations:\n  data:": "locations:\n  dta: /x\n  data:"}))
    assert problem.line == 10
    assert "unknown key 'dta' in locations" in problem.message
    assert "data, stats, meta, tmp" in problem.message


def test_enum_violation_lists_the_allowed_values_at_the_value():
    text = PROCESS.format(name="p", cluster="primary", input="a", output="b").replace("pyspark", "sparkle")
    [problem] = problems_of(text)
    assert (problem.line, problem.column) == (19, 11)
    assert problem.message == (
        "Process 'p': workflow.engine is 'sparkle'; allowed values are pyspark, spark-sql, hive, oozie, pig, spark."
    )


def test_missing_required_field_names_its_full_path_at_the_parent():
    [problem] = problems_of(
        feed(**{"    validity:\n      start: 2026-01-01T00:00Z\n      end: 2027-01-01T00:00Z\n": ""})
    )
    assert problem.message == "Feed 'clicks': the required field clusters[0].validity is missing; add it."
    assert problem.line == 5


def test_each_missing_required_field_is_its_own_problem():
    problems = problems_of("kind: process\nname: p\n")
    messages = [p.message for p in problems]
    assert len(problems) == 3
    for field in ("clusters", "workflow"):
        assert f"Process 'p': the required field {field} is missing; add it." in messages
    # Without a frequency, a process must be a batch consumer (`trigger: data`): the message offers both.
    assert ("Process 'p': it has no frequency, so it is a batch consumer, run on published data: add `trigger: "
            "data`, or give it a frequency to run it at nominal times.") in messages


def test_wrong_type_says_what_is_expected_and_how_to_fix_it():
    text = CLUSTER.format(name="primary").replace("file:///tmp/primary", "file:///tmp/primary\n    version: 3.4")
    [problem] = problems_of(text)
    assert problem.message == (
        "Cluster 'primary': interfaces.write.version must be text, not the number 3.4; put the value in quotes."
    )
    assert problem.line == 6


def test_list_expected_but_mapping_given():
    [problem] = problems_of(feed("partitions:\n  country: x\n"))
    assert problem.message == "Feed 'clicks': partitions must be a list, not a mapping."


def test_invalid_frequency_explains_the_syntax():
    [problem] = problems_of(feed(**{"frequency: hours(1)": "frequency: hours(0)"}))
    assert problem.line == 3
    assert "frequency is 'hours(0)', which is not valid: write minutes(n), hours(n)" in problem.message


def test_time_that_does_not_exist_on_the_calendar():
    [problem] = problems_of(feed(**{"2026-01-01T00:00Z": "2026-02-30T00:00Z"}))
    assert (problem.line, problem.column) == (7, 14)
    assert problem.message == (
        "Feed 'clicks': clusters[0].validity.start is '2026-02-30T00:00Z', which is not a real time: "
        "day is out of range for month."
    )


def test_malformed_time_is_one_problem_not_two():
    [problem] = problems_of(feed(**{"2026-01-01T00:00Z": "2026-01-01 00:00"}))
    assert "write a UTC time as yyyy-MM-ddTHH:mmZ" in problem.message


def test_invalid_name():
    [problem] = problems_of(feed(**{"name: clicks": "name: 9clicks"}))
    assert problem.message == (
        "Feed '9clicks': name is '9clicks', which is not valid: use letters, digits and hyphens, "
        "starting with a letter."
    )


@pytest.mark.parametrize("name", ['"clicks\\n"', '"clicks\\r\\n"'])
def test_a_name_ending_in_a_line_break_is_invalid(name):
    """A pattern's `$` ends the text, as JSON Schema's (ECMA 262) does: Python's `$` also matches before a final line
    break, which let `name: "clicks\\n"` through to messages and generated lines."""
    [problem] = problems_of(feed(**{"name: clicks": f"name: {name}"}))
    assert problem.code == "SC001"
    assert "use letters, digits and hyphens, starting with a letter" in problem.message
    assert "\n" not in problem.message


def test_a_map_key_ending_in_a_line_break_is_invalid():
    [problem] = problems_of(feed('tags:\n  owner: me\n  "team\\n": x\n'))
    assert "in tags is not valid: use letters, digits and underscores" in problem.message


def test_invalid_map_key_is_located_at_the_key():
    [problem] = problems_of(feed("tags:\n  owner: me\n  bad key: x\n"))
    assert (problem.line, problem.column) == (13, 3)
    assert "the key 'bad key' in tags is not valid: use letters, digits and underscores" in problem.message


def test_every_problem_is_reported_in_file_order():
    problems = problems_of(
        feed(
            "lint:\n  ignore: [fd001]\nsurprise: 1\n",
            **{"frequency: hours(1)": "frequency: weekly", "name: primary": "name: primary\n    type: mirror"},
        )
    )
    assert [p.line for p in problems] == sorted(p.line for p in problems)
    assert len(problems) == 4
    assert any("clusters[0].type is 'mirror'; allowed values are source, target." in p.message for p in problems)
    assert any("lint.ignore[0] is 'fd001'" in p.message for p in problems)


def test_missing_and_invalid_kind():
    [missing] = problems_of("name: clicks\n")
    assert missing.message.startswith("The entity has no 'kind'")
    [invalid] = problems_of("kind: feeds\nname: clicks\n")
    assert (invalid.line, invalid.column) == (1, 7)
    assert invalid.message == "kind is 'feeds'; allowed values are cluster, feed, process, datasource, mirror."
    [unhashable] = problems_of("kind: [feed]\n")
    assert unhashable.code == "SC001"


def test_entity_without_a_name_is_still_described():
    problems = problems_of("kind: feed\nfrequency: hours(1)\nclusters: []\n")
    assert {p.message for p in problems} == {
        "This feed: the required field name is missing; add it.",
        "This feed: clusters is empty; give at least 1 item.",
    }
    assert all(p.entity is None for p in problems)


def test_repeated_list_item():
    [problem] = problems_of(feed("groups: [web, bi, web]\n"))
    assert problem.message == "Feed 'clicks': groups lists 'web' more than once; keep it once."


@pytest.mark.parametrize("kind", list(Kind))
def test_schemas_are_draft7_and_closed(kind):
    document = schema(kind)
    Draft7Validator.check_schema(document)
    assert document["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert document["properties"]["kind"] == {**document["properties"]["kind"], "const": kind.value}

    def walk(node):
        """Every object schema with properties is closed; descend into every subschema."""
        if "properties" in node:
            assert node.get("additionalProperties") is False, node.get("title")
        subschemas = [*node.get("properties", {}).values(), *node.get("definitions", {}).values()]
        subschemas += [node[key] for key in ("items", "additionalProperties") if isinstance(node.get(key), dict)]
        for subschema in subschemas:
            walk(subschema)

    walk(document)
    assert {"lint", "tags", "name", "kind"} <= set(document["properties"])


def test_schema_patterns_are_the_time_engines():
    feed_schema = schema(Kind.FEED)
    assert feed_schema["definitions"]["frequency"]["pattern"] == FREQUENCY_PATTERN
    assert feed_schema["definitions"]["time"]["pattern"] == TIMESTAMP_PATTERN
    assert feed_schema["definitions"]["name"]["pattern"] == NAME_PATTERN


def test_falcon_field_names_are_kept():
    feed_schema, process_schema = schema(Kind.FEED), schema(Kind.PROCESS)
    assert {"availabilityFlag", "late-arrival", "ACL", "lifecycle"} <= set(feed_schema["properties"])
    assert set(feed_schema["definitions"]["sla"]["properties"]) == {"slaLow", "slaHigh"}
    late = process_schema["properties"]["late-process"]["properties"]["late-inputs"]["items"]["properties"]
    assert set(late) == {"input", "workflow-path"}
    assert {"shouldStartIn", "shouldEndIn"} == set(process_schema["definitions"]["sla"]["properties"])
    assert "onTimeout" in process_schema["properties"]["retry"]["properties"]


@pytest.mark.parametrize("valid", [True, False], ids=["valid", "invalid"])
def test_the_quick_check_leaves_the_document_as_written(valid: bool) -> None:
    """fastjsonschema's generated check fills in each property's `default` by itself: a document checked by it
    held values its author never wrote, which the full validation of an invalid one then reported as theirs."""
    import yaml

    from toolkit.core.entities.schemas import quick_check

    data = yaml.safe_load(PROCESS.format(name="p", cluster="primary", input="a", output="b"))
    if not valid:
        data["frequency"] = "often"
    written = {key: value for key, value in data.items()}
    assert quick_check(Kind.PROCESS)(data) is valid
    assert data == written
