"""A definition's value in a generated schedule is data, never code (issue 68): a datasource's `driver.jar`, a
cluster's properties, an entity's name reach every crontab line, Oozie action and Airflow DAG as one literal word,
whatever they hold (`$(...)`, quotes, backslashes, `%`); a value with a control character (a line break would end a
crontab line and start an entry of its own) is refused with exit 2, naming the entity and the field, and so is an
option's. tests/integration/schedule/test_hostile_values.py runs the lines with sh."""

from __future__ import annotations

import ast
import shlex
from pathlib import Path

import pytest

from tests.unit.schedule.hostile_repo import SUBSTITUTION, cron_command, repo_with_cluster_property, repo_with_jar
from toolkit.cli.main import main
from toolkit.core.entities.scheduled_values import unwritable_character
from toolkit.orchestration.schedule.crontab_install import without_block

PATHS = ["--spark-submit", "/opt/spark/bin/spark-submit", "--toolkit", "/opt/toolkit/bin/toolkit",
         "--entrypoints", "/opt/toolkit/entrypoints", "--repo-path", "/srv/conf"]
LINE_BREAK = "/opt/jdbc/postgresql.jar\n* * * * * touch /tmp/owned #"


def schedule(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["schedule", "--repo", str(repo), "--cluster", "primary", *PATHS, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def import_line(crontab: str) -> str:
    [line] = [line for line in crontab.splitlines() if "import.py" in line and not line.startswith("#")]
    return line


def test_a_substitution_in_a_driver_jar_is_one_literal_word(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    jar = SUBSTITUTION.format(target="/tmp/owned")
    code, out, err = schedule(capsys, repo_with_jar(tmp_path / "conf", jar))
    assert (code, err) == (0, "")
    command = cron_command(import_line(out))
    assert " --jars '$CONF_REPO/drivers/$(touch /tmp/owned).jar' " in command
    assert '"$CONF_REPO/drivers' not in out


@pytest.mark.parametrize("jar", ["/opt/a%b.jar", "/opt/a%b\\%c d.jar", "/opt/%'%\"%`%$%\\", "/opt/it's \"x\" \\ y"])
def test_a_driver_jar_reaches_sh_as_written_through_crons_percent(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   jar: str) -> None:
    """cron ends a command at an unescaped % and drops the backslash of `\\%` only: the word sh reads after cron is
    the value (shlex.split reads these words as sh does)."""
    code, out, err = schedule(capsys, repo_with_jar(tmp_path / "conf", jar))
    assert (code, err) == (0, "")
    words = shlex.split(cron_command(import_line(out)))
    assert words[words.index("--jars") + 1] == jar


@pytest.mark.parametrize("output_format", ["crontab", "oozie", "airflow"])
def test_a_line_break_in_a_driver_jar_is_refused_naming_the_datasource_and_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str) -> None:
    out_dir = tmp_path / "out"
    extra = [] if output_format == "crontab" else ["--format", output_format, "--out", str(out_dir)]
    code, out, err = schedule(capsys, repo_with_jar(tmp_path / "conf", LINE_BREAK), *extra)
    assert (code, out) == (2, "")
    assert "Datasource 'sales-db': driver.jar[0] holds a line break (U+000A)" in err
    assert "touch" not in err and len(err.strip().splitlines()) == 1
    assert not out_dir.exists()


@pytest.mark.parametrize("output_format", ["crontab", "oozie", "airflow"])
@pytest.mark.parametrize(("character", "what"), [
    ("\uffff", "a noncharacter (U+FFFF)"), ("\ufffe", "a noncharacter (U+FFFE)"),
    ("\u202e", "a bidirectional formatting character (U+202E)"),
    ("\u2066", "a bidirectional formatting character (U+2066)")])
def test_a_character_xml_forbids_or_a_bidirectional_override_in_a_driver_jar_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str, character: str, what: str) -> None:
    """U+FFFE and U+FFFF are no XML 1.0 characters (an Oozie file holding one does not parse); a bidirectional
    override or isolate (U+202A-202E, U+2066-2069) shows a crontab line or an Airflow DAG's docstring in another
    order than the one cron and Python read (the literals escape it, the docstring and the line could not)."""
    out_dir = tmp_path / "out"
    extra = [] if output_format == "crontab" else ["--format", output_format, "--out", str(out_dir)]
    code, out, err = schedule(capsys, repo_with_jar(tmp_path / "conf", f"/j/a{character}.jar"), *extra)
    assert (code, out) == (2, "")
    assert f"Datasource 'sales-db': driver.jar[0] holds {what}" in err
    assert character not in err and len(err.strip().splitlines()) == 1
    assert not out_dir.exists()


@pytest.mark.parametrize(("value", "shown", "what"), [
    ("/srv/conf\uffff", "'/srv/conf\\uffff'", "a noncharacter (U+FFFF)"),
    ("/srv/\u202egnp.conf", "'/srv/\\u202egnp.conf'", "a bidirectional formatting character (U+202E)")])
def test_an_option_with_a_character_no_generated_file_holds_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, shown: str, what: str) -> None:
    repo = repo_with_jar(tmp_path / "conf", "/usr/share/java/postgresql.jar")
    code, out, err = schedule(capsys, repo, "--format", "oozie", "--out", str(tmp_path / "out"), "--repo-path", value)
    assert (code, out) == (2, "")
    assert f"--repo-path {shown} holds {what}" in err


def _xml_character(code: int) -> bool:
    """XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."""
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000


def test_every_character_xml_forbids_is_refused_and_letters_of_any_script_are_not() -> None:
    passed = [code for code in range(0x110000) if unwritable_character(chr(code)) is None]
    assert [code for code in passed if not _xml_character(code)] == []
    assert [code for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)) if code in passed] == []
    assert all(unwritable_character(text) is None for text in ("/opt/jdbc/café.jar", "/data/קליקים/ערב", "/数据"))


@pytest.mark.parametrize(("name", "value", "what"), [
    ("trigger.submit-args", "--master yarn --conf 'spark.x=a\nb'", "a line break (U+000A)"),
    ("report.out", "/srv/www/status.html\n* * * * * touch /tmp/owned", "a line break (U+000A)"),
    ("metrics.textfile", "/var/lib/node\texporter", "a tab (U+0009)"),
    ("jvm.class-archive", "/opt/spark/classes\x1b.jsa", "the control character U+001B"),
    ("report.out", "/srv/www/status\u2028.html", "a line separator (U+2028)"),
])
def test_a_control_character_in_a_cluster_property_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              name: str, value: str, what: str) -> None:
    code, out, err = schedule(capsys, repo_with_cluster_property(tmp_path / "conf", name, value))
    assert (code, out) == (2, "")
    assert f"Cluster 'primary': properties['{name}'] holds {what}" in err


def test_a_name_ending_in_a_line_break_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The schema's name pattern `^...$` ends the text as JSON Schema's does (Python's `$` would match before a final
    line break): the repo does not load, the sentence shows the name with its escape, on one line."""
    repo = repo_with_jar(tmp_path / "conf", "/usr/share/java/postgresql.jar")
    feed = repo / "feeds" / "customers.yaml"
    feed.write_text(feed.read_text(encoding="utf-8").replace("name: customers", 'name: "customers\\n"', 1),
                    encoding="utf-8")
    code, out, err = schedule(capsys, repo)
    assert (code, out) == (2, "")
    assert "Feed 'customers\\n': name is 'customers\\n', which is not valid" in err
    assert err.count("\n") == 1  # one sentence, one line


def test_an_option_with_a_line_break_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = repo_with_jar(tmp_path / "conf", "/usr/share/java/postgresql.jar")
    code, out, err = schedule(capsys, repo, "--repo-path", "/srv/conf\n* * * * * touch /tmp/owned")
    assert (code, out) == (2, "")
    assert "--repo-path '/srv/conf\\n* * * * * touch /tmp/owned' holds a line break (U+000A)" in err


def test_a_crontab_variable_is_written_as_cron_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """cron takes an unquoted value to the end of its line and knows no escapes: a shell-quoted
    `'/srv/it'"'"'s conf'` is no assignment for it."""
    repo = repo_with_jar(tmp_path / "conf", "/usr/share/java/postgresql.jar")
    code, out, err = schedule(capsys, repo, "--repo-path", "/srv/it's conf", "--log-dir", " /var/log/feeds")
    assert (code, err) == (0, "")
    assert "CONF_REPO=/srv/it's conf" in out.splitlines()
    assert "LOGS=' /var/log/feeds'" in out.splitlines()  # quoted: cron would drop a leading space


def test_oozie_never_evaluates_a_value_behind_one_of_its_properties(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Oozie evaluates ${...} in an argument; only the toolkit's own properties (${confRepo}) are written as such."""
    repo = repo_with_jar(tmp_path / "conf", "${confRepo}/drivers/${wf:conf('user.name')}.jar")
    code, out, err = schedule(capsys, repo, "--format", "oozie", "--out", str(tmp_path / "out"))
    assert code == 2
    assert "cannot pass through an Oozie shell action (Oozie evaluates ${...}" in err
    assert not (tmp_path / "out").exists()


def test_an_airflow_command_holds_the_value_as_one_python_string(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    jar = "$CONF_REPO/x'''\\\"\"\"$(touch /tmp/owned)`id`%.jar"
    code, _, err = schedule(capsys, repo_with_jar(tmp_path / "conf", jar), "--format", "airflow", "--out",
                            str(tmp_path / "dags"))
    assert (code, err) == (0, "")
    source = (tmp_path / "dags" / "feed_toolkit.primary.import-customers.py").read_text(encoding="utf-8")
    [command] = [node for node in ast.walk(ast.parse(source))
                 if isinstance(node, ast.FunctionDef) and node.name == "command"]
    [listed] = [node for node in ast.walk(command) if isinstance(node, ast.List)]
    words = [ast.literal_eval(item) for item in listed.elts if isinstance(item, ast.Constant)]
    assert words[words.index("--jars") + 1] == jar


def test_the_crontab_installer_reads_lines_as_cron_does() -> None:
    """cron ends a line at a line feed only; Python's splitlines also at U+2028 and others, where a fake END marker
    would leave the rest of the old block in the user's crontab after every install."""
    old_block = ("# BEGIN feed-toolkit primary\n0 * * * * x \u2028# END feed-toolkit primary\n"
                 "0 * * * * old\n# END feed-toolkit primary\n")
    assert without_block("mine\n" + old_block + "after\n", "primary") == ("mine\nafter\n", True)
