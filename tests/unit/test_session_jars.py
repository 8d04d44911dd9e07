"""The jars of an entrypoint's session: spark-submit's --jars, the cluster's spark.jars and the toolkit's jar,
joined in that order, each once (toolkit/services/runtime/session.py)."""

from toolkit.services.runtime.session import joined_jars


def test_jars_are_joined_in_order_each_once() -> None:
    assert joined_jars("/a.jar, /b.jar", None, "/b.jar,/t.jar") == "/a.jar,/b.jar,/t.jar"
    assert joined_jars(None, "", "/t.jar") == "/t.jar"
