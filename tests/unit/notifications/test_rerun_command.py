"""The rerun command a notice carries (toolkit/services/notifications/message.py): the entrypoint, the entity, the
cluster option of the action, and the arguments a call needs besides, every word quoted for a shell."""

from __future__ import annotations

import shlex
from datetime import datetime, timezone

from toolkit.services.notifications.message import rerun_command

T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)


def test_a_process_instance_and_a_replication_target() -> None:
    assert rerun_command("process", "conf", "process", "p", "primary", T) == (
        "spark-submit entrypoints/process.py --repo conf --process p --cluster primary --time 2026-11-21T10:00Z")
    assert rerun_command("replication", "conf", "feed", "f", "backup", None) == (
        "spark-submit entrypoints/replication.py --repo conf --feed f --target backup --batch")


def test_more_arguments_are_quoted_so_a_shell_reads_them_back_whole() -> None:
    command = rerun_command("hive_export", "conf", "feed", "sessions", "primary", T,
                           ("--to", "/exports/a b;rm -rf x"))
    assert command.endswith(" --to '/exports/a b;rm -rf x'")
    assert shlex.split(command)[-2:] == ["--to", "/exports/a b;rm -rf x"]


def test_a_repo_path_with_a_space_is_read_back_whole() -> None:
    command = rerun_command("retention", "/srv/team a/conf", "feed", "clicks", "primary", T)
    assert shlex.split(command) == ["spark-submit", "entrypoints/retention.py", "--repo", "/srv/team a/conf",
                                    "--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:00Z"]
