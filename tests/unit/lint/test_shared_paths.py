"""RP009: two feeds on one cluster whose file locations overlap (identical, or one's instances inside the
other's), cluster overrides applied; and the template comparison it is built on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.el.templates import PathTemplate, templates_overlap
from toolkit.core.entities.problems import Problem

CLUSTER = """\
  - name: {cluster}
    validity:
      start: 2026-01-01T00:00Z
      end: 2099-12-31T00:00Z
"""


def feed(name: str, data: str, *, cluster: str = "primary", own: str = "", extra: str = "") -> str:
    """A feed nothing reads (RP007 ignored) on `cluster`, with `data` as its location (or `own`, cluster
    locations that replace it)."""
    return (f"kind: feed\nname: {name}\nfrequency: hours(1)\nlint:\n  ignore: [RP007]\nclusters:\n"
            + CLUSTER.format(cluster=cluster) + own + f"locations:\n  data: {data}\n{extra}")


def rp009(tmp_path: Path, feeds: dict[str, str]) -> list[Problem]:
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    for name, text in feeds.items():
        (root / "feeds" / f"{name}.yaml").write_text(text)
    return [problem for problem in lint_paths([root]).problems if problem.code == "RP009"]


@pytest.mark.parametrize(("a", "b", "overlap"), [
    ("/data/x/${YEAR}/${MONTH}/${DAY}", "/data/x/${YEAR}/${MONTH}/${DAY}/${HOUR}", True),
    ("/data/x/${YEAR}/${MONTH}/${DAY}", "/data/x/${YEAR}/${MONTH}/${DAY}", True),
    ("/data/x", "/data/x/${YEAR}/${MONTH}", True),  # an undated folder holding the other's instances
    ("/data/x/${YEAR}", "/data/x/2026/extra/${MONTH}", True),  # a literal year where the other has ${YEAR}
    ("/data/x/${YEAR}/${MONTH}", "/data/x-old/${YEAR}/${MONTH}", False),
    ("/data/x/${YEAR}/${MONTH}", "/data/x/hourly/${YEAR}/${MONTH}", False),  # 'hourly' is never a year
    ("/data/x/${YEAR}-${MONTH}", "/data/x/${YEAR}/${MONTH}", False),
    ("/data/x/v2/${YEAR}", "/data/x/v3/${YEAR}", False),
    ("/data/x/${YEAR}${MONTH}", "/data/x/${YEAR}/${MONTH}", False),
])
def test_templates_overlap_when_one_instance_path_can_hold_or_equal_the_others(a: str, b: str, overlap: bool) -> None:
    assert templates_overlap(PathTemplate(a), PathTemplate(b)) is overlap
    assert templates_overlap(PathTemplate(b), PathTemplate(a)) is overlap


def test_a_daily_feed_over_an_hourly_feeds_folders_is_an_error_on_both(tmp_path: Path) -> None:
    problems = rp009(tmp_path, {
        "daily": feed("daily", "/data/shared/${YEAR}/${MONTH}/${DAY}"),
        "hourly": feed("hourly", "/data/shared/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
    })
    assert [(p.entity.name, p.line, p.severity.value) for p in problems] == [
        ("daily", 12, "error"), ("hourly", 12, "error")]
    daily = next(p for p in problems if p.entity.name == "daily")
    assert daily.message == (
        "Feed 'daily': on cluster 'primary', locations.data '/data/shared/${YEAR}/${MONTH}/${DAY}' overlaps the "
        "data location '/data/shared/${YEAR}/${MONTH}/${DAY}/${HOUR}' of feed 'hourly' (its instances lie inside "
        "this feed's): the retention or the writers of one would delete or overwrite the other's instances; give "
        "each feed a folder of its own (e.g. /data/<feed>/...).")


def test_identical_paths_and_stats_locations_count_too(tmp_path: Path) -> None:
    problems = rp009(tmp_path, {
        "one": feed("one", "/data/one/${YEAR}/${MONTH}", extra="  stats: /stats/shared/${YEAR}/${MONTH}\n"),
        "two": feed("two", "/stats/shared/${YEAR}/${MONTH}"),
    })
    assert sorted(p.entity.name for p in problems) == ["one", "two"]
    one = next(p for p in problems if p.entity.name == "one")
    assert "locations.stats '/stats/shared/${YEAR}/${MONTH}'" in one.message and "(the same instance paths)" in \
        one.message


def test_cluster_overrides_apply_and_other_clusters_do_not_count(tmp_path: Path) -> None:
    own = "    locations:\n      data: /replica/clicks/${YEAR}/${MONTH}/${DAY}\n"
    problems = rp009(tmp_path, {
        # the same path as clicks' own data location, but on backup, where clicks is under /replica
        "elsewhere": feed("elsewhere", "/data/clicks/${YEAR}/${MONTH}/${DAY}", cluster="backup"),
        # on primary its own locations replace the feed's /data/clicks path: no overlap with clicks on primary
        "overridden": feed("overridden", "/data/clicks/${YEAR}/${MONTH}/${DAY}", cluster="backup", own=own),
    })
    assert sorted({p.entity.name for p in problems}) == ["clicks", "overridden"]
    flagged = next(p for p in problems if p.entity.name == "overridden")
    assert "on cluster 'backup', clusters[0].locations.data '/replica/clicks/${YEAR}/${MONTH}/${DAY}'" in \
        flagged.message and "of feed 'clicks'" in flagged.message


def test_feeds_apart_lint_clean(tmp_path: Path) -> None:
    assert rp009(tmp_path, {
        "a": feed("a", "/data/shared/a/${YEAR}/${MONTH}/${DAY}"),
        "b": feed("b", "/data/shared/b/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
    }) == []


def test_shared_undated_stats_and_meta_are_not_reported_but_undated_data_is(tmp_path: Path) -> None:
    """Retention deletes only dated locations and the actions write only `data`: an undated stats or meta folder
    that several feeds name is never touched; an undated data folder is written by the feed's producers."""
    shared = "  stats: /projects/falcon/clicksStats\n  meta: /projects/falcon/clicksMetaData\n"
    assert rp009(tmp_path / "a", {
        "one": feed("one", "/data/one/${YEAR}/${MONTH}", extra=shared),
        "two": feed("two", "/data/two/${YEAR}/${MONTH}", extra=shared),
    }) == []
    problems = rp009(tmp_path / "b", {
        "one": feed("one", "/projects/falcon/clicks"),
        "two": feed("two", "/projects/falcon/clicks"),
    })
    assert sorted(p.entity.name for p in problems) == ["one", "two"]
    assert "locations.data '/projects/falcon/clicks' overlaps the data location '/projects/falcon/clicks' of feed" \
        in problems[0].message


def test_a_written_location_inside_an_undated_stats_folder_is_reported_on_both(tmp_path: Path) -> None:
    problems = rp009(tmp_path, {
        "one": feed("one", "/data/one/${YEAR}/${MONTH}", extra="  stats: /projects/shared\n"),
        "two": feed("two", "/projects/shared/two/${YEAR}/${MONTH}"),
    })
    assert sorted(p.entity.name for p in problems) == ["one", "two"]
    one = next(p for p in problems if p.entity.name == "one")
    assert one.message == (
        "Feed 'one': on cluster 'primary', locations.stats '/projects/shared' overlaps the data location "
        "'/projects/shared/two/${YEAR}/${MONTH}' of feed 'two' (its instances lie inside this feed's): the "
        "retention or the writers of feed 'two' would delete or overwrite what this feed keeps there; give each "
        "feed a folder of its own (e.g. /data/<feed>/...).")
