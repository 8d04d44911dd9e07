"""What a workflow is given: the `ctx` of `run(spark, ctx)` and the `${name}` variables of a SQL workflow.

- `inputs[name]`: the paths of a file input's window (oldest first; a missing optional input is left out), or
  a `TableInput` (database, table, partitions and the partition filter);
- `outputs[name]`: the staging path a file output is written to (the runner publishes it), or a `TableOutput`;
- `properties`: the cluster's properties, then the process's (which win), `${...}` EL in values evaluated
  for the instance; plus Falcon's names, so migrated workflows keep working: one property per input name
  (its comma-separated paths), one per output name (its path), `nominalTime` (yyyy-MM-dd-HH-mm),
  `falcon_input_database` / `_table` / `_partition_filter_hive` / `_pig` / `_java` for a table input and
  `falcon_output_database` / `_table` / `_dataout_partitions` for a table output (the first of each);
- `batch`: for a batch consumer's run, the batch it consumes (`BatchContext`), else None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from zoneinfo import ZoneInfo

from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.instances.plan import InstancePlan
from toolkit.errors import UsageError

_EL = re.compile(r"\$\{([^}]*)\}")
_CALL = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*\(")


@dataclass(frozen=True)
class TableInput:
    database: str
    table: str
    partitions: tuple[Mapping[str, str], ...]

    def partition_filter(self, dialect: str) -> str:
        """The partitions as a filter: `hive` (ds='x'), `pig` (ds=='x'), `java` (ds="x"), OR-ed."""
        equals, quote = {"hive": ("=", "'"), "pig": ("==", "'"), "java": ("=", '"')}[dialect]
        terms = [" and ".join(f"{key}{equals}{quote}{value}{quote}" for key, value in spec.items())
                 for spec in self.partitions]
        return " or ".join(f"({term})" for term in terms) if terms else "(false)"


@dataclass(frozen=True)
class TableOutput:
    database: str
    table: str
    partition: Mapping[str, str]

    @property
    def partition_clause(self) -> str:
        """Falcon's `falcon_output_dataout_partitions`: `ds='2026-11-21'`, for `PARTITION (...)`."""
        return ",".join(f"{key}='{value}'" for key, value in self.partition.items())


@dataclass(frozen=True)
class BatchInstance:
    """One input instance of a batch: its instance time, the event that published it (the newest of the batch's
    events of it) and its path (or `db.table/partition`), as `inputs[name]` lists it."""

    time: datetime
    event_id: str
    location: str


@dataclass(frozen=True)
class BatchContext:
    """The batch a batch consumer's run consumes: plan `seq` of its queue, every event id of it (evictions too),
    per input name the instances listed in `inputs[name]` (oldest first), and per output name the instance as
    published before this run (its path, or its partition as a `TableOutput`; None when there is none), which
    the run's output replaces: a workflow that accumulates reads it and merges."""

    seq: int
    event_ids: tuple[str, ...]
    instances: Mapping[str, tuple[BatchInstance, ...]]
    published: Mapping[str, str | TableOutput | None]

    def __post_init__(self) -> None:
        for name in ("instances", "published"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


@dataclass(frozen=True)
class WorkflowContext:
    process: str
    cluster: str
    nominal_time: datetime
    run_id: str
    attempt: int
    inputs: Mapping[str, tuple[str, ...] | TableInput]
    outputs: Mapping[str, str | TableOutput]
    properties: Mapping[str, str] = field(default_factory=dict)
    batch: BatchContext | None = None

    def __post_init__(self) -> None:
        for name in ("inputs", "outputs", "properties"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def variables(self) -> dict[str, str]:
        """The `${name}` values of a SQL workflow: properties, then each file input as one Hadoop glob of its
        window's paths (`/data/x/2026/11/20/{00,01}`), each file output's path; table ones by their table."""
        values = dict(self.properties)
        for name, value in self.inputs.items():
            values[name] = path_glob(value) if isinstance(value, tuple) else f"{value.database}.{value.table}"
        for name, target in self.outputs.items():
            values[name] = target if isinstance(target, str) else f"{target.database}.{target.table}"
        return values


def path_glob(paths: Sequence[str]) -> str:
    """One Hadoop glob for many paths: their common folder, then the rest in braces (Hadoop expands braces
    holding '/' into several patterns, so a window across days works); '' for none."""
    if len(paths) <= 1:
        return paths[0] if paths else ""
    folders = [path.rsplit("/", 1)[0] for path in paths]
    common = folders[0]
    while not all(path.startswith(common + "/") for path in paths):
        common = common.rsplit("/", 1)[0]
    return common + "/{" + ",".join(path[len(common) + 1:] for path in paths) + "}"


def evaluate_properties(properties: Mapping[str, str], nominal: datetime, zone: ZoneInfo,
                        owner: str) -> dict[str, str]:
    """Property values with `${...}` EL evaluated for the instance (`${now(0,0)}` -> 2026-11-21T10:00Z); a
    value whose `${...}` is not EL (a Spark or Hadoop variable) is kept as written."""
    ctx = ELContext(nominal=nominal, zone=zone)
    evaluated = {}
    for name, value in properties.items():
        def substitute(match: re.Match[str], name: str = name) -> str:
            try:
                expression = parse_expression(match.group(1))
            except UsageError as err:
                if _CALL.match(match.group(1)):  # meant as EL (a function call): say what is wrong
                    raise UsageError(f"The property '{name}' of {owner} cannot be evaluated: {err}") from None
                return match.group(0)
            try:
                result = expression.evaluate(ctx)
            except UsageError as err:
                raise UsageError(f"The property '{name}' of {owner} cannot be evaluated: {err}") from None
            return format_timestamp(result) if isinstance(result, datetime) else str(result)

        evaluated[name] = _EL.sub(substitute, str(value))
    return evaluated


def falcon_properties(inputs: Mapping[str, tuple[str, ...] | TableInput],
                      outputs: Mapping[str, str | TableOutput], nominal: datetime) -> dict[str, str]:
    names: dict[str, str] = {"nominalTime": f"{nominal:%Y-%m-%d-%H-%M}"}
    for name, value in inputs.items():
        if isinstance(value, tuple):
            names[name] = ",".join(value)
        else:
            names[name] = f"{value.database}.{value.table}"
            names.setdefault("falcon_input_database", value.database)
            names.setdefault("falcon_input_table", value.table)
            for dialect in ("hive", "pig", "java"):
                names.setdefault(f"falcon_input_partition_filter_{dialect}", value.partition_filter(dialect))
    for name, target in outputs.items():
        if isinstance(target, str):
            names[name] = target
        else:
            names[name] = f"{target.database}.{target.table}"
            names.setdefault("falcon_output_database", target.database)
            names.setdefault("falcon_output_table", target.table)
            names.setdefault("falcon_output_dataout_partitions", target.partition_clause)
    return names


def workflow_inputs(plan: InstancePlan) -> dict[str, tuple[str, ...] | TableInput]:
    """Input name -> the available instances' paths, or a table input's partitions (a missing optional input is
    left out): the `inputs` of the workflow's context."""
    given: dict[str, tuple[str, ...] | TableInput] = {}
    for item in plan.inputs:
        available = [state for state in item.checked_states if state.available]
        if item.optional and not available:
            continue
        if item.is_table:
            table = item.where.table
            assert table is not None
            given[item.name] = TableInput(table.database, table.table,
                                          tuple(state.partition or {} for state in available))
        else:
            given[item.name] = tuple(state.location for state in available)
    return given
