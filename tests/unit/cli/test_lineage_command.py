"""`toolkit lineage` through the command's entry (`toolkit.cli.main.main`) on ledgers written with the real Ledger
API: the three formats, the options' defaults, and bad calls as one sentence with exit 2."""

from __future__ import annotations

import json

import pytest

from tests.unit.lineage.ledger_writer import LedgerWriter, a_day_of_runs, make_repo
from toolkit.cli.main import main


@pytest.fixture(scope="module")
def conf(tmp_path_factory: pytest.TempPathFactory) -> str:
    repo, _ = make_repo(tmp_path_factory.mktemp("lineage"))
    a_day_of_runs(LedgerWriter(repo))
    return str(repo)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["lineage", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_feed_instance_in_json_with_the_default_depths(capsys, conf: str) -> None:
    code, out, err = run(capsys, "--repo", conf, "--cluster", "primary", "--feed", "clicks-hourly-summary",
                         "--time", "2026-11-21T10:00Z", "--format", "json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert (document["up"], document["down"], document["root"]) == (
        3, 1, "instance:primary:clicks-hourly-summary:2026-11-21T10:00Z")
    assert {n["process"] for n in document["nodes"] if n["type"] == "run"} == {
        "hourly-clicks-summary", "daily-clicks-rollup", None}  # None: the clicks' outside producer


def test_a_process_instance_on_its_only_cluster_in_text_and_dot(capsys, conf: str) -> None:
    code, out, err = run(capsys, "--repo", conf, "--process", "top-pages", "--time", "2026-11-22T00:00Z",
                         "--up", "1", "--down", "0")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:2] == ["process top-pages 2026-11-22T00:00Z on primary, attempt 1 (RUN), run top1: SUCCEEDED, "
                         "2026-11-22T13:00:00Z to 2026-11-22T13:00:00Z", "upstream (1 level):"]
    assert lines[2].startswith("  <- [daily] clicks-daily 2026-11-21T00:00Z on primary: read clicks-daily (1 file, "
                               "21 B), unchanged since read (now published ")
    # its inputs are level 0: --up 1 adds their producer and its 24 inputs
    assert lines[3].startswith("    <- [daily] process daily-clicks-rollup 2026-11-22T00:00Z on primary, attempt 1")
    down = lines.index("downstream (0 levels):")
    assert down == 28 and lines[down + 1:] == [
        "  -> [top] top-pages 2026-11-21T00:00Z on primary: published " + lines[down + 1].split("published ")[1]]
    code, out, _ = run(capsys, "--repo", conf, "--process", "top-pages", "--time", "2026-11-22T00:00Z",
                       "--format", "dot")
    assert code == 0 and out.startswith("digraph lineage {") and "-> n" in out


@pytest.mark.parametrize(("argv", "message"), [
    ((), "Give either --feed F or --process P (and --time T): the instance whose lineage to show."),
    (("--feed", "clicks", "--process", "top-pages"), "Give either --feed F or --process P"),
    (("--feed", "clicks", "--cluster", "primary"), "Give --time T, the instance time (yyyy-MM-ddTHH:mmZ), of the "
                                                  "feed instance whose lineage to show."),
    (("--feed", "clicks", "--time", "2026-11-21T10:00Z"), "Give --cluster: the feed 'clicks' is on clusters "
                                                          "primary, backup."),
    (("--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:30Z"),
     "2026-11-21T10:30Z is not an instance of feed 'clicks' on cluster 'primary'; the nearest instances are before "
     "2026-11-21T10:00Z, after 2026-11-21T11:00Z."),
    (("--feed", "clicks", "--cluster", "primary", "--time", "tomorrow"), "Invalid --time 'tomorrow'"),
    (("--feed", "nope", "--cluster", "primary", "--time", "2026-11-21T10:00Z"), "Unknown feed 'nope' in repo "),
    (("--process", "nope", "--time", "2026-11-21T10:00Z"), "Unknown process 'nope' in repo "),
    (("--feed", "clicks", "--cluster", "mars", "--time", "2026-11-21T10:00Z"), "Unknown cluster 'mars' in repo "),
    (("--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:00Z", "--format", "svg"),
     "Unknown --format 'svg': use text, json or dot."),
    (("--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:00Z", "--down", "51"),
     "--down 51 is out of range: give 0 to 50 levels."),
])
def test_bad_calls_are_one_sentence_and_exit_2(capsys, conf: str, argv: tuple[str, ...], message: str) -> None:
    code, out, err = run(capsys, "--repo", conf, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"toolkit: {message}") and len(err.strip().splitlines()) == 1, err
