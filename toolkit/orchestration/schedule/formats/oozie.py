"""An Oozie bundle: one coordinator per call, each starting a one-action workflow whose shell action runs the call
with the coordinator's nominal time, so that a Falcon shop's Oozie runs the toolkit as it ran Falcon's coordinators.

Files (put the folder on HDFS as it is, docs/schedule-oozie.md):
- `bundle.xml` (bundle 0.2) lists `<call>/coordinator.xml` (coordinator 0.4, Falcon wrote 0.3; 0.4 adds only
  `parameters` and SLA 0.2) and `<call>/workflow.xml` (workflow 0.5, shell action 0.3);
- `job.properties`: what the user sets (nameNode, jobTracker, queueName, clockStart, where the folder is) and the
  paths of toolkit, spark-submit, the entrypoints and the config repo on the nodes, which the XML names as
  `${...}` properties, Oozie's idiom;
- `toolkit-oozie-call.sh`: the exit-code wrapper every shell action runs (`<file>`), see `WRAPPER`.

Cadences: Oozie says every cadence exactly (`${coord:minutes(7)}`, `${coord:hours(5)}`, `${coord:months(2)}`), so
no call is covered or skipped as in the crontab. `start` is the cadence's anchor (the validity start, shifted by
the delay for replication), `end` its end or FAR_END (Falcon wrote the validity end), `timezone` the entity's zone.
Oozie's nominal time k is `start + k x frequency` added by java.util.Calendar in that zone (CoordMaterialize-
TransitionXCommand), from the start each time: `coord:minutes` and `coord:hours` are elapsed time (hours(24)
drifts by an hour in local time across a DST change), `coord:days` and `coord:months` are calendar units that keep
the local time of day (23 or 25 hours across a change) and clamp the day to short months' ends (Jan 31, Feb 28,
Mar 31). The toolkit's grid counts the same way, with one exception: a local time inside a spring-forward gap
(02:30 in Europe/Paris on the last Sunday of March) is moved an hour earlier by Calendar and an hour later by the
toolkit (java.time's rule), so on that day the entrypoint refuses Oozie's time (exit 2, the workflow is killed) and
the instance must be run by hand. tests/integration/schedule/test_oozie_nominal_times.py runs java.util.Calendar to show
both. Calls the clock alone sets (the data-trigger sweep, the SLA check, ingest) start at `${clockStart}`, given at
submission: from the epoch, Oozie would materialize every minute since 1970.

The time reaches the command as the call's time option (`--time`, `--now` for the SLA check): the coordinator
passes `nominalTime`, `coord:nominalTime()` formatted `yyyy-MM-ddTHH:mmZ` (formatTime formats in Oozie's
processing zone, which must be UTC, its default and Falcon's requirement: start and end are written in UTC too).
Controls and retries: oozie_controls.py. Text only from the plan: sorted, no timestamps, the generated mark in a
comment at the top of every file. Every argument and job property is written by words.written: the paths as the
job's properties (`${confRepo}`), never a value of the repo, which Oozie must not evaluate (one with `${` is refused).
"""

from __future__ import annotations

from toolkit.core.el.timestamps import format_timestamp
from toolkit.errors import UsageError
from toolkit.orchestration.schedule.cadence import CLOCK
from toolkit.orchestration.schedule.calls import Call, SchedulePlan
from toolkit.orchestration.schedule.files import cluster_mark
from toolkit.orchestration.schedule.formats.oozie_controls import controls, retry
from toolkit.orchestration.schedule.formats.xml_text import document, element
from toolkit.orchestration.schedule.invocation import Invocation
from toolkit.orchestration.schedule.words import HostPath, Syntax, Word, literal, written

BUNDLE, PROPERTIES, WRAPPER_FILE = "bundle.xml", "job.properties", "toolkit-oozie-call.sh"
BUNDLE_XMLNS, COORDINATOR_XMLNS = "uri:oozie:bundle:0.2", "uri:oozie:coordinator:0.4"
WORKFLOW_XMLNS, SHELL_XMLNS = "uri:oozie:workflow:0.5", "uri:oozie:shell-action:0.3"
FAR_END = "2099-12-31T00:00Z"  # the end of a cadence without one; a date every Oozie database stores
NOMINAL_TIME = "${coord:formatTime(coord:nominalTime(), \"yyyy-MM-dd'T'HH:mm'Z'\")}"
ACTION = "call"  # the shell action's node name, read by the decision through wf:actionData
# The Invocation's paths as job properties: (property, Invocation field, what it is).
PATHS = (("toolkit", "toolkit", "the toolkit command"), ("sparkSubmit", "spark_submit", "spark-submit"),
         ("entrypoints", "entrypoints", "the folder of the toolkit's entrypoints (process.py ...)"),
         ("confRepo", "repo", "the config repo (clusters/, feeds/, processes/)"),
         ("toolkitPython", "python", "the Python of the toolkit's installation (PYSPARK_PYTHON of each call)"))
_PROPERTIES = {HostPath(field): name for name, field, _ in PATHS if field != "python"}  # the words' paths

# The wrapper maps the toolkit's exit codes onto what Oozie can act on. Only `exit=N` is on standard output, which
# capture-output hands to the workflow (Java properties, at most 2 KB); the command's own output goes to standard
# error, kept in the launcher's log.
# What a launcher's environment lacks: the Python of the toolkit's installation, for spark-submit and the driver.
PYTHON_VARIABLES = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")

WRAPPER = """#!/bin/sh
# {mark}: the wrapper of every shell action of this bundle.
# Runs the command given and maps the toolkit's exit code (docs/schedule-oozie.md):
#   0 done, 4 skipped            exit 0, prints exit=N: the workflow ends OK
#   1 failed, 2 bad call, other  exit 0, prints exit=N: the workflow's decision kills it (no retry)
#   3 waiting, 5 blocked         exit N: the shell action fails, and Oozie's user-retry calls again
"$@" >&2
code=$?
echo "exit=$code"
case $code in
  3|5) exit "$code" ;;
  *) exit 0 ;;
esac
"""


def render(plan: SchedulePlan, invocation: Invocation) -> dict[str, str]:
    if not plan.calls:
        raise UsageError(f"Nothing to schedule on cluster '{plan.cluster}': no process, feed or trigger of the repo "
                         "is on it, and an Oozie bundle needs at least one coordinator.")
    files = {BUNDLE: _bundle(plan), PROPERTIES: _properties(plan, invocation),
             WRAPPER_FILE: WRAPPER.format(mark=cluster_mark(plan.cluster))}
    for call in plan.calls:
        files[f"{call.name}/coordinator.xml"] = _coordinator(plan, call)
        files[f"{call.name}/workflow.xml"] = _workflow(plan, call, invocation)
    return dict(sorted(files.items()))


def _job_name(plan: SchedulePlan, call: Call | None = None) -> str:
    return f"feed-toolkit-{plan.cluster}" + (f"-{call.name}" if call is not None else "")


def _mark(plan: SchedulePlan, what: str) -> str:
    return (f"{cluster_mark(plan.cluster)}: {what}. Do not edit: change the entities and "
            "regenerate with toolkit schedule (its check fails while this is stale).")


def _bundle(plan: SchedulePlan) -> str:
    coordinators = [element("coordinator", element("app-path", text=f"${{toolkitAppPath}}/{call.name}"),
                            name=call.name) for call in sorted(plan.calls, key=lambda c: c.name)]
    root = element("bundle-app", *coordinators, name=_job_name(plan), xmlns=BUNDLE_XMLNS)
    return document(root, _mark(plan, f"the bundle of its {len(plan.calls)} coordinator(s)"))


def _coordinator(plan: SchedulePlan, call: Call) -> str:
    cadence = call.cadence
    control = controls(call)
    parts = [element("controls", element("timeout", text=str(control.timeout)),
                     element("concurrency", text=str(control.concurrency)),
                     element("execution", text=control.execution), element("throttle", text=str(control.throttle)))]
    workflow = [element("app-path", text=f"${{toolkitAppPath}}/{call.name}")]
    if call.time_option is not None:
        workflow.append(element("configuration", element(
            "property", element("name", text="nominalTime"), element("value", text=NOMINAL_TIME))))
    parts.append(element("action", element("workflow", *workflow)))
    start = "${clockStart}" if cadence.anchor == CLOCK else format_timestamp(cadence.anchor)
    end = format_timestamp(cadence.end) if cadence.end is not None else FAR_END
    root = element("coordinator-app", *parts, name=_job_name(plan, call),
                   frequency=f"${{coord:{cadence.frequency}}}", start=start, end=end, timezone=cadence.timezone,
                   xmlns=COORDINATOR_XMLNS)
    return document(root, _mark(plan, f"{call.name}, {cadence.describe()}: {call.why}"))


def _workflow(plan: SchedulePlan, call: Call, invocation: Invocation) -> str:
    words: list[Word | None] = [Word(WRAPPER_FILE)]
    if call.waits_first or call.lag:
        # through `toolkit call --time T`: the instance before the nominal time for a lagged call (an export fires
        # one period after its instance), and no JVM while the instance waits (`--wait-first`)
        words += [*invocation.call_wrapper(call, "--time", "")[:-2], None, Word("--")]
        words += invocation.argv(call)
    else:
        words += invocation.argv(call)
        if call.time_option is not None:
            words += [*literal(call.time_option), None]
    # None: the coordinator's property, the one EL of the arguments
    arguments = ["${nominalTime}" if word is None else written(word, Syntax.OOZIE, _PROPERTIES,
                                                               of=f"call '{call.name}'") for word in words]
    shell = element(
        "shell",
        element("job-tracker", text="${jobTracker}"),
        element("name-node", text="${nameNode}"),
        element("configuration", element("property", element("name", text="oozie.launcher.mapred.job.queue.name"),
                                         element("value", text="${queueName}"))),
        # sh runs the wrapper: a file localized from HDFS need not be executable
        element("exec", text="sh"),
        *(element("argument", text=argument) for argument in arguments),
        *(element("env-var", text=f"{name}=${{toolkitPython}}") for name in PYTHON_VARIABLES),
        element("file", text=f"${{toolkitAppPath}}/{WRAPPER_FILE}#{WRAPPER_FILE}"),
        element("capture-output"),
        xmlns=SHELL_XMLNS)
    again = retry(call)
    retries = {} if again is None else {"retry_max": str(again.max), "retry_interval": str(again.interval)}
    exit_code = f"wf:actionData('{ACTION}')['exit']"
    nodes = [
        element("start", to=ACTION),
        element("action", shell, element("ok", to="outcome"), element("error", to="waiting-or-blocked"),
                name=ACTION, **retries),
        element("decision", element("switch",
                                    element("case", text=f"${{{exit_code} eq '0' or {exit_code} eq '4'}}", to="end"),
                                    element("default", to="failed")), name="outcome"),
        element("kill", element("message", text=f"{call.name} failed: exit ${{{exit_code}}} (1 failed, 2 bad call or "
                                                "configuration; its JSON status line is in the launcher's log)."),
                name="failed"),
        element("kill", element("message", text=f"{call.name} still waiting (exit 3) or blocked (exit 5) after "
                                                "Oozie's retries, or its shell action did not run: "
                                                "${wf:errorMessage(wf:lastErrorNode())}"), name="waiting-or-blocked"),
        element("end", name="end"),
    ]
    root = element("workflow-app", *nodes, name=_job_name(plan, call), xmlns=WORKFLOW_XMLNS)
    return document(root, _mark(plan, f"{call.name}: runs {call.action} with the coordinator's nominal time"
                                      if call.time_option is not None else f"{call.name}: runs {call.action}"))


def _properties(plan: SchedulePlan, invocation: Invocation) -> str:
    clock = any(call.cadence.anchor == CLOCK for call in plan.calls)
    lines = [f"# {_mark(plan, 'the properties of its bundle')}",
             "# Deploy (docs/schedule-oozie.md): hdfs dfs -put this folder at toolkitAppPath, then",
             "#   oozie job -oozie http://OOZIE:11000/oozie -config job.properties \\",
             "#     -DnameNode=hdfs://NN:8020 -DjobTracker=RM:8032"
             + (" -DclockStart=$(date -u +%Y-%m-%dT%H:%MZ)" if clock else "") + " -run",
             "# Set at submission (-Dname=value) or in a copy of this file:",
             "nameNode=hdfs://NAMENODE:8020",
             "jobTracker=RESOURCEMANAGER:8032",
             "queueName=default"]
    if clock:
        lines += ["# When the calls the clock alone sets start (the data-trigger sweep, the SLA check, ingest): a "
                  "UTC minute,", "# normally the submission's.", "clockStart=SET-AT-SUBMISSION"]
    lines += ["# Where this folder is on HDFS:",
              f"toolkitAppPath=${{nameNode}}/user/${{user.name}}/feed-toolkit/oozie/{plan.cluster}",
              "oozie.bundle.application.path=${toolkitAppPath}",
              "# The paths on every node that can run the shell action's launcher (any YARN NodeManager):"]
    for name, field, what in PATHS:
        value = written(Word(getattr(invocation, field)), Syntax.JAVA_PROPERTY, of=f"the job property {name}")
        lines += [f"# {what}", f"{name}={value}"]
    return "\n".join(lines) + "\n"
