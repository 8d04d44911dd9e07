"""The docs stay honest cheaply: every repository path and test they name exists, the layer diagram of
docs/architecture.md is the packages' real imports, the README links every page, and nothing cites the design
notes that live outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
DOCS = PROJECT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
# A path in backticks that starts at one of the repository's top-level folders, optionally `::test_name`.
PATH = re.compile(r"`((?:toolkit|tests|entrypoints|bench|config_repo_template|docs)/[^`\s<>*]*?)(?:::(\w+))?`")
LINK = re.compile(r"\]\(([^)#\s]+\.md)\)")
IMPORT = re.compile(r"^\s*(?:from|import) toolkit\.(\w+)", re.MULTILINE)
EDGE = re.compile(r"^\s*(\w+) --> (\w+)\s*$", re.MULTILINE)
NODE = re.compile(r"^\s*(\w+)\s*$", re.MULTILINE)
# modules every layer imports, left out of the diagram
LEAVES = {"errors", "uris", "statuses", "sql_text", "plugins", "forked_map", "secrets_masking", "shown_text", "clock"}


def test_the_four_pages_exist_and_the_readme_links_them() -> None:
    names = {page.name for page in PAGES}
    assert {"architecture.md", "ledger.md", "exit-codes.md", "extending.md"} <= names
    readme = (PROJECT / "README.md").read_text()
    assert [name for name in sorted(names) if f"(docs/{name})" not in readme] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_and_test_a_page_names_exists(page: Path) -> None:
    text = page.read_text()
    missing = []
    for match in PATH.finditer(text):
        relative, test = match.group(1), match.group(2)
        path = PROJECT / relative
        if not path.exists():
            missing.append(relative)
        elif test is not None and not re.search(rf"^\s*def {test}\(", path.read_text(), re.MULTILINE):
            missing.append(f"{relative}::{test}")
    missing += [link for link in LINK.findall(text) if not (page.parent / link).exists()]
    if page.name != "rules.md":  # generated from the rule modules, with YAML examples and no paths
        assert PATH.search(text), f"{page.name} names no path: the check above would prove nothing"
    assert missing == [], f"{page.name} names what does not exist: {missing}"


def _imports() -> set[tuple[str, str]]:
    """(importer, imported) for every package of `toolkit/` and for `entrypoints/`."""
    edges = set()
    folders = {p.name: p for p in (PROJECT / "toolkit").iterdir() if (p / "__init__.py").is_file()}
    for node, folder in [*folders.items(), ("entrypoints", PROJECT / "entrypoints")]:
        for module in folder.rglob("*.py"):
            for imported in IMPORT.findall(module.read_text()):
                if imported != node and imported not in LEAVES:
                    edges.add((node, imported))
    return edges


def test_the_layer_diagram_is_the_imports() -> None:
    text = (DOCS / "architecture.md").read_text()
    diagram = re.search(r"```mermaid\nflowchart TD\n(.*?)```", text, re.DOTALL)
    assert diagram is not None, "docs/architecture.md has no layer diagram"
    drawn = set(EDGE.findall(diagram.group(1)))
    real = _imports()
    assert sorted(real - drawn) == [], "imports the diagram does not draw"
    assert sorted(drawn - real) == [], "arrows the imports do not have"
    packages = {p.name for p in (PROJECT / "toolkit").iterdir() if (p / "__init__.py").is_file()}
    nodes = {name for edge in drawn for name in edge} | set(NODE.findall(diagram.group(1)))
    assert nodes - {"flowchart"} == packages | {"entrypoints"}


def test_nothing_cites_the_design_notes_outside_the_repository() -> None:
    needle = "DESIGN" + ".md"  # spelled apart, so that this file does not cite it
    folders = ["toolkit", "entrypoints", "tests", "bench", "docs", "config_repo_template", ".ci"]
    files = [path for folder in folders if (PROJECT / folder).exists()
             for path in (PROJECT / folder).rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    files += [path for path in PROJECT.iterdir() if path.is_file()]
    citing = sorted(str(path.relative_to(PROJECT)) for path in files
                    if needle in path.read_bytes().decode("utf-8", errors="replace"))
    assert citing == []


# Sentences the code once contradicted (issue 34): each came back would mislead a newcomer reading the docs.
CONTRADICTED = {
    "is being built": "says a capability that exists is not built yet",
    "nothing ingests yet": "says ingest does not run; entrypoints/ingest.py does",
    "must be `file://` for now": "says the command line reads file:// clusters only; it reads hdfs:// through WebHDFS",
    "every cluster needs readonly, write, execute, workflow": "CL001 asks only for readonly and write",
    "crontab primary.crontab": "would replace the user's whole crontab; --install-crontab merges a block",
}


def test_the_docs_no_longer_say_what_the_code_contradicts() -> None:
    pages = [PROJECT / "README.md", PROJECT / "config_repo_template" / "README.md", *PAGES]
    found = [f"{page.relative_to(PROJECT)}: {phrase!r} ({why})" for page in pages
             for phrase, why in CONTRADICTED.items()
             if phrase in " ".join(page.read_text(encoding="utf-8").split())]
    assert found == []
