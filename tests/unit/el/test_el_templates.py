"""Path templates and catalog URIs (issue 2, section 3): ${YEAR} (4 digits), ${MONTH} ${DAY} ${HOUR}
${MINUTE} (2 digits) rendered in the feed's zone; parsing back is strict (exact literal text, digits of
the variable's width, valid values, exactly the template's depth); a path that does not parse is not an
instance. Catalog URIs `catalog:db:table#k1=v1;k2=v2` are formatted and parsed the same way."""

import re
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.core.el.frequency import TimeUnit
from toolkit.core.el.templates import CatalogTemplate, PathTemplate
from toolkit.errors import UsageError

UTC = timezone.utc
ZUTC = ZoneInfo("UTC")
LA = ZoneInfo("America/Los_Angeles")
KOLKATA = ZoneInfo("Asia/Kolkata")


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


HOURLY = PathTemplate("/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}")
DASHED = PathTemplate("/d/${YEAR}-${MONTH}-${DAY}")


# -- format -------------------------------------------------------------------------------------------


def test_format_in_utc():
    assert HOURLY.format(utc("2026-11-21T10:00Z"), ZUTC) == "/data/clicks/2026/11/21/10"
    assert HOURLY.format(utc("2026-01-02T03:45Z"), ZUTC) == "/data/clicks/2026/01/02/03"  # zero-padded
    assert DASHED.format(utc("0999-01-01T00:00Z"), ZUTC) == "/d/0999-01-01"  # 4-digit year


def test_format_renders_in_the_zone():
    # Kolkata is +05:30: 10:00Z is 15:30 the same day; 20:00Z is 01:30 the next day.
    assert HOURLY.format(utc("2026-11-21T10:00Z"), KOLKATA) == "/data/clicks/2026/11/21/15"
    assert HOURLY.format(utc("2026-11-21T20:00Z"), KOLKATA) == "/data/clicks/2026/11/22/01"
    minutes = PathTemplate("/x/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}")
    assert minutes.format(utc("2026-11-21T10:00Z"), KOLKATA) == "/x/202611211530"
    # Los Angeles, PST (UTC-8): 2026-01-01T05:00Z is still 2025-12-31 21:00.
    assert HOURLY.format(utc("2026-01-01T05:00Z"), LA) == "/data/clicks/2025/12/31/21"


def test_format_with_repeated_variables_and_no_variables():
    template = PathTemplate("/d/${YEAR}/${YEAR}${MONTH}${DAY}")
    assert template.format(utc("2026-11-21T10:00Z"), ZUTC) == "/d/2026/20261121"
    assert PathTemplate("/static/path").format(utc("2026-11-21T10:00Z"), ZUTC) == "/static/path"


def test_format_keeps_braces_and_dollars_of_the_literal_text():
    template = PathTemplate("/d/{x}/$y/${YEAR}")
    assert template.format(utc("2026-11-21T10:00Z"), ZUTC) == "/d/{x}/$y/2026"
    assert template.parse("/d/{x}/$y/2026", ZUTC) == utc("2026-01-01T00:00Z")


# -- parse --------------------------------------------------------------------------------------------


def test_parse_in_utc_and_in_a_zone():
    assert HOURLY.parse("/data/clicks/2026/11/21/10", ZUTC) == utc("2026-11-21T10:00Z")
    # 15:00 in Kolkata is 09:30Z.
    assert HOURLY.parse("/data/clicks/2026/11/21/15", KOLKATA) == utc("2026-11-21T09:30Z")
    assert DASHED.parse("/d/2015-03-05", ZUTC) == utc("2015-03-05T00:00Z")


@pytest.mark.parametrize(
    "path",
    [
        "/d/2015-3-05",  # wrong digit count
        "/d/2015-03-5",
        "/d/15-03-05",
        "/d/02015-03-05",
        "/d/2015-003-05",
        "/d/2015-13-05",  # month 13
        "/d/2015-00-05",
        "/d/2015-02-30",  # Feb 30
        "/d/2015-02-29",  # not a leap year
        "/d/2015-04-31",
        "/d/2015-03-00",
        "/d/2015-03-32",
        "/d/2015_03_05",  # literal mismatch
        "/e/2015-03-05",
        "d/2015-03-05",
        "/d/2015-03-05/",  # extra depth
        "/d/2015-03-05/extra",
        "/x/d/2015-03-05",
        "/d",  # missing depth
        "/d/2015-03",
        "/d/2015-0a-05",
        "/d/2015-+3-05",
        "/d/2015- 3-05",
        "/d/\u0662\u0660\u0661\u0665-03-05",  # Arabic-Indic digits are not ASCII digits
        "",
    ],
)
def test_parse_is_strict(path):
    assert DASHED.parse(path, ZUTC) is None


def test_parse_leap_day():
    assert DASHED.parse("/d/2024-02-29", ZUTC) == utc("2024-02-29T00:00Z")


@pytest.mark.parametrize(
    "path",
    [
        "/data/clicks/2026/11/21/24",  # hour 24
        "/data/clicks/2026/11/21/1",
        "/data/clicks/2026/11/21",
        "/data/clicks/2026/11/21/10/00",
        "/data/clicks/2026/11/21/10/",
        "/data/click/2026/11/21/10",
        "/data//clicks/2026/11/21/10",
        "/data/clicks/2026/11//21/10",
    ],
)
def test_hourly_parse_is_strict(path):
    assert HOURLY.parse(path, ZUTC) is None


def test_minute_validity():
    template = PathTemplate("/m/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}")
    assert template.parse("/m/202611211059", ZUTC) == utc("2026-11-21T10:59Z")
    assert template.parse("/m/202611211060", ZUTC) is None
    assert template.parse("/m/20261121106", ZUTC) is None


def test_repeated_variables_must_agree():
    template = PathTemplate("/d/${YEAR}/${YEAR}${MONTH}")
    assert template.parse("/d/2026/202611", ZUTC) == utc("2026-11-01T00:00Z")
    assert template.parse("/d/2025/202611", ZUTC) is None


def test_regex_characters_in_the_literal_are_literal():
    template = PathTemplate("/data/(x)+.[y]*/${YEAR}")
    assert template.parse("/data/(x)+.[y]*/2026", ZUTC) == utc("2026-01-01T00:00Z")
    assert template.parse("/data/(x)+a[y]*/2026", ZUTC) is None  # '.' is a dot, not any character
    assert template.parse("/data/xx.[y]*/2026", ZUTC) is None


def test_coarser_templates_date_the_start_of_their_period():
    # Variables finer than the template's are 0 (or 1 for month and day), in the zone.
    assert PathTemplate("/y/${YEAR}").parse("/y/2026", ZUTC) == utc("2026-01-01T00:00Z")
    # Jan 1 00:00 in Kolkata is Dec 31 18:30Z.
    assert PathTemplate("/y/${YEAR}").parse("/y/2026", KOLKATA) == utc("2025-12-31T18:30Z")
    # Apr 1 00:00 PDT in Los Angeles = 07:00Z.
    assert PathTemplate("/m/${YEAR}/${MONTH}").parse("/m/2026/04", LA) == utc("2026-04-01T07:00Z")
    assert DASHED.parse("/d/2026-11-21", LA) == utc("2026-11-21T08:00Z")


def test_local_time_in_a_dst_gap_is_not_an_instance():
    # Los Angeles 2026-03-08: 02:00-03:00 does not exist, so no instance is dated 02 that day.
    template = PathTemplate("/h/${YEAR}/${MONTH}/${DAY}/${HOUR}")
    assert template.parse("/h/2026/03/08/02", LA) is None
    assert template.parse("/h/2026/03/08/01", LA) == utc("2026-03-08T09:00Z")
    assert template.parse("/h/2026/03/08/03", LA) == utc("2026-03-08T10:00Z")
    minutes = PathTemplate("/m/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}")
    assert minutes.parse("/m/202603080230", LA) is None
    # In UTC the same path is an ordinary instance.
    assert template.parse("/h/2026/03/08/02", ZUTC) == utc("2026-03-08T02:00Z")


def test_repeated_autumn_hour_parses_to_the_earlier_instant():
    # 2026-11-01 01:00 happens at 08:00Z (PDT) and 09:00Z (PST): both format to .../01, parsed: the earlier.
    template = PathTemplate("/h/${YEAR}/${MONTH}/${DAY}/${HOUR}")
    assert template.format(utc("2026-11-01T08:00Z"), LA) == "/h/2026/11/01/01"
    assert template.format(utc("2026-11-01T09:00Z"), LA) == "/h/2026/11/01/01"
    assert template.parse("/h/2026/11/01/01", LA) == utc("2026-11-01T08:00Z")


def test_template_without_year_cannot_date():
    template = PathTemplate("/data/${MONTH}/${DAY}")
    assert template.is_dated
    assert not template.can_date_instances
    assert template.parse("/data/11/21", ZUTC) is None
    static = PathTemplate("/data/static")
    assert not static.is_dated
    assert not static.can_date_instances
    assert static.parse("/data/static", ZUTC) is None
    assert HOURLY.is_dated and HOURLY.can_date_instances


@pytest.mark.parametrize("text", ["/d/${HOURS}", "/d/${year}", "/d/${}", "/d/${YEAR}/${WEEK}", "/d/${ YEAR}"])
def test_unknown_variable_is_a_usage_error(text):
    with pytest.raises(UsageError) as caught:
        PathTemplate(text)
    assert text in str(caught.value)


@pytest.mark.parametrize(
    ("text", "prefix"),
    [
        ("/data/clicks/${YEAR}/${MONTH}", "/data/clicks"),
        ("/data/clicks/dt=${YEAR}-${MONTH}", "/data/clicks"),
        ("/data/clicks/${YEAR}", "/data/clicks"),
        ("/${YEAR}/x", "/"),
        ("hdfs://nn:8020/data/${YEAR}/${MONTH}", "hdfs://nn:8020/data"),
        ("/data/static", "/data/static"),
        ("/data/static/", "/data/static"),
    ],
)
def test_static_prefix(text, prefix):
    assert PathTemplate(text).static_prefix == prefix


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", TimeUnit.MINUTES),
        ("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}", TimeUnit.HOURS),
        ("/d/${HOUR}/${DAY}/${MONTH}/${YEAR}", TimeUnit.HOURS),  # order of appearance does not matter
        ("/d/${YEAR}/${MONTH}/${DAY}", TimeUnit.DAYS),
        ("/d/${YEAR}${MONTH}", TimeUnit.MONTHS),
        ("/d/static", None),
    ],
)
def test_granularity(text, unit):
    assert PathTemplate(text).granularity == unit


def test_variables():
    assert HOURLY.variables == frozenset({"YEAR", "MONTH", "DAY", "HOUR"})


# -- catalog URIs -------------------------------------------------------------------------------------

DAILY_TABLE = CatalogTemplate("catalog:clicks_db:clicks#ds=${YEAR}-${MONTH}-${DAY};region=us")
SPLIT_TABLE = CatalogTemplate("catalog:db:events#year=${YEAR};month=${MONTH};day=${DAY};hour=${HOUR}")


def test_catalog_parts():
    assert DAILY_TABLE.database == "clicks_db"
    assert DAILY_TABLE.table == "clicks"
    assert DAILY_TABLE.partition_keys == ("ds", "region")
    assert DAILY_TABLE.dated_keys == ("ds",)
    assert DAILY_TABLE.static_partitions == {"region": "us"}
    assert DAILY_TABLE.granularity is TimeUnit.DAYS
    assert DAILY_TABLE.can_date_instances
    assert SPLIT_TABLE.granularity is TimeUnit.HOURS


def test_catalog_format():
    assert DAILY_TABLE.format(utc("2026-11-21T10:00Z"), ZUTC) == {"ds": "2026-11-21", "region": "us"}
    assert DAILY_TABLE.format_spec(utc("2026-11-21T10:00Z"), ZUTC) == "ds=2026-11-21;region=us"
    assert SPLIT_TABLE.format_spec(utc("2026-11-21T20:00Z"), KOLKATA) == "year=2026;month=11;day=22;hour=01"


def test_catalog_parse():
    assert DAILY_TABLE.parse({"ds": "2026-11-21", "region": "us"}, ZUTC) == utc("2026-11-21T00:00Z")
    # Kolkata midnight is 18:30Z the day before.
    assert DAILY_TABLE.parse({"ds": "2026-11-21", "region": "us"}, KOLKATA) == utc("2026-11-20T18:30Z")
    # Keys the URI does not name are ignored (a table partitioned more finely).
    assert DAILY_TABLE.parse({"ds": "2026-11-21", "region": "us", "hour": "10"}, ZUTC) == utc("2026-11-21T00:00Z")


@pytest.mark.parametrize(
    "spec",
    [
        {"ds": "2026-11-21", "region": "eu"},  # static value differs
        {"ds": "2026-11-21", "region": "US"},
        {"ds": "2026-11-21"},  # missing key
        {"region": "us"},
        {},
        {"ds": "2026-11-2", "region": "us"},  # wrong width
        {"ds": "2026-11-31", "region": "us"},  # Nov 31
        {"ds": "2026-13-01", "region": "us"},
        {"ds": "2026/11/21", "region": "us"},
        {"ds": "2026-11-21 ", "region": "us"},
    ],
)
def test_catalog_parse_is_strict(spec):
    assert DAILY_TABLE.parse(spec, ZUTC) is None


def test_catalog_keys_split_over_partitions():
    spec = {"year": "2026", "month": "11", "day": "21", "hour": "10"}
    assert SPLIT_TABLE.parse(spec, ZUTC) == utc("2026-11-21T10:00Z")
    assert SPLIT_TABLE.parse({**spec, "month": "13"}, ZUTC) is None
    assert SPLIT_TABLE.parse({**spec, "day": "31"}, ZUTC) is None  # Nov 31
    assert SPLIT_TABLE.parse({k: v for k, v in spec.items() if k != "hour"}, ZUTC) is None
    # Los Angeles 2026-03-08 hour 02 does not exist.
    assert SPLIT_TABLE.parse({"year": "2026", "month": "03", "day": "08", "hour": "02"}, LA) is None


def test_catalog_repeated_variable_across_keys_must_agree():
    template = CatalogTemplate("catalog:db:t#ds=${YEAR}-${MONTH};year=${YEAR}")
    assert template.parse({"ds": "2026-11", "year": "2026"}, ZUTC) == utc("2026-11-01T00:00Z")
    assert template.parse({"ds": "2026-11", "year": "2025"}, ZUTC) is None


def test_catalog_without_year_cannot_date():
    template = CatalogTemplate("catalog:db:t#month=${MONTH};region=us")
    assert not template.can_date_instances
    assert template.parse({"month": "11", "region": "us"}, ZUTC) is None


def test_a_key_whose_value_is_another_variable_is_open_as_in_falcon():
    """Falcon's `region=${region}`: no date variable, so an instance is every partition of its dated keys' values,
    as if the URI did not name the key (Falcon's retention filters on the dated keys alone)."""
    template = CatalogTemplate("catalog:source_db:clicks#ds=${YEAR}${MONTH}${DAY};region=${region}")
    assert template.partition_keys == ("ds",)
    assert template.open_keys == ("region",)
    assert template.static_partitions == {}
    assert template.format(utc("2026-11-21T10:00Z"), ZUTC) == {"ds": "20261121"}
    assert template.parse({"ds": "20261121", "region": "eu"}, ZUTC) == utc("2026-11-21T00:00Z")
    assert template.parse({"ds": "20261121"}, ZUTC) == utc("2026-11-21T00:00Z")


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("catalog:db:t#ds=${DATE}", "no key of the URI is dated"),  # the only key: a misnamed date
        ("catalog:db:t#ds=${YEAR};y=${year}", "Unknown variable ${year}"),  # a date variable misspelt
        ("catalog:db:t#ds=${YEAR};region=eu-${region}", "Unknown variable ${region}"),  # not the whole value
        ("catalog:db:t#ds=${YEAR};region=${region};region=us", "repeats"),
    ],
)
def test_an_open_key_needs_a_dated_key_and_a_name_that_is_no_date_variable(uri, reason):
    with pytest.raises(UsageError, match=re.escape(reason)):
        CatalogTemplate(uri)


@pytest.mark.parametrize(
    "uri",
    [
        "catalog:db:t",  # no partition spec
        "catalog:db:t#",
        "catalog:db#ds=${YEAR}",  # no table
        "catalog::t#ds=${YEAR}",
        "hcat:db:t#ds=${YEAR}",  # wrong scheme
        "db:t#ds=${YEAR}",
        "catalog:db:t#ds",  # not key=value
        "catalog:db:t#=2026",
        "catalog:db:t#ds=${YEAR};;region=us",
        "catalog:db:t#ds=${YEAR};region",
        "catalog:db:t#ds=${YEAR};ds=${YEAR}",  # repeated key
        "catalog:db:t#ds=${WEEK}",  # unknown variable, and no dated key
        "",
    ],
)
def test_catalog_uri_syntax_errors(uri):
    with pytest.raises(UsageError):
        CatalogTemplate(uri)
