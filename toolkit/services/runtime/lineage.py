"""The lineage of an entrypoint call (toolkit/services/openlineage/), with the parent run a scheduler passed to
spark-submit as `spark.openlineage.parent*` properties (Airflow's OpenLineage provider does); and what the
actions share to report their runs: `watched` (START, then FAIL or ABORT when the body raises) and the
fingerprint an instance's dataset event recorded."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.locks import LockLostError
from toolkit.core.ledger.records import EVICTED
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import ToolkitError
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.openlineage.parent import parent_from_conf
from toolkit.services.openlineage.run import Lineage, RunLineage
from toolkit.services.runtime.status import STATUS_OF_EXIT, StatusLine

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The exits that end a run without a failure: it comes again (3), had nothing to do (4), or was kept off (5).
_NOT_FAILED = (3, 4, 5)


def report_lineage(lineage: Lineage, status: StatusLine) -> None:
    """Close the call's lineage; the status line counts the events the backend did not take (`lineage_unsent`)
    when lineage is on."""
    unsent = lineage.close()
    if unsent is not None:
        status.add(lineage_unsent=unsent)


def open_lineage(fs: FileSystem, cluster: Cluster, run_id: str, spark: SparkSession | None) -> Lineage:
    """The call's lineage, under the parent run a scheduler passed to spark-submit (`spark.openlineage.parent*`),
    read from the session's settings, else from the launcher's when no SparkContext was started."""
    if spark is not None:
        conf = {key: value for key, value in spark.sparkContext.getConf().getAll()
                if key.startswith("spark.openlineage.")}
    else:
        from toolkit.services.runtime.launcher_conf import launcher_conf

        conf = launcher_conf("spark.openlineage.")
    return Lineage.open(fs, cluster, run_id, parent_from_conf(conf))


def failure(err: BaseException) -> str:
    """An error as a run's record and its FAIL event state it: a toolkit error's message, else its type too."""
    return str(err) if isinstance(err, ToolkitError) else f"{type(err).__name__}: {err}"


@contextmanager
def watched(run: RunLineage, inputs: Sequence[DatasetUse] = (), outputs: Sequence[DatasetUse] = ()) -> Iterator[None]:
    """START with `inputs` and the `outputs` to be written, then the body. A body that raises ends the run: ABORT
    when it lost its lease (KILLED) or stops without failing (WAITING, SKIPPED, BLOCKED: exits 3 to 5), else FAIL
    with the error. A body that returns is the caller's to complete, with what it wrote."""
    run.start(inputs, outputs)
    try:
        yield
    except LockLostError as lost:
        run.abort(str(lost), inputs)
        raise
    except ToolkitError as err:
        if err.exit_code in _NOT_FAILED:
            run.abort(str(err), inputs, status=STATUS_OF_EXIT[err.exit_code])
        else:
            run.fail(str(err), inputs)
        raise
    except BaseException as err:
        run.fail(failure(err), inputs)
        raise


def recorded_fingerprint(fs: FileSystem, feed: Feed, cluster: Cluster, t: datetime) -> Fingerprint | None:
    """The fingerprint of the instance `t` of `feed` on `cluster` as its newest dataset event recorded it; None
    when none did, it was evicted since, or the cluster's ledger cannot be read (lineage never fails an action)."""
    try:
        events = Ledger.of(fs, cluster).events(feed.name, t)
    except (ToolkitError, OSError) as err:
        print(f"lineage: the events of {feed.name} {format_timestamp(t)} on cluster '{cluster.name}' could not be "
              f"read: {err}", file=sys.stderr, flush=True)
        return None
    return events[-1].fingerprint if events and events[-1].kind != EVICTED else None
