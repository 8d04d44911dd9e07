"""Falcon's own Spark examples (`examples/entity/spark/*.xml` of apache/falcon, copied with their license header)
convert one to one: `engine: spark`, the workflow path as written, every spark-attribute and each `arg` in order,
with nothing reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.convert.conftest import Run
from tests.unit.convert.test_convert_entities import data
from toolkit.core.entities.repo import ConfigRepo

SPARK_EXAMPLES = Path(__file__).resolve().parent / "falcon_published" / "spark"

OPTS = "--num-executors 1 --driver-memory 512m --executor-memory 512m --executor-cores 1"
EXAMPLES = {
    "pyspark-process.xml": ("pyspark-process", {"engine": "spark", "path": "/app/spark"},
                            {"master": "local", "name": "Python Spark Wordcount", "jar": "/app/spark/wordcount.py",
                             "spark-opts": OPTS}),
    "spark-process-pi.xml": ("spark-pi", {"engine": "spark", "path": "/app/spark/"},
                             {"master": "local", "name": "Spark PI", "class": "org.apache.falcon.example.spark.SparkPI",
                              "jar": "/app/spark/lib/falcon-examples.jar", "spark-opts": OPTS, "args": ["2"]}),
    "spark-process.xml": ("spark-process", {"engine": "spark", "path": "/app/spark"},
                          {"master": "local", "name": "Java Spark Wordcount",
                           "class": "org.apache.falcon.example.spark.SparkWordCount",
                           "jar": "/app/spark/lib/falcon-examples.jar", "spark-opts": OPTS}),
    "spark-sql-process.xml": ("spark-sql-process", {"engine": "spark", "path": "/app/spark"},
                              {"master": "local", "name": "Spark SQL",
                               "class": "org.apache.falcon.example.spark.SparkSQLProcessTable",
                               "jar": "/app/spark/lib/falcon-examples.jar", "spark-opts": OPTS}),
}


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_falcons_spark_examples_convert_one_to_one(convert: Run, tmp_path: Path, example: str) -> None:
    name, workflow, attributes = EXAMPLES[example]
    code, out, err = convert(SPARK_EXAMPLES / example, "--out", tmp_path)
    assert (code, err) == (0, "")
    assert out == f"wrote {tmp_path / 'processes' / name}.yaml\n"
    process = data(tmp_path / "processes" / f"{name}.yaml")
    assert (process["workflow"], process["spark-attributes"]) == (workflow, attributes)
    assert ConfigRepo.scan(tmp_path)[1] == []


def test_the_python_wordcount_keeps_every_field(convert: Run, tmp_path: Path) -> None:
    assert convert(SPARK_EXAMPLES / "pyspark-process.xml", "--out", tmp_path)[0] == 0
    assert data(tmp_path / "processes" / "pyspark-process.yaml") == {
        "kind": "process",
        "name": "pyspark-process",
        "clusters": [{"name": "local", "validity": {"start": "2013-11-15T00:05Z", "end": "2013-11-15T01:05Z"}}],
        "parallel": 1,
        "order": "LIFO",
        "frequency": "minutes(5)",
        "timezone": "UTC",
        "inputs": [{"name": "inpaths", "feed": "in", "start": "now(0,-5)", "end": "now(0,-1)"}],
        "outputs": [{"name": "outpath", "feed": "out", "instance": "now(0,0)"}],
        "workflow": {"engine": "spark", "path": "/app/spark"},
        "spark-attributes": EXAMPLES["pyspark-process.xml"][2],
        "retry": {"policy": "periodic", "delay": "minutes(3)", "attempts": 3},
    }
