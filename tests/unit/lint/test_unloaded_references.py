"""One cause, one finding: an entity whose file exists but fails to load (YAML or schema) is reported once,
in its own file; the feeds and processes that refer to it do not also say it is not defined (RP004), and no
rule crashes (LT001) on its absence from the model."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.repo import ConfigRepo


def copy_of_template(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(TEMPLATE, root)
    return root


def add_key(file: Path, after: str, line: str) -> None:
    text = file.read_text()
    assert text.count(after) == 1, after
    file.write_text(text.replace(after, after + line))


def findings(root: Path) -> list[tuple[str, str]]:
    return [(p.file.relative_to(root).as_posix(), p.code) for p in lint_paths([root]).problems]


def test_a_feed_that_fails_its_schema_is_reported_once_not_by_its_two_processes(tmp_path: Path) -> None:
    # clicks-hourly-summary is written by hourly-clicks-summary and read by daily-clicks-rollup.
    root = copy_of_template(tmp_path)
    add_key(root / "feeds/clicks-hourly-summary.yaml", "frequency: hours(1)\n", "bogus: 1\n")
    assert findings(root) == [("feeds/clicks-hourly-summary.yaml", "SC001")]


def test_a_cluster_that_fails_its_schema_is_reported_once_not_by_every_feed_and_process(tmp_path: Path) -> None:
    root = copy_of_template(tmp_path)
    add_key(root / "clusters/primary.yaml", "colo: local\n", "bogus: 1\n")
    assert findings(root) == [("clusters/primary.yaml", "SC001")]


def test_a_feed_whose_yaml_does_not_parse_is_known_by_its_file_name(tmp_path: Path) -> None:
    root = copy_of_template(tmp_path)
    feed = root / "feeds/clicks.yaml"
    feed.write_text(feed.read_text().replace("frequency: hours(1)", "frequency: [hours(1)"))
    assert findings(root) == [("feeds/clicks.yaml", "YM002")]


def test_a_broken_file_is_known_by_the_kind_and_name_it_declares(tmp_path: Path) -> None:
    root = copy_of_template(tmp_path)
    old = root / "feeds/clicks.yaml"
    renamed = root / "feeds/raw-clicks.yaml"  # RP001 would say so, once it loads
    renamed.write_text(old.read_text().replace("frequency: hours(1)", "frequency: hours(1)\nbogus: 1"))
    old.unlink()
    repo, _ = ConfigRepo.scan(root)
    assert EntityRef(Kind.FEED, "clicks") in repo.unloaded
    assert EntityRef(Kind.FEED, "raw-clicks") not in repo.unloaded
    assert findings(root) == [("feeds/raw-clicks.yaml", "SC001")]


def test_a_reference_to_a_name_no_file_declares_is_still_missing(tmp_path: Path) -> None:
    # A broken feed does not make every name known: the process's typo is still RP004.
    root = copy_of_template(tmp_path)
    add_key(root / "feeds/visits.yaml", "frequency: days(1)\n", "bogus: 1\n")
    process = root / "processes/hourly-clicks-summary.yaml"
    process.write_text(process.read_text().replace("    feed: clicks\n", "    feed: clickz\n"))
    assert findings(root) == [("feeds/visits.yaml", "SC001"), ("processes/hourly-clicks-summary.yaml", "RP004")]


def test_a_broken_feed_does_not_make_a_cluster_of_that_name_known(tmp_path: Path) -> None:
    root = copy_of_template(tmp_path)
    (root / "clusters/primary.yaml").unlink()
    (root / "feeds/primary.yaml").write_text("kind: feed\nname: primary\nbogus: 1\n")
    codes = findings(root)
    assert ("feeds/primary.yaml", "SC001") in codes
    assert ("processes/hourly-clicks-summary.yaml", "RP004") in codes  # its cluster 'primary' is missing



def test_the_only_user_of_a_feed_failing_to_load_leaves_it_unjudged(tmp_path: Path) -> None:
    # daily-clicks-rollup is the only writer of clicks-daily and clicks-daily-table: unread, it may use them,
    # so RP007 (and RP006) stay silent while a process fails to load; its own finding is the one cause.
    root = copy_of_template(tmp_path)
    add_key(root / "processes/daily-clicks-rollup.yaml", "frequency: days(1)\n", "bogus: 1\n")
    assert findings(root) == [("processes/daily-clicks-rollup.yaml", "SC001")]  # no RP007 on clicks-daily
