"""The `trigger` of a process in the model: the default (the clock), the short and long forms, batch consumers
(no frequency, inputs and outputs naming only their feed), and the one-sentence errors of the code that needs
a process's time grid when it is given a batch consumer."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.actions.process_runner.process_entry import main as process_main
from toolkit.cli.main import main
from toolkit.core.entities.loading import parse_entity
from toolkit.core.entities.model import Condition, Process, Trigger, TriggerOn
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.timeouts import process_timeout
from toolkit.core.instances.grids import process_grid
from toolkit.errors import UsageError
from toolkit.services.runtime import action_session

HEAD = """\
kind: process
name: p
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
workflow: {engine: pyspark, path: workflows/p.py}
"""

BATCH_CONSUMER = HEAD + """\
trigger: {on: data, condition: any, max-batch: 50, cut: "now(-1,0)", ordered: true}
inputs:
  - {name: clicks, feed: clicks}
  - {name: visits, feed: visits}
outputs:
  - {name: summary, feed: clicks-hourly-summary}
"""


def parse(text: str) -> tuple[Process | None, list[str]]:
    entity, problems = parse_entity(textwrap.dedent(text), Path("processes/p.yaml"))
    assert entity is None or isinstance(entity, Process)
    return entity, [problem.message for problem in problems]


def process(text: str) -> Process:
    entity, problems = parse(text)
    assert problems == [] and entity is not None
    return entity


def test_without_trigger_a_process_runs_on_the_clock() -> None:
    entity = process(HEAD + "frequency: hours(1)\n")
    assert entity.trigger == Trigger(on=TriggerOn.TIME, condition=Condition.ALL, max_batch=None, cut=None,
                                     ordered=False)
    assert not entity.is_data_triggered and not entity.is_batch_consumer and not entity.is_instance_consumer


def test_trigger_data_is_short_for_on_data() -> None:
    short = process(HEAD + "frequency: hours(1)\ntrigger: data\n")
    long = process(HEAD + "frequency: hours(1)\ntrigger: {on: data}\n")
    assert short.trigger == long.trigger == Trigger(on=TriggerOn.DATA)
    assert short.is_data_triggered and short.is_instance_consumer and not short.is_batch_consumer


def test_a_batch_consumer_has_no_frequency_and_its_inputs_and_outputs_no_expressions() -> None:
    entity = process(BATCH_CONSUMER)
    assert entity.frequency is None
    assert entity.trigger == Trigger(on=TriggerOn.DATA, condition=Condition.ANY, max_batch=50, cut="now(-1,0)",
                                     ordered=True)
    assert entity.is_data_triggered and entity.is_batch_consumer and not entity.is_instance_consumer
    assert [(item.feed, item.window) for item in entity.inputs] == [("clicks", None), ("visits", None)]
    assert [(item.feed, item.instance) for item in entity.outputs] == [("clicks-hourly-summary", None)]


def test_code_that_needs_a_time_grid_says_a_batch_consumer_has_none() -> None:
    entity = process(BATCH_CONSUMER)
    with pytest.raises(UsageError, match=r"^Process 'p' has no frequency: it is a batch consumer, .*`toolkit "
                       r"trigger` starts its runs\.$"):
        process_grid(entity, "primary")
    with pytest.raises(UsageError, match="has no frequency: it is a batch consumer"):
        process_timeout(entity)
    with pytest.raises(UsageError, match=r"^Input 'clicks' \(feed 'clicks'\) has no window: it belongs to a batch "):
        entity.inputs[0].require_window()
    with pytest.raises(UsageError, match=r"^Output 'summary' \(feed 'clicks-hourly-summary'\) has no instance "):
        entity.outputs[0].require_instance()


NO_FREQUENCY = ("Process 'p': it has no frequency, so it is a batch consumer, run on published data: add `trigger: "
                "data`, or give it a frequency to run it at nominal times.")


@pytest.mark.parametrize("trigger", ["", "trigger: time\n", "trigger: {on: time, max-batch: 3}\n"])
def test_without_frequency_the_process_must_be_triggered_by_data(trigger: str) -> None:
    entity, problems = parse(HEAD + trigger + "inputs: [{name: clicks, feed: clicks}]\n")
    assert entity is None and problems == [NO_FREQUENCY]


def test_a_batch_consumer_names_no_window_and_no_output_instance() -> None:
    text = BATCH_CONSUMER.replace("{name: clicks, feed: clicks}",
                                  "{name: clicks, feed: clicks, start: 'now(0,0)', end: 'now(0,0)'}")
    text = text.replace("{name: summary, feed: clicks-hourly-summary}",
                        "{name: summary, feed: clicks-hourly-summary, instance: 'now(0,0)'}")
    _, problems = parse(text)
    rest = ("is set, but the process has no frequency: a batch consumer's inputs and outputs name only their name "
            "and feed (it reads batches of published instances); remove it, or give the process a frequency.")
    assert problems == [f"Process 'p': {where} {rest}"
                        for where in ("inputs[0].start", "inputs[0].end", "outputs[0].instance")]


def test_a_process_with_a_frequency_still_needs_its_windows() -> None:
    _, problems = parse(HEAD + "frequency: hours(1)\ntrigger: data\ninputs: [{name: clicks, feed: clicks}]\n")
    assert problems == [f"Process 'p': the required field inputs[0].{key} is missing; add it."
                        for key in ("end", "start")]


@pytest.mark.parametrize(("trigger", "message"), [
    ("trigger: dta", "trigger is 'dta', which is not valid: write data (run when the inputs are published) or time"),
    ("trigger: {on: data, max-batch: 0}", "trigger.max-batch is 0; it must be at least 1."),
    ("trigger: {on: data, ordered: yes}", "trigger.ordered must be true or false, not the text 'yes'."),
    ("trigger: {on: data, condition: some}", "trigger.condition is 'some'; allowed values are all, any."),
])
def test_trigger_values_are_checked_by_the_schema(trigger: str, message: str) -> None:
    _, problems = parse(HEAD + "frequency: hours(1)\n" + trigger + "\n")
    assert len(problems) == 1 and problems[0].startswith(f"Process 'p': {message}")


def test_toolkit_instances_of_a_batch_consumer_exits_2_with_one_sentence(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    (root / "processes" / "p.yaml").write_text(BATCH_CONSUMER)
    assert ConfigRepo.load(root).process("p").is_batch_consumer
    code = main(["instances", "--repo", str(root), "--process", "p", "--time", "2026-11-21T10:00Z"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("toolkit: Process 'p' has no frequency: it is a batch consumer")
    assert len(err.splitlines()) == 1


def test_the_process_entrypoint_refuses_a_batch_consumer_before_spark(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    (root / "processes" / "p.yaml").write_text(BATCH_CONSUMER)
    started: list[object] = []
    monkeypatch.setattr(action_session, "build_session", lambda *args, **kwargs: started.append(args))
    monkeypatch.setattr(sys, "argv", ["entry", "--repo", str(root), "--process", "p", "--cluster", "primary",
                                      "--time", "2026-11-21T10:00Z"])
    assert process_main() == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in error
    assert "Process 'p' has no frequency: it is a batch consumer" in error
    assert started == []  # refused before any Spark session
