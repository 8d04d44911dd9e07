"""Airflow: one DAG file per call (`feed_toolkit.<cluster>.<call>.py`), for Airflow 3's task SDK.

- The schedule: `CronTriggerTimetable(cron, timezone=zone)` firing at the instances where cron can say the cadence
  (cron.py); otherwise the finest covering cron, and `toolkit call --time <logical date>` skips (exit 4, the task
  skipped) the runs whose logical date is no instance. A DeltaTriggerTimetable is never used: with catchup=False,
  Airflow 3.3 starts its first run, and every run after a pause, at "now" rather than on the grid from start_date
  (it aligns nothing), so its logical dates would be no instances.
- `start_date` is the cadence's anchor (none for the clock's cadences), `end_date` the last minute before the
  cadence's exclusive end; `catchup=False` (the toolkit catches up with `--from/--to`, not by replaying firings);
  `max_active_runs` the call's concurrency (the process's `parallel`).
- The task (airflow_task.py) runs the command with the run's logical date as `--time` (through `toolkit call`) or
  `--now` (the SLA check); processes and exports get `--no-wait`, so that waiting for inputs is Airflow's reschedule
  (every `poke_interval`) until the call's wait limit, not a busy worker. `retries=0`: the toolkit retries.
- Inlets and outlets are the feeds' assets (assets.py); outlets post events on success only for calls that publish
  and only when the cluster's notifier is off (`trigger.notify: airflow` posts the ledger's events instead).
- Every value of the repo or an option is a Python string literal written by words.written (`repr`), the command's
  words too (with the paths' values in them); the docstring shows the command as sh would read it, through the same
  function.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.timestamps import format_timestamp
from toolkit.orchestration.schedule.assets import FeedAsset
from toolkit.orchestration.schedule.cadence import CLOCK
from toolkit.orchestration.schedule.calls import Call, SchedulePlan
from toolkit.orchestration.schedule.cron import cron_cover
from toolkit.orchestration.schedule.files import cluster_mark
from toolkit.orchestration.schedule.formats.airflow_task import TASK_CODE
from toolkit.orchestration.schedule.invocation import Invocation
from toolkit.orchestration.schedule.words import Syntax, Word, written

DAG_PREFIX = "feed_toolkit"
LONGEST_POKE_SECONDS, SHORTEST_POKE_SECONDS = 300, 60  # the process runner's longest poll; Airflow's scheduler loop
_WIDTH = 116


WAITING_ACTIONS = ("process", "export")  # they poll for their data unless told --no-wait

def render(plan: SchedulePlan, invocation: Invocation) -> dict[str, str]:
    return {f"{dag_id(plan, call)}.py": dag_text(plan, call, invocation) for call in plan.calls}


def dag_id(plan: SchedulePlan, call: Call) -> str:
    """Entity and cluster names are letters, digits and hyphens: valid in Airflow ids as they are."""
    return f"{DAG_PREFIX}.{plan.cluster}.{call.name}"


def dag_text(plan: SchedulePlan, call: Call, invocation: Invocation) -> str:
    schedule, schedule_doc = _schedule(call)
    argv = _argv(call, invocation)
    of = f"call '{call.name}'"
    emits = call.publishes and not plan.notifies_airflow
    poke, limit = _poke_seconds(call.cadence.frequency), _seconds(call.wait_limit)
    imports = ["DAG", "BaseSensorOperator", schedule.split("(")[0]]
    if call.inlet_assets or call.outlet_assets:
        imports.append("Asset")
    doc = [
        f"{dag_id(plan, call)}: the toolkit's {call.action} call{_entity(call)} on cluster '{plan.cluster}', "
        f"{call.cadence.describe()}.",
        "",
        f"Why this cadence: {call.why}.",
        f"Schedule: {schedule_doc}",
        "Runs (no shell" + ("; the logical date in UTC as yyyy-MM-ddTHH:mmZ):" if None in argv else "):"),
        *_wrap(_display(argv, of), "    ", " "),
        f"Exit codes: 0 success; 4 skipped; 3 (waiting{', --no-wait' if call.action in WAITING_ACTIONS else ''}) and "
        f"5 (blocked) reschedule the task every {poke} s until {call.wait_limit} after its start, then it fails; "
        "1 and 2 fail. No Airflow retries: the toolkit retries by the entity's policy.",
        f"Assets: {_assets_doc(call, plan, emits)}",
        "catchup=False: a missed instance is caught up by the toolkit (the entrypoint's --from/--to), not by "
        "Airflow replaying every firing since start_date.",
    ]
    lines = [
        f"# {cluster_mark(plan.cluster)}. Do not edit: change the entities and regenerate",
        "# (`toolkit schedule ... --format airflow --out DIR --check` fails while this is stale).",
        '"""' + _docstring("\n".join(_wrap_prose(doc))) + '\n"""',
        "",
        "from __future__ import annotations",
        "",
        "import os",
        "import subprocess",
        "from collections.abc import Callable",
        "from datetime import datetime, timezone",
        "from typing import Any",
        "",
        f"from airflow.sdk import {', '.join(sorted(imports))}",
        "from airflow.sdk.exceptions import AirflowFailException, AirflowSkipException",
        "",
        "# What a call's environment adds to the worker's (toolkit schedule --python).",
        f"ENVIRONMENT = {_environment(invocation, of)}",
        "",
        "",
        TASK_CODE.rstrip("\n"),
        "",
        "",
        "def command(logical_date: datetime) -> list[str]:",
        '    """The call for a run\'s logical date."""',
        "    return [",
        *_wrap(_code(argv, of), " " * 8, ", ", trailing=","),
        "    ]",
        "",
        "",
        "with DAG(",
        f"    dag_id={_python(dag_id(plan, call), of)},",
        f"    description={_python(call.why, of)},",
        "    doc_md=__doc__,",
        f"    schedule={schedule},",
        *_dates(call),
        "    catchup=False,",
        f"    max_active_runs={call.concurrency},",
        f"    tags=[{', '.join(_python(tag, of) for tag in ('feed-toolkit', plan.cluster, call.action))}],",
        ") as dag:",
        "    ToolkitCall(",
        f"        task_id={_python(call.action, of)},",
        "        command=command,",
        f"        emit_events={emits},",
        "        retries=0,",
        "        mode='reschedule',",
        f"        poke_interval={poke},",
        f"        timeout={limit},",
        *_asset_list("inlets", call.inlet_assets, of),
        *_asset_list("outlets", call.outlet_assets, of),
        "    )",
    ]
    return "\n".join(lines) + "\n"


def _python(text: str, of: str) -> str:
    """`text` as a Python string literal."""
    return written(Word(text), Syntax.PYTHON, of=of)


def _environment(invocation: Invocation, of: str) -> str:
    """The dict's code: PYSPARK_PYTHON and PYSPARK_DRIVER_PYTHON, the toolkit's Python."""
    python = _python(invocation.python, of)
    items = (f"{_python(name, of)}: {python}" for name in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"))
    return "{" + ", ".join(items) + "}"


def _schedule(call: Call) -> tuple[str, str]:
    """The timetable's code and a sentence on how it meets the cadence."""
    cover = cron_cover(call.cadence)
    of = f"call '{call.name}'"
    code = f"CronTriggerTimetable({_python(cover.expression, of)}, timezone={_python(cover.timezone, of)})"
    if cover.exact:
        return code, f"cron '{cover.expression}' in {cover.timezone}: exactly the instances."
    return code, (f"cron cannot say {call.cadence.frequency} from there: it fires '{cover.expression}' in "
                  f"{cover.timezone}, and `toolkit call` skips (exit 4, the task skipped) the runs whose logical "
                  "date is no instance.")


def _argv(call: Call, invocation: Invocation) -> list[Word | None]:
    """The command, its paths' values in its words, None where the run's time goes."""
    argv: list[Word | None] = [invocation.resolved(word) for word in invocation.argv(call)]
    if call.action in WAITING_ACTIONS:
        argv.append(Word("--no-wait"))
    if call.time_option is None:
        return argv
    if call.cadence.anchor == CLOCK:  # a command of the clock (sla, ledger-rollup): the run's date as it is
        return [*argv, Word(call.time_option), None]
    wrapper: list[Word | None] = [invocation.resolved(word) for word in invocation.call_wrapper(call, "--time", "")]
    wrapper[-2] = None  # the run's logical date, after --time
    return [*wrapper, *argv]


def _code(argv: list[Word | None], of: str) -> list[str]:
    return ["stamp(logical_date)" if word is None else written(word, Syntax.PYTHON, of=of) for word in argv]


def _display(argv: list[Word | None], of: str) -> list[str]:
    return ["<logical date>" if word is None else written(word, Syntax.SH, of=of) for word in argv]


def _dates(call: Call) -> list[str]:
    cadence = call.cadence
    lines = []
    if cadence.anchor != CLOCK:
        lines.append(f"    start_date={_datetime(cadence.anchor)},  # the first instance")
    if cadence.end is not None:
        lines.append(f"    # Airflow's end_date is inclusive, the validity end {format_timestamp(cadence.end)} is not.")
        lines.append(f"    end_date={_datetime(cadence.end - timedelta(minutes=1))},")
    return lines


def _datetime(instant: datetime) -> str:
    return f"datetime({instant.year}, {instant.month}, {instant.day}, {instant.hour}, {instant.minute}, " \
           "tzinfo=timezone.utc)"


def _asset_list(keyword: str, assets: tuple[FeedAsset, ...], of: str) -> list[str]:
    """`inlets=[...]` on one line, or one asset a line when that is too long."""
    items = [f"Asset(name={_python(a.name, of)}, uri={_python(a.uri, of)})" for a in assets]
    line = f"        {keyword}=[{', '.join(items)}],"
    if len(line) <= _WIDTH:
        return [line]
    return [f"        {keyword}=[", *(f"            {item}," for item in items), "        ],"]


def _assets_doc(call: Call, plan: SchedulePlan, emits: bool) -> str:
    reads = ", ".join(a.name for a in call.inlet_assets) or "none"
    writes = ", ".join(a.name for a in call.outlet_assets) or "none"
    if not call.outlet_assets:
        events = ""
    elif emits:
        events = " (an asset event per outlet on each success)"
    elif call.publishes:
        events = (f" (no event from this task: `toolkit trigger` posts the ledger's events, cluster '{plan.cluster}' "
                  "has trigger.notify: airflow)")
    else:
        events = f" (no event from this task: a {call.action} success is no new data)"
    return f"reads {reads}; writes {writes}{events}."


def _entity(call: Call) -> str:
    return f" for {call.entity.kind.value} '{call.entity.name}'" if call.entity is not None else ""


def _poke_seconds(frequency: Frequency) -> int:
    return min(LONGEST_POKE_SECONDS, max(SHORTEST_POKE_SECONDS, frequency.approx_minutes() * 60))


def _seconds(amount: Frequency) -> int:
    """A timeout in seconds, months as 31 days (Frequency.approx_minutes): never shorter than the toolkit's."""
    return amount.approx_minutes() * 60


def _docstring(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _wrap(tokens: list[str], indent: str, separator: str, trailing: str = "") -> list[str]:
    """Tokens joined by `separator` on lines of at most _WIDTH characters (a longer token gets its own line)."""
    lines, line = [], ""
    for token in tokens:
        candidate = f"{line}{separator}{token}" if line else token
        if line and len(indent) + len(candidate) + len(trailing) > _WIDTH:
            lines.append(f"{indent}{line}{trailing}")
            line = token
        else:
            line = candidate
    if line:
        lines.append(f"{indent}{line}{trailing}")
    return lines


def _wrap_prose(paragraphs: list[str]) -> list[str]:
    out = []
    for paragraph in paragraphs:
        if paragraph.startswith("    ") or len(paragraph) <= _WIDTH:
            out.append(paragraph)
        else:
            wrapped = _wrap(paragraph.split(" "), "", " ")
            out.extend([wrapped[0], *(f"  {line}" for line in wrapped[1:])])
    return out
