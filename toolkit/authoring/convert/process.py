"""A Falcon process (`uri:falcon:process:0.1`) as the toolkit's process data.

Clusters, inputs and outputs become lists, pipelines a list of names, `late-process`'s repeated
`late-input` its list `late-inputs`, spark-attributes' repeated `arg` its list `args`. Workflow engines
keep their names one to one (Falcon's default engine is oozie): `spark` is the toolkit's `spark` engine, which
runs the application of `spark-attributes.jar` with spark-submit as Falcon did; the workflow path stays as
written (Falcon's application folder).
"""

from __future__ import annotations

from typing import Any

from toolkit.authoring.convert.tracking import Node
from toolkit.authoring.convert.values import (
    attributes,
    boolean,
    comma_list,
    fields,
    integer,
    present,
    properties,
    tags,
    text,
)

FALCON_DEFAULT_ENGINE = "oozie"


def convert_process(root: Node) -> dict[str, Any]:
    """The process's data in the schema's key order; what has no place is reported on the root's tracker."""
    clusters, inputs, outputs = root.child("clusters"), root.child("inputs"), root.child("outputs")
    return fields(
        ("kind", "process"),
        ("name", root.attr("name")),
        ("version", integer(root.attr("version"))),
        ("tags", tags(root.child("tags"))),
        ("pipelines", comma_list(root.child("pipelines"))),
        ("clusters", None if clusters is None else [_cluster(cluster) for cluster in clusters.children("cluster")]),
        ("parallel", integer(text(root.child("parallel")))),
        ("order", text(root.child("order"))),
        ("timeout", text(root.child("timeout"))),
        ("frequency", text(root.child("frequency"))),
        ("sla", attributes(root.child("sla"), "shouldStartIn", "shouldEndIn")),
        ("timezone", text(root.child("timezone"))),
        ("inputs", None if inputs is None else [_input(item) for item in inputs.children("input")]),
        ("outputs", None if outputs is None else [_output(item) for item in outputs.children("output")]),
        ("properties", properties(root.child("properties"))),
        ("workflow", _workflow(root.child("workflow"))),
        ("spark-attributes", _spark_attributes(root.child("spark-attributes"))),
        ("retry", _retry(root.child("retry"))),
        ("late-process", _late_process(root.child("late-process"))),
        ("notification", attributes(root.child("notification"), "type", "level", "to")),
        ("ACL", attributes(root.child("ACL"), "owner", "group", "permission")),
    )


def _cluster(cluster: Node) -> dict[str, Any]:
    return fields(
        ("name", cluster.attr("name")),
        ("validity", attributes(cluster.child("validity"), "start", "end")),
        ("sla", attributes(cluster.child("sla"), "shouldStartIn", "shouldEndIn")),
        ("version", integer(cluster.attr("version"))),
    )


def _input(item: Node) -> dict[str, Any]:
    return fields(
        ("name", item.attr("name")),
        ("feed", item.attr("feed")),
        ("start", item.attr("start")),
        ("end", item.attr("end")),
        ("partition", item.attr("partition")),
        ("optional", boolean(item.attr("optional"))),
    )


def _output(item: Node) -> dict[str, Any]:
    return fields(("name", item.attr("name")), ("feed", item.attr("feed")), ("instance", item.attr("instance")))


def _workflow(workflow: Node | None) -> dict[str, Any] | None:
    if workflow is None:
        return None
    return fields(
        ("name", workflow.attr("name")),
        ("version", workflow.attr("version")),
        ("engine", workflow.attr("engine") or FALCON_DEFAULT_ENGINE),  # one not Falcon's: the schema reports it
        ("path", workflow.attr("path")),
        ("lib", present(workflow.attr("lib"))),  # Falcon's extension builder writes lib="" for none
    )


def _spark_attributes(spark: Node | None) -> dict[str, Any] | None:
    if spark is None:
        return None
    args = [arg.text() for arg in spark.children("arg")]
    return fields(
        ("master", text(spark.child("master"))),
        ("mode", text(spark.child("mode"))),
        ("name", text(spark.child("name"))),
        ("class", text(spark.child("class"))),
        ("jar", text(spark.child("jar"))),
        ("spark-opts", text(spark.child("spark-opts"))),
        ("args", args or None),
    )


def _retry(retry: Node | None) -> dict[str, Any] | None:
    if retry is None:
        return None
    return fields(
        ("policy", retry.attr("policy")),
        ("delay", retry.attr("delay")),
        ("attempts", integer(retry.attr("attempts"))),
        ("onTimeout", boolean(retry.attr("onTimeout"))),
    )


def _late_process(late: Node | None) -> dict[str, Any] | None:
    if late is None:
        return None
    return fields(
        ("policy", late.attr("policy")),
        ("delay", late.attr("delay")),
        ("late-inputs", [attributes(item, "input", "workflow-path") for item in late.children("late-input")]),
    )
