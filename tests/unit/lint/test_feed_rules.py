"""Feed rules (FD..): exact codes, lines, severities and messages, beyond the one fixture per rule.

Each test writes feeds (and, where needed, clusters) into a copy of the template repo and lints it;
`line_of` finds the line of the value a finding must point at, so the YAML stays readable.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE, case_repo
from toolkit.authoring.lint.rules.feed._durations import Verdict, at_least, at_least_value, month_days
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.el.frequency import Frequency
from toolkit.core.entities.problems import Problem, Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING

PRIMARY = """\
  - name: primary
    type: source
    validity:
      start: 2026-01-01T00:00Z
      end: 2099-12-31T00:00Z
"""
BACKUP = PRIMARY.replace("primary", "backup").replace("type: source", "type: target")


def untyped(name: str) -> str:
    """A cluster entry without a type (it takes no part in replication)."""
    return PRIMARY.replace("primary", name).replace("    type: source\n", "")


HOURLY = "locations:\n  data: /data/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}\n"
TABLE = "table:\n  uri: catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR}\n"


def feed(clusters: str = PRIMARY, storage: str = HOURLY, *, name: str = "orders", frequency: str = "hours(1)",
         extra: str = "") -> str:
    """A feed nothing reads (RP007 ignored), with the given clusters, storage and extra top-level fields."""
    return (
        f"kind: feed\nname: {name}\nfrequency: {frequency}\n{extra}"
        "lint:\n  ignore: [RP007]\nclusters:\n" + clusters + storage
    )


def cluster_with(name: str, *, registry: bool = False, colo: str | None = "local",
                 properties: str = "") -> str:
    """A copy of the template's backup cluster named `name`, with or without a registry interface."""
    text = (TEMPLATE / "clusters" / "backup.yaml").read_text().replace("name: backup", f"name: {name}")
    if not registry:
        text = re.sub(r"  # The Hive metastore[^\n]*\n  registry:\n(    [^\n]*\n)+", "", text)
    if colo is None:
        text = text.replace("colo: local\n", "")
    if properties:
        text = text.replace("properties:\n", "properties:\n" + properties, 1)
    return text


def lint(tmp_path: Path, feeds: dict[str, str], clusters: dict[str, str] | None = None) -> list[Problem]:
    """The FD problems of the template repo with `feeds` and `clusters` (name -> YAML) added or replaced."""
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    for folder, files in (("feeds", feeds), ("clusters", clusters or {})):
        for name, text in files.items():
            (root / folder / f"{name}.yaml").write_text(text)
    return [problem for problem in lint_paths([root]).problems if problem.code.startswith("FD")]


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line of `text` that contains `needle`."""
    hits = [number for number, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) >= occurrence, f"{needle!r} is not in the text {occurrence} time(s)"
    return hits[occurrence - 1]


def summary(problems: list[Problem]) -> list[tuple[str, int, Severity]]:
    return [(p.code, p.line, p.severity) for p in problems]


# --------------------------------------------------------------------------------------------- durations


def test_month_day_bounds_follow_the_calendar() -> None:
    assert month_days(1) == (28, 31)
    assert month_days(2) == (59, 62)
    assert month_days(3) == (89, 92)
    assert month_days(12) == (365, 366)
    assert month_days(48) == (1460, 1461)
    assert month_days(4800) == (146097, 146097)


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        ("days(2)", "hours(48)", Verdict.LONGER_OR_EQUAL),
        ("hours(47)", "days(2)", Verdict.SHORTER),
        ("months(2)", "months(3)", Verdict.SHORTER),
        ("months(1)", "days(28)", Verdict.LONGER_OR_EQUAL),
        ("months(1)", "days(30)", Verdict.SOMETIMES_SHORTER),
        ("months(1)", "days(31)", Verdict.SOMETIMES_SHORTER),
        ("months(1)", "days(32)", Verdict.SHORTER),
        ("months(3)", "days(93)", Verdict.SHORTER),  # never 93 days, though Falcon (31 days a month) took it
        ("days(30)", "months(1)", Verdict.SHORTER),  # Falcon's measure: a month is 31 days
        ("days(31)", "months(1)", Verdict.LONGER_OR_EQUAL),
        ("months(12)", "days(365)", Verdict.LONGER_OR_EQUAL),
        ("months(12)", "days(366)", Verdict.SOMETIMES_SHORTER),
    ],
)
def test_duration_comparison(a: str, b: str, verdict: Verdict) -> None:
    assert at_least(Frequency.parse(a), Frequency.parse(b)) is verdict


def test_suggested_minimum_is_valid_in_both_units() -> None:
    assert at_least_value(Frequency.parse("days(30)"), Frequency.parse("months(1)")) == "days(30) or months(2)"
    assert at_least_value(Frequency.parse("months(1)"), Frequency.parse("days(3)")) == "months(1) or days(31)"
    assert at_least_value(Frequency.parse("hours(6)"), Frequency.parse("days(3)")) == "hours(6)"


# ------------------------------------------------------------------------------------------------ FD001


def test_validity_may_be_empty_but_not_reversed_per_cluster(tmp_path: Path) -> None:
    clusters = (
        PRIMARY.replace("end: 2099-12-31T00:00Z", "end: 2026-01-01T00:00Z")
        + BACKUP.replace("start: 2026-01-01T00:00Z", "start: 2026-03-01T00:00Z").replace("2099-12-31", "2026-02-01")
    )
    text = feed(clusters)
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD001", line_of(text, "start: 2026-03-01"), ERROR)]
    assert "clusters[1].validity.start 2026-03-01T00:00Z is after its end 2026-02-01T00:00Z on cluster 'backup'" in (
        problems[0].message
    )


# ------------------------------------------------------------------------------------------------ FD002


def test_storage_both_at_feed_level_points_at_the_table(tmp_path: Path) -> None:
    text = feed(storage=HOURLY + TABLE)
    problems = lint(tmp_path, {"orders": text}, {"primary": cluster_with("primary", registry=True)})
    assert summary(problems) == [("FD002", line_of(text, "uri:"), ERROR)]
    assert "Feed 'orders': table.uri 'catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR}' is given beside " \
        "locations (data); store it either in files (locations.data) or in a catalog table (table.uri), not both" \
        in problems[0].message


def test_storage_is_checked_per_cluster_after_overrides(tmp_path: Path) -> None:
    # primary inherits the feed's storage, whose locations lack data; backup replaces it by a table *and*
    # locations (both); extra replaces it by locations without data.
    clusters = PRIMARY + BACKUP + "    locations:\n      data: /replica/${YEAR}/${MONTH}/${DAY}/${HOUR}\n" + (
        "    table:\n      uri: catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR}\n"
    ) + untyped("extra") + "    locations:\n      meta: /meta/orders\n"
    text = feed(clusters, "locations:\n  stats: /stats/orders\n")
    registries = {"backup": cluster_with("backup", registry=True), "extra": cluster_with("extra")}
    problems = lint(tmp_path, {"orders": text}, registries)
    assert summary(problems) == [
        ("FD002", line_of(text, "uri: catalog"), ERROR),
        ("FD002", line_of(text, "meta:"), ERROR),
        ("FD002", line_of(text, "stats:"), ERROR),
    ]
    both, own, inherited = (p.message for p in problems)
    assert "clusters[1].table.uri 'catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR}' on cluster 'backup' " \
        "is given beside its locations (data)" in both
    assert "clusters[2].locations of cluster 'extra' has no data path (meta only); a cluster's locations replace " in (
        own
    )
    assert "locations has no data path (stats only), and the feed's clusters 'primary' use the feed's storage" in (
        inherited
    )


def test_no_storage_anywhere_is_reported_on_each_cluster_that_inherits(tmp_path: Path) -> None:
    clusters = PRIMARY + untyped("backup") + untyped("extra")
    clusters += "    locations:\n      data: /x/${YEAR}/${MONTH}/${DAY}/${HOUR}\n"  # extra has its own storage
    text = feed(clusters, storage="")
    problems = lint(tmp_path, {"orders": text}, {"extra": cluster_with("extra")})
    assert summary(problems) == [
        ("FD002", line_of(text, "name: primary"), ERROR),
        ("FD002", line_of(text, "name: backup"), ERROR),
    ]
    assert problems[1].message.startswith("Feed 'orders': clusters[1] 'backup' has no storage: neither it nor")


# ------------------------------------------------------------------------------------------ FD003, FD004


def test_registry_is_required_only_where_the_feed_is_a_table_and_the_cluster_exists(tmp_path: Path) -> None:
    clusters = PRIMARY + BACKUP + "    table:\n      uri: catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR}\n"
    clusters += untyped("nowhere")
    text = feed(clusters, TABLE)
    problems = lint(tmp_path, {"orders": text}, {"primary": cluster_with("primary", registry=True),
                                                 "backup": cluster_with("backup")})
    problems = [problem for problem in problems if problem.entity.name == "orders"]  # not the template's 'visits'
    # backup has no registry; 'nowhere' does not exist (RP004 says so, not FD003).
    assert summary(problems) == [("FD003", line_of(text, "name: backup"), ERROR)]
    assert "cluster 'backup' has no registry interface; add interfaces.registry.endpoint" in problems[0].message
    assert "clusters/backup.yaml" in problems[0].message


def test_two_sources_are_fine_for_files_but_not_for_tables(tmp_path: Path) -> None:
    clusters = PRIMARY + BACKUP.replace("type: target", "type: source")
    registries = {name: cluster_with(name, registry=True) for name in ("primary", "backup")}
    assert lint(tmp_path / "files", {"orders": feed(clusters)}, registries) == []
    text = feed(clusters, TABLE)
    problems = lint(tmp_path / "table", {"orders": text}, registries)
    assert summary(problems) == [("FD004", line_of(text, "type: source", 2), ERROR)]
    assert "clusters[1].type is 'source' on cluster 'backup', a second source after 'primary'" in problems[0].message


# ----------------------------------------------------------------------------------- FD005, FD006, FD007


def retention(limit: str) -> str:
    return f"    retention:\n      limit: {limit}\n      action: delete\n"


def test_retention_against_cut_off_errors_and_month_warnings(tmp_path: Path) -> None:
    clusters = (
        PRIMARY + retention("months(1)")  # 28 to 31 days against 30 days: shorter in February only
        + BACKUP + retention("days(20)")  # always shorter
    )
    text = feed(clusters, extra="late-arrival:\n  cut-off: days(30)\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [
        ("FD005", line_of(text, "limit: months(1)"), WARNING),
        ("FD005", line_of(text, "limit: days(20)"), ERROR),
    ]
    warning, error = (p.message for p in problems)
    assert "clusters[0].retention.limit months(1) on cluster 'primary' is shorter than late-arrival.cut-off " in warning
    assert "(approximate: months(1) is 28 to 31 days)" in warning
    assert warning.endswith("give a limit of at least days(30) or months(2).")
    assert "clusters[1].retention.limit days(20) on cluster 'backup' is shorter than late-arrival.cut-off " \
        "days(30):" in error
    assert "approximate" not in error


def test_retention_in_days_against_a_cut_off_in_months_uses_falcons_month(tmp_path: Path) -> None:
    text = feed(PRIMARY + retention("days(30)"), extra="late-arrival:\n  cut-off: months(1)\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD005", line_of(text, "limit: days(30)"), ERROR)]
    assert "(comparing months with days is approximate: months(1) is 28 to 31 days)" in problems[0].message
    assert "at least months(1) or days(31)" in problems[0].message


def test_retention_against_sla_high_takes_the_clusters_sla_first(tmp_path: Path) -> None:
    cluster_sla = "    sla:\n      slaLow: hours(1)\n      slaHigh: hours(2)\n"
    clusters = PRIMARY + retention("hours(3)") + cluster_sla + BACKUP + retention("hours(3)")
    text = feed(clusters, extra="sla:\n  slaLow: hours(1)\n  slaHigh: days(1)\n")
    problems = lint(tmp_path, {"orders": text})
    # primary's own slaHigh (2 hours) is covered; backup inherits the feed's (1 day).
    assert summary(problems) == [("FD006", line_of(text, "limit: hours(3)", 2), ERROR)]
    assert "clusters[1].retention.limit hours(3) on cluster 'backup' is shorter than sla.slaHigh days(1)" in (
        problems[0].message
    )


def test_retention_against_the_clusters_own_sla_names_it(tmp_path: Path) -> None:
    clusters = PRIMARY + retention("days(20)") + "    sla:\n      slaLow: hours(1)\n      slaHigh: months(1)\n"
    text = feed(clusters)
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD006", line_of(text, "limit: days(20)"), ERROR)]
    assert "shorter than clusters[0].sla.slaHigh months(1) (comparing months with days is approximate" in (
        problems[0].message
    )


def test_sla_order_on_feed_and_clusters(tmp_path: Path) -> None:
    clusters = (
        PRIMARY + "    sla:\n      slaLow: days(30)\n      slaHigh: months(1)\n"
        + BACKUP + "    sla:\n      slaLow: hours(3)\n      slaHigh: hours(2)\n"
    )
    text = feed(clusters, extra="sla:\n  slaLow: hours(2)\n  slaHigh: hours(2)\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [
        ("FD007", line_of(text, "slaLow: days(30)"), WARNING),
        ("FD007", line_of(text, "slaLow: hours(3)"), ERROR),
    ]
    warning, error = (p.message for p in problems)
    assert "clusters[0].sla.slaLow days(30) is after clusters[0].sla.slaHigh months(1) in some months" in warning
    assert "approximate: months(1) is 28 to 31 days" in warning
    assert "clusters[1].sla.slaLow hours(3) is after clusters[1].sla.slaHigh hours(2); " in error
    assert "make clusters[1].sla.slaLow at most hours(2)" in error


# ------------------------------------------------------------------------------------- FD008, FD009, FD010


def test_path_template_syntax(tmp_path: Path) -> None:
    storage = (
        "locations:\n  data: /data/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}..v2\n"  # '..' inside a name is fine
        "  stats: /stats/${year}/${Region}\n"
        "  meta: /meta/${YEAR/x\n"
    )
    text = feed(PRIMARY + "    locations:\n      data: /data/../orders/${YEAR}/${MONTH}/${DAY}/${HOUR}\n", storage)
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [
        ("FD008", line_of(text, "/data/../"), ERROR),
        ("FD008", line_of(text, "stats:"), ERROR),
        ("FD008", line_of(text, "stats:"), ERROR),
        ("FD008", line_of(text, "meta:"), ERROR),
    ]
    messages = sorted(p.message for p in problems)
    assert any("locations.stats '/stats/${year}/${Region}' uses ${year}, which is not a path variable (did you "
               "mean ${YEAR}?)" in m for m in messages)
    assert any("uses ${Region}, which is not a path variable; the variables are ${YEAR}, ${MONTH}, ${DAY}, "
               "${HOUR}, ${MINUTE}." in m for m in messages)
    assert any("locations.meta '/meta/${YEAR/x' has a '${' without its closing '}'" in m for m in messages)
    assert any("clusters[0].locations.data '/data/../orders/" in m and "'..' segment" in m for m in messages)


def test_dated_templates_need_year_and_every_coarser_variable(tmp_path: Path) -> None:
    storage = "locations:\n  data: /data/orders/${YEAR}/${DAY}/${HOUR}\n  stats: /stats/orders/current\n"
    table = "    table:\n      uri: catalog:shop:orders#month=${MONTH}\n"
    text = feed(PRIMARY + untyped("backup") + table, storage, frequency="hours(1)")
    problems = lint(tmp_path, {"orders": text}, {"backup": cluster_with("backup", registry=True)})
    fd009 = [p for p in problems if p.code == "FD009"]
    assert [(p.line, p.severity) for p in fd009] == [(line_of(text, "uri:"), ERROR), (line_of(text, "data: /"), ERROR)]
    assert "clusters[1].table.uri 'catalog:shop:orders#month=${MONTH}' has ${MONTH} but not ${YEAR}, so an " \
        "instance's partition cannot be turned back into its time" in fd009[0].message
    assert "locations.data '/data/orders/${YEAR}/${DAY}/${HOUR}' has ${HOUR} but not ${MONTH}, so an instance's " \
        "path cannot" in fd009[1].message
    assert fd009[1].message.endswith("add ${MONTH}, e.g. ${YEAR}/${MONTH}/${DAY}/${HOUR} for hourly data.")


def test_cluster_paths_follow_the_feeds_date_variables_or_the_first_clusters(tmp_path: Path) -> None:
    own = "    locations:\n      data: {}\n"
    # The feed has its own data path: every cluster path is compared with it.
    clusters = PRIMARY + BACKUP + own.format("/replica/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}")
    text = feed(clusters)
    problems = lint(tmp_path / "a", {"orders": text})
    assert [(p.code, p.line) for p in problems] == [("FD010", line_of(text, "/replica/"))]
    assert ("clusters[1].locations.data '/replica/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}' has the date "
            "variables ${YEAR}, ${MONTH}, ${DAY}, ${HOUR}, ${MINUTE}, but the feed's locations.data "
            "'/data/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}' has ${YEAR}, ${MONTH}, ${DAY}, ${HOUR}; ") in (
        problems[0].message
    )
    # No data path at the feed's level: the first cluster's path is the reference.
    clusters = (
        PRIMARY + own.format("/data/orders/${YEAR}/${MONTH}/${DAY}")
        + BACKUP + own.format("/replica/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}")
    )
    text = feed(clusters, storage="", frequency="days(1)")
    problems = lint(tmp_path / "b", {"orders": text})
    assert [(p.code, p.line) for p in problems] == [("FD010", line_of(text, "/replica/"))]
    assert "but the first cluster's clusters[0].locations.data '/data/orders/${YEAR}/${MONTH}/${DAY}'" in (
        problems[0].message
    )


# ------------------------------------------------------------------------------------------- FD011, FD012


@pytest.mark.parametrize(
    ("frequency", "path", "warned"),
    [
        ("hours(1)", "${YEAR}/${MONTH}/${DAY}", True),
        ("hours(24)", "${YEAR}/${MONTH}/${DAY}", False),
        ("minutes(30)", "${YEAR}/${MONTH}/${DAY}/${HOUR}", True),
        ("minutes(90)", "${YEAR}/${MONTH}/${DAY}/${HOUR}", False),
        ("days(1)", "${YEAR}/${MONTH}/${DAY}/${HOUR}", False),
        ("days(30)", "${YEAR}/${MONTH}", True),
        ("days(31)", "${YEAR}/${MONTH}", False),
        ("months(1)", "${YEAR}/${MONTH}", False),
        ("months(6)", "${YEAR}", True),
        ("days(365)", "${YEAR}", True),  # Jan 1 and Dec 31 of a leap year
        ("months(12)", "${YEAR}", False),
    ],
)
def test_granularity_against_frequency(tmp_path: Path, frequency: str, path: str, warned: bool) -> None:
    text = feed(storage=f"locations:\n  data: /data/orders/{path}\n", frequency=frequency)
    problems = lint(tmp_path, {"orders": text})
    expected = [("FD011", line_of(text, "data:"), WARNING)] if warned else []
    assert summary(problems) == expected


def test_granularity_warning_message_and_exit_status(tmp_path: Path) -> None:
    text = feed(storage="table:\n  uri: catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY}\n")
    root_problems = lint(tmp_path, {"orders": text}, {"primary": cluster_with("primary", registry=True)})
    assert summary(root_problems) == [("FD011", line_of(text, "uri:"), WARNING)]
    assert ("table.uri 'catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY}' is dated to the day (its finest variable "
            "is ${DAY}), coarser than the frequency hours(1)") in root_problems[0].message
    assert "add ${HOUR}" in root_problems[0].message
    report = lint_paths([tmp_path / "repo"])
    assert not report.failed() and report.failed(strict=True)


def test_retention_on_undated_storage_is_a_warning_per_cluster(tmp_path: Path) -> None:
    clusters = (
        PRIMARY + retention("days(7)")
        + BACKUP + retention("days(7)")
        + "    locations:\n      data: /replica/orders/${YEAR}/${MONTH}/${DAY}/${HOUR}\n"
        + untyped("extra")  # no retention: nothing to say
    )
    text = feed(clusters, "locations:\n  data: /data/orders/latest\n")
    problems = lint(tmp_path, {"orders": text}, {"extra": cluster_with("extra")})
    fd012 = [p for p in problems if p.code == "FD012"]
    assert summary(fd012) == [("FD012", line_of(text, "limit: days(7)"), WARNING)]
    assert ("clusters[0].retention on cluster 'primary' applies to locations.data '/data/orders/latest', which has "
            "no date variable") in fd012[0].message


# -------------------------------------------------------------------------------------- FD013, FD014, FD015


def test_uniform_storage_points_at_the_odd_cluster(tmp_path: Path) -> None:
    table = "    table:\n      uri: catalog:shop:orders#ds=${YEAR}-${MONTH}-${DAY};hr=${HOUR}\n"
    clusters = PRIMARY + table + BACKUP + untyped("extra")
    text = feed(clusters)
    registries = {name: cluster_with(name, registry=True) for name in ("primary", "backup", "extra")}
    problems = lint(tmp_path, {"orders": text}, registries)
    assert summary(problems) == [
        ("FD013", line_of(text, "name: backup"), ERROR),
        ("FD013", line_of(text, "name: extra"), ERROR),
    ]
    assert ("clusters[1] 'backup' stores the feed in files (the feed's locations.data), but clusters[0] 'primary' "
            "stores it in a catalog table") in problems[0].message


def test_partitions_on_a_table_feed_even_when_only_one_cluster_is_a_table(tmp_path: Path) -> None:
    text = feed(PRIMARY, TABLE, extra="partitions: [country, channel]\n")
    problems = lint(tmp_path, {"orders": text}, {"primary": cluster_with("primary", registry=True)})
    assert summary(problems) == [("FD014", line_of(text, "partitions:"), ERROR)]
    assert "partitions ['country', 'channel'] is given, but the feed is stored in the catalog table" in (
        problems[0].message
    )


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("catalog:shop:orders", "invalid catalog URI 'catalog:shop:orders': write catalog:database:table#"),
        ("catalog:shop:orders#ds=${YEAR};hour", "invalid partition 'hour' in catalog URI"),
        ("catalog:shop:orders#ds=${YEAR};ds=${MONTH}", "partition key 'ds' repeats in catalog URI"),
        ("catalog:shop:orders#ds=${DATE}", "unknown variable ${DATE}"),
    ],
)
def test_catalog_uri_syntax(tmp_path: Path, uri: str, reason: str) -> None:
    text = feed(PRIMARY, f"table:\n  uri: {uri}\n", frequency="days(1)")
    problems = lint(tmp_path, {"orders": text}, {"primary": cluster_with("primary", registry=True)})
    assert summary(problems) == [("FD015", line_of(text, "uri:"), ERROR)]
    assert f"table.uri: {reason}" in problems[0].message


# ------------------------------------------------------------------------------------- FD016 .. FD019


def test_partition_count_counts_a_target_below_each_source(tmp_path: Path) -> None:
    clusters = (
        PRIMARY + "    partition: ${cluster.colo}\n"
        + BACKUP + "    partition: //web/\n"  # one part once the slashes are normalized
    )
    text = feed(clusters, extra="partitions: [colo]\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD016", line_of(text, "partition: //web/"), ERROR)]
    assert ("clusters[1].partition '//web/' on target 'backup', below source 'primary''s partition "
            "'${cluster.colo}', selects 2 parts (${cluster.colo}/web), but the feed declares 1 partition (colo)") in (
        problems[0].message
    )


def test_partition_without_feed_partitions(tmp_path: Path) -> None:
    text = feed(PRIMARY + "    partition: ${cluster.name}\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD016", line_of(text, "partition:"), ERROR)]
    assert "has 1 part, but the feed declares no partitions" in problems[0].message


def test_partition_expressions_with_several_sources(tmp_path: Path) -> None:
    clusters = (
        PRIMARY + "    partition: ${cluster.colo}\n"
        + PRIMARY.replace("primary", "east") + "    partition: ${cluster.region}\n"
        + PRIMARY.replace("primary", "west") + "    partition: us-west\n"
        + BACKUP + "    partition: '*'\n"  # one target: its partition needs no cluster expression
    )
    text = feed(clusters, extra="partitions: [region, channel]\n")
    extra = {
        "east": cluster_with("east", colo=None),
        "west": cluster_with("west", properties="  region: us-west\n"),
    }
    problems = lint(tmp_path, {"orders": text}, extra)
    assert summary(problems) == [
        ("FD017", line_of(text, "${cluster.region}"), ERROR),
        ("FD017", line_of(text, "partition: us-west"), ERROR),
    ]
    unresolved, literal = (p.message for p in problems)
    assert ("clusters[1].partition '${cluster.region}' uses ${cluster.region}, which does not resolve on cluster "
            "'east'; a partition may use ${cluster.name}, ${cluster.spark.sql.shuffle.partitions}") in unresolved
    assert ("clusters[2].partition 'us-west' on source 'west' has no cluster expression, but the feed is replicated "
            "from 3 sources") in literal
    assert "${cluster.region}" in literal


def test_several_targets_each_need_a_cluster_expression_even_from_one_source(tmp_path: Path) -> None:
    # Falcon's FeedEntityParser.validateFeedPartitionExpression: with more than one target (and a source),
    # a target's partition that names no cluster ("Alteast one of the partition tags has to be a cluster
    # expression") is refused, also when there is a single source; a target without a partition is fine.
    clusters = (
        PRIMARY
        + BACKUP + "    partition: ${cluster.colo}\n"
        + BACKUP.replace("backup", "extra") + "    partition: us-west\n"
        + BACKUP.replace("backup", "third") + "    partition: /\n"
        + BACKUP.replace("backup", "fourth")
    )
    text = feed(clusters, extra="partitions: [region]\n")
    extra = {name: cluster_with(name) for name in ("extra", "third", "fourth")}
    problems = lint(tmp_path, {"orders": text}, extra)
    assert summary(problems) == [
        ("FD017", line_of(text, "partition: us-west"), ERROR),
        ("FD017", line_of(text, "partition: /"), ERROR),
    ]
    assert problems[0].message == (
        "Feed 'orders': clusters[2].partition 'us-west' on target 'extra' has no cluster expression, but the feed "
        "is replicated to 4 targets, and each target's partition must name its own part (as in Falcon): use at "
        "least one of ${cluster.name}, ${cluster.colo}, ${cluster.spark.sql.shuffle.partitions}, e.g. "
        "${cluster.name}, or remove the partition to take all of the data."
    )
    # One target: its partition needs none (Falcon's rule, and the sources' FD018 does not apply).
    one_target = feed(PRIMARY + BACKUP + "    partition: us-west\n", extra="partitions: [region]\n")
    assert lint(tmp_path / "one", {"orders": one_target}) == []


def test_source_partitions_required_only_when_several_sources_replicate(tmp_path: Path) -> None:
    two_sources = PRIMARY + BACKUP.replace("type: target", "type: source")
    assert lint(tmp_path / "no-target", {"orders": feed(two_sources)}) == []
    clusters = (
        two_sources.replace("type: source\n", "type: source\n    partition: ${cluster.name}\n", 1)
        + BACKUP.replace("backup", "extra") + PRIMARY.replace("primary", "third") + "    partition: /\n"
    )
    text = feed(clusters, extra="partitions: [origin]\n")
    extra = {name: cluster_with(name) for name in ("extra", "third")}
    problems = lint(tmp_path / "target", {"orders": text}, extra)
    # 'third' has '/' (no part): FD018 says it lacks a partition, FD017 does not add that it lacks an expression.
    assert summary(problems) == [
        ("FD018", line_of(text, "name: backup"), ERROR),
        ("FD018", line_of(text, "partition: /"), ERROR),
    ]
    assert ("clusters[1] 'backup' has no partition, but the feed is replicated from the sources 'primary', "
            "'backup', 'third' to 'extra'") in problems[0].message
    assert "clusters[3] 'third' has an empty partition '/'" in problems[1].message


def test_targets_need_a_source(tmp_path: Path) -> None:
    clusters = BACKUP + PRIMARY.replace("type: source", "type: target")
    text = feed(clusters)
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [
        ("FD019", line_of(text, "type: target", 1), ERROR),
        ("FD019", line_of(text, "type: target", 2), ERROR),
    ]


# ------------------------------------------------------------------------------------- FD020, FD021, FD022


def test_group_frequency_follows_the_first_feed_in_file_order(tmp_path: Path) -> None:
    daily = "locations:\n  data: /data/{}/${{YEAR}}/${{MONTH}}/${{DAY}}\n"
    # File order: a-first, b-second, c-third (after the template's clicks-* feeds, not in these groups).
    first = feed(name="a-first", frequency="days(1)", storage=daily.format("a"), extra="groups: [sales, ops]\n")
    second = feed(name="b-second", storage=HOURLY.replace("orders", "b"), extra="groups: [ops, sales]\n")
    third = feed(name="c-third", frequency="days(1)", storage=daily.format("c"), extra="groups: [sales]\n")
    everything = lint(tmp_path, {"a-first": first, "b-second": second, "c-third": third})
    problems = [p for p in everything if p.code == "FD020"]  # the date patterns differ as well: FD036
    assert [(p.file.name, p.code) for p in everything if p.code != "FD020"] == [("b-second.yaml", "FD036")] * 2
    assert [(p.file.name, p.code, p.line) for p in problems] == [
        ("b-second.yaml", "FD020", line_of(second, "groups:")),
        ("b-second.yaml", "FD020", line_of(second, "groups:")),
    ]
    assert [p.column for p in problems] == [10, 15]
    assert ("groups[0] 'ops': the feed's frequency is hours(1), but the group's first feed 'a-first' "
            "(feeds/a-first.yaml) has days(1)") in problems[0].message
    assert "groups[1] 'sales'" in problems[1].message
    # Pre-commit passes only the changed file (the group's first feed): the findings on the others still show.
    selected = lint_paths([tmp_path / "repo" / "feeds" / "a-first.yaml"]).problems
    assert [(p.file.name, p.code) for p in selected if p.code == "FD020"] == [("b-second.yaml", "FD020")] * 2


def test_group_shared_with_a_template_feed(tmp_path: Path) -> None:
    # 'web' is the template's group of hourly feeds; clicks-hourly-summary.yaml is its first file.
    text = feed(frequency="minutes(30)", storage=HOURLY.replace("${HOUR}", "${HOUR}/${MINUTE}"),
                extra="groups: [web]\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD020", line_of(text, "groups:"), ERROR), ("FD036", line_of(text, "groups:"), ERROR)]
    assert "the group's first feed 'clicks-hourly-summary' (feeds/clicks-hourly-summary.yaml) has hours(1)" in (
        problems[0].message
    )


def test_group_date_pattern_follows_the_first_feed_and_names_the_group(tmp_path: Path) -> None:
    """Falcon's date pattern: the date variables, sorted, repeats counted; separators and folders do not count."""
    first = feed(name="a-first", extra="groups: [ops]\n")
    same = feed(name="b-same", storage="locations:\n  data: /data/b/${YEAR}-${MONTH}-${DAY}T${HOUR}\n",
                extra="groups: [ops]\n")
    repeated = feed(name="c-repeated", extra="groups: [ops]\n",
                    storage="locations:\n  data: /data/c/${YEAR}/${YEAR}${MONTH}${DAY}/${HOUR}\n")
    problems = lint(tmp_path, {"a-first": first, "b-same": same, "c-repeated": repeated})
    assert [(p.file.name, p.code, p.line) for p in problems] == [
        ("c-repeated.yaml", "FD036", line_of(repeated, "groups:"))]
    assert problems[0].message == (
        "Feed 'c-repeated': groups[0] 'ops': the feed's data path is dated by ${YEAR}, ${YEAR}, ${MONTH}, ${DAY}, "
        "${HOUR}, but the group's first feed 'a-first' (feeds/a-first.yaml) is dated by ${YEAR}, ${MONTH}, ${DAY}, "
        "${HOUR}; the feeds of a group name an instance by the same date variables (Falcon refuses the feed): date "
        "it by ${YEAR}, ${MONTH}, ${DAY}, ${HOUR}, or leave the group.")
    # Pre-commit passes only the changed file (the group's first feed): the finding on the other still shows.
    selected = lint_paths([tmp_path / "repo" / "feeds" / "a-first.yaml"]).problems
    assert [(p.file.name, p.code) for p in selected if p.code == "FD036"] == [("c-repeated.yaml", "FD036")]


@pytest.mark.parametrize("zone", ["Europe/Paris", "America/Los_Angeles", "Etc/GMT-5", "UTC"])
def test_valid_time_zones(tmp_path: Path, zone: str) -> None:
    assert lint(tmp_path, {"orders": feed(extra=f"timezone: {zone}\n")}) == []


@pytest.mark.parametrize("zone", ["GMT+05:30", "Europe/Pariss", " UTC", "utc/x"])
def test_invalid_time_zones(tmp_path: Path, zone: str) -> None:
    text = feed(extra=f"timezone: '{zone}'\n")
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD021", line_of(text, "timezone:"), ERROR)]
    assert f"timezone {zone!r} is not an IANA time zone" in problems[0].message


def test_a_cluster_listed_twice(tmp_path: Path) -> None:
    text = feed(PRIMARY + BACKUP + untyped("primary"))
    problems = lint(tmp_path, {"orders": text})
    assert summary(problems) == [("FD022", line_of(text, "name: primary", 2), ERROR)]
    assert "clusters[2].name 'primary' is already listed as clusters[0]" in problems[0].message


def test_lint_ignore_silences_a_feed_rule(tmp_path: Path) -> None:
    text = feed(storage="locations:\n  data: /data/orders/${YEAR}/${MONTH}/${DAY}\n").replace(
        "ignore: [RP007]", "ignore: [RP007, FD011]"
    )
    assert lint(tmp_path, {"orders": text}) == []


# ----------------------------------------------------------------------------------------------------- FD023


def test_bad_replication_properties_are_reported_at_their_lines(tmp_path: Path) -> None:
    extra = ('properties:\n  timeout: "6 hours"\n  parallel: "2"\n  maxMaps: "-1"\n'
             '  preservePermission: "yes"\n')
    text = feed(extra=extra)
    problems = [p for p in lint(tmp_path, {"orders": text}) if p.code == "FD023"]
    assert summary(problems) == [("FD023", line_of(text, "timeout:"), ERROR),
                                 ("FD023", line_of(text, "maxMaps:"), ERROR),
                                 ("FD023", line_of(text, "preservePermission:"), ERROR)]
    assert problems[0].message.startswith("Feed 'orders': properties.timeout: Invalid frequency '6 hours'")
    assert "properties.maxMaps is '-1': give a whole number of at least 1." in problems[1].message
    assert "properties.preservePermission is 'yes': give true or false." in problems[2].message
    good = feed(name="fine", extra='properties:\n  timeout: hours(3)\n  maxMaps: "8"\n  preservePermission: "false"\n')
    assert [p for p in lint(tmp_path / "good", {"fine": good}) if p.code == "FD023"] == []


def test_bad_distributed_copy_thresholds_are_named_with_what_to_write(tmp_path: Path) -> None:
    extra = ('properties:\n  replication.distributed-above-bytes: "1.5GB"\n'
             '  replication.distributed-above-files: "many"\n')
    problems = [p for p in lint(tmp_path, {"orders": feed(extra=extra)}) if p.code == "FD023"]
    assert [p.message.split(": ", 1)[1] for p in problems] == [
        "properties.replication.distributed-above-bytes is '1.5GB': give a whole number of bytes, or one with a "
        "unit (KB, MB, GB, TB), such as 128MB.",
        "properties.replication.distributed-above-files is 'many': give a whole number, 0 or more."]


def test_an_import_in_parts_without_a_split_column_is_a_warning_and_a_count_that_is_no_number_an_error(
        tmp_path: Path) -> None:
    warned = lint_paths([case_repo("FD040", "warns: four mappers and no split column (the primary key splits when "
                                            "it runs)", tmp_path / "warned")])
    refused = lint_paths([case_repo("FD040", "fails: a number of mappers that is no number", tmp_path / "refused")])

    assert [(p.code, p.severity) for p in warned.problems] == [("FD040", WARNING)]
    assert ("reads the table in 4 parts (arguments.num-mappers) but names no column to split it by: it will split by "
            "the table's primary key, found when it runs, and stop if the table has none") in warned.problems[0].message
    assert not warned.failed() and warned.failed(strict=True)
    assert [(p.code, p.severity) for p in refused.problems] == [("FD040", ERROR)]
    assert refused.failed()
