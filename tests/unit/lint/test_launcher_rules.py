"""FD025 and PR019: Falcon's launcher properties `queueName` and `jobPriority` of a feed or a process hold
values YARN takes; each finding names the entity, the property and the value, and what to write instead,
at the value's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from tests.unit.lint.test_process_rules import line_of, repo_with
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.problems import Problem, Severity

FEED, PROCESS = "feeds/clicks.yaml", "processes/hourly-clicks-summary.yaml"
PRIORITY_HELP = ("give one of Hadoop's job priorities VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW, DEFAULT, or a YARN "
                 "application priority (a whole number, 0 or more).")


def with_properties(relative: str, properties: str) -> str:
    return (TEMPLATE / relative).read_text() + "properties:\n" + properties


def problems(tmp_path: Path, relative: str, properties: str, code: str) -> tuple[Path, list[Problem]]:
    root = repo_with(tmp_path, {relative: with_properties(relative, properties)})
    found = lint_paths([root]).problems
    assert [str(p) for p in found if p.code.startswith(("YM", "SC"))] == []
    return root, [p for p in found if p.code == code]


@pytest.mark.parametrize(("relative", "code", "label", "name"), [
    (FEED, "FD025", "Feed", "clicks"), (PROCESS, "PR019", "Process", "hourly-clicks-summary")])
def test_an_unknown_priority_is_an_error_at_its_line(tmp_path: Path, relative: str, code: str, label: str,
                                                      name: str) -> None:
    root, (problem,) = problems(tmp_path, relative, "  jobPriority: URGENT\n", code)
    assert (problem.severity, problem.line) == (Severity.ERROR, line_of(root, relative, "jobPriority: URGENT"))
    assert problem.message == f"{label} '{name}': properties.jobPriority is 'URGENT': {PRIORITY_HELP}"


@pytest.mark.parametrize(("relative", "code"), [(FEED, "FD025"), (PROCESS, "PR019")])
def test_a_bad_queue_name_is_an_error_naming_why(tmp_path: Path, relative: str, code: str) -> None:
    root, (problem,) = problems(tmp_path, relative, "  queueName: root.etl.\n", code)
    assert problem.line == line_of(root, relative, "queueName: root.etl.")
    assert problem.message.endswith(
        "properties.queueName is 'root.etl.', which starts or ends with a dot: give a YARN queue name, its levels "
        "separated by single dots (e.g. root.etl).")
    _, (empty,) = problems(tmp_path / "empty", relative, "  queueName: ''\n", code)
    assert "properties.queueName is '', which is empty: give a YARN queue name" in empty.message


@pytest.mark.parametrize(("relative", "code"), [(FEED, "FD025"), (PROCESS, "PR019")])
def test_hadoop_values_are_clean(tmp_path: Path, relative: str, code: str) -> None:
    for index, priority in enumerate(("VERY_HIGH", "DEFAULT", "'7'")):
        _, found = problems(tmp_path / str(index), relative, f"  queueName: root.etl\n  jobPriority: {priority}\n",
                            code)
        assert found == []


def test_both_bad_values_are_two_findings(tmp_path: Path) -> None:
    _, found = problems(tmp_path, FEED, "  queueName: a..b\n  jobPriority: high\n", "FD025")
    assert sorted(p.message.split(": ")[1].split(" is ")[0] for p in found) == [
        "properties.jobPriority", "properties.queueName"]
