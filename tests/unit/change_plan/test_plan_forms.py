"""The plan's markdown form (a pull request's comment) and its GitHub workflow commands (annotations on the changed
files), for a retention change that loses data beside a definition edit."""

from __future__ import annotations

import os

from tests.unit.change_plan.plan_site import CLICKS, edit
from toolkit.cli.main import main


def render(capsys, head, base, form: str) -> tuple[int, list[str]]:
    code = main(["plan", "--repo", str(head), "--base-repo", str(base), "--now", "2026-11-26T00:00Z",
                 "--cluster", "primary", "--format", form])
    return code, capsys.readouterr().out.splitlines()


def shorten_and_retag(head) -> None:
    edit(head, CLICKS, "limit: days(90)", "limit: days(7)")
    edit(head, "processes/top-pages.yaml", "owner: web-analytics", "owner: web|team")


def test_markdown_has_a_verdict_a_table_and_the_instances_folded(site, capsys):
    head, base, root = site
    shorten_and_retag(head)
    code, lines = render(capsys, head, base, "markdown")
    assert code == 1
    assert lines[0] == f"### toolkit plan: `{base}` \u2192 `working tree`"
    assert lines[2] == "**1 change(s) lose data**; judged at 2026-11-26T00:00Z."
    rows = [line for line in lines if line.startswith("| \u274c") or line.startswith("| changed")]
    assert rows == [
        "| \u274c loses data | feed `clicks` | primary | retention days(90) (delete) -> days(7) (delete): "
        "3 instance(s) deleted at the next retention call that the base definition keeps | 3 | 243 bytes | "
        "2026-10-07T00:00Z | 2026-10-07T02:00Z |",
        "| changed | feed `clicks` |  | edited clusters[primary].retention.limit |  |  |  |  |",
        "| changed | process `top-pages` |  | edited tags.owner |  |  |  |  |"]
    details = lines.index("<details><summary>\u274c loses data feed <code>clicks</code> on `primary`: 3 instance(s)"
                          "</summary>")
    assert lines[details + 4] == (f"| 2026-10-07T00:00Z | {(root / 'data/clicks/2026/10/07/00').as_uri()} | "
                                  "81 bytes |")
    assert lines[-4].endswith("--feed clicks --cluster primary --dry-run") and lines[-1] == "</details>"


def test_markdown_of_nothing_changed_says_so(site, capsys):
    head, base, _ = site
    code, lines = render(capsys, head, base, "markdown")
    assert (code, lines[2:]) == (0, ["No change loses data; judged at 2026-11-26T00:00Z.", "",
                                     "No change to any entity."])


def test_github_annotates_each_changed_file_then_prints_the_text(site, capsys, monkeypatch):
    head, base, _ = site
    shorten_and_retag(head)
    monkeypatch.chdir(head.parent)
    code, lines = render(capsys, head, base, "github")
    assert code == 1
    assert lines[0] == (
        "::error file=conf/feeds/clicks.yaml,title=toolkit plan%3A feed clicks on primary::retention days(90) "
        "(delete) -> days(7) (delete): 3 instance(s) deleted at the next retention call that the base definition "
        f"keeps (3 instance(s), 243 bytes)%0Asee: toolkit retain --repo {head} --feed clicks --cluster primary "
        "--dry-run")
    assert lines[1].startswith("::notice file=conf/feeds/clicks.yaml,title=toolkit plan%3A feed clicks::edited ")
    assert lines[2] == "::notice file=conf/processes/top-pages.yaml,title=toolkit plan%3A process top-pages::" \
                       "edited tags.owner"
    assert lines[3].startswith("::stop-commands::") and lines[4].startswith("toolkit plan: ")
    assert lines[-2].endswith("(exit 1)") and lines[-1] == f"::{lines[3].split('::')[2]}::"


def test_github_files_are_relative_to_the_repo_when_it_is_elsewhere(site, capsys, monkeypatch, tmp_path_factory):
    head, base, _ = site
    shorten_and_retag(head)
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    _, lines = render(capsys, head, base, "github")
    assert lines[0].startswith("::error file=feeds/clicks.yaml,")
    assert os.getcwd() != str(head)


def test_an_unknown_format_is_exit_2_naming_the_forms(site, capsys):
    head, base, _ = site
    code = main(["plan", "--repo", str(head), "--base-repo", str(base), "--format", "html"])
    assert code == 2
    assert "Unknown --format 'html': use text, json, markdown or github." in capsys.readouterr().err


def test_names_and_paths_cannot_inject_markup_or_workflow_commands(site, capsys, monkeypatch):
    """A location with a pipe, a backtick, an HTML comment and a line that looks like a workflow command."""
    head, base, _ = site
    hostile = "/data/cl|i`cks <!-- x\\n::error title=fake::injected\\n/${YEAR}/${MONTH}/${DAY}/${HOUR}"
    edit(head, CLICKS, "data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}", f'data: "{hostile}"')
    _, lines = render(capsys, head, base, "markdown")
    row = next(line for line in lines if line.startswith("| \u274c loses data | feed `clicks`"))
    assert "cl\\|i\\`cks &lt;!-- x ::error" in row and "<!--" not in "\n".join(lines)
    _, lines = render(capsys, head, base, "github")
    token = lines[lines.index(next(line for line in lines if line.startswith("::stop-commands::")))].split("::")[2]
    inside = lines[lines.index(f"::stop-commands::{token}") + 1:lines.index(f"::{token}::")]
    assert any("x\\n::error title=fake::injected\\n" in line for line in inside)  # one line, escaped, not run
    outside = [line for line in lines if line not in inside]
    assert not any(line.startswith("::error title=fake") for line in outside)
