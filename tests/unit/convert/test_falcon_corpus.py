"""Apache Falcon's own entity definitions (`tests/falcon_corpus/`, every cluster, feed, process and datasource of
its repository and documentation) through `toolkit convert-falcon` and `toolkit lint`, set by set as Falcon's tests
submit them (`tests/falcon_corpus/manifest.yaml`: the files, the placeholder values, and Falcon's verdict with the
test, XSD or page that decides it).

A set Falcon accepts converts with nothing reported and lints with no error, except the findings the manifest lists
as `differences` (each one a row of the README's "Migrating from Falcon" table, with the reason). A set Falcon
refuses for a listed difference (a check of Falcon's that the toolkit rightly does not make) is accepted as such a
set is; any other set Falcon refuses is refused here too, by convert-falcon or by an error of the linter, in a
message naming the field Falcon refuses. A set that fails today for a cause being worked on carries its cause in the
manifest (`xfail`) and is a strict xfail: the fix turns it into a failure, and the manifest loses the line."""

from __future__ import annotations

import contextlib
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.authoring.lint.runner import lint_paths
from toolkit.cli import main as cli_main
from toolkit.core.entities.problems import Problem, Severity

CORPUS = Path(__file__).resolve().parents[2] / "falcon_corpus"
SCHEMAS = CORPUS.parents[1] / "toolkit" / "authoring" / "convert" / "falcon_schemas"
XS = "{http://www.w3.org/2001/XMLSchema}"
MANIFEST: dict[str, Any] = yaml.safe_load((CORPUS / "manifest.yaml").read_text(encoding="utf-8"))
PLACEHOLDER = re.compile(r"##([A-Za-z0-9_.]*)##")  # Falcon's TestContext.VAR_PATTERN
ROOT_NAME = re.compile(r'(<(?:cluster|feed|process|datasource)\b[^>]*?\sname=")[^"]*(")')


@dataclass(frozen=True)
class Outcome:
    """What convert-falcon and lint said about one set."""

    code: int
    written: tuple[str, ...]
    reported: str  # convert-falcon's stderr
    errors: tuple[Problem, ...]  # lint findings of severity error

    def refusal_text(self) -> str:
        return "\n".join([self.reported, *(f"{p.code} {p.message}" for p in self.errors)])


def materialized(entry: dict[str, Any], folder: Path) -> list[Path]:
    """The set's files as Falcon's test submits them: placeholders filled from the set's overlay, a file that the
    test stores under another name (`as`) renamed, as its `storeEntity` does, and a file that Falcon binds without
    its XSD (`bound: without-xsd`) written as Falcon stores the entity it builds from it."""
    overlay: dict[str, str] = MANIFEST["overlays"].get(entry.get("overlay", ""), {})
    folder.mkdir(parents=True)
    paths = []
    for number, member in enumerate(entry["files"]):
        text = (CORPUS / member["file"]).read_text(encoding="utf-8")
        text = PLACEHOLDER.sub(lambda match: overlay.get(match.group(1), match.group(0)), text)
        if "as" in member:
            text = ROOT_NAME.sub(rf"\g<1>{member['as']}\g<2>", text, count=1)
        if member.get("bound") == "without-xsd":
            text = in_schema_order(text)
        path = folder / f"{number}.xml"  # no name of the original: a field is never found in a file name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def in_schema_order(text: str) -> str:
    """The entity that Falcon's extension builder binds from `text` without its XSD (ExtensionProcessBuilderUtils:
    `unmarshaller.setSchema(null)`), as JAXB marshals it when Falcon stores it: the root's child elements in the
    order of the schema's sequence (JAXB binds them by name, whatever their order)."""
    root = ET.fromstring(text)
    namespace, _, kind = root.tag[1:].partition("}")
    xsd = ET.parse(SCHEMAS / f"{kind}-0.1.xsd").getroot()
    sequence = xsd.find(f"{XS}complexType[@name='{kind}']/{XS}sequence")
    assert sequence is not None, kind
    order = [f"{{{namespace}}}{element.get('name')}" for element in sequence.iter(f"{XS}element")]
    root[:] = sorted(root, key=lambda child: order.index(child.tag))
    ET.register_namespace("", namespace)
    return ET.tostring(root, encoding="unicode")


def run_set(entry: dict[str, Any], work: Path) -> Outcome:
    """`toolkit convert-falcon` on the set's files into a new repo, then `toolkit lint` on that repo."""
    files = materialized(entry, work / "falcon")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main.main(["convert-falcon", *map(str, files), "--out", str(work / "conf")])
    written = tuple(line.removeprefix("wrote ") for line in out.getvalue().splitlines())
    errors: tuple[Problem, ...] = ()
    if written:
        report = lint_paths([work / "conf"])
        errors = tuple(p for p in report.problems if p.severity is Severity.ERROR)
    return Outcome(code, written, err.getvalue(), errors)


def _param(entry: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=entry["xfail"])] if "xfail" in entry else []
    return pytest.param(entry, id=entry["id"], marks=marks)


@pytest.mark.parametrize("entry", [_param(entry) for entry in MANIFEST["sets"]])
def test_a_set_falcon_accepts_converts_and_lints_and_a_set_it_refuses_is_refused_naming_the_field(
        entry: dict[str, Any], tmp_path: Path) -> None:
    outcome = run_set(entry, tmp_path)
    differences = [MANIFEST["differences"][name] for name in entry.get("differences", [])]
    if entry["falcon"] == "accepts" or differences:  # a set Falcon refuses with differences is accepted here
        assert (outcome.code, outcome.reported) == (0, ""), outcome.reported
        assert len(outcome.written) == len(entry["files"]), outcome.written
        findings = [difference for difference in differences if "code" in difference]
        unlisted = [problem for problem in outcome.errors if not any(
            problem.code == difference["code"] and difference["names"] in problem.message
            for difference in findings)]
        assert unlisted == [], "\n".join(map(str, unlisted))
        for difference in findings:
            assert any(problem.code == difference["code"] and difference["names"] in problem.message
                       for problem in outcome.errors), difference
    else:
        field = entry["refused"]["field"]
        assert outcome.code != 0 or outcome.errors, f"accepted, but Falcon refuses {field}"
        assert field in outcome.refusal_text(), outcome.refusal_text()


def test_every_file_of_the_corpus_is_in_a_set_and_every_set_says_who_decides() -> None:
    in_sets = {member["file"] for entry in MANIFEST["sets"] for member in entry["files"]}
    on_disk = {path.relative_to(CORPUS).as_posix() for path in CORPUS.rglob("*.xml")}
    assert in_sets == on_disk
    assert len(on_disk) == 236
    ids = [entry["id"] for entry in MANIFEST["sets"]]
    assert len(ids) == len(set(ids))
    for entry in MANIFEST["sets"]:
        assert entry["falcon"] in ("accepts", "refuses") and entry["decided_by"], entry["id"]
        assert ("refused" in entry) == (entry["falcon"] == "refuses"), entry["id"]
        assert set(causes_of(entry)) <= set(MANIFEST["causes"]), entry["id"]
        assert set(entry.get("differences", [])) <= set(MANIFEST["differences"]), entry["id"]
        for name in entry.get("differences", []):  # a lint finding in a set Falcon accepts, else a refusal of Falcon's
            assert ("code" in MANIFEST["differences"][name]) == (entry["falcon"] == "accepts"), (entry["id"], name)


def test_every_difference_is_a_row_of_the_readmes_migration_table() -> None:
    readme = (CORPUS.parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Migrating from Falcon")[1].split("\n## ")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    for name, difference in MANIFEST["differences"].items():
        if "code" in difference:
            assert any(f"({difference['code']})" in row for row in rows), name
        else:
            assert any(row.startswith(f"| {difference['row']} | ") for row in rows), name


def causes_of(entry: dict[str, Any]) -> list[str]:
    """The causes of a set that fails today (its `xfail`, causes joined by ' + ')."""
    return entry["xfail"].split(" + ") if "xfail" in entry else []


def counts() -> dict[str, int]:
    """The README's summary of the corpus: sets accepted and refused, passing, and failing by cause (a set failing
    for two causes counts under both)."""
    sets = MANIFEST["sets"]
    summary = {"sets Falcon accepts": sum(entry["falcon"] == "accepts" for entry in sets),
               "sets Falcon refuses": sum(entry["falcon"] == "refuses" for entry in sets),
               "passing": sum("xfail" not in entry for entry in sets),
               "failing": sum("xfail" in entry for entry in sets)}
    for cause in MANIFEST["causes"]:
        summary[cause] = sum(cause in causes_of(entry) for entry in sets)
    return summary


def test_the_readme_summary_counts_the_manifest() -> None:
    readme = (CORPUS.parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- falcon-corpus-summary -->")[1]
    rows = dict(re.findall(r"^\| (.+?) \| (\d+) \|$", table, re.MULTILINE))
    assert {name.strip("`"): int(number) for name, number in rows.items()} == {
        name: number for name, number in counts().items() if number}
