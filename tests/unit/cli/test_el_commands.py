"""`toolkit el ...` (issue 2, section 4) through `toolkit.cli.main.main`: outputs, and exit codes per
docs/exit-codes.md: 0 success, 1 a path that is not an instance, 2 a usage error (one line on stderr starting
with "toolkit: ", never a traceback)."""

import pytest

from toolkit.cli.main import main

TIME = "2026-11-21T10:00Z"  # a Saturday


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["el", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_usage_error(code: int, out: str, err: str, *mentions: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("toolkit: ")
    assert err.endswith("\n") and err.count("\n") == 1, err  # one line
    assert "Traceback" not in err
    for mention in mentions:
        assert mention in err


# -- eval ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("now(0,-60)", "2026-11-21T09:00Z"),
        ("${now(0,-60)}", "2026-11-21T09:00Z"),
        ("yesterday(24,30)", "2026-11-21T00:30Z"),
        ("currentWeek('WED',0,0)", "2026-11-18T00:00Z"),
        ("currentMonth(-1,0,0)", "2026-10-31T00:00Z"),
        ("lastMonth(31,0,0)", "2026-11-01T00:00Z"),
        ("formatTime(instanceTime(), 'yyyy-MMM-dd')", "2026-Nov-21"),
        ("formatTime(dateOffset(instanceTime(), -1, 'DAY'), 'EEE yyyyMMdd')", "Fri 20261120"),
    ],
)
def test_eval_prints_utc_time_or_text(capsys, expression, expected):
    assert run(capsys, "eval", expression, "--time", TIME) == (0, expected + "\n", "")


def test_eval_in_a_zone(capsys):
    # 10:00Z is 02:00 PST on Nov 21: local midnight is 08:00Z.
    assert run(capsys, "eval", "today(0,0)", "--time", TIME, "--timezone", "America/Los_Angeles") == (
        0, "2026-11-21T08:00Z\n", "",
    )
    # In Kolkata (+05:30) 10:00Z is 15:30.
    assert run(capsys, "eval", "formatTime(now(0,0),'HH:mm')", "--time", TIME, "--timezone", "Asia/Kolkata") == (
        0, "15:30\n", "",
    )


def test_eval_snaps_to_the_feed_grid(capsys):
    feed = ["--feed-frequency", "hours(1)", "--feed-start", "2026-11-21T00:00Z"]
    assert run(capsys, "eval", "now(0,-30)", "--time", TIME, *feed) == (0, "2026-11-21T09:00Z\n", "")
    # The nominal time off the grid is snapped too.
    assert run(capsys, "eval", "now(0,0)", "--time", "2026-11-21T10:59Z", *feed) == (0, "2026-11-21T10:00Z\n", "")
    # With a validity end (exclusive), a later result is the last instance.
    assert run(capsys, "eval", "now(0,0)", "--time", TIME, *feed, "--feed-end", "2026-11-21T06:00Z") == (
        0, "2026-11-21T05:00Z\n", "",
    )


def test_eval_daily_feed_in_a_zone(capsys):
    # Daily feed at local midnight in Los Angeles; now(0,0) at 2026-03-09T12:00Z (05:00 PDT) snaps to
    # Mar 9 00:00 PDT = 07:00Z; yesterday(0,0) to Mar 8 00:00 PST = 08:00Z.
    feed = ["--feed-frequency", "days(1)", "--feed-start", "2026-03-01T08:00Z", "--timezone", "America/Los_Angeles"]
    assert run(capsys, "eval", "now(0,0)", "--time", "2026-03-09T12:00Z", *feed) == (0, "2026-03-09T07:00Z\n", "")
    assert run(capsys, "eval", "yesterday(0,0)", "--time", "2026-03-09T12:00Z", *feed) == (
        0, "2026-03-08T08:00Z\n", "",
    )


def test_eval_prints_an_empty_line_before_the_first_instance(capsys):
    feed = ["--feed-frequency", "hours(1)", "--feed-start", "2026-11-21T12:00Z"]
    assert run(capsys, "eval", "now(0,0)", "--time", TIME, *feed) == (0, "\n", "")


def test_eval_latest_and_future_with_available_instances(capsys):
    feed = ["--feed-frequency", "hours(1)", "--feed-start", "2026-11-21T00:00Z"]
    available = "2026-11-21T06:00Z,2026-11-21T09:00Z,2026-11-21T11:00Z"
    # 10:00 is missing: latest(0) = 09:00, latest(-1) = 06:00 (07, 08 missing); future(0,2) = 11:00.
    assert run(capsys, "eval", "latest(0)", "--time", TIME, *feed, "--available", available) == (
        0, "2026-11-21T09:00Z\n", "",
    )
    assert run(capsys, "eval", "latest(-1)", "--time", TIME, *feed, "--available", available) == (
        0, "2026-11-21T06:00Z\n", "",
    )
    assert run(capsys, "eval", "future(0,2)", "--time", TIME, *feed, "--available", available) == (
        0, "2026-11-21T11:00Z\n", "",
    )
    assert run(capsys, "eval", "latest(-2)", "--time", TIME, *feed, "--available", available) == (0, "\n", "")


@pytest.mark.parametrize(
    ("argv", "mention"),
    [
        (["eval", "now(0,0)", "--time", "2026-13-01T00:00Z"], "2026-13-01T00:00Z"),  # bad time
        (["eval", "now(0,0)", "--time", "2026-11-21 10:00"], "--time"),
        (["eval", "now(0", "--time", TIME], "now(0"),  # invalid expression
        (["eval", "foo(1)", "--time", TIME], "foo(1)"),
        (["eval", "now(1)", "--time", TIME], "now(1)"),
        (["eval", "currentWeek('WEDNESDAY',0,0)", "--time", TIME], "WEDNESDAY"),
        (["eval", "dateOffset(now(0,0),1,'DAYS')", "--time", TIME], "DAYS"),
        (["eval", "formatTime(now(0,0),'yyyy-qq')", "--time", TIME], "yyyy-qq"),
        (["eval", "now(0,0)", "--time", TIME, "--timezone", "Mars/Olympus_Mons"], "Mars/Olympus_Mons"),  # zone
        (["eval", "now(0,0)", "--time", TIME, "--feed-frequency", "hours(0)", "--feed-start", TIME], "hours(0)"),
        (["eval", "now(0,0)", "--time", TIME, "--feed-frequency", "weeks(1)", "--feed-start", TIME], "weeks(1)"),
        (["eval", "now(0,0)", "--time", TIME, "--feed-frequency", "hours(1)"], "--feed-start"),
        (["eval", "latest(0)", "--time", TIME], "latest"),  # no available list
        (["eval", "formatTime(now(0,0),'yyyy')", "--time", TIME, "--feed-frequency", "hours(1)",
          "--feed-start", TIME], "formatTime"),  # text cannot be snapped to a feed
        (["eval", "now(0,0)", "--time", TIME, "--feed-frequency", "hours(1)", "--feed-start", TIME,
          "--available", "yesterday"], "--available"),
    ],
)
def test_eval_usage_errors(capsys, argv, mention):
    assert_usage_error(*run(capsys, *argv), mention)


# -- instances / next / previous ----------------------------------------------------------------------


def test_instances(capsys):
    code, out, err = run(
        capsys, "instances", "--start", "2026-11-21T00:00Z", "--frequency", "hours(6)",
        "--from", "2026-11-21T05:00Z", "--to", "2026-11-22T06:00Z",
    )
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "2026-11-21T06:00Z", "2026-11-21T12:00Z", "2026-11-21T18:00Z", "2026-11-22T00:00Z", "2026-11-22T06:00Z",
    ]


def test_instances_stop_before_the_end(capsys):
    code, out, _ = run(
        capsys, "instances", "--start", "2026-11-21T00:00Z", "--frequency", "hours(6)",
        "--from", "2026-11-20T00:00Z", "--to", "2026-11-23T00:00Z", "--end", "2026-11-21T18:00Z",
    )
    assert code == 0
    assert out.splitlines() == ["2026-11-21T00:00Z", "2026-11-21T06:00Z", "2026-11-21T12:00Z"]


def test_instances_daily_in_a_zone_across_dst(capsys):
    code, out, _ = run(
        capsys, "instances", "--start", "2026-03-06T08:00Z", "--frequency", "days(1)",
        "--timezone", "America/Los_Angeles", "--from", "2026-03-07T00:00Z", "--to", "2026-03-10T00:00Z",
    )
    assert code == 0
    assert out.splitlines() == ["2026-03-07T08:00Z", "2026-03-08T08:00Z", "2026-03-09T07:00Z"]


def test_instances_falcon_example(capsys):
    # hours(1) from 2012-03-11T08:40Z in PST8PDT: 23 instances on local 2012-03-11 (08:00Z .. 07:00Z next day).
    code, out, _ = run(
        capsys, "instances", "--start", "2012-03-11T08:40Z", "--frequency", "hours(1)", "--timezone", "PST8PDT",
        "--from", "2012-03-11T08:00Z", "--to", "2012-03-12T06:59Z",
    )
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 23
    assert lines[0] == "2012-03-11T08:40Z" and lines[-1] == "2012-03-12T06:40Z"


def test_instances_empty_range_prints_nothing(capsys):
    assert run(
        capsys, "instances", "--start", "2026-11-21T00:00Z", "--frequency", "hours(1)",
        "--from", "2026-11-21T05:10Z", "--to", "2026-11-21T05:50Z",
    ) == (0, "", "")


@pytest.mark.parametrize(
    ("extra", "mention"),
    [
        (["--frequency", "hours(01)"], "hours(01)"),
        (["--frequency", "hours(1)", "--timezone", "Nowhere/Else"], "Nowhere/Else"),
        (["--frequency", "hours(1)", "--from", "2026-11-22T00:00Z", "--to", "2026-11-21T00:00Z"], "--to"),
        (["--frequency", "hours(1)", "--from", "2026-02-30T00:00Z"], "2026-02-30T00:00Z"),
    ],
)
def test_instances_usage_errors(capsys, extra, mention):
    argv = ["instances", "--start", "2026-11-21T00:00Z", "--from", "2026-11-21T00:00Z", "--to", "2026-11-22T00:00Z"]
    # Later options of the same name override earlier ones (click's rule), so `extra` may replace --from/--to.
    assert_usage_error(*run(capsys, *argv, *extra), mention)


def test_next_and_previous(capsys):
    grid = ["--start", "2026-11-21T00:00Z", "--frequency", "hours(1)"]
    assert run(capsys, "next", *grid, "--time", "2026-11-21T10:30Z") == (0, "2026-11-21T11:00Z\n", "")
    assert run(capsys, "previous", *grid, "--time", "2026-11-21T10:30Z") == (0, "2026-11-21T10:00Z\n", "")
    assert run(capsys, "next", *grid, "--time", "2026-11-21T10:00Z") == (0, "2026-11-21T10:00Z\n", "")
    assert run(capsys, "previous", *grid, "--time", "2026-11-21T10:00Z") == (0, "2026-11-21T10:00Z\n", "")
    # Before the start: no previous, the next is the start. After the end: no next.
    assert run(capsys, "previous", *grid, "--time", "2026-11-20T23:00Z") == (0, "\n", "")
    assert run(capsys, "next", *grid, "--time", "2026-11-20T23:00Z") == (0, "2026-11-21T00:00Z\n", "")
    assert run(capsys, "next", *grid, "--time", "2026-11-21T05:30Z", "--end", "2026-11-21T06:00Z") == (0, "\n", "")


def test_next_and_previous_monthly_in_a_zone(capsys):
    # months(1) from Jan 31 2024 00:00 PST (08:00Z): Feb 29 00:00 PST (08:00Z), Mar 31 00:00 PDT (07:00Z).
    grid = ["--start", "2024-01-31T08:00Z", "--frequency", "months(1)", "--timezone", "America/Los_Angeles"]
    assert run(capsys, "next", *grid, "--time", "2024-03-01T00:00Z") == (0, "2024-03-31T07:00Z\n", "")
    assert run(capsys, "previous", *grid, "--time", "2024-03-31T06:59Z") == (0, "2024-02-29T08:00Z\n", "")


@pytest.mark.parametrize("verb", ["next", "previous"])
def test_next_and_previous_usage_errors(capsys, verb):
    grid = ["--start", "2026-11-21T00:00Z", "--frequency", "hours(1)"]
    assert_usage_error(*run(capsys, verb, *grid, "--time", "2026-11-21T25:00Z"), "2026-11-21T25:00Z")
    assert_usage_error(*run(capsys, verb, *grid, "--time", TIME, "--timezone", "UTC+1"), "UTC+1")
    assert_usage_error(*run(capsys, verb, "--start", "2026-11-21T00:00Z", "--frequency", "hour(1)", "--time", TIME),
                       "hour(1)")
    assert_usage_error(*run(capsys, verb, "--start", "tomorrow", "--frequency", "hours(1)", "--time", TIME),
                       "--start")


# -- path / parse-path --------------------------------------------------------------------------------

TEMPLATE = "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"


def test_path(capsys):
    assert run(capsys, "path", TEMPLATE, "--time", TIME) == (0, "/data/clicks/2026/11/21/10\n", "")
    # 20:00Z is 01:30 on Nov 22 in Kolkata.
    assert run(capsys, "path", TEMPLATE, "--time", "2026-11-21T20:00Z", "--timezone", "Asia/Kolkata") == (
        0, "/data/clicks/2026/11/22/01\n", "",
    )


def test_path_usage_errors(capsys):
    assert_usage_error(*run(capsys, "path", "/d/${WEEK}", "--time", TIME), "${WEEK}")
    assert_usage_error(*run(capsys, "path", TEMPLATE, "--time", "2026-11-31T00:00Z"), "2026-11-31T00:00Z")
    assert_usage_error(*run(capsys, "path", TEMPLATE, "--time", TIME, "--timezone", "Moon/Base"), "Moon/Base")


def test_parse_path(capsys):
    assert run(capsys, "parse-path", TEMPLATE, "/data/clicks/2026/11/21/10") == (0, "2026-11-21T10:00Z\n", "")
    # 15:00 in Kolkata is 09:30Z.
    assert run(capsys, "parse-path", TEMPLATE, "/data/clicks/2026/11/21/15", "--timezone", "Asia/Kolkata") == (
        0, "2026-11-21T09:30Z\n", "",
    )


@pytest.mark.parametrize(
    ("path", "zone"),
    [
        ("/data/clicks/2026/13/21/10", "UTC"),  # month 13
        ("/data/clicks/2026/02/30/10", "UTC"),  # Feb 30
        ("/data/clicks/2026/11/21", "UTC"),  # missing depth
        ("/data/clicks/2026/11/21/10/x", "UTC"),  # extra depth
        ("/data/clicks/2026/11/21/1", "UTC"),  # one digit
        ("/data/views/2026/11/21/10", "UTC"),  # literal mismatch
        ("/data/clicks/2026/03/08/02", "America/Los_Angeles"),  # in the DST gap
    ],
)
def test_parse_path_of_a_non_instance_prints_nothing_and_exits_1(capsys, path, zone):
    assert run(capsys, "parse-path", TEMPLATE, path, "--timezone", zone) == (1, "", "")


def test_parse_path_usage_errors(capsys):
    assert_usage_error(*run(capsys, "parse-path", "/data/${MONTH}/${DAY}", "/data/11/21"), "/data/${MONTH}/${DAY}")
    assert_usage_error(*run(capsys, "parse-path", "/data/${year}", "/data/2026"), "${year}")
    assert_usage_error(*run(capsys, "parse-path", TEMPLATE, "/data/clicks/2026/11/21/10", "--timezone", "Nope"),
                       "Nope")


# -- frequency ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["minutes(15)", "hours(1)", "days(7)", "months(12)"])
def test_frequency(capsys, text):
    assert run(capsys, "frequency", text) == (0, text + "\n", "")


@pytest.mark.parametrize("text", ["hours(01)", "hours(0)", "weeks(1)", "hours(-1)", "hours", ""])
def test_invalid_frequency(capsys, text):
    assert_usage_error(*run(capsys, "frequency", text))


# -- command-line usage -------------------------------------------------------------------------------


def test_missing_required_option_exits_2(capsys):
    code, out, err = run(capsys, "instances", "--start", "2026-11-21T00:00Z")
    assert code == 2
    assert "--frequency" in err or "--from" in err or "--to" in err
    assert "Traceback" not in err


def test_unknown_verb_exits_2(capsys):
    code, _, err = run(capsys, "nosuchverb")
    assert code == 2
    assert "Traceback" not in err
