"""The parent a scheduler passes to a run: Airflow's OpenLineage provider (and its macros `lineage_job_namespace`,
`lineage_job_name`, `lineage_run_id`, `lineage_root_*`) gives spark-submit the Spark properties below, as
OpenLineage's Spark integration reads them. A partial or malformed parent is ignored, with a line on stderr:
lineage never fails an action."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Mapping

from toolkit.services.openlineage.facts import ParentRun

PARENT = ("spark.openlineage.parentJobNamespace", "spark.openlineage.parentJobName", "spark.openlineage.parentRunId")
ROOT = ("spark.openlineage.rootParentJobNamespace", "spark.openlineage.rootParentJobName",
        "spark.openlineage.rootParentRunId")


def parent_from_conf(conf: Mapping[str, str]) -> ParentRun | None:
    parent = _run(conf, PARENT)
    if parent is None:
        return None
    root = _run(conf, ROOT)
    return ParentRun(parent.namespace, parent.name, parent.run_id, root)


def _run(conf: Mapping[str, str], keys: tuple[str, str, str]) -> ParentRun | None:
    values = [conf.get(key, "").strip() for key in keys]
    if not any(values):
        return None
    namespace, name, run_id = values
    if not namespace or not name or not _is_uuid(run_id):
        print(f"lineage: the parent run given by {', '.join(keys)} is incomplete or its run id is not a UUID "
              f"({run_id!r}): the events go without it.", file=sys.stderr, flush=True)
        return None
    return ParentRun(namespace, name, run_id)


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True
