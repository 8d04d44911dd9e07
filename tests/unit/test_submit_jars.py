"""The toolkit's jar on the `--jars` of the spark-submit lines the toolkit generates (services/runtime/submit.py): added
once, merged into a `--jars` given (spark-submit keeps only the last), left alone when a jar of its name is there."""

from __future__ import annotations

from toolkit.services.runtime.submit import with_jar

JAR = "/opt/toolkit/feed-toolkit-jvm.jar"


def test_the_jar_is_added_after_the_arguments_given() -> None:
    assert with_jar([], JAR) == ["--jars", JAR]
    assert with_jar(["--master", "yarn"], JAR) == ["--master", "yarn", "--jars", JAR]


def test_a_jars_given_gets_the_jar_appended_in_either_spelling() -> None:
    assert with_jar(["--jars", "a.jar,b.jar", "--master", "yarn"], JAR) == [
        "--jars", f"a.jar,b.jar,{JAR}", "--master", "yarn"]
    assert with_jar(["--jars=a.jar"], JAR) == [f"--jars=a.jar,{JAR}"]


def test_a_jar_of_the_same_name_given_is_kept_as_it_is() -> None:
    given = ["--jars", "hdfs:///libs/feed-toolkit-jvm.jar"]
    assert with_jar(given, JAR) == given
