"""`toolkit metrics` read by the real parts that consume it (issue 40): Debian's node_exporter serves the textfile
the command writes, Debian's Prometheus scrapes `--listen` on loopback with the shipped rules loaded, and promtool
fires the stale-feed alert on the values of a known ledger. The ledger is `metered` (tests/unit/cli/ledger_site.py):
clicks 07:00 and 08:00 published, the hourly summary's instances in every status."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.metrics.conftest import PROMETHEUS, PROMTOOL, fetch, require, running, until
from tests.unit.cli.ledger_site import NOW, PROCESS, Site
from toolkit.devtools.local_metastore import free_port

PROJECT = Path(__file__).resolve().parents[3]
ALERTS = PROJECT / "docs" / "prometheus" / "alerts.yml"
DASHBOARD = PROJECT / "docs" / "prometheus" / "grafana-dashboard.json"
LATER = "2026-11-21T16:00Z"  # clicks' newest instance (08:00) ended 7 hours before: more than 1 hour + slaHigh 4 hours


def toolkit(site: Site, *argv: str, now: str = NOW) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkit", "metrics", "--repo", str(site.conf), "--cluster",
                           "primary", "--now", now, *argv], capture_output=True, text=True, timeout=120)


def values(text: str, name: str) -> dict[frozenset[tuple[str, str]], float]:
    return {frozenset(sample.labels.items()): sample.value for family in text_string_to_metric_families(text)
            for sample in family.samples if sample.name == name}


def one(found: dict[frozenset[tuple[str, str]], float], **labels: str) -> float:
    matches = [value for have, value in found.items() if set(labels.items()) <= have]
    assert len(matches) == 1, (labels, found)
    return matches[0]


def test_node_exporter_serves_the_textfile_the_command_writes(metered: Site,
                                                                 node_exporter: tuple[Path, str]) -> None:
    folder, url = node_exporter
    done = toolkit(metered, "--window", "hours(8)", "--textfile", str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"metrics: wrote {folder / 'feed_toolkit.prom'}: cluster 'primary', ")
    assert done.stderr == ""
    def serving() -> str | None:
        text = fetch(url)
        return text if "feed_toolkit_process_instances" in text else None

    served = until(serving, "node_exporter serving the textfile")
    assert isinstance(served, str)
    assert one(values(served, "feed_toolkit_process_instances"), process=PROCESS, state="failed") == 1
    assert one(values(served, "feed_toolkit_process_instances"), process=PROCESS, state="waiting") == 3
    assert one(values(served, "feed_toolkit_feed_freshness_seconds"), feed="clicks") == 5400
    assert one(values(served, "feed_toolkit_action_bytes"), feed="clicks", action="retention") == 123456
    # node_exporter read the file without an error (a malformed file sets this to 1)
    assert one(values(served, "node_textfile_scrape_error")) == 0


def test_two_writers_at_once_leave_one_whole_file_that_node_exporter_reads(metered: Site,
                                                                          node_exporter: tuple[Path, str]) -> None:
    folder, url = node_exporter
    argv = [sys.executable, "-m", "toolkit", "metrics", "--repo", str(metered.conf), "--cluster", "primary",
            "--now", NOW, "--textfile", str(folder)]
    writers = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = [writer.communicate(timeout=120) for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0], outcomes
    assert [path.name for path in folder.iterdir()] == ["feed_toolkit.prom"]
    alone = toolkit(metered)
    assert values((folder / "feed_toolkit.prom").read_text(), "feed_toolkit_process_instances") == \
        values(alone.stdout, "feed_toolkit_process_instances")

    def read_without_error() -> str | None:
        text = fetch(url)
        return text if "feed_toolkit_process_instances" in text else None

    served = until(read_without_error, "node_exporter serving the textfile")
    assert isinstance(served, str) and one(values(served, "node_textfile_scrape_error")) == 0


def test_prometheus_scrapes_listen_on_loopback_with_the_shipped_rules_loaded(metered: Site, tmp_path: Path) -> None:
    require(PROMETHEUS)
    port, web = free_port(), free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(yaml.safe_dump({
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(ALERTS)],
        "scrape_configs": [{"job_name": "feed-toolkit", "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]}]}))
    exporter = [sys.executable, "-m", "toolkit", "metrics", "--repo", str(metered.conf), "--cluster", "primary",
                "--now", NOW, "--window", "hours(8)", "--listen", str(port)]
    server = [str(PROMETHEUS), f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
              f"--web.listen-address=127.0.0.1:{web}"]
    api = f"http://127.0.0.1:{web}/api/v1"
    with running(exporter, tmp_path / "metrics.log"), running(server, tmp_path / "prometheus.log"):
        query = urllib.parse.quote(f'feed_toolkit_process_instances{{process="{PROCESS}",state="failed"}}')

        def scraped() -> list[dict[str, object]] | None:
            result = json.loads(fetch(f"{api}/query?query={query}"))["data"]["result"]
            return result or None

        result = until(scraped, "Prometheus scraping toolkit metrics --listen", seconds=60)
        assert isinstance(result, list) and float(result[0]["value"][1]) == 1
        labels = result[0]["metric"]
        assert labels["job"] == "feed-toolkit" and labels["cluster"] == "primary"
        assert labels["tag_owner"] == "web-analytics" and "time" not in labels
        asked = fetch(f"http://127.0.0.1:{port}/metrics?name[]=feed_toolkit_process_instances")  # one family only
        assert {family.name for family in text_string_to_metric_families(asked)} == {"feed_toolkit_process_instances"}
        rules = json.loads(fetch(f"{api}/rules"))["data"]["groups"]
        loaded = {rule["name"]: rule["health"] for group in rules for rule in group["rules"]}
        assert set(loaded) == {rule["alert"] for group in yaml.safe_load(ALERTS.read_text())["groups"]
                               for rule in group["rules"]}
        assert set(loaded.values()) == {"ok"}, loaded
    told = (tmp_path / "metrics.log").read_text()  # stopped by SIGTERM, as a service manager stops it
    assert told == (f"metrics: serving cluster 'primary' at http://127.0.0.1:{port}/metrics (Ctrl-C or SIGTERM stops)\n"
                    f"metrics: stopped serving http://127.0.0.1:{port}/metrics\n")


def test_the_rules_check_and_the_stale_feed_alert_fires_on_a_known_ledgers_values(metered: Site,
                                                                                 tmp_path: Path) -> None:
    require(PROMTOOL)
    checked = subprocess.run([str(PROMTOOL), "check", "rules", str(ALERTS)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # the scenario: the metrics of the ledger at 10:30 (fresh) and at 16:00 (stale), as the command prints them
    fresh, stale = (toolkit(metered, now=now) for now in (NOW, LATER))
    assert fresh.returncode == stale.returncode == 0, fresh.stderr + stale.stderr
    linted = subprocess.run([str(PROMTOOL), "check", "metrics"], input=stale.stdout, capture_output=True, text=True)
    assert linted.returncode == 0, linted.stdout + linted.stderr

    def series(text: str, name: str) -> tuple[str, float]:
        labels, value = next((labels, value) for labels, value in values(text, name).items()
                             if ("feed", "clicks") in labels)
        spelled = ",".join(f'{key}="{val}"' for key, val in sorted(labels))
        return f"{name}{{{spelled}}}", value

    tests = []
    for text, fires in ((fresh.stdout, False), (stale.stdout, True)):
        freshness, seconds = series(text, "feed_toolkit_feed_freshness_seconds")
        limit, after = series(text, "feed_toolkit_feed_stale_after_seconds")
        expected = [{"exp_labels": {**_labels(freshness), "severity": "warning"},
                     "exp_annotations": {"summary": "Feed clicks on primary is stale",
                                         "description": _description(seconds)}}] if fires else []
        tests.append({"interval": "1m",
                      "input_series": [{"series": freshness, "values": f"{seconds:g}x15"},
                                       {"series": limit, "values": f"{after:g}x15"}],
                      "alert_rule_test": [{"eval_time": "10m", "alertname": "FeedToolkitFeedStale",
                                           "exp_alerts": expected}]})
    spec = tmp_path / "stale-feed.test.yml"
    spec.write_text(yaml.safe_dump({"rule_files": [str(ALERTS)], "evaluation_interval": "1m", "tests": tests}))
    tested = subprocess.run([str(PROMTOOL), "test", "rules", str(spec)], capture_output=True, text=True)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert seconds == 7 * 3600 and after == 5 * 3600


def _labels(series: str) -> dict[str, str]:
    name, _, rest = series.partition("{")
    pairs = [pair.split("=", 1) for pair in rest.rstrip("}").split(",")]
    return {key: value.strip('"') for key, value in pairs if value.strip('"')}  # empty: no label


def _description(seconds: float) -> str:
    hours = int(seconds // 3600)
    return (f"Its newest published instance ended {hours}h 0m 0s ago, more than its frequency plus slaHigh. "
            "`toolkit triage` says why the next one is not there.")


def test_the_dashboard_queries_only_metrics_the_command_writes(metered: Site) -> None:
    done = toolkit(metered)
    assert done.returncode == 0, done.stderr
    written = {family.name for family in text_string_to_metric_families(done.stdout)}
    written |= {f"{name}_bucket" for name in written}
    panels = json.loads(DASHBOARD.read_text())["panels"]
    used = {word for panel in panels for target in panel["targets"]
            for word in _words(target["expr"]) if word.startswith("feed_toolkit_")}
    assert used and used <= written, used - written


def _words(expr: str) -> list[str]:
    return re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr)
