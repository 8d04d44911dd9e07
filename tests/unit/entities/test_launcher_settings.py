"""Falcon's launcher properties `queueName` and `jobPriority` as the Spark settings of an entity's actions:
Hadoop's priority names mapped as Hadoop MapReduce maps them to YARN (JobConf.getJobPriorityAsInteger),
YARN's queue-name rules, and one sentence naming the entity, the property and the value for a bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.core.entities.launcher_settings import launcher_confs, queue_problem, yarn_priority
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError


@pytest.mark.parametrize(("name", "expected"), [
    ("VERY_HIGH", 5), ("HIGH", 4), ("NORMAL", 3), ("LOW", 2), ("VERY_LOW", 1), ("DEFAULT", 0),
    ("0", 0), ("7", 7),
])
def test_priorities_map_as_hadoop_mapreduce_maps_them(name: str, expected: int) -> None:
    assert yarn_priority(name) == expected


@pytest.mark.parametrize("value", ["high", " HIGH", "URGENT", "", "-1", "1.5", "UNDEFINED_PRIORITY"])
def test_other_priorities_are_refused(value: str) -> None:
    assert yarn_priority(value) is None


@pytest.mark.parametrize("queue", ["default", "root.etl", "root.etl.hourly-jobs", "a_b", "ad hoc"])
def test_queue_names_yarn_accepts(queue: str) -> None:
    assert queue_problem(queue) is None


@pytest.mark.parametrize(("queue", "reason"), [
    ("", "is empty"),
    ("   ", "is empty"),
    (".etl", "starts or ends with a dot"),
    ("root.", "starts or ends with a dot"),
    ("root..etl", "has an empty level between two dots"),
    ("root. etl", "has a level with blanks around it"),
    (" etl", "has a level with blanks around it"),
])
def test_queue_names_yarn_refuses(queue: str, reason: str) -> None:
    assert queue_problem(queue) == reason


def _feed(tmp_path: Path, properties: str):  # type: ignore[no-untyped-def]
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    path = root / "feeds" / "clicks.yaml"
    path.write_text(path.read_text() + "properties:\n" + properties)
    return ConfigRepo.load(root).feed("clicks")


def test_launcher_confs_of_an_entity(tmp_path: Path) -> None:
    feed = _feed(tmp_path, "  queueName: root.etl\n  jobPriority: VERY_HIGH\n")
    assert launcher_confs(feed) == {"spark.yarn.queue": "root.etl", "spark.yarn.priority": "5"}


def test_an_entity_without_them_sets_nothing(tmp_path: Path) -> None:
    assert launcher_confs(_feed(tmp_path, "  parallel: '2'\n")) == {}


def test_a_bad_value_is_one_sentence_naming_entity_property_and_value(tmp_path: Path) -> None:
    feed = _feed(tmp_path / "priority", "  jobPriority: URGENT\n")
    with pytest.raises(UsageError) as caught:
        launcher_confs(feed)
    assert str(caught.value) == (
        "The property 'jobPriority' of feed 'clicks' is 'URGENT': give one of Hadoop's job priorities "
        "VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW, DEFAULT, or a YARN application priority (a whole number, 0 or more).")
    feed = _feed(tmp_path / "queue", "  queueName: root..etl\n")
    with pytest.raises(UsageError) as caught:
        launcher_confs(feed)
    assert str(caught.value) == (
        "The property 'queueName' of feed 'clicks' is 'root..etl', which has an empty level between two dots: "
        "give a YARN queue name, its levels separated by single dots (e.g. root.etl).")
