"""The class-data archive of the scheduled spark-submits (toolkit/services/runtime/class_archive.py): the driver JVM
options that map it, merged into the Java options a call gives already (spark-submit keeps only one of each), the
cluster property that names it on every line the toolkit generates, and the checks of `toolkit jvm-archive`'s --out
before any JVM starts. The archive made and mapped by real spark-submits:
tests/integration/runtime/test_class_archive.py."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from tests.unit.entities.datasource_samples import CLUSTER, write_repo
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import BlockedError, UsageError
from toolkit.services.runtime.class_archive import archive_lock, make_archive, mapping_options, with_class_archive
from toolkit.services.runtime.submit import submit_arguments

ARCHIVE = "/var/lib/feed-toolkit/spark.jsa"
MAPS = f"-XX:SharedArchiveFile={ARCHIVE} -Xshare:auto -Xlog:disable -Xlog:all=warning:stderr"


def test_the_options_are_a_driver_java_options_of_their_own_when_none_is_given() -> None:
    assert with_class_archive([], ARCHIVE) == ["--driver-java-options", MAPS]
    assert with_class_archive(["--master", "yarn"], ARCHIVE) == ["--master", "yarn", "--driver-java-options", MAPS]


def test_the_options_join_the_driver_java_options_given_in_either_spelling() -> None:
    assert with_class_archive(["--driver-java-options", "-Xss4m", "--master", "yarn"], ARCHIVE) == [
        "--driver-java-options", f"-Xss4m {MAPS}", "--master", "yarn"]
    assert with_class_archive(["--driver-java-options=-Xss4m"], ARCHIVE) == [f"--driver-java-options=-Xss4m {MAPS}"]


def test_the_options_join_a_conf_of_the_drivers_java_options_when_no_driver_java_options_is_given() -> None:
    given = ["--conf", "spark.executor.memory=2g", "--conf", "spark.driver.extraJavaOptions=-Xss4m"]
    assert with_class_archive(given, ARCHIVE) == [
        "--conf", "spark.executor.memory=2g", "--conf", f"spark.driver.extraJavaOptions=-Xss4m {MAPS}"]


@pytest.mark.parametrize("archive", ["spark.jsa", "/var/lib/feed toolkit/spark.jsa", "/var/lib/a:b.jsa"])
def test_an_archive_path_the_jvm_cannot_take_is_refused_naming_the_property(archive: str) -> None:
    with pytest.raises(UsageError, match=r"jvm\.class-archive\) is not an absolute path without spaces"):
        mapping_options(archive)


def test_the_cluster_property_puts_the_archive_on_the_trigger_sweeps_runs(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "conf")
    (repo / "clusters" / "primary.yaml").write_text(CLUSTER + f"properties:\n  jvm.class-archive: {ARCHIVE}\n"
                                                    "  trigger.submit-args: --master yarn\n")
    cluster = ConfigRepo.load(repo).clusters["primary"]
    assert submit_arguments(None, cluster, jar=None) == ["--master", "yarn", "--driver-java-options", MAPS]


def test_the_crontab_lines_of_a_cluster_with_an_archive_map_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    repo = write_repo(tmp_path / "conf")
    (repo / "clusters" / "primary.yaml").write_text(CLUSTER + f"properties:\n  jvm.class-archive: {ARCHIVE}\n")
    assert main(["schedule", "--repo", str(repo), "--cluster", "primary"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if '"$SPARK_SUBMIT"' in line]
    assert len(lines) == 2  # the import and the export
    assert all(f"\"$SPARK_SUBMIT\" --driver-java-options '{MAPS}' --jars /usr/share/java/postgresql.jar " in line
               for line in lines), lines


def test_an_out_whose_folder_is_missing_or_a_folder_is_refused_before_any_jvm_starts(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"the folder .*/missing does not exist: create it"):
        make_archive(tmp_path / "missing" / "spark.jsa", "/nonexistent/spark-submit")
    with pytest.raises(UsageError, match=r"is not a file: give the archive's file path"):
        make_archive(tmp_path, "/nonexistent/spark-submit")



@pytest.mark.parametrize("name", ["feed toolkit/spark.jsa", "feed:toolkit/spark.jsa"])
def test_an_out_no_jvm_could_map_is_refused_before_any_jvm_starts(tmp_path: Path, name: str) -> None:
    """A space splits the driver's Java options; the JVM reads `a:b.jsa` as two archives and, with -Xshare:auto,
    silently maps neither."""
    out = tmp_path / name
    out.parent.mkdir()
    with pytest.raises(UsageError, match=rf"^--out {re.escape(str(out))} has a space or a colon: spark-submit splits "
                                         r"the driver's Java options on spaces and the JVM reads a colon as two "
                                         r"archives, so no JVM could map it: give a path without either\.$"):
        make_archive(out, "/nonexistent/spark-submit")
    assert list(out.parent.iterdir()) == []


def test_a_name_too_long_for_the_partial_archive_beside_it_is_refused_before_any_jvm_starts(tmp_path: Path) -> None:
    out = tmp_path / ("a" * 240 + ".jsa")  # a valid name, but not with `.` before and `.PID.partial` after it
    with pytest.raises(UsageError, match=r"its file name is too long for the archive being made beside it"):
        make_archive(out, "/nonexistent/spark-submit")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["link", "folder"])
def test_a_lock_file_that_is_a_link_or_no_file_is_refused_and_left_alone(tmp_path: Path, kind: str) -> None:
    """The lock is opened without following a link: someone who can create `.NAME.lock` beside a shared archive
    must not make the toolkit empty the file it points to."""
    precious = tmp_path / "precious.txt"
    precious.write_text("precious data\n")
    lock = tmp_path / ".spark.jsa.lock"
    if kind == "link":
        lock.symlink_to(precious)
    else:
        lock.mkdir()
    with pytest.raises(UsageError, match=r"^--out .*/spark\.jsa: its lock file .*/\.spark\.jsa\.lock (cannot be "
                                         r"opened \(.*\): remove it if it is a link or no file|is not a regular file)"):
        make_archive(tmp_path / "spark.jsa", "/nonexistent/spark-submit")
    assert precious.read_text() == "precious data\n"


def test_a_lock_file_of_any_content_names_its_holder_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "spark.jsa"
    with archive_lock(out):
        (tmp_path / ".spark.jsa.lock").write_bytes(b"\xff\xfe garbage\nsecond line\n" + b"x" * 100_000)
        with pytest.raises(BlockedError, match=r"^Another toolkit jvm-archive \(.. garbage\) is making "):
            make_archive(out, "/nonexistent/spark-submit")


def test_an_out_that_is_a_link_is_refused_and_the_link_left_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "spark-4.0.jsa").write_bytes(b"the archive")
    (tmp_path / "spark.jsa").symlink_to("spark-4.0.jsa")
    with pytest.raises(UsageError, match=r"^--out .*/spark\.jsa is a symbolic link \(to .*/spark-4\.0\.jsa\): give "
                                         r"the file's own path, which the new archive replaces\.$"):
        make_archive(tmp_path / "spark.jsa", "/nonexistent/spark-submit")
    assert (tmp_path / "spark.jsa").is_symlink() and (tmp_path / "spark-4.0.jsa").read_bytes() == b"the archive"


def test_a_second_caller_for_the_same_archive_is_told_who_makes_it_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "spark.jsa"
    told = (rf"^Another toolkit jvm-archive \(pid {os.getpid()} on {re.escape(socket.gethostname())}, since "
            rf"\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\dZ\) is making {re.escape(str(out))}: wait for it to end; its archive "
            r"replaces the last one\.$")
    with archive_lock(out), pytest.raises(BlockedError, match=told):
        make_archive(out, "/nonexistent/spark-submit")
    with archive_lock(out):  # released: the next maker takes it
        pass
    assert sorted(path.name for path in tmp_path.iterdir()) == [".spark.jsa.lock"]
