"""The one sentence of a failed spark application names the last line of its output that says why: not Spark's
INFO and WARN lines of its shutdown, not the frames of a stack trace."""

from __future__ import annotations

from toolkit.extensions.workflow_engines.spark_submission import last_meaningful_line

PYTHON_FAILURE = """\
26/11/22 12:29:02 INFO SparkContext: Running Spark version 4.3.0
Traceback (most recent call last):
  File "/tmp/x/fail.py", line 5, in <module>
    raise ValueError("the input has no column 'page'")
ValueError: the input has no column 'page'
26/11/22 12:29:10 INFO SparkContext: Invoking stop() from shutdown hook
26/11/22 12:29:10 WARN SparkContext: something at shutdown
26/11/22 12:29:10 INFO SparkContext: Successfully stopped SparkContext (Uptime: 7991 ms)
"""

JVM_FAILURE = """\
Exception in thread "main" java.lang.IllegalStateException: no partitions in web.visits
\tat org.example.Sessions$.main(Sessions.scala:12)
\tat org.example.Sessions.main(Sessions.scala)
26/11/22 12:29:10 INFO ShutdownHookManager: Shutdown hook called
"""


def test_the_exception_of_a_python_application() -> None:
    assert last_meaningful_line(PYTHON_FAILURE.splitlines()) == "ValueError: the input has no column 'page'"


def test_the_exception_of_a_jvm_application() -> None:
    assert last_meaningful_line(JVM_FAILURE.splitlines()) == (
        'Exception in thread "main" java.lang.IllegalStateException: no partitions in web.visits')


def test_sparks_last_error_when_the_application_said_nothing() -> None:
    lines = ["26/11/22 12:29:10 ERROR SparkContext: Error initializing SparkContext.",
             "26/11/22 12:29:11 INFO ShutdownHookManager: Shutdown hook called", ""]
    assert last_meaningful_line(lines) == "SparkContext: Error initializing SparkContext."


def test_nothing_at_all_and_a_very_long_line() -> None:
    assert last_meaningful_line([]) == "it printed no reason (its output is above, on stderr)"
    assert last_meaningful_line(["x" * 400]) == "x" * 297 + "..."
