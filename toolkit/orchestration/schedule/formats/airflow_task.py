"""The code every generated DAG file carries: the task that runs a toolkit call and maps its exit code to Airflow's
task states. It is text, not an import: a DAG folder must load in Airflow's own Python, where the toolkit is
usually not installed, and each file reads on its own (the DagBag test runs this text in a real Airflow).

A sensor in `mode="reschedule"` runs the call at each poke: 0 succeeds, 4 skips (AirflowSkipException), 3
(waiting for inputs, `--no-wait`) and 5 (blocked) answer False, so that Airflow frees the worker slot and pokes
again after `poke_interval` until the sensor's `timeout` (then AirflowSensorTimeout fails it); 1 and 2 fail without
retry (AirflowFailException). Airflow 3.3 also reschedules a plain task that raises AirflowRescheduleException, but
only a sensor measures its timeout from the first try across reschedules.

The call runs with the worker's environment plus the DAG file's ENVIRONMENT: PYSPARK_PYTHON and
PYSPARK_DRIVER_PYTHON, the Python of the toolkit's installation (a worker's environment has none, and spark-submit
would fall back to a system Python without the toolkit).

On success Airflow posts one asset event per outlet (the task SDK sends the running task's `outlets`). A call whose
events come from elsewhere (the notifier posts the ledger's, or a success is no new data) clears its running copy's
outlets before returning: the DAG keeps declaring them, so Airflow still shows who writes the asset."""

from __future__ import annotations

TASK_CODE = '''\
DONE, WAITING, SKIPPED, BLOCKED = 0, 3, 4, 5  # the toolkit's exit codes (docs/exit-codes.md); others fail


def outcome(code: int) -> bool:
    """A call's exit code as the sensor's answer: True done, False call again later (the task is rescheduled)."""
    if code == DONE:
        return True
    if code in (WAITING, BLOCKED):
        return False
    if code == SKIPPED:
        raise AirflowSkipException("The toolkit skipped this instance (exit 4): not an instance of the cadence, "
                                   "outside validity, suspended or already succeeded; see the log's last line.")
    raise AirflowFailException(f"The toolkit call failed (exit {code}): see the log's last line (its JSON status). "
                               "No Airflow retry: the toolkit retried by the entity's policy.")


def stamp(instant: datetime) -> str:
    """The toolkit's time format, in UTC: yyyy-MM-ddTHH:mmZ."""
    return instant.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


class ToolkitCall(BaseSensorOperator):
    """Runs `command(logical date)` as a subprocess (no shell) at each poke; its exit code is the answer."""

    def __init__(self, *, command: Callable[[datetime], list[str]], emit_events: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.command = command
        self.emit_events = emit_events

    def poke(self, context: Any) -> bool:
        instant = context.get("logical_date") or context["dag_run"].run_after  # a manual run may have none
        argv = self.command(instant)
        self.log.info("Running %s", subprocess.list2cmdline(argv))
        return outcome(subprocess.run(argv, check=False, env={**os.environ, **ENVIRONMENT}).returncode)

    def execute(self, context: Any) -> Any:
        result = super().execute(context)
        if not self.emit_events:
            self.outlets = []  # this running copy only: Airflow posts no event, the DAG still declares them
        return result
'''
