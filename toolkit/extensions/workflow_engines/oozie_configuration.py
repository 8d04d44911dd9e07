"""The job configuration an `oozie` or `pig` process's workflow job is submitted with: what Falcon's coordinator
and its process workflow passed to the user workflow (ProcessExecutionCoordinatorBuilder,
OozieOrchestrationWorkflowBuilder.createDefaultConfiguration, OozieEntityBuilder.createAppProperties,
ProcessExecutionWorkflowBuilder), for one instance. Pure, so that every name is tested without a server.

- `oozie.wf.application.path` (the workflow application) and `user.name`;
- the cluster's: `nameNode` (its write endpoint), `jobTracker` (its execute endpoint), `colo.name`,
  `falcon.libpath` (its working location's `lib`), `oozie.use.system.libpath` true; `workflowEngineUrl`;
- the instance's: `entityType` PROCESS, `entityName`, `cluster`, `nominalTime` (yyyy-MM-dd-HH-mm),
  `falconDataOperation` GENERATE, `userWorkflowName` (workflow.name, else `<process>-workflow`),
  `userWorkflowVersion`, `userWorkflowEngine`, `queueName` default and `jobPriority` NORMAL (the process's
  properties may set them), `shouldRecord` (whether the process has late inputs);
- per file input its name with the window's paths joined by commas (an absent optional input: empty), per file
  output its name with the staging path the workflow writes to (the runner publishes it); the table names of the
  workflow context (`falcon_input_database`...);
- `falconInputFeeds`, `falconInputNames`, `falconInPaths` and `falconInputFeedStorageTypes` joined by `#`;
  `feedNames`, `feedInstanceNames` and `feedInstancePaths` joined by `,` (`NONE` without inputs or outputs);
- the cluster's properties, then the process's (EL evaluated), which win, except `oozie.client.*` (the client's
  own settings, oozie_settings.py); `oozie.libpath` from workflow.lib when given.
"""

from __future__ import annotations

from toolkit.core.entities.model import Cluster, Process
from toolkit.core.instances.feed_locations import under_root
from toolkit.extensions.workflow_engines.context import TableInput, WorkflowContext
from toolkit.extensions.workflow_engines.oozie_settings import PREFIX as CLIENT_PREFIX

APP_PATH = "oozie.wf.application.path"
NONE = "NONE"


def on_cluster(cluster: Cluster, path: str) -> str:
    """A path of the process (workflow.path, workflow.lib) as Oozie reads it: a URI as given, an absolute path under
    the cluster's write endpoint."""
    return path if "://" in path else under_root(cluster.write_endpoint or "", path)


def job_configuration(process: Process, cluster: Cluster, ctx: WorkflowContext, app_path: str, user: str,
                      oozie_url: str) -> dict[str, str]:
    workflow = process.workflow
    working = cluster.location("working")
    conf: dict[str, str] = {
        "nameNode": cluster.write_endpoint or "",
        "jobTracker": cluster.interfaces["execute"].endpoint if "execute" in cluster.interfaces else "",
        "colo.name": cluster.colo or "",
        "oozie.use.system.libpath": "true",
        "workflowEngineUrl": oozie_url,
        "entityType": "PROCESS", "entityName": process.name, "cluster": cluster.name,
        "falconDataOperation": "GENERATE",
        "userWorkflowName": workflow.name or f"{process.name}-workflow",
        "userWorkflowVersion": workflow.version, "userWorkflowEngine": workflow.engine,
        "queueName": "default", "jobPriority": "NORMAL",
        "shouldRecord": "true" if process.late_process is not None and process.late_process.late_inputs
        else "false",
    }
    if working:
        conf["falcon.libpath"] = on_cluster(cluster, working.rstrip("/") + "/lib")
    feeds, names, paths, kinds = [], [], [], []
    for item in process.inputs:
        value = ctx.inputs.get(item.name)
        feeds.append(item.feed)
        names.append(item.name)
        if isinstance(value, TableInput):
            paths.append(f"{value.database}.{value.table}")
            kinds.append("TABLE")
        else:
            conf[item.name] = ",".join(value or ())
            paths.append(conf[item.name])
            kinds.append("FILESYSTEM")
    out_feeds, out_names, out_paths = [], [], []
    for output in process.outputs:
        target = ctx.outputs[output.name]
        out_feeds.append(output.feed)
        out_names.append(output.name)
        out_paths.append(target if isinstance(target, str) else f"{target.database}.{target.table}")
    conf.update({
        "falconInputFeeds": "#".join(feeds) or NONE, "falconInputNames": "#".join(names) or NONE,
        "falconInPaths": "#".join(paths) or NONE, "falconInputFeedStorageTypes": "#".join(kinds) or NONE,
        "feedNames": ",".join(out_feeds) or NONE, "feedInstanceNames": ",".join(out_names) or NONE,
        "feedInstancePaths": ",".join(out_paths) or NONE,
    })
    conf.update({name: value for name, value in ctx.properties.items() if not name.startswith(CLIENT_PREFIX)})
    if workflow.lib:
        conf["oozie.libpath"] = ",".join(on_cluster(cluster, entry.strip())
                                         for entry in workflow.lib.split(",") if entry.strip())
    conf.update({APP_PATH: app_path, "user.name": user})
    return conf
