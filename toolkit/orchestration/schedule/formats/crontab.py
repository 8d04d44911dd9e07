"""A crontab: one block per time zone, each headed by its `CRON_TZ=` line (UTC included), each line a call.

An entrypoint's line runs `toolkit call`, which appends the nominal time the firing stands for (nominal.py); a
cadence cron cannot say exactly (minutes(7), hours(5), months(5)) fires on the finest cron that covers it, and
the line's comment says that `toolkit call` skips the firings between instances. `toolkit` commands (the
data-trigger sweep, the SLA check) are called as they are.

CRON_TZ is honoured by cronie (Red Hat, Fedora, Arch, SUSE); a cron that ignores it reads every line in the
system's zone, which must then be UTC for the UTC block (the Airflow and Oozie outputs carry their zones).

The lines run in cron's bare environment (PATH=/usr/bin:/bin, no virtualenv): the block sets PYSPARK_PYTHON and
PYSPARK_DRIVER_PYTHON to the Python of the toolkit's installation, and each line appends its output to its own log
file, `$LOGS/<call>.log`, moved to `<call>.log.1` (the one before dropped) once it holds LOG_BYTES. The whole text is
one block between `# BEGIN feed-toolkit <cluster>` and `# END feed-toolkit <cluster>`, which `toolkit schedule
--install-crontab` replaces in a user's crontab (orchestration/schedule/crontab_install.py).

Every word of a line, and every variable's value, is written by words.written: the paths as the block's variables
("$CONF_REPO"), every other value (a driver's jar, a cluster property, a name) quoted on its own, each `%` escaped
for cron, so that cron's /bin/sh runs nothing a definition says. A value that would end a line is refused: in a
word or variable here, and before planning for the definitions' values the comments hold (written_values.py)."""

from __future__ import annotations

from toolkit.orchestration.schedule.cadence import CLOCK
from toolkit.orchestration.schedule.calls import Call, SchedulePlan
from toolkit.orchestration.schedule.cron import CronCover, cron_cover
from toolkit.orchestration.schedule.files import cluster_mark
from toolkit.orchestration.schedule.invocation import Invocation
from toolkit.orchestration.schedule.words import HostPath, Syntax, Word, host, written

FILE = "crontab"


def render(plan: SchedulePlan, invocation: Invocation) -> dict[str, str]:
    return {FILE: crontab_text(plan, invocation)}


# The paths, set once at the top; cron exports them to each line's shell, which expands them.
_PATHS = (("TOOLKIT", "toolkit"), ("SPARK_SUBMIT", "spark_submit"), ("ENTRYPOINTS", "entrypoints"),
          ("CONF_REPO", "repo"), ("PYSPARK_PYTHON", "python"), ("PYSPARK_DRIVER_PYTHON", "python"), ("LOGS", "log_dir"))
_VARIABLES = {HostPath(field): name for name, field in _PATHS if field != "python"}  # the words' paths
LOG_BYTES = 10 * 1024 * 1024  # a call's log is moved aside (one generation kept) once it holds this much


def begin_marker(cluster: str) -> str:
    return f"# BEGIN feed-toolkit {cluster}"


def end_marker(cluster: str) -> str:
    return f"# END feed-toolkit {cluster}"


def crontab_text(plan: SchedulePlan, invocation: Invocation) -> str:
    blocks: dict[str, list[str]] = {}
    for call in plan.calls:
        cover = cron_cover(call.cadence)
        blocks.setdefault(cover.timezone, []).extend(_entry(call, cover, invocation))
    lines = [begin_marker(plan.cluster),
             f"# {cluster_mark(plan.cluster)}. Do not edit: change the entities and",
             "# regenerate (`toolkit schedule ... --out DIR --check` fails while this is stale).",
             "# Each entrypoint runs through `toolkit call`, which appends --time with the instance the firing stands",
             "# for; exit codes are the toolkit's (0 done, 1 failed, 2 bad call, 3 waiting, 4 skipped, 5 blocked).",
             "# Each line appends its output to $LOGS/<call>.log (kept to LOG_BYTES, one older file <call>.log.1).",
             "SHELL=/bin/sh",
             *(_variable(name, getattr(invocation, field)) for name, field in _PATHS),
             f"LOG_BYTES={LOG_BYTES}"]
    for zone in sorted(blocks, key=lambda z: (z != "UTC", z)):
        lines += ["", _variable("CRON_TZ", zone), *blocks[zone]]
    if not plan.calls:
        lines += ["", f"# Nothing to schedule: no process, feed or trigger of the repo is on cluster '{plan.cluster}'."]
    lines += ["", end_marker(plan.cluster)]
    return "\n".join(lines) + "\n"


def _variable(name: str, value: str) -> str:
    return f"{name}={written(Word(value), Syntax.CRON_VARIABLE, of=f'the crontab variable {name}')}"


def _entry(call: Call, cover: CronCover, invocation: Invocation) -> list[str]:
    comment = [f"# {call.name}, {call.cadence.describe()}: {call.why}."]
    argv = invocation.argv(call)
    if call.time_option is not None and call.cadence.anchor != CLOCK:  # each firing stands for an instance
        argv = [*invocation.call_wrapper(call, "--period", str(cover.period_minutes)), *argv]
        if not cover.exact:
            comment.append(f"# cron cannot say {call.cadence.frequency} from there: this line fires "
                           f"'{cover.expression}' and toolkit call skips (exit 4) the firings between instances.")
    of = f"call '{call.name}'"
    command = " ".join(written(word, Syntax.CRON, _VARIABLES, of=of) for word in argv)
    log = written(host(HostPath.LOG_DIR, f"/{call.name}.log"), Syntax.CRON, _VARIABLES, of=of)
    return [*comment, f"{cover.expression} {_logged(log, command)}"]


def _logged(log: str, command: str) -> str:
    """`command` with its output appended to its `log` (a shell word), the log moved aside first when it is full
    (plain sh)."""
    return (f'L={log}; mkdir -p "$LOGS"; [ -f "$L" ] && [ "$(wc -c < "$L")" -ge "$LOG_BYTES" ] && '
            f'mv -f "$L" "$L.1"; {command} >> "$L" 2>&1')
