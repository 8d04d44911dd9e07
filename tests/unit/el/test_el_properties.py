"""Property-based tests (issue 2, section 5): format-then-parse is the identity for every template and
time (up to the template's granularity), and the closed-form grid agrees with a naive step-by-step
walk for random frequencies, zones and starts."""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.relativedelta import relativedelta
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.templates import CatalogTemplate, PathTemplate

UTC = timezone.utc
ZONES = [
    "UTC",
    "America/Los_Angeles",
    "Europe/London",
    "Australia/Lord_Howe",  # 30-minute DST shift
    "Asia/Kolkata",  # +05:30, no DST
    "America/Sao_Paulo",  # DST at midnight until 2019
    "America/St_Johns",  # -03:30 with DST
    "Pacific/Chatham",  # +12:45 with DST
]
VARIABLES = ["YEAR", "MONTH", "DAY", "HOUR", "MINUTE"]
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- templates ----------------------------------------------------------------------------------------

# Literal text between variables: anything but the `${...}` syntax. Digits next to a variable are fine,
# since every variable has a fixed width.
literals = st.text(alphabet="/-_.=:abcXYZ019", max_size=4)


@st.composite
def layouts(draw) -> tuple[str, int]:
    """A template text and the number of leading VARIABLES it dates (YEAR, YEAR+MONTH, ...).

    The variables are a prefix of YEAR..MINUTE so that "truncated to the granularity" is well defined;
    they appear in any order, some repeated, with random literal text around them."""
    depth = draw(st.integers(1, 5))
    names = VARIABLES[:depth]
    names = names + draw(st.lists(st.sampled_from(names), max_size=2))
    names = draw(st.permutations(names))
    text = draw(literals)
    for name in names:
        text += "${" + name + "}" + draw(literals)
    return text, depth


def truncate(wall: datetime, depth: int) -> datetime:
    """The wall time with the fields finer than the template's set to their first value."""
    fields = [wall.year, wall.month, wall.day, wall.hour, wall.minute]
    firsts = [None, 1, 1, 0, 0]
    return datetime(*(fields[i] if i < depth else firsts[i] for i in range(5)))


def unambiguous(wall: datetime, zone: ZoneInfo) -> bool:
    """True when the wall time exists exactly once in the zone (neither in a gap nor in an overlap)."""
    return wall.replace(tzinfo=zone, fold=0).utcoffset() == wall.replace(tzinfo=zone, fold=1).utcoffset()


instants = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2099, 12, 31)).map(
    lambda naive: naive.replace(second=0, microsecond=0, tzinfo=UTC)
)


@FAST
@given(layout=layouts(), t=instants, zone_name=st.sampled_from(ZONES))
def test_path_format_then_parse_is_the_identity(layout, t, zone_name):
    text, depth = layout
    zone = ZoneInfo(zone_name)
    expected_wall = truncate(t.astimezone(zone).replace(tzinfo=None), depth)
    assume(unambiguous(expected_wall, zone))
    expected = expected_wall.replace(tzinfo=zone).astimezone(UTC)
    template = PathTemplate(text)
    path = template.format(t, zone)
    assert template.parse(path, zone) == expected
    assert template.format(expected, zone) == path


@FAST
@given(layout=layouts(), t=instants)
def test_path_format_then_parse_is_the_identity_in_utc(layout, t):
    # In UTC nothing is ambiguous: every time, no assumption.
    text, depth = layout
    template = PathTemplate(text)
    assert template.parse(template.format(t, ZoneInfo("UTC")), ZoneInfo("UTC")) == truncate(
        t.replace(tzinfo=None), depth
    ).replace(tzinfo=UTC)


@st.composite
def catalog_uris(draw) -> tuple[str, int]:
    """A catalog URI whose dated variables (a prefix of YEAR..MINUTE) are spread over 1-3 keys, plus
    maybe a static key."""
    depth = draw(st.integers(1, 5))
    names = draw(st.permutations(VARIABLES[:depth]))
    keys = draw(st.integers(1, min(3, depth)))
    cuts = sorted(draw(st.lists(st.integers(1, depth - 1), min_size=keys - 1, max_size=keys - 1, unique=True))
                  ) if depth > 1 else []
    groups, previous = [], 0
    for cut in [*cuts, depth]:
        groups.append(names[previous:cut])
        previous = cut
    parts = []
    for i, group in enumerate(groups):
        value = draw(st.text(alphabet="-_.abc0", max_size=2))
        for name in group:
            value += "${" + name + "}" + draw(st.text(alphabet="-_.abc0", max_size=2))
        parts.append(f"k{i}={value}")
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), "region=us")
    return "catalog:db:tbl#" + ";".join(parts), depth


@FAST
@given(uri=catalog_uris(), t=instants, zone_name=st.sampled_from(ZONES))
def test_catalog_format_then_parse_is_the_identity(uri, t, zone_name):
    text, depth = uri
    zone = ZoneInfo(zone_name)
    expected_wall = truncate(t.astimezone(zone).replace(tzinfo=None), depth)
    assume(unambiguous(expected_wall, zone))
    template = CatalogTemplate(text)
    spec = template.format(t, zone)
    assert template.parse(spec, zone) == expected_wall.replace(tzinfo=zone).astimezone(UTC)
    assert template.parse({**spec, "extra": "x"}, zone) == expected_wall.replace(tzinfo=zone).astimezone(UTC)


# -- grids against a naive walk -----------------------------------------------------------------------

frequencies = st.one_of(
    st.integers(1, 90).map(lambda n: Frequency(TimeUnit.MINUTES, n)),
    st.integers(1, 12).map(lambda n: Frequency(TimeUnit.HOURS, n)),
    st.integers(1, 10).map(lambda n: Frequency(TimeUnit.DAYS, n)),
    st.integers(1, 14).map(lambda n: Frequency(TimeUnit.MONTHS, n)),
)
STEPS = 300  # instances walked by the naive grid


def naive_instances(start: datetime, frequency: Frequency, zone: ZoneInfo, count: int) -> list[datetime]:
    """Instances 0 .. count-1 the slow way: one step at a time from the start.

    Minutes and hours add elapsed time; days and months move the start's wall clock by k units with
    relativedelta (month ends clamped from the start's day, each instance on its own) and convert with
    fold=0 (gap: later by the gap; overlap: the earlier instant). Instance 0 is the start itself."""
    out = [start]
    wall = start.astimezone(zone).replace(tzinfo=None, fold=0)
    for k in range(1, count):
        n = k * frequency.count
        if frequency.unit is TimeUnit.MINUTES:
            out.append(start + timedelta(minutes=n))
        elif frequency.unit is TimeUnit.HOURS:
            out.append(start + timedelta(hours=n))
        else:
            moved = wall + (relativedelta(days=n) if frequency.unit is TimeUnit.DAYS else relativedelta(months=n))
            out.append(moved.replace(tzinfo=zone, fold=0).astimezone(UTC))
    return out


def unit_span(frequency: Frequency) -> timedelta:
    """An upper bound of one instance's length, to draw query times within the walked instances."""
    return {
        TimeUnit.MINUTES: timedelta(minutes=1),
        TimeUnit.HOURS: timedelta(hours=1),
        TimeUnit.DAYS: timedelta(hours=23),
        TimeUnit.MONTHS: timedelta(days=28),
    }[frequency.unit] * frequency.count


starts = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2040, 12, 31)).map(
    lambda naive: naive.replace(second=0, microsecond=0, tzinfo=UTC)
)


@FAST
@given(
    frequency=frequencies,
    zone_name=st.sampled_from(ZONES),
    start=starts,
    position=st.floats(-3, STEPS - 20),
    exact=st.booleans(),
    end_steps=st.one_of(st.none(), st.integers(0, STEPS - 10)),
)
def test_closed_form_grid_agrees_with_a_naive_walk(frequency, zone_name, start, position, exact, end_steps):
    zone = ZoneInfo(zone_name)
    walked = naive_instances(start, frequency, zone, STEPS)
    end = None if end_steps is None else walked[end_steps] + timedelta(minutes=end_steps % 3)
    instances = [t for t in walked if end is None or t < end]
    if exact and position >= 0:
        t = walked[int(position)]  # exactly an instance (of the unbounded grid)
    else:
        t = start + unit_span(frequency) * position
        t = t.replace(second=0, microsecond=0)
    grid = InstanceGrid(start, frequency, zone, end)

    before = [x for x in instances if x <= t]
    after = [x for x in instances if x >= t]
    assert grid.at_or_before(t) == (max(before) if before else None)
    # The walk is long enough that an open grid always has a later instance among the walked ones.
    assert grid.at_or_after(t) == (min(after) if after else None)
    assert grid.index_of(t) == (instances.index(t) if t in instances else None)
    assert grid.contains(t) == (t in instances)


@FAST
@given(frequency=frequencies, zone_name=st.sampled_from(ZONES), start=starts, k=st.integers(0, STEPS - 1))
def test_time_of_and_index_of_agree_with_a_naive_walk(frequency, zone_name, start, k):
    zone = ZoneInfo(zone_name)
    walked = naive_instances(start, frequency, zone, k + 1)
    grid = InstanceGrid(start, frequency, zone)
    assert grid.time_of(k) == walked[k]
    assert grid.index_of(walked[k]) == k


@FAST
@given(frequency=frequencies, zone_name=st.sampled_from(ZONES), start=starts,
       first=st.integers(-5, 150), length=st.integers(0, 100))
def test_between_agrees_with_a_naive_walk(frequency, zone_name, start, first, length):
    zone = ZoneInfo(zone_name)
    walked = naive_instances(start, frequency, zone, STEPS)
    grid = InstanceGrid(start, frequency, zone)
    low = start + unit_span(frequency) * first
    high = low + unit_span(frequency) * length
    expected = [t for t in walked if low <= t <= high]
    assert list(grid.between(low, high)) == expected
    assert grid.count_between(low, high) == len(expected)
