"""The rules of data-triggered processes (PR020-PR023) on their case repos: the exact messages, that each names
the field to change and what to do, and the severity of PR022 (a warning, as AIP-48 proposed)."""

from __future__ import annotations

from pathlib import Path

from tests.unit.lint.overlay import case_repo, fixture_repo
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.problems import Problem, Severity


def problems_of(root: Path, code: str) -> list[Problem]:
    return [problem for problem in lint_paths([root]).problems if problem.code == code]


def test_pr020_names_the_needed_instance_the_run_and_the_nearest_published(tmp_path: Path) -> None:
    [problem] = problems_of(fixture_repo("PR020", tmp_path / "repo"), "PR020")
    assert problem.severity is Severity.ERROR
    assert problem.message == (
        "Process 'daily-clicks-rollup': inputs[0] 'yesterday(0,0)'..'yesterday(23,0)' needs instance "
        "2026-01-08T01:00Z of feed 'clicks-hourly-summary' for the run at 2026-01-09T00:00Z on cluster 'primary', "
        "but its producers there (hourly-clicks-summary) never publish it (the nearest they publish is "
        "2026-01-08T02:00Z): with trigger on data that run never starts; make the window name instances they "
        "publish, or their outputs the instances it needs.")


def test_pr020_minute_30_of_a_half_hourly_feed_written_on_the_hour(tmp_path: Path) -> None:
    root = case_repo("PR020", "fails: minute 30 of a half-hourly feed whose producer writes on the hour",
                     tmp_path / "repo")
    [problem] = problems_of(root, "PR020")
    assert "needs instance 2026-01-08T00:30Z of feed 'clicks-hourly-summary'" in problem.message
    assert "(the nearest they publish is 2026-01-08T01:00Z)" in problem.message


def test_pr021_says_no_publication_starts_it(tmp_path: Path) -> None:
    [problem] = problems_of(fixture_repo("PR021", tmp_path / "repo"), "PR021")
    assert problem.message == (
        "Process 'hourly-clicks-summary': trigger is on data, but the process has no inputs: no publication would "
        "ever start it; add the inputs it waits for, or remove `trigger` to run it at nominal times.")


def test_pr022_is_a_warning_naming_the_feed_the_cluster_and_the_fixes(tmp_path: Path) -> None:
    [problem] = problems_of(fixture_repo("PR022", tmp_path / "repo"), "PR022")
    assert problem.severity is Severity.WARNING
    assert problem.message == (
        "Process 'daily-clicks-rollup': inputs[0] reads feed 'clicks-hourly-summary', which nothing publishes on "
        "cluster 'primary': no process outputs it there and it is neither replicated to it nor written from "
        "outside, so this data-triggered process would never start there; add its producer, or declare the feed's "
        "cluster 'primary' `type: source` (outside producers run `toolkit publish`) or `type: target` (replicated "
        "into it).")


def test_pr023_batch_options_on_a_process_with_a_frequency(tmp_path: Path) -> None:
    messages = [p.message for p in problems_of(fixture_repo("PR023", tmp_path / "repo"), "PR023")]
    rest = ("is for batch consumers (processes without frequency), but this process has a frequency and its "
            "instances wait for every required instance of their windows: remove it, or remove the frequency and "
            "the input windows to make it a batch consumer.")
    assert messages == [f"Process 'hourly-clicks-summary': {option} {rest}"
                        for option in ("trigger.condition any", "trigger.max-batch 10")]


def test_pr023_fields_a_batch_consumer_cannot_use(tmp_path: Path) -> None:
    name = ("fails: a batch consumer with an optional input, late-process, ordered and parallel, and a cut among "
            "available instances")
    messages = [p.message.removeprefix("Process 'hourly-clicks-summary': ")
                for p in problems_of(case_repo("PR023", name, tmp_path / "repo"), "PR023")]
    assert messages == [
        "trigger.cut 'latest(0)' picks among available instances, but the cut is an instant fixed by the sweep's "
        "time: write one such as now(-1,0) or today(0,0).",
        "parallel is 2, but trigger.ordered true runs one batch at a time: set parallel to 1, or ordered to false.",
        "inputs[0].optional is true, but a batch consumer reads whatever of its inputs is published: remove it, and "
        "set trigger.condition: any to run when any one input has new instances.",
        "late-process is set, but a batch consumer has no input windows to rerun: a late instance is a new event "
        "that its next batch consumes; remove late-process.",
    ]
