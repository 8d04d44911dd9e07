"""No secret in `toolkit graph`'s page data (toolkit/views/graph/build.py): each node's definition is its file as
written with every password of a URL and every secret property masked (toolkit/secrets_masking.py), a datasource's and a
cluster's alike; a secret the masking cannot find leaves the definition out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.graph.test_datasources import page_data
from tests.unit.lint.overlay import TEMPLATE
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.views.graph.build import build_graph

SECRET = "Pw1-s3cr3t"


def _repo(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    root = tmp_path / "conf"
    shutil.copytree(TEMPLATE, root)
    for name, (old, new) in edits.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def _definitions(page: str) -> dict[str, str]:
    return {node["id"]: node["definition"] for node in page_data(page)["nodes"]}


def test_the_page_shows_every_definition_without_its_secrets(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path, {
        "datasources/shop-db.yaml": ("    endpoint: jdbc:postgresql://127.0.0.1:5433/shop\n  # What exports",
                                     f"    endpoint: jdbc:postgresql://127.0.0.1:5433/shop?sslpassword={SECRET}\n"
                                     f"    properties:\n      sslmode: verify-full\n      sslpassword: {SECRET}\n"
                                     "  # What exports"),
        "clusters/primary.yaml": ("thrift://127.0.0.1:9083", f"thrift://hive:{SECRET}@127.0.0.1:9083"),
    })

    assert main(["graph", "--repo", str(root), "--out", str(tmp_path / "graph.html")]) == 0
    capsys.readouterr()
    page = (tmp_path / "graph.html").read_text(encoding="utf-8")

    assert SECRET not in page
    definitions = _definitions(page)
    assert ("    endpoint: jdbc:postgresql://127.0.0.1:5433/shop?sslpassword=***\n    properties:\n"
            "      sslmode: verify-full\n      sslpassword: ***\n") in definitions["datasource/shop-db"]
    assert "    endpoint: thrift://hive:***@127.0.0.1:9083\n" in definitions["cluster/primary"]


def test_a_secret_property_the_masking_cannot_find_leaves_the_definition_out(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"clusters/primary.yaml": ('  spark.sql.shuffle.partitions: "4"\n',
                                                      '  spark.sql.shuffle.partitions: "4"\n'
                                                      f"  spark.authenticate.secret: >-\n    {SECRET}\n")})

    [node] = [node for node in build_graph(ConfigRepo.load(root)).nodes if node.id == "cluster/primary"]

    assert SECRET not in node.definition
    assert node.definition.startswith("# The definition of cluster 'primary' is not shown: it holds a secret "
                                      "(spark.authenticate.secret).")


def test_an_endpoint_secret_the_masking_cannot_find_leaves_the_definition_out(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"datasources/shop-db.yaml": (
        "    endpoint: jdbc:postgresql://127.0.0.1:5433/shop\n  # What exports",
        f"    endpoint: >-\n      jdbc:postgresql://127.0.0.1:5433/shop?password=\n      {SECRET}\n  # What exports")})

    [node] = [node for node in build_graph(ConfigRepo.load(root)).nodes if node.id == "datasource/shop-db"]

    assert SECRET not in node.definition
    assert node.definition.startswith("# The definition of datasource 'shop-db' is not shown: it holds a secret "
                                      "(password).")
