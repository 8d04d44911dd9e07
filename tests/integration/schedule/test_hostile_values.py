"""A hostile definition's value in a generated crontab line, run by /bin/sh as cron runs it (issue 68): a
datasource's driver.jar `$CONF_REPO/drivers/$(touch X).jar` reaches spark-submit (a stand-in that records its
arguments) as that very text, and X is never made; and every word the schedule writes for sh is read back by sh,
before and after cron's reading of `%`, as exactly the text it stands for, for any printable text (hypothesis)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.schedule.hostile_repo import SUBSTITUTION, cron_command, cron_reading, repo_with_jar
from toolkit.cli.main import main
from toolkit.orchestration.schedule.words import HostPath, Syntax, Word, host, written

CRON_PATH = "/usr/bin:/bin"
TOOLKIT = Path(sys.executable).parent / "toolkit"
# What the config repo's variable holds on the scheduler's host: sh expands it once and reads nothing in it as code.
REPO_VALUE = "/srv/it's $(touch /tmp/feed-toolkit-owned) `id` %s \\ \"x\""


def recorder(path: Path, record: Path) -> Path:
    """A stand-in for spark-submit: writes its arguments to `record`, each ended by a NUL."""
    script = f"#!/bin/sh\nfor argument in \"$@\"; do printf '%s\\0' \"$argument\"; done > {shlex.quote(str(record))}\n"
    path.write_text(script, encoding="utf-8")
    path.chmod(0o755)
    return path


def cron_variables(crontab: str) -> list[str]:
    """The crontab's `NAME=value` lines as cron reads them: a value between matching quotes without them."""
    found = []
    for line in crontab.splitlines():
        if re.match(r"^[A-Z_]+=", line):
            name, value = line.split("=", 1)
            if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
                value = value[1:-1]
            found.append(f"{name}={value}")
    return found


def test_a_substitution_in_a_driver_jar_reaches_spark_submit_as_its_text(tmp_path: Path) -> None:
    made = tmp_path / "X"
    jar = SUBSTITUTION.format(target=made)
    record = tmp_path / "argv"
    spark_submit = recorder(tmp_path / "spark-submit", record)
    repo = repo_with_jar(tmp_path / "conf", jar)
    assert main(["schedule", "--repo", str(repo), "--cluster", "primary", "--out", str(tmp_path / "out"),
                 "--toolkit", str(TOOLKIT), "--spark-submit", str(spark_submit), "--log-dir",
                 str(tmp_path / "logs")]) == 0
    crontab = (tmp_path / "out" / "crontab").read_text(encoding="utf-8")
    [line] = [line for line in crontab.splitlines() if "import.py" in line and not line.startswith("#")]
    result = subprocess.run(["env", "-i", f"PATH={CRON_PATH}", f"HOME={tmp_path}", *cron_variables(crontab),
                             "/bin/sh", "-c", cron_command(line)], capture_output=True, text=True, timeout=120)
    log = (tmp_path / "logs" / "import-customers.log").read_text(encoding="utf-8")
    assert (result.returncode, result.stderr) == (0, ""), log
    assert not made.exists(), "the definition's $(touch ...) ran"
    argv = record.read_bytes().decode().split("\0")[:-1]
    assert argv[argv.index("--jars") + 1] == jar
    assert argv[argv.index("--repo") + 1] == str(repo.resolve())  # the variable's value, expanded


# Printable text, with the characters sh and cron read specially drawn as often as all the others.
PRINTABLE = st.text(st.one_of(st.sampled_from("%\\'\"$`(){}[]*?~#;&|<> =!/"),
                              st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))), max_size=30)
VARIABLES = {HostPath.REPO: "CONF_REPO"}


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(PRINTABLE, min_size=1, max_size=3))
def test_every_word_is_read_back_as_its_text_by_sh_and_through_cron(texts: list[str]) -> None:
    """Each text as a literal word and after the config repo's variable, written for sh and for a crontab line; sh
    reads them back as the texts: the sh words, the crontab words as written (sh reads `\\%` as `%`), and the
    crontab words as cron hands them on (cron_reading), in one sh per example."""
    words = [word for text in texts for word in (Word(text), host(HostPath.REPO, text))]
    line = {syntax: " ".join(written(word, syntax, VARIABLES, of="the test") for word in words)
            for syntax in (Syntax.SH, Syntax.CRON)}
    assert "\n" not in line[Syntax.SH] + line[Syntax.CRON]
    script = f"printf '%s\\n' {line[Syntax.SH]} {line[Syntax.CRON]} {cron_reading(line[Syntax.CRON])}"
    result = subprocess.run(["env", "-i", f"PATH={CRON_PATH}", f"CONF_REPO={REPO_VALUE}", "/bin/sh", "-c", script],
                            capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr
    expected = [word.text if word.path is None else REPO_VALUE + word.text for word in words]
    assert result.stdout.decode().split("\n")[:-1] == expected * 3
    assert not Path("/tmp/feed-toolkit-owned").exists()
