"""`toolkit plan` against a base folder (--base-repo; the git revisions are tests/integration/cli/test_plan_git.py):
what a change to retention, or a feed removed, does to the data on a file:// cluster, read with retention's own
planner, and nothing touched."""

from __future__ import annotations

from datetime import timedelta

from tests.unit.change_plan.plan_site import CLICKS, NOW, edit, plan
from tests.unit.retention.retention_repo import tree
from toolkit.cli.main import main


def test_a_shorter_retention_names_the_instances_it_will_delete_and_exits_1(site, capsys):
    head, base, root = site
    edit(head, CLICKS, "limit: days(90)", "limit: days(7)")
    before = tree(root)
    code, report, err = plan(capsys, head, base)
    assert (code, err) == (1, "")
    [change] = [c for c in report["changes"] if c["destructive"]]
    fifty_days = [NOW - timedelta(days=50) + timedelta(hours=k) for k in range(3)]
    assert (change["entity"], change["kind"], change["cluster"], change["count"], change["read_storage"]) == (
        "clicks", "feed", "primary", 3, True)
    assert [item["time"] for item in change["instances"]] == [f"{t:%Y-%m-%dT%H:%MZ}" for t in fifty_days]
    assert [item["path"] for item in change["instances"]] == [
        (root / f"data/clicks/{t:%Y/%m/%d/%H}").as_uri() for t in fifty_days]
    part = root / f"data/clicks/{fifty_days[0]:%Y/%m/%d/%H}/part-00000.json"
    assert change["bytes"] == 3 * part.stat().st_size and change["first"] == f"{fifty_days[0]:%Y-%m-%dT%H:%MZ}"
    assert "days(90) (delete) -> days(7) (delete)" in change["change"]
    assert change["command"].endswith("--feed clicks --cluster primary --dry-run")
    assert report["format_version"] == 1 and report["base"] == str(base) and report["head"] == "working tree"
    assert tree(root) == before  # plan only reads


def test_a_longer_retention_loses_nothing_and_exits_0(site, capsys):
    head, base, _ = site
    edit(head, CLICKS, "limit: days(90)", "limit: days(120)")
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    [change] = [c for c in report["changes"] if c["change"].startswith("retention")]
    assert (change["destructive"], change["count"]) == (False, 0)


def test_a_feed_removed_from_the_repo_leaves_its_data_orphaned(site, capsys):
    head, base, root = site
    (head / CLICKS).unlink()
    (head / "processes/hourly-clicks-summary.yaml").unlink()  # its only reader
    code, report, _ = plan(capsys, head, base)
    assert code == 1
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert (change["entity"], change["count"], change["read_storage"]) == ("clicks", 9, True)
    assert change["change"].startswith("removed from the repo: 9 instance(s) left on the cluster, orphaned")
    assert (change["first"], change["last"]) == ("2026-08-18T00:00Z", "2026-11-21T02:00Z")
    removed = {(c["kind"], c["entity"]) for c in report["changes"] if c["change"] == "removed"}
    assert removed == {("feed", "clicks"), ("process", "hourly-clicks-summary")}


def test_retention_removed_is_a_warning_that_strict_fails_on(site, capsys):
    head, base, _ = site
    edit(head, CLICKS, "    retention:\n      limit: days(90)\n      action: delete\n", "")
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    [change] = [c for c in report["changes"] if c["warning"]]
    assert (change["destructive"], change["count"]) == (False, 3)  # the 100-day-old ones stay now
    assert change["change"].startswith("retention days(90) (delete) -> none: 3 instance(s) no longer evicted")
    assert plan(capsys, head, base, "--strict")[0] == 1


def test_other_edits_are_listed_by_field_and_lose_nothing(site, capsys):
    head, base, _ = site
    edit(head, "processes/top-pages.yaml", "owner: web-analytics", "owner: web")
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    assert [(c["kind"], c["entity"], c["change"]) for c in report["changes"]] == [
        ("process", "top-pages", "edited tags.owner")]


def test_the_text_form_says_what_loses_data_first(site, capsys):
    head, base, _ = site
    edit(head, CLICKS, "limit: days(90)", "limit: days(7)")
    code = main(["plan", "--repo", str(head), "--base-repo", str(base), "--now", "2026-11-26T00:00Z"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0] == f"toolkit plan: {base} -> working tree, at 2026-11-26T00:00Z"
    assert lines[1] == ("  LOSES DATA: feed 'clicks' on cluster 'primary': retention days(90) (delete) -> days(7) "
                        "(delete): 3 instance(s) deleted at the next retention call that the base definition keeps")
    assert lines[2].startswith("    3 instance(s), 243 bytes, 2026-10-07T00:00Z to 2026-10-07T02:00Z")
    assert lines[-1].endswith("1 lose data, 0 warning(s) (exit 1)")


def test_a_base_that_does_not_load_is_exit_2_naming_it(site, capsys):
    head, base, _ = site
    (base / "feeds" / "broken.yaml").write_text("kind: feed\nname: broken\nfrequency: weekly\n")
    code = main(["plan", "--repo", str(head), "--base-repo", str(base)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"toolkit: The base repo {base} does not load, so there is nothing to compare: ")


def test_no_base_is_exit_2(site, capsys):
    head, _, _ = site
    assert main(["plan", "--repo", str(head)]) == 2
    assert "Give the base to compare with: --base REV" in capsys.readouterr().err


def test_a_workflow_file_and_a_clusters_entry_are_named_as_edited(site, capsys):
    head, base, _ = site
    workflow = head / "workflows" / "hourly_clicks_summary.py"
    workflow.write_text(workflow.read_text() + "\n# counted differently\n")
    edit(head, "processes/hourly-clicks-summary.yaml", "end: ", "end:  ")  # the same YAML: no change
    edit(head, "feeds/visits.yaml", "type: target\n    validity:\n      start: 2025-12-01T00:00Z\n      end: 2099",
         "type: target\n    validity:\n      start: 2025-12-01T00:00Z\n      end: 2098")
    code, report, _ = plan(capsys, head, base)
    assert code == 0
    assert [(c["entity"], c["change"]) for c in report["changes"]] == [
        ("visits", "edited clusters[backup].validity.end"), ("hourly-clicks-summary", "edited workflow file")]


def test_deleting_what_the_base_archived_loses_it(site, capsys):
    head, base, _ = site
    for repo, action in ((base, "archive"), (head, "delete")):
        edit(repo, CLICKS, "limit: days(90)\n      action: delete", f"limit: days(90)\n      action: {action}")
        edit(repo, CLICKS, "groups: [web]\n", "groups: [web]\nproperties:\n  retention.archive: /archive\n")
    code, report, _ = plan(capsys, head, base)
    assert code == 1
    [change] = [c for c in report["changes"] if c["destructive"]]
    assert change["count"] == 3  # the 100-day-old ones, archived by the base, deleted by the new definition
    assert change["change"] == ("retention days(90) (archive) -> days(90) (delete): 3 instance(s) deleted at the next "
                                "retention call that the base definition keeps or archives")


def test_offline_compares_the_definitions_alone_and_says_so(site, capsys, monkeypatch):
    head, base, root = site
    edit(head, CLICKS, "limit: days(90)", "limit: days(7)")
    code, report, _ = plan(capsys, head, base, "--offline")
    assert (code, report["offline"]) == (0, True)
    assert [(c["entity"], c["change"], c["read_storage"]) for c in report["changes"]] == [
        ("clicks", "edited clusters[primary].retention.limit", False)]
    main(["plan", "--repo", str(head), "--base-repo", str(base), "--offline"])
    assert capsys.readouterr().out.splitlines()[-2] == (
        "  storage not read (--offline): the definitions alone were compared; `toolkit plan` with access to the "
        "clusters says what the changes do to the data")


def test_a_field_name_cannot_forge_a_line_of_the_text_forms(site, capsys):
    """A property's name holding a line break or a bidirectional override is named with the escapes every message
    uses (toolkit/shown_text.py): each change stays one line of the text, markdown and GitHub forms."""
    head, base, _ = site
    edit(head, "clusters/primary.yaml", "properties:\n", 'properties:\n  "x\\n  LOSES DATA: forged\\u202e": y\n')
    for output_format in ("text", "markdown", "github"):
        main(["plan", "--repo", str(head), "--base-repo", str(base), "--now", "2026-11-26T00:00Z",
              "--format", output_format])
        out = capsys.readouterr().out
        assert "\u202e" not in out and not any(line.lstrip().startswith("LOSES DATA: forged")
                                               for line in out.split("\n"))
        assert ("x   LOSES DATA: forged\\u202e" if output_format == "markdown"  # its cells' own escapes
                else "x\\n  LOSES DATA: forged\\u202e") in out
