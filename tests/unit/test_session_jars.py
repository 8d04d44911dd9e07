"""The jars of an entrypoint's session: spark-submit's --jars, the cluster's spark.jars and the toolkit's jar,
joined in that order, each once (toolkit/services/runtime/session.py)."""

from toolkit.services.runtime.session import joined_jars


def test_jars_are_joined_in_order_each_once() -> None:
    assert joined_jars("/a.jar, /b.jar", None, "/b.jar,/t.jar") == "/a.jar,/b.jar,/t.jar"
    assert joined_jars(None, "", "/t.jar") == "/t.jar"


def test_a_jar_spark_submit_names_as_a_file_uri_is_the_same_jar_as_its_path() -> None:
    # spark-submit --jars /opt/t.jar reaches the driver's SparkConf as file:///opt/t.jar (measured with Spark 4);
    # named twice, Spark adds it once and warns on stderr that it "has been added already" in every cron log.
    assert joined_jars("file:///opt/t.jar", None, "/opt/t.jar") == "file:///opt/t.jar"
    assert joined_jars("file:/opt/a.jar,/opt/b.jar", "file:///opt/b.jar", "/opt/a.jar") == "file:/opt/a.jar,/opt/b.jar"
    assert joined_jars("hdfs:///opt/t.jar", None, "/opt/t.jar") == "hdfs:///opt/t.jar,/opt/t.jar"  # another place
