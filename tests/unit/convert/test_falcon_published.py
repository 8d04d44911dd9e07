"""Falcon's own definitions through `toolkit convert-falcon` and `toolkit lint`, as a Falcon user migrates:
the published examples of apache/falcon (`examples/entity/filesystem`, `hcat` and `spark`, copied unchanged
into `falcon_published/`) and definitions written from Falcon's entity specification (`falcon_published/spec/`:
the Cluster Specification's cluster with every interface, `localoozie`, versions on every entity and feed
cluster, `queueName` and `jobPriority`, a Hive workflow at an absolute cluster path, a table output).

Everything converts with no report, and the lint finds only what is right about those files: FD011 on the
`out` feed (frequency minutes(5), path dated to the hour), RP006 on inputs nothing writes, RP009 where the
examples' `in` and `repl-feed` share one path, and the warning CL008 on every cluster: Falcon's readonly interfaces
are hdfs:// or HFTP addresses, where the toolkit's command line reads an HDFS ledger through WebHDFS (HFTP's
successor), so each must be given its namenode's WebHDFS address. The oozie and pig processes lint clean: their
clusters name their Oozie server, where the engines submit them."""

from __future__ import annotations

from pathlib import Path

from tests.unit.convert.conftest import Run
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.entities.problems import Problem
from toolkit.core.entities.repo import ConfigRepo

PUBLISHED = Path(__file__).resolve().parent / "falcon_published"

FILESYSTEM_FINDINGS = [
    ("clusters/local-target.yaml", "CL008"), ("clusters/local.yaml", "CL008"), ("feeds/in.yaml", "RP006"),
    ("feeds/in.yaml", "RP009"), ("feeds/out.yaml", "FD011"),
    ("feeds/repl-feed.yaml", "RP009")]
HCAT_FINDINGS = [("clusters/hcat-local-target.yaml", "CL008"), ("clusters/hcat-local.yaml", "CL008"),
                 ("feeds/hcat-in.yaml", "RP006")]
SPEC_FINDINGS = [("clusters/corp.yaml", "CL008"), ("clusters/embedded.yaml", "CL008")]


def converted(convert: Run, target: Path, *sets: str) -> Path:
    """The sets' XML files converted into the repo `target`: every one written, nothing reported."""
    files = sorted(file for name in sets for file in (PUBLISHED / name).glob("*.xml"))
    code, out, err = convert(*files, "--out", target)
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == len(files)
    return target


def findings(repo: Path) -> list[Problem]:
    return lint_paths([repo]).problems


def located(repo: Path, problems: list[Problem]) -> list[tuple[str, str]]:
    return sorted((problem.file.resolve().relative_to(repo.resolve()).as_posix(), problem.code)
                  for problem in problems)


def test_filesystem_examples_lint_with_only_the_findings_right_about_them(convert: Run, tmp_path: Path) -> None:
    repo = converted(convert, tmp_path / "conf", "filesystem")
    problems = findings(repo)
    assert located(repo, problems) == FILESYSTEM_FINDINGS, "\n".join(map(str, problems))
    by_code = {problem.code: problem.message for problem in problems}
    assert "dated to the hour (its finest variable is ${HOUR}), coarser than the frequency minutes(5)" \
        in by_code["FD011"]
    assert "overlaps the data location '/data/in/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}'" in by_code["RP009"]
    assert "nothing writes it there" in by_code["RP006"]
    assert [p.severity.value for p in problems if p.code == "RP006"] == ["warning"]


def test_hcat_examples_lint_with_only_the_findings_right_about_them(convert: Run, tmp_path: Path) -> None:
    repo = converted(convert, tmp_path / "conf", "hcat")
    problems = findings(repo)
    assert located(repo, problems) == HCAT_FINDINGS, "\n".join(map(str, problems))
    # The pig process runs: its cluster names its Oozie server (http://localhost:11000/oozie/), as Falcon's did.
    assert ConfigRepo.load(repo).process("hcat-pig-process").workflow.engine == "pig"


def test_all_examples_with_spark_and_the_specification_lint_with_only_those_findings(
        convert: Run, tmp_path: Path) -> None:
    repo = converted(convert, tmp_path / "conf", "filesystem", "hcat", "spark", "spec")
    problems = findings(repo)
    assert located(repo, problems) == sorted(FILESYSTEM_FINDINGS + HCAT_FINDINGS + SPEC_FINDINGS), \
        "\n".join(map(str, problems))
    assert {p.severity.value for p in problems if p.code == "CL008"} == {"warning"}


def test_what_falcon_wrote_is_carried_over(convert: Run, tmp_path: Path) -> None:
    repo = converted(convert, tmp_path / "conf", "filesystem", "hcat", "spark", "spec")
    config, problems = ConfigRepo.scan(repo)
    assert problems == []
    corp = config.cluster("corp")
    assert {name: interface.endpoint for name, interface in corp.interfaces.items()} == {
        "readonly": "hftp://localhost:50010", "write": "hdfs://localhost:8020", "execute": "localhost:8021",
        "workflow": "http://localhost:11000/oozie/", "registry": "thrift://localhost:9083",
        "messaging": "tcp://localhost:61616?daemon=true", "spark": "yarn-client"}
    assert config.cluster("embedded").interfaces["workflow"].endpoint == "localoozie"
    clicks = config.feed("clicks")
    assert clicks.properties["queueName"] == "hadoopQueue"
    hourly = config.process("clicks-hourly")
    assert (hourly.version, hourly.workflow.engine, hourly.workflow.path) == (
        4, "hive", "/projects/bootcamp/hive-script.hql")
    text = (repo / "clusters" / "corp.yaml").read_text()
    assert "\nversion: 3\n" in text
    feed_text = (repo / "feeds" / "clicks.yaml").read_text()
    assert "\nversion: 2\n" in feed_text and feed_text.count("    version: 1\n") == 2

