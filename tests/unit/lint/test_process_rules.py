"""The process rules (PR..) on small changes to the template repo: input windows against the feed's
validity at the first and last process instance (in DST zones), warning against error, late inputs,
engines, workflow paths, partitions and SLAs; each asserting the exact code, line and message."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.runner import all_rules, lint_paths
from toolkit.core.entities.problems import Problem, Severity
from toolkit.core.entities.repo import ConfigRepo

PROCESS = "processes/daily-sales.yaml"

# A daily feed counted in Los Angeles: its instances are at local midnight, 08:00Z in winter (PST) and
# 07:00Z in summer (PDT). Its first instance is midnight of 2026-03-08, the day clocks spring forward;
# its validity ends at midnight of 2026-11-01, the day they fall back, so its last instance is Oct 31.
SALES_FEED = """\
    kind: feed
    name: sales
    frequency: days(1)
    timezone: America/Los_Angeles
    clusters:
      - name: primary
        type: source
        validity:
          start: 2026-03-08T08:00Z
          end: 2026-11-01T07:00Z
    locations:
      data: /data/sales/${YEAR}/${MONTH}/${DAY}
    """


def sales_process(start: str, end: str, window: tuple[str, str], extra: str = "") -> str:
    return textwrap.dedent(f"""\
        kind: process
        name: daily-sales
        clusters:
          - name: primary
            validity:
              start: {start}
              end: {end}
        frequency: days(1)
        timezone: America/Los_Angeles
        inputs:
          - name: sales
            feed: sales
            start: {window[0]}
            end: {window[1]}
        workflow:
          engine: pyspark
          path: workflows/hourly_clicks_summary.py
        """) + textwrap.dedent(extra)


def repo_with(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    return root


def pr_problems(root: Path) -> list[Problem]:
    """The process rules' problems; the files must load (a YAML or schema problem would hide them)."""
    problems = lint_paths([root]).problems
    assert [str(p) for p in problems if p.code.startswith(("YM", "SC", "RP004"))] == []
    return [p for p in problems if p.code.startswith("PR")]


def line_of(root: Path, relative: str, needle: str) -> int:
    lines = (root / relative).read_text().splitlines()
    matches = [number for number, line in enumerate(lines, 1) if needle in line]
    assert len(matches) == 1, (needle, matches)
    return matches[0]


def template_file(relative: str, *replacements: tuple[str, str]) -> str:
    text = (TEMPLATE / relative).read_text()
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


# ------------------------------------------------------------------ PR007: window inside feed validity


def test_window_is_evaluated_in_the_feeds_zone(tmp_path: Path) -> None:
    # First run at midnight of Mar 9 (07:00Z, PDT): yesterday(0,0) is midnight of Mar 8 in Los Angeles
    # (08:00Z), the feed's first instance. Evaluated in UTC it would be 2026-03-08T00:00Z, before it.
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", ("yesterday(0,0)", "yesterday(0,0)")),
    })
    assert pr_problems(root) == []


def test_window_before_the_feed_at_the_first_instance_is_an_error(tmp_path: Path) -> None:
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-08T08:00Z", "2026-11-01T07:00Z", ("yesterday(0,0)", "today(0,0)")),
    })
    (problem,) = pr_problems(root)
    assert (problem.code, problem.severity) == ("PR007", Severity.ERROR)
    assert problem.line == line_of(root, PROCESS, "start: yesterday(0,0)")
    assert problem.message == (
        "Process 'daily-sales': inputs[0].start 'yesterday(0,0)' gives 2026-03-07T08:00Z for the first instance "
        "2026-03-08T08:00Z of the process on cluster 'primary', before the first instance 2026-03-08T08:00Z of "
        "feed 'sales' there (its validity starts 2026-03-08T08:00Z); the window must lie inside the feed's "
        "validity: start the process later on 'primary', start feed 'sales' earlier there, or shorten the window."
    )
    assert lint_paths([root]).failed()


def test_window_after_the_feed_at_the_last_instance_is_a_warning(tmp_path: Path) -> None:
    # The process runs until midnight of Nov 3 (PST, 08:00Z): its last instance is midnight of Nov 2,
    # 2026-11-02T08:00Z, one 25-hour day after the fall back. today(0,0) there is past the last instance a
    # process can read, the feed's validity end, midnight of Nov 1 (PDT, 07:00Z).
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-03T08:00Z", ("yesterday(0,0)", "today(0,0)")),
    })
    (problem,) = pr_problems(root)
    assert (problem.code, problem.severity) == ("PR007", Severity.WARNING)
    assert problem.line == line_of(root, PROCESS, "end: today(0,0)")
    assert problem.message == (
        "Process 'daily-sales': inputs[0].end 'today(0,0)' gives 2026-11-02T08:00Z for the last instance "
        "2026-11-02T08:00Z of the process on cluster 'primary', after the last instance 2026-11-01T07:00Z of "
        "feed 'sales' there (its validity ends 2026-11-01T07:00Z); the process's last runs would wait for "
        "instances feed 'sales' never has: end the process earlier on 'primary' or extend the feed's validity there."
    )
    assert not lint_paths([root]).failed()
    assert lint_paths([root]).failed(strict=True)


def test_the_feeds_validity_end_is_the_last_instance_a_process_reads_across_dst(tmp_path: Path) -> None:
    # Ending just after the feed's own end (midnight of Nov 1, still PDT): the last run is Nov 1 at 07:00Z, whose
    # today(0,0) is the feed's validity end, which a process reads as Falcon's do; a day later (Nov 2, 08:00Z,
    # PST) it would be outside.
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:01Z", ("yesterday(0,0)", "today(0,0)")),
    })
    assert pr_problems(root) == []
    later = repo_with(tmp_path / "later", {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-02T08:01Z", ("yesterday(0,0)", "today(0,0)")),
    })
    assert [(p.code, p.severity, "2026-11-02T08:00Z for the last instance" in p.message)
            for p in pr_problems(later)] == [("PR007", Severity.WARNING, True)]


def test_first_instance_error_is_reported_without_the_last_instance_warning(tmp_path: Path) -> None:
    # The first window starts before the feed and the last ends after it: one error, no extra warning.
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-08T08:00Z", "2026-11-03T08:00Z", ("yesterday(0,0)", "today(0,0)")),
    })
    assert [(p.code, p.severity, p.line) for p in pr_problems(root)] == [
        ("PR007", Severity.ERROR, line_of(root, PROCESS, "start: yesterday(0,0)")),
    ]


def test_window_after_the_feed_at_the_first_instance_is_an_error(tmp_path: Path) -> None:
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", ("today(0,0)", "now(24*365,0)")),
    })
    (problem,) = pr_problems(root)
    assert (problem.code, problem.severity) == ("PR007", Severity.ERROR)
    assert problem.line == line_of(root, PROCESS, "end: now(24*365,0)")
    assert "gives 2027-03-09T07:00Z for the first instance 2026-03-09T07:00Z" in problem.message
    assert "extend feed 'sales' on 'primary', or end the window earlier" in problem.message


def test_windows_with_latest_or_future_are_not_checked_against_validity(tmp_path: Path) -> None:
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-01-01T08:00Z", "2027-01-01T08:00Z", ("latest(-3)", "future(0,2)")),
    })
    assert pr_problems(root) == []


def test_each_cluster_is_checked_against_the_feeds_validity_there(tmp_path: Path) -> None:
    # clicks exists on backup from 2026-06-01 only: the hourly process's first window there is outside.
    root = repo_with(tmp_path, {
        "feeds/clicks.yaml": template_file("feeds/clicks.yaml", (
            "      start: 2025-12-01T00:00Z\n      end: 2099-12-31T00:00Z\n    retention:\n      limit: months(12)",
            "      start: 2026-06-01T00:00Z\n      end: 2099-12-31T00:00Z\n    retention:\n      limit: months(12)",
        )),
        "feeds/clicks-hourly-summary.yaml": template_file("feeds/clicks-hourly-summary.yaml", (
            "      action: delete\n",
            "      action: delete\n  - name: backup\n    type: source\n    validity:\n"
            "      start: 2026-01-01T00:00Z\n      end: 2099-12-31T00:00Z\n",
        )),
        "processes/hourly-clicks-summary.yaml": template_file("processes/hourly-clicks-summary.yaml", (
            "      end: 2099-12-31T00:00Z\n",
            "      end: 2099-12-31T00:00Z\n  - name: backup\n    validity:\n"
            "      start: 2026-01-01T00:00Z\n      end: 2099-12-31T00:00Z\n",
        )),
    })
    (problem,) = pr_problems(root)
    assert problem.code == "PR007" and problem.severity is Severity.ERROR
    assert "instance 2026-01-01T00:00Z of the process on cluster 'backup'" in problem.message
    assert "before the first instance 2026-06-01T00:00Z of feed 'clicks' there" in problem.message


# ------------------------------------------------------------------ PR006: end not before start


def test_end_before_start_is_judged_in_the_feeds_zone(tmp_path: Path) -> None:
    # At midnight of Mar 9 in Los Angeles (07:00Z), today(0,0) is 07:00Z: now(-1,0) (06:00Z) is before it.
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", ("today(0,0)", "now(-1,0)")),
    })
    (problem,) = pr_problems(root)
    assert (problem.code, problem.line) == ("PR006", line_of(root, PROCESS, "end: now(-1,0)"))
    assert ("inputs[0].end 'now(-1,0)' gives 2026-03-09T06:00Z, before the start 'today(0,0)' (2026-03-09T07:00Z), "
            "for the first instance 2026-03-09T07:00Z on cluster 'primary' (in the zone America/Los_Angeles of "
            "feed 'sales')") in problem.message


# ------------------------------------------------------------------ PR005 / PR008: expressions


@pytest.mark.parametrize(("expression", "expected"), [
    ("formatTime(now(0,0), 'yyyy')", "gives a text, not a time"),
    ("latest(1)", "latest(1) looks forward"),
    ("future(-1, 3)", "future(-1, ...) looks back"),
    ("future(0, 1-1)", "future(..., 0) has no instance to pick from"),
    ("lastWeek('FRIDAY',0,0)", "is not a valid EL expression: invalid week day 'FRIDAY'"),
    ("now(0,0", "is not a valid EL expression: ')' expected at the end"),
    ("dateOffset('2016-02-30T10:59Z', 0, 'DAY')",
     "is not a valid EL expression: argument time of dateOffset(time, n, unit) is the text '2016-02-30T10:59Z', "
     "which is no time"),
])
def test_invalid_expressions(tmp_path: Path, expression: str, expected: str) -> None:
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", ("today(0,0)", f'"{expression}"')),
    })
    (problem,) = pr_problems(root)
    assert (problem.code, problem.line) == ("PR005", line_of(root, PROCESS, 'end: "'))
    assert f"inputs[0].end {expression!r}" in problem.message and expected in problem.message


def test_a_literal_time_is_a_valid_window_end(tmp_path: Path) -> None:
    # Falcon's ExpressionHelper takes a time written as text wherever it takes a time.
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z",
                               ("today(0,0)", "\"dateOffset('2026-11-01T07:00Z', -1, 'DAY')\"")),
    })
    assert pr_problems(root) == []


def test_output_with_future_is_not_a_single_instance(tmp_path: Path) -> None:
    extra = """\
        outputs:
          - name: report
            feed: clicks-daily
            instance: future(0,1)
        """
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": SALES_FEED,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", ("today(0,0)", "today(0,0)"), extra),
    })
    problems = [p for p in pr_problems(root) if p.code != "PR003"]
    assert [(p.code, p.line) for p in problems] == [("PR008", line_of(root, PROCESS, "instance: future(0,1)"))]
    assert "outputs[0].instance 'future(0,1)' uses future()" in problems[0].message


# ------------------------------------------------------------------ PR003: feeds on the process's clusters


def test_missing_feeds_and_clusters_are_left_to_the_repo_rule(tmp_path: Path) -> None:
    process = template_file("processes/hourly-clicks-summary.yaml",
                            ("    feed: clicks\n", "    feed: clicks-raw\n"),
                            ("      end: 2099-12-31T00:00Z\n",
                             "      end: 2099-12-31T00:00Z\n  - name: nowhere\n    validity:\n"
                             "      start: 2026-01-01T00:00Z\n      end: 2099-12-31T00:00Z\n"))
    root = repo_with(tmp_path, {"processes/hourly-clicks-summary.yaml": process})
    codes = {p.code for p in lint_paths([root]).problems}
    assert "RP004" in codes and not any(code.startswith("PR") for code in codes)


# ------------------------------------------------------------------ PR009 / PR010: partitions, optional


def test_partition_parts_against_the_feeds_partitions(tmp_path: Path) -> None:
    feed = textwrap.dedent(SALES_FEED) + "partitions: [country]\n"
    window = ("today(0,0)", "today(0,0)")
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": feed,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", window).replace(
            "    end: today(0,0)\n", "    end: today(0,0)\n    partition: us/mobile\n"),
    })
    (problem,) = pr_problems(root)
    assert (problem.code, problem.line) == ("PR009", line_of(root, PROCESS, "partition: us/mobile"))
    assert problem.message.endswith(
        "inputs[0].partition 'us/mobile' has 2 parts but feed 'sales' declares 1 partition; give at most 1 part "
        "separated by '/', one per partition (country), e.g. *."
    )
    fine = repo_with(tmp_path / "fine", {
        "feeds/sales.yaml": feed,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", window).replace(
            "    end: today(0,0)\n", "    end: today(0,0)\n    partition: us\n    optional: true\n"),
    })
    assert pr_problems(fine) == []


def test_partition_and_optional_on_a_table_feed(tmp_path: Path) -> None:
    feed = SALES_FEED.replace(
        "    locations:\n      data: /data/sales/${YEAR}/${MONTH}/${DAY}\n",
        "    table:\n      uri: catalog:shop:sales#ds=${YEAR}-${MONTH}-${DAY}\n",
    )
    root = repo_with(tmp_path, {
        "feeds/sales.yaml": feed,
        PROCESS: sales_process("2026-03-09T07:00Z", "2026-11-01T07:00Z", ("today(0,0)", "today(0,0)")).replace(
            "    end: today(0,0)\n", "    end: today(0,0)\n    partition: us\n    optional: true\n"),
    })
    problems = pr_problems(root)
    assert [(p.code, p.line) for p in problems] == [
        ("PR009", line_of(root, PROCESS, "partition: us")),
        ("PR010", line_of(root, PROCESS, "optional: true")),
    ]
    assert "a catalog table on cluster 'primary' (catalog:shop:sales#ds=${YEAR}-${MONTH}-${DAY})" in problems[0].message
    assert "only file feeds can be optional" in problems[1].message


# ------------------------------------------------------------------ PR011: late inputs


def _with_late_inputs(*items: tuple[str, str]) -> str:
    lines = "".join(f"    - input: {name}\n      workflow-path: {path}\n" for name, path in items)
    return template_file("processes/hourly-clicks-summary.yaml", (
        "    - input: clicks\n      workflow-path: workflows/hourly_clicks_summary.py\n", lines))


def test_late_input_must_name_an_input(tmp_path: Path) -> None:
    relative = "processes/hourly-clicks-summary.yaml"
    root = repo_with(tmp_path, {relative: _with_late_inputs(("clicks", "workflows/hourly_clicks_summary.py"),
                                                            ("klicks", "workflows/hourly_clicks_summary.py"))})
    (problem,) = pr_problems(root)
    assert (problem.code, problem.line) == ("PR011", line_of(root, relative, "- input: klicks"))
    assert problem.message.endswith(
        "late-process.late-inputs[1].input 'klicks' is not an input of the process; name one of its inputs: clicks."
    )


def test_late_input_whose_feed_has_a_cut_off_is_fine_and_one_without_is_not(tmp_path: Path) -> None:
    relative = "processes/daily-clicks-rollup.yaml"
    process = template_file(relative, ("  attempts: 3\n", "  attempts: 3\nlate-process:\n  policy: final\n"
                                       "  delay: hours(2)\n  late-inputs:\n    - input: hourly\n"
                                       "      workflow-path: workflows/daily_clicks_rollup.sql\n"))
    root = repo_with(tmp_path, {relative: process})
    (problem,) = pr_problems(root)
    assert (problem.code, problem.line) == ("PR011", line_of(root, relative, "- input: hourly"))
    assert "reads feed 'clicks-hourly-summary', which has no late-arrival cut-off" in problem.message
    feed = template_file("feeds/clicks-hourly-summary.yaml",
                         ("availabilityFlag: _SUCCESS\n", "availabilityFlag: _SUCCESS\nlate-arrival:\n"
                                                          "  cut-off: hours(3)\n"))
    fixed = repo_with(tmp_path / "fixed", {relative: process, "feeds/clicks-hourly-summary.yaml": feed})
    assert pr_problems(fixed) == []


# ------------------------------------------------------------------ PR014 / PR015: engine and paths


@pytest.mark.parametrize(("engine", "path", "codes"), [
    ("pyspark", "workflows/hourly_clicks_summary.py", []),
    ("spark-sql", "workflows/daily_clicks_rollup.sql", []),
    ("hive", "workflows/daily_clicks_rollup.sql", []),
    ("oozie", "hdfs://namenode:8020/apps/daily", ["PR014"]),
    ("oozie", "workflows", ["PR014"]),  # an Oozie application is a folder
    ("pig", "s3a://bucket/scripts/daily.pig", ["PR014"]),
])
def test_engines(tmp_path: Path, engine: str, path: str, codes: list[str]) -> None:
    relative = "processes/daily-clicks-rollup.yaml"
    process = template_file(relative, ("  engine: spark-sql\n  path: workflows/daily_clicks_rollup.sql",
                                       f"  engine: {engine}\n  path: {path}"))
    root = repo_with(tmp_path, {relative: process})
    problems = pr_problems(root)
    assert [(p.code, p.line) for p in problems] == [(code, line_of(root, relative, "- name: primary"))
                                                    for code in codes]
    if codes:  # the template's cluster names its scheduler (cron://localhost) as its workflow interface
        assert problems[0].message == (
            f"Process 'daily-clicks-rollup': workflow.engine '{engine}' runs the workflow on the Oozie server of each "
            "of the process's clusters, and cluster 'primary' has the workflow interface cron://localhost, which is "
            "no Oozie server's URL: write it as http://oozie:11000/oozie (https:// for TLS). Until then the process "
            "cannot run there.")


@pytest.mark.parametrize(("properties", "said"), [
    ("  oozie.client.auth: negotiate\n", "oozie.client.auth 'negotiate' is not one of simple, kerberos."),
    ("  oozie.client.user: ' '\n", "oozie.client.user ' ' is not a user name (empty or with blanks)."),
    ("  oozie.client.poll-seconds: '0'\n", "oozie.client.poll-seconds '0' is not a positive number of seconds."),
])
def test_an_oozie_process_on_a_cluster_whose_oozie_settings_cannot_work(tmp_path: Path, properties: str,
                                                                         said: str) -> None:
    relative = "processes/daily-clicks-rollup.yaml"
    process = template_file(relative, ("  engine: spark-sql\n  path: workflows/daily_clicks_rollup.sql",
                                       "  engine: oozie\n  path: /apps/daily"))
    cluster = template_file("clusters/primary.yaml", ("endpoint: cron://localhost",
                                                      "endpoint: https://oozie.example.com:11443/oozie/"),
                            ("properties:\n", "properties:\n" + properties))
    root = repo_with(tmp_path, {relative: process, "clusters/primary.yaml": cluster})
    assert [problem.message for problem in pr_problems(root)] == [
        "Process 'daily-clicks-rollup': workflow.engine 'oozie' runs the workflow on the Oozie server of each of the "
        f"process's clusters, and cluster 'primary' has a property that cannot work: {said} Until then the process "
        "cannot run there."]


SPARK_WORKFLOW = "  engine: spark\n  path: /apps/clicks-summary\n"


@pytest.mark.parametrize(("attributes", "codes", "at"), [
    ("spark-attributes:\n  jar: /apps/clicks-summary/summary.py\n", [], None),
    ("spark-attributes:\n  jar: hdfs://namenode:8020/apps/a.jar,/apps/b.jar\n  class: org.example.A\n", [], None),
    ("spark-attributes:\n  jar: workflows/hourly_clicks_summary.py\n", [], None),
    ("", ["PR018"], "engine: spark"),
    ("spark-attributes:\n  name: clicks-summary\n", ["PR018"], "  name: clicks-summary"),  # its first field
])
def test_spark_engine_needs_its_application(tmp_path: Path, attributes: str, codes: list[str],
                                           at: str | None) -> None:
    relative = "processes/hourly-clicks-summary.yaml"
    process = template_file(relative, ("  engine: pyspark\n  path: workflows/hourly_clicks_summary.py\n",
                                       SPARK_WORKFLOW), ("retry:\n", attributes + "retry:\n"))
    root = repo_with(tmp_path, {relative: process})
    problems = [p for p in pr_problems(root) if p.code != "PR015"]  # PR015 judges the absolute workflow.path
    assert [(p.code, p.line) for p in problems] == [(code, line_of(root, relative, at)) for code in codes]
    if codes:
        assert problems[0].message == (
            "Process 'hourly-clicks-summary': workflow.engine spark runs the application named by "
            "spark-attributes.jar, which is not given: set spark-attributes.jar to the application's .jar or .py "
            "file (an absolute path is on the cluster's file system, a relative one in the config repo).")


def test_a_spark_application_in_the_repo_must_exist(tmp_path: Path) -> None:
    relative = "processes/hourly-clicks-summary.yaml"
    attributes = "spark-attributes:\n  jar: workflows/hourly_clicks_summary.py, jobs/helpers.zip\n"
    process = template_file(relative, ("  engine: pyspark\n  path: workflows/hourly_clicks_summary.py\n",
                                       SPARK_WORKFLOW), ("retry:\n", attributes + "retry:\n"))
    root = repo_with(tmp_path, {relative: process})
    problems = [p for p in pr_problems(root) if p.code != "PR015"]
    assert [(p.code, p.line) for p in problems] == [("PR018", line_of(root, relative, "  jar: "))]
    assert problems[0].message == (
        "Process 'hourly-clicks-summary': spark-attributes.jar names jobs/helpers.zip, which does not exist in "
        "the config repo; add it, or give an absolute path (on the cluster's file system) or a URI.")


def test_workflow_paths_are_checked_in_the_repo(tmp_path: Path) -> None:
    relative = "processes/hourly-clicks-summary.yaml"
    process = _with_late_inputs(("clicks", "workflows/late_clicks.py")).replace(
        "  path: workflows/hourly_clicks_summary.py", "  path: workflows")
    root = repo_with(tmp_path, {relative: process})
    problems = pr_problems(root)
    assert [(p.code, p.line) for p in problems] == [
        ("PR015", line_of(root, relative, "  path: workflows")),
        ("PR015", line_of(root, relative, "workflow-path: workflows/late_clicks.py")),
    ]
    assert "workflow.path 'workflows' is a folder, not a workflow file" in problems[0].message
    assert ("late-process.late-inputs[0].workflow-path 'workflows/late_clicks.py' does not exist in the config "
            "repo") in problems[1].message


# ------------------------------------------------------------------ PR012 / PR013: SLA and timeout


def test_cluster_sla_order_compares_days_with_hours(tmp_path: Path) -> None:
    relative = "processes/daily-clicks-rollup.yaml"
    process = template_file(relative, (
        "      end: 2099-12-31T00:00Z\n",
        "      end: 2099-12-31T00:00Z\n    sla:\n      shouldStartIn: days(1)\n      shouldEndIn: hours(23)\n",
    ), ("timeout: hours(12)", "timeout: days(2)"))
    root = repo_with(tmp_path, {relative: process})
    (problem,) = pr_problems(root)
    assert (problem.code, problem.line) == ("PR012", line_of(root, relative, "shouldStartIn: days(1)"))
    assert problem.message.endswith(
        "clusters[0].sla.shouldStartIn days(1) is longer than clusters[0].sla.shouldEndIn hours(23): an instance "
        "would be due to end before it is due to start; make shouldStartIn at most hours(23), or shouldEndIn at "
        "least days(1)."
    )
    equal = process.replace("shouldEndIn: hours(23)", "shouldEndIn: hours(24)")
    equal_root = repo_with(tmp_path / "equal", {relative: equal})
    assert pr_problems(equal_root) == []


@pytest.mark.parametrize(("timeout", "refused"), [("hours(3)", True), ("hours(4)", False), ("days(1)", False)])
def test_timeout_shorter_than_the_process_should_start_in_is_an_error(tmp_path: Path, timeout: str,
                                                                      refused: bool) -> None:
    """Falcon refuses such a process on submit (ProcessEntityParser.validateProcessSLA)."""
    relative = "processes/daily-clicks-rollup.yaml"
    root = repo_with(tmp_path, {relative: template_file(relative, ("timeout: hours(12)", f"timeout: {timeout}"))})
    problems = pr_problems(root)
    expected = [("PR013", Severity.ERROR, line_of(root, relative, "timeout:"))] if refused else []
    assert [(p.code, p.severity, p.line) for p in problems] == expected
    if refused:
        assert problems[0].message == (
            "Process 'daily-clicks-rollup': timeout hours(3) is shorter than sla.shouldStartIn hours(4): an "
            "instance waiting for its inputs would time out before it is even late, so the SLA never fires (Falcon "
            "refuses such a process); make timeout at least hours(4), or shouldStartIn at most hours(3).")


def test_timeout_shorter_than_a_clusters_should_start_in_is_a_warning(tmp_path: Path) -> None:
    """Falcon checks only the process's own SLA against the timeout, and accepted this."""
    relative = "processes/daily-clicks-rollup.yaml"
    process = template_file(relative, (
        "      end: 2099-12-31T00:00Z\n",
        "      end: 2099-12-31T00:00Z\n    sla:\n      shouldStartIn: days(1)\n      shouldEndIn: days(2)\n",
    ))
    root = repo_with(tmp_path, {relative: process})
    problems = pr_problems(root)
    assert [(p.code, p.severity) for p in problems] == [("PR013", Severity.WARNING)]
    assert "timeout hours(12) is shorter than clusters[0].sla.shouldStartIn days(1)" in problems[0].message
    assert "Falcon" not in problems[0].message


# ------------------------------------------------------------------ speed


def test_process_rules_over_300_processes_with_windows_until_2099(tmp_path: Path) -> None:
    # Their speed (closed-form window arithmetic, no walk over the instances) is measured by bench/lint_bench.py.
    root = repo_with(tmp_path, {"feeds/sales.yaml": SALES_FEED})
    for number in range(300):
        text = sales_process("2026-03-09T07:00Z", "2099-11-01T07:00Z", ("yesterday(0,0)", "today(0,0)"))
        text = text.replace("name: daily-sales", f"name: sales-{number}").replace(
            "workflow:\n", "  - {name: clicks, feed: clicks, start: 'now(-24,0)', end: 'now(-1,0)'}\nworkflow:\n")
        (root / "processes" / f"sales-{number}.yaml").write_text(text)
    repo, problems = ConfigRepo.scan(root)
    assert problems == [] and len(repo.processes) == 304
    ctx = LintContext(repo)
    rules = [rule() for rule in all_rules() if rule.code.startswith("PR")]
    found = [finding for rule in rules for finding in rule.check(ctx)]
    # Every process reads sales past its validity end at its last instance (2099): one warning each.
    assert len(found) == 300 and {f.severity for f in found} == {Severity.WARNING}


@pytest.mark.parametrize(("path", "message"), [
    ("/app/hive/wordcount.hql", None),  # Falcon's workflows live on the cluster: checked when the process runs
    ("/app/oozie-mr", None),
    ("/app/../etc/daily.sql", "workflow.path '/app/../etc/daily.sql' has a '.' or '..' segment, which would climb "
                              "out of where the path says it is on the cluster; give the path without it."),
    ("../outside.sql", "workflow.path '../outside.sql' leaves the config repo; give a path inside it, an absolute "
                       "path on the cluster's file system (/apps/summary.sql) or a URI."),
])
def test_absolute_workflow_paths_are_on_the_cluster_and_only_their_form_is_checked(
        tmp_path: Path, path: str, message: str | None) -> None:
    relative = "processes/daily-clicks-rollup.yaml"
    process = template_file(relative, ("  path: workflows/daily_clicks_rollup.sql", f"  path: {path}"))
    root = repo_with(tmp_path, {relative: process})
    (tmp_path / "outside.sql").write_text("select 1")  # exists, but outside the repo
    problems = pr_problems(root)
    if message is None:
        assert problems == []
    else:
        assert [(p.code, p.line) for p in problems] == [("PR015", line_of(root, relative, "  path: "))]
        assert problems[0].message == f"Process 'daily-clicks-rollup': {message}"


# ------------------------------------------------------------------ PR026: window within the feed's retention


def test_a_window_reaching_past_the_retention_is_an_error_at_its_farthest_instance(tmp_path: Path) -> None:
    """today(0,0) of an hourly process reaches back 23 hours at 23:00: the farthest over a day of instances is the
    one compared with the retention, as Falcon compares it at the time of submission."""
    feed = SALES_FEED.replace("frequency: days(1)", "frequency: hours(1)").replace(
        "          end: 2026-11-01T07:00Z\n",
        "          end: 2026-11-01T07:00Z\n        retention:\n          limit: hours(20)\n          action: delete\n",
    ).replace("${DAY}", "${DAY}/${HOUR}")
    process = sales_process("2026-04-01T07:00Z", "2026-05-01T07:00Z", ("today(0,0)", "now(0,0)")).replace(
        "frequency: days(1)", "frequency: hours(1)")
    root = repo_with(tmp_path, {"feeds/sales.yaml": feed, PROCESS: process})
    (problem,) = pr_problems(root)
    expected = ("PR026", Severity.ERROR, line_of(root, PROCESS, "start: today"))
    assert (problem.code, problem.severity, problem.line) == expected
    assert problem.message == (
        "Process 'daily-sales': inputs[0].start 'today(0,0)' reaches hours(23) back from the process's instance "
        "2026-04-02T06:00Z on cluster 'primary', further than the retention limit hours(20) of feed 'sales' there: "
        "its retention would delete the instances before the process reads them (Falcon refuses such a process); "
        "keep the feed at least hours(23) there, or start the window later.")
    kept = repo_with(tmp_path / "kept", {"feeds/sales.yaml": feed.replace("hours(20)", "hours(23)"), PROCESS: process})
    assert pr_problems(kept) == []


def test_a_month_retention_is_compared_by_falcons_measure_and_warned_in_the_shorter_months(tmp_path: Path) -> None:
    """months(1) is 31 days to Falcon: a window of 30 days passes its check, but in a 28-day February the
    instances would be gone: a warning; 32 days is more than any month: an error."""
    feed = SALES_FEED.replace(
        "          end: 2026-11-01T07:00Z\n",
        "          end: 2026-11-01T07:00Z\n        retention:\n          limit: months(1)\n          action: delete\n")
    for days, expected in ((30, Severity.WARNING), (32, Severity.ERROR), (28, None)):
        process = sales_process("2026-05-01T07:00Z", "2026-06-01T07:00Z", (f"today(-{24 * days},0)", "now(0,0)"))
        root = repo_with(tmp_path / str(days), {"feeds/sales.yaml": feed, PROCESS: process})
        assert [(p.code, p.severity) for p in pr_problems(root)] == ([("PR026", expected)] if expected else []), days


# ------------------------------------------------------------------ the feed's validity end, inclusive for processes


def test_a_window_and_an_output_exactly_at_the_feeds_validity_end_are_accepted_as_in_falcon(tmp_path: Path) -> None:
    """Falcon refuses a window end or an output instance only after the feed's validity end
    (CrossEntityValidations: `instEnd.after(feedEnd)`): one exactly at it is an instance processes read and
    write. The process's one instance is local midnight of Nov 1, the sales feed's validity end."""
    process = sales_process("2026-11-01T07:00Z", "2026-11-02T08:00Z", ("today(0,0)", "today(0,0)"),
                            extra="outputs:\n  - name: out\n    feed: sales\n    instance: today(0,0)\n")
    root = repo_with(tmp_path, {"feeds/sales.yaml": SALES_FEED, PROCESS: process})
    assert [(p.code, p.line) for p in pr_problems(root)] == []
    after = process.replace("today(0,0)", "today(25,0)")  # Nov 2, local midnight after the 25-hour day
    late = repo_with(tmp_path / "after", {"feeds/sales.yaml": SALES_FEED, PROCESS: after})
    assert sorted(p.code for p in pr_problems(late)) == ["PR007", "PR017"]
