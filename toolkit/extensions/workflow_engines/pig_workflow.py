"""The Oozie workflow a `pig` process's script runs in, as Falcon wrapped it (PigProcessWorkflowBuilder and its
action template action/process/pig-action.xml): one pig action with the cluster's job tracker and name node, the
queue and priority of the job configuration, Falcon's sharelib list, the script, and Falcon's parameters: per file
input and output `name=${name}` (the job configuration holds the paths), per table input or output Falcon's
`falcon_*` names, per process property `name=${wf:conf('name')}`; workflow.lib's jars as archives. Falcon's own
pre- and post-processing actions are the toolkit's runner here (outputs published, records, events), so the
wrapper has none. Pure: the text depends on the process only, so one wrapper serves every instance.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from toolkit.core.entities.model import Process

NAMESPACE = "uri:oozie:workflow:0.5"


def pig_workflow_xml(process: Process, script: str, archives: list[str], table_inputs: set[str],
                     table_outputs: set[str]) -> str:
    """`script` and `archives` as Oozie reads them (URIs); `table_inputs` / `table_outputs`: the names of the
    process's inputs and outputs whose feed is a table on the cluster."""
    params = []
    for item in process.inputs:
        if item.name in table_inputs:
            prefix = f"falcon_{item.name}"
            params += [f"{prefix}_database=${{wf:conf('falcon_input_database')}}",
                       f"{prefix}_table=${{wf:conf('falcon_input_table')}}",
                       f"{prefix}_filter=${{wf:conf('falcon_input_partition_filter_pig')}}"]
        else:
            params.append(f"{item.name}=${{{item.name}}}")
    for output in process.outputs:
        if output.name in table_outputs:
            prefix = f"falcon_{output.name}"
            params += [f"{prefix}_database=${{wf:conf('falcon_output_database')}}",
                       f"{prefix}_table=${{wf:conf('falcon_output_table')}}",
                       f"{prefix}_partitions=${{wf:conf('falcon_output_dataout_partitions')}}"]
        else:
            params.append(f"{output.name}=${{{output.name}}}")
    params += [f"{name}=${{wf:conf('{name}')}}" for name in process.properties]
    configuration = [("mapred.job.queue.name", "${queueName}"),
                     ("oozie.launcher.mapred.job.priority", "${jobPriority}"),
                     ("oozie.action.sharelib.for.pig", "pig,hcatalog,hive")]
    lines = [f'<workflow-app xmlns="{NAMESPACE}" name="{escape(process.name)}-pig">',
             '  <start to="user-action"/>',
             '  <action name="user-action">',
             "    <pig>",
             "      <job-tracker>${jobTracker}</job-tracker>",
             "      <name-node>${nameNode}</name-node>",
             "      <configuration>"]
    lines += [f"        <property><name>{escape(name)}</name><value>{escape(value)}</value></property>"
              for name, value in configuration]
    lines += ["      </configuration>", f"      <script>{escape(script)}</script>"]
    lines += [f"      <param>{escape(param)}</param>" for param in params]
    lines += [f"      <archive>{escape(entry)}</archive>" for entry in archives]
    lines += ["    </pig>",
              '    <ok to="end"/>',
              '    <error to="fail"/>',
              "  </action>",
              '  <kill name="fail">',
              "    <message>The pig script failed: [${wf:errorMessage(wf:lastErrorNode())}]</message>",
              "  </kill>",
              '  <end name="end"/>',
              "</workflow-app>"]
    return "\n".join(lines) + "\n"
