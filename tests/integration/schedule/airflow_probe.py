"""Run by Airflow's own Python (tests/airflow_venv.py), not by pytest: loads generated DAG folders into a real
Airflow and prints one JSON object on the last line of stdout.

    probe.py load DIR...            every folder's DagBag: import errors, DAGs, timetables, first runs, tasks
    probe.py poke FILE DAG TIME     a DAG file's task poked once per exit code of the fake toolkit (FAKE_EXIT)
    probe.py events DAG TIME...     dag.test() of each DAG of AIRFLOW__CORE__DAGS_FOLDER, then the asset events
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from typing import Any

RUNS = 12  # the first runs from start_date each DAG's timetable gives
EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)  # where the clock's cadences (no start_date) are probed from


def stamp(instant: Any) -> str | None:
    return None if instant is None else instant.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


def first_runs(dag: Any) -> list[str]:
    """The logical dates Airflow's scheduler would give, as with catchup (every one from start_date)."""
    import pendulum
    from airflow.serialization.encoders import coerce_to_core_timetable
    from airflow.timetables.base import TimeRestriction

    timetable = coerce_to_core_timetable(dag.timetable)
    latest = pendulum.instance(dag.end_date) if dag.end_date else None
    restriction = TimeRestriction(earliest=pendulum.instance(dag.start_date or EPOCH), latest=latest, catchup=True)
    runs: list[str] = []
    last = None
    while len(runs) < RUNS:
        info = timetable.next_dagrun_info(last_automated_data_interval=last, restriction=restriction)
        if info is None:
            break
        runs.append(stamp(info.logical_date) or "")
        last = info.data_interval
    return runs


def timetable_json(dag: Any) -> dict[str, Any]:
    timetable = dag.timetable
    return {"type": type(timetable).__name__, "expression": getattr(timetable, "expression", None),
            "timezone": str(getattr(timetable, "timezone", "")) or None,
            "delta": str(getattr(timetable, "delta", "")) or None}


def task_json(task: Any) -> dict[str, Any]:
    return {"task_id": task.task_id, "type": type(task).__name__, "retries": task.retries, "mode": task.mode,
            "poke_interval": task.poke_interval, "timeout": task.timeout, "emit_events": task.emit_events,
            "inlets": [{"name": a.name, "uri": a.uri} for a in task.inlets],
            "outlets": [{"name": a.name, "uri": a.uri} for a in task.outlets]}


def load(folders: list[str]) -> dict[str, Any]:
    from airflow.dag_processing.dagbag import DagBag

    result: dict[str, Any] = {}
    for folder in folders:
        bag = DagBag(folder)
        result[folder] = {"import_errors": bag.import_errors, "dags": {
            dag_id: {"timetable": timetable_json(dag), "start_date": stamp(dag.start_date),
                     "end_date": stamp(dag.end_date), "catchup": dag.catchup,
                     "max_active_runs": dag.max_active_runs, "runs": first_runs(dag),
                     "file": os.path.basename(dag.fileloc), "tasks": [task_json(t) for t in dag.tasks]}
            for dag_id, dag in sorted(bag.dags.items())}}
    result["delta_trigger_catchup_false"] = delta_trigger_first_run()
    return result


def delta_trigger_first_run() -> dict[str, str | None]:
    """Where Airflow's DeltaTriggerTimetable puts the first run of a minutes(7) DAG anchored on 2026-01-01T00:03Z
    without catchup (why the generated DAGs never use it)."""
    import pendulum
    from airflow.timetables.base import TimeRestriction
    from airflow.timetables.trigger import DeltaTriggerTimetable

    anchor = pendulum.datetime(2026, 1, 1, 0, 3, tz="UTC")
    info = DeltaTriggerTimetable(timedelta(minutes=7)).next_dagrun_info(
        last_automated_data_interval=None, restriction=TimeRestriction(earliest=anchor, latest=None, catchup=False))
    assert info is not None
    return {"anchor": stamp(anchor), "first": info.logical_date.astimezone(timezone.utc).isoformat()}


def poke(path: str, dag_id: str, time: str) -> dict[str, Any]:
    """The DAG file's own task, poked with the fake toolkit exiting each code: what Airflow would do with it."""
    from airflow.sdk.exceptions import AirflowFailException, AirflowSkipException

    spec = importlib.util.spec_from_file_location("generated_dag", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dag = next(v for v in vars(module).values() if getattr(v, "dag_id", None) == dag_id)
    task = dag.tasks[0]
    logical_date = datetime.fromisoformat(time)
    answers: dict[str, str] = {}
    for code in ("0", "1", "2", "3", "4", "5"):
        os.environ["FAKE_EXIT"] = code
        try:
            answers[code] = "done" if task.poke({"logical_date": logical_date}) is True else "reschedule"
        except AirflowSkipException:
            answers[code] = "skipped"
        except AirflowFailException:
            answers[code] = "failed"
    return {"answers": answers}


def events(dag_ids: list[str], time: str) -> dict[str, Any]:
    """Each DAG run once by dag.test() (in process, on the SQLite DB), then the asset events Airflow recorded."""
    from airflow.dag_processing.dagbag import DagBag
    from airflow.models.asset import AssetEvent, AssetModel, TaskOutletAssetReference
    from airflow.utils.session import create_session
    from sqlalchemy import select

    bag = DagBag(os.environ["AIRFLOW__CORE__DAGS_FOLDER"])
    states = {}
    for dag_id in dag_ids:
        run = bag.dags[dag_id].test(logical_date=datetime.fromisoformat(time))
        states[dag_id] = str(run.state)
    with create_session() as session:
        recorded = [event.asset.name for event in session.scalars(select(AssetEvent))]
        declared = sorted(f"{ref.dag_id}>{ref.asset.name}" for ref in session.scalars(select(TaskOutletAssetReference)))
        assets = sorted(asset.name for asset in session.scalars(select(AssetModel)))
    return {"states": states, "events": sorted(recorded), "outlet_references": declared, "assets": assets}


def main() -> None:
    mode, *rest = sys.argv[1:]
    if mode == "load":
        result = load(rest)
    elif mode == "poke":
        result = poke(*rest)
    else:
        result = events(rest[:-1], rest[-1])
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
