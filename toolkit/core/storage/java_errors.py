"""What a Java exception raised through py4j says (its class and message), read in one place for the file
systems, the bulk copier and the catalogs, which turn it into their own one-sentence errors.

py4j raises `Py4JJavaError`, which carries the Java exception as `java_exception`; pyspark turns Spark's own
exceptions into its `CapturedException`, which keeps it as `_origin`. Reading either asks the JVM again: when
the JVM is gone, these answer what Python knows instead of raising. Nothing here imports py4j or pyspark.
`spark_work` turns the errors of a piece of Spark work into one sentence, so an action never ends in a traceback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from toolkit.errors import ToolkitError


def throwable(error: BaseException) -> Any | None:
    """The Java exception behind `error`, or None for any other exception."""
    return getattr(error, "java_exception", None) or getattr(error, "_origin", None)


def java_class_name(error: BaseException) -> str:
    """The Java exception's class name (`java.io.FileNotFoundException`); '' when there is none to ask."""
    java = throwable(error)
    if java is None:
        return ""
    try:
        return str(java.getClass().getName())
    except Exception:  # the JVM is gone
        return ""


def java_message(error: BaseException) -> str:
    """The Java exception's own message ('' when it has none); pyspark's description when there is no Java one."""
    java = throwable(error)
    if java is None:
        return str(error._desc) if hasattr(error, "_desc") else ""
    try:
        return str(java.getMessage() or "")
    except Exception:  # the JVM is gone
        return ""


def java_error(error: BaseException) -> tuple[str, str]:
    """The class names of the exception and its causes (space-separated) and their distinct messages
    (' / '-separated); ('', str(error)) for any other exception or when the JVM is gone."""
    java = throwable(error)
    if java is None:
        return "", str(error)
    try:
        names, messages, cause, depth = [], [], java, 0
        while cause is not None and depth < 8:
            names.append(str(cause.getClass().getName()))
            message = cause.getMessage()
            if message:
                messages.append(str(message))
            cause, depth = cause.getCause(), depth + 1
        return " ".join(names), " / ".join(dict.fromkeys(messages))
    except Exception:  # the JVM is gone
        return "", str(error)


def first_line(error: BaseException) -> str:
    """The first line of the Java exception's `toString()` (`class: message`), without a final period; what
    py4j said when there is no Java exception to ask."""
    java = throwable(error)
    if java is not None:
        try:
            return str(java.toString()).splitlines()[0].rstrip(".")
        except Exception:  # the JVM is gone: say what py4j said
            pass
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".") if text else type(error).__name__


def one_line(text: str, limit: int = 300) -> str:
    """A (Java) message on one line of at most `limit` characters, to end a one-sentence error."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


class SparkWorkError(ToolkitError):
    """Spark's work failed (a job, a read, a write): one sentence with what Spark and the JVM said (exit 1)."""


@contextmanager
def spark_work(what: str, sentence: Callable[[BaseException], str | None] = lambda err: None) -> Iterator[None]:
    """The body's Spark and JVM errors as one SparkWorkError naming `what` (toolkit errors pass as they are);
    `sentence` gives the toolkit's own words for an error it recognises (a failed conversion), else None."""
    try:
        yield
    except ToolkitError:
        raise
    except Exception as err:  # noqa: BLE001 - py4j's and pyspark's errors, said in one sentence
        said = sentence(err)
        if said is not None:
            raise SparkWorkError(said) from None
        raise SparkWorkError(f"{what} failed in Spark: {one_line(java_error(err)[1] or str(err))}") from None
