"""Counting the commands a block sends to the JVM through py4j, for tests of how many round trips an
operation costs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def counted_jvm_calls(spark) -> Iterator[list[str]]:  # noqa: ANN001 - a SparkSession
    """Every command this thread sends to the JVM while the block runs (py4j's GC commands aside)."""
    client = spark.sparkContext._gateway._gateway_client
    sent: list[str] = []
    original = client.send_command

    def send(command, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        kind = command.split("\n", 2)[0]
        if kind != "m":  # py4j's memory commands free Python-side garbage whenever the GC runs: not our calls
            sent.append(kind)
        return original(command, *args, **kwargs)

    client.send_command = send
    try:
        yield sent
    finally:
        del client.send_command
