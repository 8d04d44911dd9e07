"""The spark-submit command line of a process of engine `spark`, as Falcon's SparkProcessWorkflowBuilder built
its Oozie spark action: pure, so that every choice is tested without Spark.

- arguments: for each input in the process's order, a file input's instance paths joined by commas (a table
  input: its Hive partition filter, table, database); then for each output, a file output's path (the staging
  path the runner publishes afterwards; a table output: its partitions, table, database); then
  spark-attributes' `args`, with `${name}` of a workflow property replaced as Oozie did;
- `--master`: spark-attributes.master, else the cluster's `spark` interface, else the entrypoint's own master;
  Falcon's `yarn-client` / `yarn-cluster` (gone since Spark 2) become `--master yarn --deploy-mode ...`;
- the first entry of spark-attributes.jar is the application; the others and workflow.lib's go to `--jars`
  or `--py-files`, merged with those that spark-opts gives.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.model import Cluster, Process, SparkAttributes
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.context import TableInput, WorkflowContext

PYTHON_SUFFIXES = (".py", ".zip", ".egg")
_FALCON_YARN = {"yarn-client": "client", "yarn-cluster": "cluster"}
_MODES = ("client", "cluster")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


@dataclass(frozen=True)
class SparkApplication:
    """The application of an engine-spark process, resolved: `name` as written (for messages), `resource` what
    spark-submit runs (a URI, or a local path in the config repo), and the extra files it ships."""

    name: str
    resource: str
    jars: tuple[str, ...] = ()
    py_files: tuple[str, ...] = ()

    @property
    def is_python(self) -> bool:
        return self.resource.lower().endswith(".py")


def application_entries(process: Process) -> tuple[list[str], list[str]]:
    """spark-attributes.jar's comma-separated entries (the first is the application), and workflow.lib's."""
    jar = process.spark_attributes.jar if process.spark_attributes is not None else None
    return _entries(jar), _entries(process.workflow.lib)


def _entries(value: str | None) -> list[str]:
    return [entry.strip() for entry in (value or "").split(",") if entry.strip()]


def ships_as_python(path: str) -> bool:
    """Whether an extra file goes to --py-files (Python sources and archives) rather than --jars."""
    return path.lower().endswith(PYTHON_SUFFIXES)


def application_arguments(process: Process, ctx: WorkflowContext) -> list[str]:
    """Falcon's argument order; a missing optional input is one empty argument, so the others keep their place."""
    arguments: list[str] = []
    for item in process.inputs:
        value = ctx.inputs.get(item.name)
        if isinstance(value, TableInput):
            arguments += [value.partition_filter("hive"), value.table, value.database]
        else:
            arguments.append(",".join(value or ()))
    for output in process.outputs:
        target = ctx.outputs[output.name]
        if isinstance(target, str):
            arguments.append(target)
        else:
            arguments += [target.partition_clause, target.table, target.database]
    attributes = process.spark_attributes
    return arguments + [_with_properties(arg, ctx.properties) for arg in (attributes.args if attributes else ())]


def _with_properties(arg: str, properties: Mapping[str, str]) -> str:
    """`${name}` of a workflow property (Falcon's input and output names, nominalTime, the cluster's and the
    process's properties) replaced, as Oozie resolved a spark action's args; any other `${...}` is kept."""
    return _VARIABLE.sub(lambda match: properties.get(match.group(1), match.group(0)), arg)


def master_and_mode(process: Process, cluster: Cluster, session_master: str | None) -> tuple[str, str | None]:
    """(--master, --deploy-mode or None)."""
    attributes = process.spark_attributes or SparkAttributes()
    spark_interface = cluster.interfaces.get("spark")
    master = attributes.master or (spark_interface.endpoint if spark_interface is not None else None) \
        or session_master
    if not master:
        raise UsageError(f"The process '{process.name}' has no Spark master: set spark-attributes.master, or the "
                         f"spark interface of cluster '{cluster.name}'.")
    mode = attributes.mode
    if master in _FALCON_YARN:
        master, mode = "yarn", mode or _FALCON_YARN[master]
    if mode is not None and mode not in _MODES:
        raise UsageError(f"The spark-attributes.mode {mode!r} of process '{process.name}' is no deploy mode: give "
                         "client or cluster.")
    return master, mode


def submit_confs(cluster: Cluster, process: Process) -> dict[str, str]:
    """The `--conf`s every engine-spark application of this cluster gets: the cluster's `spark.*` properties (as
    the entrypoints' own sessions get them), its metastore, for an application with Hive support, and the
    process's `queueName` and `jobPriority` (which win, as on every session of the process's actions)."""
    confs = {name: str(value) for name, value in cluster.properties.items() if name.startswith("spark.")}
    if cluster.registry_endpoint:
        confs.setdefault("spark.hadoop.hive.metastore.uris", cluster.registry_endpoint)
    return {**confs, **launcher_confs(process)}


def submit_command(spark_submit: str, process: Process, cluster: Cluster, app: SparkApplication,
                   session_master: str | None, local_ip: str | None) -> list[str]:
    """spark-submit, its options and the application, as an argument list (never a shell line); an instance's
    `application_arguments` follow. spark-opts come after the toolkit's options, so they win."""
    attributes = process.spark_attributes or SparkAttributes()
    master, mode = master_and_mode(process, cluster, session_master)
    confs = submit_confs(cluster, process)
    if master.startswith("spark://") and mode == "cluster":
        if app.is_python:
            raise UsageError(f"The Python application {app.name} of process '{process.name}' cannot run in deploy "
                             f"mode cluster on the standalone master {master} (Spark does not support it): use "
                             "mode client, or YARN or Kubernetes.")
        confs["spark.standalone.submit.waitAppCompletion"] = "true"  # else spark-submit returns at submission
    if local_ip and mode != "cluster":  # the driver runs here: keep it on loopback as the entrypoint's session
        confs.update({"spark.driver.host": local_ip, "spark.driver.bindAddress": local_ip})
    options, jars, py_files = _split_opts(attributes.spark_opts, process.name)
    command = [spark_submit, "--master", master]
    command += ["--deploy-mode", mode] if mode else []
    command += ["--name", attributes.name or process.name]
    command += ["--class", attributes.class_name] if attributes.class_name else []
    for flag, files in (("--jars", [*app.jars, *jars]), ("--py-files", [*app.py_files, *py_files])):
        command += [flag, ",".join(files)] if files else []
    for name, value in confs.items():
        command += ["--conf", f"{name}={value}"]
    return [*command, *options, app.resource]


def _split_opts(spark_opts: str | None, process: str) -> tuple[list[str], list[str], list[str]]:
    """spark-opts split like a shell, without its --jars and --py-files (merged with the application's: a
    second --jars would replace the first)."""
    try:
        tokens = shlex.split(spark_opts or "")
    except ValueError as err:
        raise UsageError(f"The spark-attributes.spark-opts of process '{process}' cannot be split into options: "
                         f"{err}; quote them as a shell would.") from None
    options: list[str] = []
    files: Mapping[str, list[str]] = {"--jars": [], "--py-files": []}
    i = 0
    while i < len(tokens):
        flag, _, value = tokens[i].partition("=")
        if flag in files and (value or i + 1 < len(tokens)):
            if not value:
                i += 1
                value = tokens[i]
            files[flag].extend(entry for entry in value.split(",") if entry)
        else:
            options.append(tokens[i])
        i += 1
    return options, files["--jars"], files["--py-files"]
