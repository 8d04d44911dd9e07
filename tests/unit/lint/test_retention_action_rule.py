"""FD024: a retention action the toolkit does not run (chown, chmod, archive of a table, archive without an
archive location) is an error at the action's line."""

from __future__ import annotations

import re
from pathlib import Path

from tests.unit.lint.test_feed_rules import ERROR, PRIMARY, TABLE, feed, line_of, lint, summary

RETENTION = "    retention:\n      limit: days(90)\n      action: {action}\n"


def fd024(tmp_path: Path, text: str) -> list:
    return [p for p in lint(tmp_path, {"orders": text}) if p.code == "FD024"]


def test_chown_and_chmod_are_errors_naming_the_action(tmp_path: Path) -> None:
    for action in ("chown", "chmod"):
        text = feed(PRIMARY + RETENTION.format(action=action))
        problems = fd024(tmp_path / action, text)
        assert summary(problems) == [("FD024", line_of(text, "action:"), ERROR)]
        assert problems[0].message == (
            f"Feed 'orders': The retention action '{action}' of feed 'orders' on cluster 'primary' is Falcon's and the "
            "toolkit does not run it (nothing is deleted in its place): set clusters[].retention.action to delete or "
            "archive.")


def test_archive_needs_files_and_an_archive_location(tmp_path: Path) -> None:
    text = feed(PRIMARY + RETENTION.format(action="archive"))
    problems = fd024(tmp_path / "no-location", text)
    assert summary(problems) == [("FD024", line_of(text, "action:"), ERROR)]
    assert "archives, but there is no archive location: add locations.archive to cluster 'primary'" in \
        problems[0].message
    with_property = feed(PRIMARY + RETENTION.format(action="archive"),
                         extra="properties:\n  retention.archive: hdfs://cold:8020/archive\n")
    assert fd024(tmp_path / "property", with_property) == []
    table = feed(PRIMARY + RETENTION.format(action="archive"), storage=TABLE)
    problems = fd024(tmp_path / "table", table)
    assert len(problems) == 1
    assert "archives a catalog table, which the toolkit does not do (only file feeds are archived)" in \
        problems[0].message


def test_delete_and_archive_with_a_location_are_clean(tmp_path: Path) -> None:
    assert fd024(tmp_path / "delete", feed(PRIMARY + RETENTION.format(action="delete"))) == []
    cluster = (Path(__file__).resolve().parents[3] / "config_repo_template/clusters/primary.yaml").read_text()
    root = tmp_path / "archive"
    problems = [p for p in lint(root, {"orders": feed(PRIMARY + RETENTION.format(action="archive"))},
                                {"primary": cluster.replace("  working: /feed-toolkit/working\n",
                                                            "  working: /feed-toolkit/working\n  archive: /archive\n")})
                if p.code == "FD024"]
    assert problems == []


TEMPLATE_CLUSTER = (Path(__file__).resolve().parents[3] / "config_repo_template/clusters/primary.yaml").read_text()


def test_a_missing_archive_location_is_reported_on_a_cluster_without_a_write_endpoint_too(tmp_path: Path) -> None:
    no_write = re.sub(r"  write:\n    endpoint: [^\n]*\n    version: [^\n]*\n", "", TEMPLATE_CLUSTER)
    assert no_write != TEMPLATE_CLUSTER
    problems = [p for p in lint(tmp_path, {"orders": feed(PRIMARY + RETENTION.format(action="archive"))},
                                {"primary": no_write}) if p.code == "FD024"]
    assert len(problems) == 1 and "archives, but there is no archive location" in problems[0].message


def test_a_location_template_another_rule_refuses_is_not_reported_again(tmp_path: Path) -> None:
    text = feed(PRIMARY + RETENTION.format(action="archive"),
                storage="locations:\n  data: /data/orders/${FOO}/${YEAR}\n")
    archive = TEMPLATE_CLUSTER.replace("  working: /feed-toolkit/working\n",
                                       "  working: /feed-toolkit/working\n  archive: /archive\n")
    found = lint(tmp_path, {"orders": text}, {"primary": archive})
    assert [p.code for p in found if "FOO" in p.message and p.code != "FD024"] != []  # its own rule says so
    assert [p.message for p in found if p.code == "FD024"] == []
