"""`toolkit schedule --format oozie`: every generated file validates against Oozie's own XML schemas (vendored in
tests/oozie_schemas/, lxml), says the cadence Oozie must run, passes the nominal time to the command, and its
exit-code wrapper (run here with sh) maps the toolkit's codes; --out/--check are idempotent."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from tests.unit.entities.datasource_samples import write_repo
from tests.unit.schedule.oozie_files import schedule
from toolkit.orchestration.schedule.formats.xml_text import document, element

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
SCHEMAS = Path(__file__).resolve().parents[2] / "oozie_schemas"
WF, COORD, BUNDLE, SHELL = ("uri:oozie:workflow:0.5", "uri:oozie:coordinator:0.4", "uri:oozie:bundle:0.2",
                            "uri:oozie:shell-action:0.3")
NOMINAL_TIME = "${coord:formatTime(coord:nominalTime(), \"yyyy-MM-dd'T'HH:mm'Z'\")}"
ODD_PROCESSES = {  # name: (frequency, zone, validity start, validity end)
    "every-seven-minutes": ("minutes(7)", "UTC", "2026-01-01T00:03Z", "2027-01-01T00:00Z"),
    "every-five-hours": ("hours(5)", "Europe/Paris", "2026-03-01T01:00Z", "2027-03-01T01:00Z"),
    "every-two-months": ("months(2)", "Europe/Paris", "2026-01-15T09:30Z", "2030-01-15T09:30Z"),
}


def _schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


SCHEMA_OF = {"bundle.xml": _schema("oozie-bundle-0.2.xsd"), "coordinator.xml": _schema("oozie-coordinator-0.4.xsd"),
             "workflow.xml": _schema("workflow-0.5-with-shell-0.3.xsd")}
SHELL_SCHEMA = _schema("shell-action-0.3.xsd")


def odd_repo(tmp_path: Path) -> Path:
    """The template repo with three processes whose cadences cron cannot say: minutes(7), hours(5) in
    Europe/Paris, months(2) from the 15th in Europe/Paris."""
    repo = tmp_path / "repo"
    shutil.copytree(TEMPLATE, repo)
    for name, (frequency, zone, start, end) in ODD_PROCESSES.items():
        (repo / "processes" / f"{name}.yaml").write_text(f"""kind: process
name: {name}
clusters:
  - name: primary
    validity:
      start: {start}
      end: {end}
frequency: {frequency}
timezone: {zone}
outputs:
  - name: out
    feed: clicks-hourly-summary
    instance: now(0,0)
workflow:
  name: {name}
  engine: pyspark
  path: workflows/hourly_clicks_summary.py
""", encoding="utf-8")
    return repo


def validate_all(out: Path) -> list[Path]:
    """Every XML file against its schema, and each workflow's shell element against the shell-action schema."""
    checked = []
    for path in sorted(out.rglob("*.xml")):
        document = etree.parse(str(path))
        schema = SCHEMA_OF[path.name]
        assert schema.validate(document), f"{path}: {schema.error_log}"
        if path.name == "workflow.xml":
            shells = document.findall(f".//{{{SHELL}}}shell")
            assert len(shells) == 1
            assert SHELL_SCHEMA.validate(etree.ElementTree(shells[0])), f"{path}: {SHELL_SCHEMA.error_log}"
        checked.append(path)
    return checked


def coordinator(out: Path, call: str) -> etree._Element:
    return etree.parse(str(out / call / "coordinator.xml")).getroot()


def shell_of(out: Path, call: str) -> etree._Element:
    return etree.parse(str(out / call / "workflow.xml")).getroot().find(f".//{{{SHELL}}}shell")


def arguments(out: Path, call: str) -> list[str]:
    found = [a.text for a in shell_of(out, call).findall(f"{{{SHELL}}}argument")]
    assert found[0] == "toolkit-oozie-call.sh"  # sh runs the wrapper, which runs the rest
    return found[1:]


@pytest.mark.parametrize("cluster", ["primary", "backup"])
def test_every_file_of_the_template_clusters_validates(tmp_path: Path, cluster: str) -> None:
    out = tmp_path / "oozie"
    assert schedule(TEMPLATE, out, cluster=cluster) == 0
    checked = validate_all(out)
    bundle = etree.parse(str(out / "bundle.xml")).getroot()
    calls = sorted(c.get("name") for c in bundle.findall(f"{{{BUNDLE}}}coordinator"))
    assert bundle.get("name") == f"feed-toolkit-{cluster}"
    assert [c.findtext(f"{{{BUNDLE}}}app-path") for c in bundle.findall(f"{{{BUNDLE}}}coordinator")] == [
        f"${{toolkitAppPath}}/{name}" for name in calls]
    assert len(checked) == 1 + 2 * len(calls)
    expected = {"bundle.xml", "job.properties", "toolkit-oozie-call.sh",
                *(f"{name}/{file}" for name in calls for file in ("coordinator.xml", "workflow.xml"))}
    assert {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} == expected
    if cluster == "backup":
        assert calls == ["replication-clicks-from-primary", "replication-visits-from-primary", "retention-clicks",
                         "retention-visits", "sla"]
    else:
        assert {"process-hourly-clicks-summary", "late-check-hourly-clicks-summary", "trigger", "sla",
                "ingest-page-views", "retention-clicks"} <= set(calls)
    for path in (p for p in out.rglob("*") if p.is_file()):  # the mark in the head, as files.py looks for it
        assert "Generated by toolkit schedule" in "\n".join(path.read_text(encoding="utf-8").splitlines()[:2])


def test_odd_cadences_are_said_exactly_in_their_zone(tmp_path: Path) -> None:
    out = tmp_path / "oozie"
    assert schedule(odd_repo(tmp_path), out) == 0
    validate_all(out)
    for name, (frequency, zone, start, end) in ODD_PROCESSES.items():
        app = coordinator(out, f"process-{name}")
        assert (app.get("frequency"), app.get("timezone"), app.get("start"), app.get("end")) == (
            f"${{coord:{frequency}}}", zone, start, end)
        called = arguments(out, f"process-{name}")
        wrapper = called[:called.index("--")]  # `toolkit call` on the coordinator's own cadence, its nominal time
        assert wrapper[:6] == ["${toolkit}", "call", "--every", frequency, "--from", start]
        assert wrapper[-3:] == ["--wait-first", "--time", "${nominalTime}"]
        assert (wrapper[wrapper.index("--timezone") + 1] if "--timezone" in wrapper else "UTC") == zone
        action = etree.parse(str(out / f"process-{name}" / "workflow.xml")).getroot().find(f"{{{WF}}}action")
        assert (action.get("retry-max"), action.get("retry-interval")) == ("3", "10")  # minutes(7) too
    assert "<!-- Generated by toolkit schedule for cluster 'primary': process-every-two-months, every months(2) " \
           "from 2026-01-15T09:30Z in Europe/Paris" in (out / "process-every-two-months/coordinator.xml").read_text()


def test_the_shell_action_runs_the_call_with_the_nominal_time(tmp_path: Path) -> None:
    out = tmp_path / "oozie"
    assert schedule(TEMPLATE, out, "--submit-args", "--master yarn --deploy-mode client") == 0
    app = coordinator(out, "process-hourly-clicks-summary")
    assert (app.get("frequency"), app.get("start"), app.get("end"), app.get("timezone")) == (
        "${coord:hours(1)}", "2026-01-01T00:00Z", "2099-12-31T00:00Z", "UTC")
    workflow = app.find(f"{{{COORD}}}action/{{{COORD}}}workflow")
    assert workflow.findtext(f"{{{COORD}}}app-path") == "${toolkitAppPath}/process-hourly-clicks-summary"
    properties = {p.findtext(f"{{{COORD}}}name"): p.findtext(f"{{{COORD}}}value")
                  for p in workflow.iter(f"{{{COORD}}}property")}
    assert properties == {"nominalTime": NOMINAL_TIME}
    shell = shell_of(out, "process-hourly-clicks-summary")
    assert shell.findtext(f"{{{SHELL}}}exec") == "sh"
    assert shell.findtext(f"{{{SHELL}}}file") == "${toolkitAppPath}/toolkit-oozie-call.sh#toolkit-oozie-call.sh"
    assert shell.find(f"{{{SHELL}}}capture-output") is not None
    # the Python of the toolkit's installation, which a launcher's environment lacks (issue 34)
    assert [env.text for env in shell.findall(f"{{{SHELL}}}env-var")] == [
        "PYSPARK_PYTHON=${toolkitPython}", "PYSPARK_DRIVER_PYTHON=${toolkitPython}"]
    assert (shell.findtext(f"{{{SHELL}}}job-tracker"), shell.findtext(f"{{{SHELL}}}name-node")) == (
        "${jobTracker}", "${nameNode}")
    # a process instance waits for its inputs in `toolkit call`, before spark-submit starts (issue 71)
    assert arguments(out, "process-hourly-clicks-summary") == [
        "${toolkit}", "call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--wait-first", "--time",
        "${nominalTime}", "--", "${sparkSubmit}", "--master", "yarn", "--deploy-mode", "client",
        "${entrypoints}/process.py", "--repo", "${confRepo}", "--process", "hourly-clicks-summary", "--cluster",
        "primary"]
    # the toolkit's own commands: the SLA check takes the time as --now, the sweep none
    assert arguments(out, "sla") == ["${toolkit}", "sla", "--repo", "${confRepo}", "--cluster", "primary",
                                     "--now", "${nominalTime}"]
    assert arguments(out, "trigger") == ["${toolkit}", "trigger", "--repo", "${confRepo}", "--cluster", "primary"]
    assert coordinator(out, "trigger").find(f".//{{{COORD}}}configuration") is None
    for call in ("trigger", "sla", "ingest-page-views"):
        assert coordinator(out, call).get("start") == "${clockStart}"
    # the paths live in job.properties, not in the XML
    properties_text = (out / "job.properties").read_text(encoding="utf-8")
    for line in ("toolkit=/opt/feed-toolkit/bin/toolkit", "sparkSubmit=/opt/spark/bin/spark-submit",
                 "toolkitPython=/opt/feed-toolkit/bin/python",
                 "entrypoints=/opt/feed-toolkit/entrypoints", "confRepo=/srv/conf", "nameNode=hdfs://NAMENODE:8020",
                 "jobTracker=RESOURCEMANAGER:8032", "clockStart=SET-AT-SUBMISSION",
                 "oozie.bundle.application.path=${toolkitAppPath}",
                 "toolkitAppPath=${nameNode}/user/${user.name}/feed-toolkit/oozie/primary"):
        assert line in properties_text.splitlines()
    assert not any("/opt/" in p.read_text() or "/srv/" in p.read_text() for p in out.rglob("*.xml"))


def test_controls_and_retries_follow_falcon_where_they_can(tmp_path: Path) -> None:
    out = tmp_path / "oozie"
    assert schedule(TEMPLATE, out) == 0

    def controls(call: str) -> tuple[str | None, ...]:
        block = coordinator(out, call).find(f"{{{COORD}}}controls")
        return tuple(block.findtext(f"{{{COORD}}}{name}") for name in ("timeout", "concurrency", "execution",
                                                                       "throttle"))

    # its timeout hours(4) and parallel 2; throttle 240/60*2
    assert controls("process-hourly-clicks-summary") == ("240", "2", "FIFO", "8")
    assert controls("process-daily-clicks-rollup") == ("720", "1", "FIFO", "1")  # timeout hours(12)
    assert controls("retention-clicks") == ("8640", "1", "LAST_ONLY", "12")
    assert controls("trigger") == ("30", "1", "LAST_ONLY", "60")  # at least 30 minutes, as Falcon
    assert controls("sla") == ("30", "1", "LAST_ONLY", "12")

    def action(call: str) -> etree._Element:
        return etree.parse(str(out / call / "workflow.xml")).getroot().find(f"{{{WF}}}action")

    assert (action("process-hourly-clicks-summary").get("retry-max"),
            action("process-hourly-clicks-summary").get("retry-interval")) == ("3", "10")
    assert action("trigger").get("retry-max") is None and action("sla").get("retry-max") is None
    root = etree.parse(str(out / "process-hourly-clicks-summary" / "workflow.xml")).getroot()
    call = action("process-hourly-clicks-summary")
    assert (call.find(f"{{{WF}}}ok").get("to"), call.find(f"{{{WF}}}error").get("to")) == (
        "outcome", "waiting-or-blocked")
    case = root.find(f"{{{WF}}}decision/{{{WF}}}switch/{{{WF}}}case")
    assert (case.get("to"), case.text) == (
        "end", "${wf:actionData('call')['exit'] eq '0' or wf:actionData('call')['exit'] eq '4'}")
    assert root.find(f"{{{WF}}}decision/{{{WF}}}switch/{{{WF}}}default").get("to") == "failed"
    assert sorted(k.get("name") for k in root.findall(f"{{{WF}}}kill")) == ["failed", "waiting-or-blocked"]


def test_check_edit_regenerate_and_remove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, out = odd_repo(tmp_path), tmp_path / "oozie"
    assert schedule(repo, out) == 0
    assert schedule(repo, out, "--check") == 0
    assert "is up to date" in capsys.readouterr().out
    mine = [out / "README.txt", out / "process-every-five-hours" / "notes.txt"]
    for path in mine:
        path.write_text("the user's own\n", encoding="utf-8")
    process = repo / "processes" / "every-five-hours.yaml"
    process.write_text(process.read_text().replace("hours(5)", "hours(6)"), encoding="utf-8")
    assert schedule(repo, out, "--check") == 1
    said = capsys.readouterr().out
    # its coordinator's frequency, and its workflow's `toolkit call --every`
    assert f"changed: {out / 'process-every-five-hours' / 'coordinator.xml'}" in said
    assert f"changed: {out / 'process-every-five-hours' / 'workflow.xml'}" in said
    assert said.count("changed: ") == 2 and "2 difference(s)" in said
    old = 1_000_000_000
    for path in out.rglob("*"):
        os.utime(path, (old, old))
    (repo / "processes" / "every-seven-minutes.yaml").unlink()
    assert schedule(repo, out) == 0
    said = capsys.readouterr().out
    assert "3 file(s) written" in said and "2 removed" in said  # the coordinator, its workflow, the bundle
    assert coordinator(out, "process-every-five-hours").get("frequency") == "${coord:hours(6)}"
    assert (out / "process-every-five-hours" / "coordinator.xml").stat().st_mtime != old
    assert (out / "process-every-five-hours" / "workflow.xml").stat().st_mtime != old
    assert (out / "process-every-two-months" / "workflow.xml").stat().st_mtime == old  # what did not change stays
    assert (out / "bundle.xml").stat().st_mtime != old  # it no longer lists the removed coordinator
    assert not (out / "process-every-seven-minutes" / "coordinator.xml").exists()
    assert not (out / "process-every-seven-minutes" / "workflow.xml").exists()
    assert all(path.read_text() == "the user's own\n" for path in mine)
    assert schedule(repo, out, "--check") == 0


def test_an_argument_oozie_would_evaluate_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert schedule(TEMPLATE, tmp_path / "oozie", "--submit-args", "--conf spark.x=${HOME}") == 2
    err = capsys.readouterr().err
    assert "The argument 'spark.x=${HOME}' of call" in err and "Oozie evaluates ${...}" in err
    assert not (tmp_path / "oozie").exists()


def test_a_cluster_without_calls_has_no_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(TEMPLATE, repo)
    backup = (repo / "clusters" / "backup.yaml").read_text(encoding="utf-8")
    (repo / "clusters" / "idle.yaml").write_text(backup.replace("name: backup", "name: idle"), encoding="utf-8")
    assert schedule(repo, tmp_path / "oozie", cluster="idle") == 2
    assert "Nothing to schedule on cluster 'idle'" in capsys.readouterr().err
    assert not (tmp_path / "oozie").exists()


def test_files_without_this_clusters_mark_are_never_overwritten(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33 (3): a user's own job.properties and another cluster's bundle.xml at the names the generation
    writes were overwritten. Nothing is written then (exit 1 naming each file), and --check says so too."""
    out = tmp_path / "oozie"
    out.mkdir()
    theirs = {out / "job.properties": "# the user's own properties\noozie.bundle.application.path=/mine\n",
              out / "bundle.xml": "<!-- Generated by toolkit schedule for cluster 'backup'. Do not edit. -->\n"}
    for path, text in theirs.items():
        path.write_text(text, encoding="utf-8")
    assert schedule(TEMPLATE, out) == 1
    said = capsys.readouterr()
    assert said.out == "" and "Traceback" not in said.err
    for path in theirs:
        assert str(path) in said.err
    assert "would overwrite 2 file(s) not generated for cluster 'primary'" in said.err
    assert {path: path.read_text(encoding="utf-8") for path in theirs} == theirs
    assert sorted(p.name for p in out.iterdir()) == ["bundle.xml", "job.properties"]  # nothing else written
    assert schedule(TEMPLATE, out, "--check") == 1
    said = capsys.readouterr().out
    assert f"not generated for cluster 'primary': {out / 'job.properties'}" in said

    (out / "job.properties").unlink()
    (out / "bundle.xml").unlink()
    assert schedule(TEMPLATE, out) == 0
    capsys.readouterr()
    ours = out / "job.properties"
    ours.write_text(ours.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    assert schedule(TEMPLATE, out) == 0  # a file carrying this cluster's mark is ours: replaced
    assert "edited by hand" not in ours.read_text(encoding="utf-8")


def test_a_link_where_a_generated_folder_goes_is_never_written_through(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A link where a coordinator's folder goes (committed with the --out folder, or planted by another user of it),
    to a folder elsewhere: nothing is written through it, nothing at all, and the call names the link (exit 1)."""
    assert schedule(TEMPLATE, tmp_path / "first") == 0
    folder = sorted(path.name for path in (tmp_path / "first").iterdir() if path.is_dir())[0]
    out, elsewhere = tmp_path / "oozie", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / folder).symlink_to(elsewhere)
    capsys.readouterr()
    code = schedule(TEMPLATE, out)
    assert list(elsewhere.iterdir()) == []
    assert code == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (f"toolkit: toolkit schedule would write through 1 link(s) where its folders go "
                        f"({out / folder}): nothing was written; remove them, or give --out a folder of this "
                        "cluster's own.\n")
    assert [path.name for path in out.iterdir()] == [folder]


@pytest.mark.parametrize("name", ["c---x", "c----x", "x-", "c-----"])
def test_a_name_with_hyphens_leaves_every_file_well_formed(tmp_path: Path, name: str) -> None:
    """A name the schema allows (`^[A-Za-z][A-Za-z0-9-]*$`) reaches each file's comment: an XML comment holds no
    `--` (`---` spaced out without overlap was `- --`, which no parser reads) and ends in no `-` before `-->`."""
    repo = write_repo(tmp_path / "repo")
    feed = repo / "feeds" / "customers.yaml"
    feed.write_text(feed.read_text(encoding="utf-8").replace("name: customers", f"name: {name}", 1),
                    encoding="utf-8")
    feed.rename(repo / "feeds" / f"{name}.yaml")
    out = tmp_path / "oozie"
    assert schedule(repo, out) == 0
    assert len(validate_all(out)) == 5  # the bundle, and each call's coordinator and workflow
    assert coordinator(out, f"import-{name}").get("name") == f"feed-toolkit-primary-import-{name}"  # as it is


@pytest.mark.parametrize(("comment", "written"), [
    ("c---x", "c- - -x"), ("c----x", "c- - - -x"), ("ends in x-", "ends in x-"), ("-", "-"), ("--", "- -"),
    ("a -- b ---", "a - - b - - -"), ("plain", "plain")])
def test_no_comment_text_breaks_the_comment(comment: str, written: str) -> None:
    text = document(element("root"), comment)
    assert text.splitlines()[1] == f"<!-- {written} -->"
    assert etree.fromstring(text.encode("utf-8")).tag == "root"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("-x !>")))
def test_any_comment_text_makes_a_document_that_parses(comment: str) -> None:
    text = document(element("root"), comment)
    inside = text.splitlines()[1].removeprefix("<!--").removesuffix("-->")
    assert "--" not in inside and not inside.endswith("-")
    assert etree.fromstring(text.encode("utf-8")).tag == "root"


def test_an_exports_action_exports_the_instance_one_period_before_its_nominal_time(tmp_path: Path) -> None:
    """The export's coordinator fires one period after each instance (its start is the validity start plus a
    period): its action must pass the instance before its nominal time, through `toolkit call --lag 1`, not the
    nominal time itself (the bug: `export.py --time ${nominalTime}`, the instance not ended yet). Through the call,
    the export also waits for its instance before spark-submit starts (`--wait-first`)."""
    out = tmp_path / "oozie"
    assert schedule(TEMPLATE, out) == 0
    app = coordinator(out, "export-top-pages")
    assert (app.get("frequency"), app.get("start")) == ("${coord:days(1)}", "2026-01-02T00:00Z")
    called = arguments(out, "export-top-pages")
    wrapper, command = called[:called.index("--")], called[called.index("--") + 1:]
    assert wrapper == ["${toolkit}", "call", "--every", "days(1)", "--from", "2026-01-02T00:00Z", "--lag", "1",
                       "--wait-first", "--time", "${nominalTime}"]
    assert command[-6:] == ["--repo", "${confRepo}", "--feed", "top-pages", "--cluster", "primary"]
    assert "--time" not in command  # `toolkit call` appends the instance
