"""Falcon's launcher properties of a feed or a process, as the Spark settings of every action of that entity.

Falcon handed `queueName` to its jobs as `mapred.job.queue.name` and `jobPriority` as
`oozie.launcher.mapred.job.priority`. On Spark they are `spark.yarn.queue` and `spark.yarn.priority` (an
integer). Hadoop MapReduce turns its priority names into YARN application priorities in
`JobConf.getJobPriorityAsInteger`: VERY_HIGH 5, HIGH 4, NORMAL 3, LOW 2, VERY_LOW 1, DEFAULT 0, and takes a
whole number as it is; the same mapping is used here. Parsed in one place for the actions, the `spark` engine's
child spark-submit and the linter (FD025, PR019); no Spark is imported.
"""

from __future__ import annotations

from toolkit.core.entities.model import Entity
from toolkit.errors import UsageError

QUEUE_NAME = "queueName"
JOB_PRIORITY = "jobPriority"
YARN_QUEUE = "spark.yarn.queue"
YARN_PRIORITY = "spark.yarn.priority"

# org.apache.hadoop.mapred.JobConf.convertPriorityToInteger
HADOOP_PRIORITIES = {"VERY_HIGH": 5, "HIGH": 4, "NORMAL": 3, "LOW": 2, "VERY_LOW": 1, "DEFAULT": 0}
PRIORITY_HELP = (f"give one of Hadoop's job priorities {', '.join(HADOOP_PRIORITIES)}, or a YARN application "
                 "priority (a whole number, 0 or more).")
QUEUE_HELP = "give a YARN queue name, its levels separated by single dots (e.g. root.etl)."


def yarn_priority(text: str) -> int | None:
    """The YARN application priority of a Hadoop job priority, or None when Hadoop would not take it."""
    if text in HADOOP_PRIORITIES:
        return HADOOP_PRIORITIES[text]
    return int(text) if text.isascii() and text.isdigit() else None


def queue_problem(queue: str) -> str | None:
    """Why YARN would refuse `queue`, or None. YARN's schedulers split a queue path on dots and refuse an
    empty level, a leading or trailing dot, and blanks around a level (FairQueuePlacementUtils,
    QueueManager.isQueueNameValid)."""
    if not queue.strip():
        return "is empty"
    if queue.startswith(".") or queue.endswith("."):
        return "starts or ends with a dot"
    levels = queue.split(".")
    if any(not level for level in levels):
        return "has an empty level between two dots"
    if any(level != level.strip() for level in levels):
        return "has a level with blanks around it"
    return None


def launcher_problems(entity: Entity) -> dict[str, str]:
    """Property name -> what is wrong with its value and what to write instead (empty when both are fine)."""
    problems = {}
    queue = entity.properties.get(QUEUE_NAME)
    if queue is not None and (reason := queue_problem(queue)) is not None:
        problems[QUEUE_NAME] = f"is {queue!r}, which {reason}: {QUEUE_HELP}"
    priority = entity.properties.get(JOB_PRIORITY)
    if priority is not None and yarn_priority(priority) is None:
        problems[JOB_PRIORITY] = f"is {priority!r}: {PRIORITY_HELP}"
    return problems


def launcher_confs(entity: Entity) -> dict[str, str]:
    """The Spark settings of the entity's `queueName` and `jobPriority` (only those it has); UsageError
    (exit 2, one sentence naming the entity, the property and the value) for a value YARN would refuse."""
    problems = launcher_problems(entity)
    if problems:
        name, problem = next(iter(problems.items()))
        raise UsageError(f"The property {name!r} of {entity.kind.value} '{entity.name}' {problem}")
    confs = {}
    if QUEUE_NAME in entity.properties:
        confs[YARN_QUEUE] = entity.properties[QUEUE_NAME]
    if JOB_PRIORITY in entity.properties:
        confs[YARN_PRIORITY] = str(yarn_priority(entity.properties[JOB_PRIORITY]))
    return confs
