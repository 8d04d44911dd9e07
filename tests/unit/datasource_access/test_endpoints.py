"""A datasource's endpoint for an import or an export (toolkit/services/datasource_access/endpoints.py): the interface
each uses, and the password read where its credential says, each failure one sentence without the password."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.entities.datasource_samples import CLUSTER, DATASOURCE_TEXT, SECRET, write_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.datasource_access.endpoints import FOR_EXPORT, FOR_IMPORT, endpoint_for, interface_for


def _repo(tmp_path: Path, datasource: str | None = None) -> ConfigRepo:
    root = tmp_path / "root"
    write_repo(tmp_path / "conf", **({"datasource": datasource} if datasource else {}))
    (tmp_path / "conf" / "clusters" / "primary.yaml").write_text(CLUSTER.replace("file:///tmp/primary",
                                                                                   root.as_uri()))
    return ConfigRepo.load(tmp_path / "conf")


def _no_alias(provider: str, alias: str) -> str | None:
    raise AssertionError("no alias is asked for")


def test_an_import_reads_the_readonly_interface_and_an_export_the_write_one(tmp_path: Path) -> None:
    datasource = _repo(tmp_path).datasource("sales-db")
    assert interface_for(datasource, FOR_IMPORT).type == "readonly"
    assert interface_for(datasource, FOR_EXPORT).type == "write"


def test_a_password_file_under_the_cluster_root_is_read_without_its_trailing_line_break(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    secrets = tmp_path / "root" / "secrets"
    secrets.mkdir(parents=True)
    (secrets / "sales-reader.password").write_text("p4ss word\n")

    endpoint = endpoint_for(repo.datasource("sales-db"), FOR_IMPORT, repo.cluster("primary"), LocalFileSystem(),
                            _no_alias)

    assert (endpoint.user, endpoint.password, endpoint.url) == ("reader", "p4ss word",
                                                                "jdbc:postgresql://db.example:5432/sales")
    assert "p4ss" not in repr(endpoint)


def test_a_local_file_uri_is_read_on_this_machine(tmp_path: Path) -> None:
    local = tmp_path / "here.password"
    local.write_text("local-one\r\n")
    _repo(tmp_path)
    path = tmp_path / "conf" / "datasources" / "sales-db.yaml"
    path.write_text(path.read_text().replace("/secrets/sales-reader.password", local.as_uri()))
    repo = ConfigRepo.load(tmp_path / "conf")

    endpoint = endpoint_for(repo.datasource("sales-db"), FOR_IMPORT, repo.cluster("primary"), LocalFileSystem(),
                            _no_alias)

    assert endpoint.password == "local-one"


def test_a_missing_password_file_is_one_sentence_naming_the_field_and_never_the_password(tmp_path: Path) -> None:
    repo = _repo(tmp_path)

    with pytest.raises(UsageError) as refused:
        endpoint_for(repo.datasource("sales-db"), FOR_IMPORT, repo.cluster("primary"), LocalFileSystem(), _no_alias)

    assert str(refused.value).startswith(
        "The password file /secrets/sales-reader.password (interfaces.readonly.credential.passwordFile of datasource "
        "'sales-db') cannot be read (")


def test_an_alias_is_read_from_its_provider_and_a_missing_one_is_one_sentence(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    asked: list[tuple[str, str]] = []

    def provider(path: str, alias: str) -> str | None:
        asked.append((path, alias))
        return "from-the-keystore" if alias == "sales.password" else None

    endpoint = endpoint_for(repo.datasource("sales-db"), FOR_EXPORT, repo.cluster("primary"), LocalFileSystem(),
                            provider)
    assert (endpoint.user, endpoint.password) == ("etl", "from-the-keystore")
    assert asked == [("jceks://hdfs/user/etl/sales.jceks", "sales.password")]
    with pytest.raises(UsageError, match=r"holds no alias 'sales.password': add it with `hadoop credential create`"):
        endpoint_for(repo.datasource("sales-db"), FOR_EXPORT, repo.cluster("primary"), LocalFileSystem(),
                     lambda path, alias: None)


def test_a_password_text_is_taken_as_written_and_an_export_without_a_write_interface_is_refused(
        tmp_path: Path) -> None:
    repo = _repo(tmp_path, DATASOURCE_TEXT)
    datasource = repo.datasource("sales-db")

    assert endpoint_for(datasource, FOR_IMPORT, repo.cluster("primary"), LocalFileSystem(), _no_alias).password \
        == SECRET
    with pytest.raises(UsageError) as refused:
        interface_for(datasource, FOR_EXPORT)
    assert str(refused.value) == ("Datasource 'sales-db' has no interfaces.write interface, which an export needs: "
                                  "add one with the JDBC endpoint to export to.")
    assert SECRET not in str(refused.value)
