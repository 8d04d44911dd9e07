"""Where the scheduled calls run: the paths on the scheduler's host of the config repo, the `toolkit` command,
spark-submit, the entrypoints, the Python of the toolkit's installation (PYSPARK_PYTHON: a scheduler's bare
environment has none, and spark-submit would fall back to a system Python without the toolkit), the calls' log
folder, and the arguments spark-submit takes before an entrypoint (`--master yarn`). Defaults are this machine's, as
`toolkit trigger` finds them, except where a given path implies another (the Python beside a given `--toolkit`);
each is an option of `toolkit schedule`. The toolkit's jar is named only when given: a driver loads the jar of the
installation it runs from (toolkit/core/storage/jvm_classes.py), never the generating machine's. A command is a list of
words (words.py): the paths stay paths a format may name by its variables, every other value is literal; a path or
option with a character no generated file holds (toolkit/core/entities/scheduled_values.py) is refused (exit 2), naming
the option."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.scheduled_values import unwritable_character
from toolkit.errors import UsageError
from toolkit.orchestration.schedule.calls import Call, Program
from toolkit.orchestration.schedule.words import HostPath, Word, host, literal
from toolkit.services.runtime.submit import (
    SUBMIT_ARGS_PROPERTY,
    process_entrypoint,
    spark_submit,
    submit_arguments,
    with_jar,
)

# The option that gives each path (its default otherwise), as a refusal names it.
_OPTIONS = {"repo": "--repo-path", "toolkit": "--toolkit", "spark_submit": "--spark-submit",
            "entrypoints": "--entrypoints", "python": "--python", "log_dir": "--log-dir"}


@dataclass(frozen=True)
class GivenPaths:
    """What `toolkit schedule`'s options give of the scheduler host's paths (None: this machine's), the
    arguments spark-submit takes before an entrypoint (`--submit-args`), and the toolkit's jar (`--jar`)."""

    repo_path: str | None = None
    toolkit: str | None = None
    spark_submit: str | None = None
    entrypoints: str | None = None
    submit_args: str | None = None
    python: str | None = None
    jar: str | None = None
    log_dir: str | None = None


@dataclass(frozen=True)
class Invocation:
    repo: str
    toolkit: str
    spark_submit: str
    entrypoints: str
    python: str
    log_dir: str
    submit_args: tuple[str, ...] = ()

    @classmethod
    def on_this_machine(cls, repo: Path, cluster: Cluster, given: GivenPaths | None = None) -> Invocation:
        """The paths `given`, else this machine's: the repo's absolute path, the running `toolkit`, the spark-submit
        `toolkit trigger` would use, the entrypoints beside the package, the Python beside a given `toolkit` (a
        virtualenv's bin/) else this one, /tmp/feed-toolkit-logs/<cluster> for the logs; submit args from the
        cluster property, with the given jar on --jars."""
        given = given or GivenPaths()
        _refuse_unwritable("--jar", given.jar)
        arguments = tuple(submit_arguments(given.submit_args, cluster, jar=given.jar))
        said = "--submit-args" if given.submit_args is not None else f"the cluster property {SUBMIT_ARGS_PROPERTY}"
        for argument in arguments:  # as split: a line break between two arguments is a space
            _refuse_unwritable(said, argument)
        invocation = cls(repo=given.repo_path or str(repo.resolve()),
                         toolkit=given.toolkit or _running_toolkit(),
                         spark_submit=given.spark_submit or spark_submit(None),
                         entrypoints=given.entrypoints or str(Path(process_entrypoint()).parent),
                         python=given.python or _python_beside(given.toolkit),
                         log_dir=given.log_dir or f"/tmp/feed-toolkit-logs/{cluster.name}",
                         submit_args=arguments)
        for field, option in _OPTIONS.items():
            _refuse_unwritable(option, getattr(invocation, field))
        return invocation

    def call_wrapper(self, call: Call, *options: str) -> list[Word]:
        """`toolkit call` for `call`'s cadence, with `options` (--period, --time ...), up to its `--`: what passes the
        entrypoint the instance a firing stands for (orchestration/schedule/nominal.py), and for a process instance
        waits for its inputs before spark-submit starts (`--wait-first`)."""
        cadence = call.cadence
        wrapper = ["call", "--every", str(cadence.frequency), "--from", format_timestamp(cadence.anchor)]
        if cadence.timezone != "UTC":
            wrapper += ["--timezone", cadence.timezone]
        if call.time_option not in (None, "--time"):
            wrapper += ["--time-option", str(call.time_option)]
        if call.lag:
            wrapper += ["--lag", str(call.lag)]
        if call.waits_first:
            wrapper.append("--wait-first")
        return [host(HostPath.TOOLKIT), *literal(*wrapper, *options, "--")]

    def argv(self, call: Call) -> list[Word]:
        """The command of `call`, without its time."""
        if call.program is Program.TOOLKIT:
            return [host(HostPath.TOOLKIT), *literal(call.arguments[0], "--repo"), host(HostPath.REPO),
                    *literal(*call.arguments[1:])]
        assert call.script is not None
        submit_args = list(self.submit_args)
        for jar in call.jars:
            submit_args = with_jar(submit_args, jar)
        return [host(HostPath.SPARK_SUBMIT), *literal(*submit_args), host(HostPath.ENTRYPOINTS, f"/{call.script}"),
                *literal("--repo"), host(HostPath.REPO), *literal(*call.arguments)]

    def resolved(self, word: Word) -> Word:
        """`word` with its path's value in its text, for a format that names no variable (Airflow's commands)."""
        if word.path is None:
            return word
        value: str = getattr(self, word.path.value)
        return Word((value.rstrip("/") if word.text.startswith("/") else value) + word.text)


def _refuse_unwritable(option: str, value: str | None) -> None:
    what = unwritable_character(value) if value is not None else None
    if what is not None:
        raise UsageError(f"{option} {value!r} holds {what}: a generated line cannot hold it; give {option} "
                         "without it.")


def _python_beside(toolkit: str | None) -> str:
    """The `python` in the folder of a given absolute `toolkit` path (its virtualenv's), else this Python."""
    if toolkit and toolkit.startswith("/"):
        return str(Path(toolkit).parent / "python")
    return sys.executable


def _running_toolkit() -> str:
    """The `toolkit` on the PATH, else the one beside this Python (a venv's bin/), else the bare name."""
    found = shutil.which("toolkit")
    if found:
        return found
    beside = Path(sys.executable).parent / "toolkit"
    return str(beside) if beside.is_file() else "toolkit"
