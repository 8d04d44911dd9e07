"""No lint message shows a secret of the repo (toolkit/secrets_masking.py, through `Problem`): a rule's message
quoting a URL with a password in it (DS001), a schema error quoting one (SC001), a cluster's interface URL; and
`toolkit lint` says which definitions write a password inline (DS003, CL011), warnings that fail `--strict`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.authoring.lint.runner import lint_paths
from toolkit.cli.main import main

SECRET = "Pw1-s3cr3t"


def _repo(tmp_path: Path, old: str, new: str, file: str = "datasources/shop-db.yaml") -> Path:
    root = tmp_path / "conf"
    shutil.copytree(TEMPLATE, root)
    path = root / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= 1
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def test_a_rule_quoting_a_url_shows_it_without_its_password(tmp_path: Path, capsys: pytest.CaptureFixture[str]) \
        -> None:
    root = _repo(tmp_path, "endpoint: jdbc:postgresql://127.0.0.1:5433/shop",
                 f"endpoint: jdbc:oracle:thin:toolkit/{SECRET}@//127.0.0.1:1521/SHOP")

    problems = lint_paths([root]).problems
    code = main(["lint", str(root), "--format", "json"])
    out, err = capsys.readouterr()

    (ds001,) = [problem for problem in problems if problem.code == "DS001"]
    assert "'jdbc:oracle:thin:toolkit/***@//127.0.0.1:1521/SHOP' is not a URL of a postgres database" in ds001.message
    assert code == 1 and SECRET not in out + err
    assert [item["code"] for item in json.loads(out)] == ["DS001", "DS003"]


def test_a_schema_error_quoting_a_url_shows_it_without_its_password(tmp_path: Path) -> None:
    root = _repo(tmp_path, "endpoint: jdbc:postgresql://127.0.0.1:5433/shop",
                 f"endpoint: postgresql://toolkit:{SECRET}@127.0.0.1:5433/shop")

    problems = lint_paths([root]).problems

    assert [problem.code for problem in problems] == ["SC001"]
    assert "'postgresql://toolkit:***@127.0.0.1:5433/shop'" in problems[0].message
    assert SECRET not in str(problems[0])


@pytest.mark.parametrize(("old", "new"), [
    ("endpoint: jdbc:postgresql://127.0.0.1:5433/shop",
     f"endpoint: jdbc:postgresql://127.0.0.1:5433/shop?user=toolkit&password={SECRET}"),
    ("    endpoint: jdbc:postgresql://127.0.0.1:5433/shop\n",
     f"    endpoint: jdbc:postgresql://127.0.0.1:5433/shop\n    properties: {{sslpassword: '{SECRET}'}}\n"),
])
def test_a_password_inline_in_a_datasource_is_a_warning_that_fails_strict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str) -> None:
    root = _repo(tmp_path, old, new)

    assert main(["lint", str(root)]) == 0
    assert main(["lint", str(root), "--strict"]) == 1
    out, err = capsys.readouterr()

    assert " DS003 " in out and "1 warning(s)" in err
    assert SECRET not in out + err


def test_a_password_in_a_clusters_interface_url_is_a_warning_and_never_shown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path, "endpoint: thrift://127.0.0.1:9083", f"endpoint: thrift://hive:{SECRET}@127.0.0.1:9083",
                 "clusters/primary.yaml")

    assert main(["lint", str(root), "--strict"]) == 1
    out, err = capsys.readouterr()

    assert " CL011 " in out
    assert SECRET not in out + err
