"""The datasource entity and a feed cluster's import and export: schema, typed model, repo and dependencies."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.unit.entities.datasource_samples import DATASOURCE, DATASOURCE_TEXT, SECRET, write_repo
from toolkit.core.entities import ConfigRepo, EntityRef, Kind, parse_entity
from toolkit.core.entities.model import (
    Credential,
    CredentialType,
    Datasource,
    DatasourceType,
    Driver,
    ExtractType,
    Feed,
    Fields,
    LoadType,
    MergePolicy,
)

FILE = Path("datasources/sales-db.yaml")


def _datasource(text: str) -> Datasource:
    entity, problems = parse_entity(text, FILE)
    assert problems == []
    assert isinstance(entity, Datasource)
    return entity


def _messages(text: str) -> list[str]:
    entity, problems = parse_entity(text, FILE)
    assert entity is None
    return [problem.message for problem in problems]


def test_a_datasource_is_built_with_falcons_fields() -> None:
    source = _datasource(DATASOURCE)
    assert source.ref == EntityRef(Kind.DATASOURCE, "sales-db")
    assert source.type is DatasourceType.POSTGRES
    assert source.colo == "west" and dict(source.tags) == {"owner": "sales"}
    assert source.acl is not None and source.acl.permission == "0755"
    assert sorted(source.interfaces) == ["readonly", "write"]
    readonly, write = source.interfaces["readonly"], source.interfaces["write"]
    assert readonly.endpoint == "jdbc:postgresql://db.example:5432/sales"
    assert readonly.credential == Credential(type=CredentialType.PASSWORD_FILE, user_name="reader",
                                             password_file="/secrets/sales-reader.password")
    assert dict(write.properties) == {"ssl": "true"}
    default = source.credential_of(write)
    assert default is not None and default.type is CredentialType.PASSWORD_ALIAS
    assert default.password_alias is not None
    assert (default.password_alias.alias, default.password_alias.provider_path) == (
        "sales.password", "jceks://hdfs/user/etl/sales.jceks")
    assert source.credential_of(readonly) is readonly.credential
    assert source.driver_of(write) == Driver(clazz="org.postgresql.Driver", jars=("/usr/share/java/postgresql.jar",))


def test_the_records_are_immutable_and_checked_where_built() -> None:
    source = _datasource(DATASOURCE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        source.type = DatasourceType.MYSQL  # type: ignore[misc]
    with pytest.raises(TypeError):
        source.interfaces["other"] = source.interfaces["write"]  # type: ignore[index]
    with pytest.raises(ValueError, match="exactly its own password field"):
        Credential(type=CredentialType.PASSWORD_FILE, user_name="u", password_text="x")
    with pytest.raises(ValueError, match="exactly its own password field"):
        Credential(type=CredentialType.PASSWORD_FILE, user_name="u", password_file="/p", password_text="x")
    with pytest.raises(ValueError, match="names no jar"):
        Driver(clazz="org.postgresql.Driver", jars=())
    with pytest.raises(ValueError, match="either includes or excludes"):
        Fields(includes=("a",), excludes=("b",))


def test_a_password_text_is_not_in_the_records_repr() -> None:
    source = _datasource(DATASOURCE_TEXT)
    credential = source.interfaces["readonly"].credential
    assert credential is not None and credential.password_text == SECRET
    assert SECRET not in repr(source) and SECRET not in repr(credential)


def test_a_feed_cluster_imports_and_exports(tmp_path: Path) -> None:
    repo = ConfigRepo.load(write_repo(tmp_path))
    imported = repo.feed("customers").clusters[0].import_
    assert imported is not None and imported.datasource == "sales-db"
    assert imported.source.table_name == "customers"
    assert imported.source.extract.type is ExtractType.INCREMENTAL
    assert imported.source.extract.merge_policy is MergePolicy.APPEND
    assert imported.source.fields == Fields(includes=("id", "name", "updated_at"))
    assert dict(imported.arguments) == {"check-column": "updated_at", "split-by": "id", "num-mappers": "4"}
    exported = repo.feed("daily-sales").clusters[0].export
    assert exported is not None and exported.target.load is LoadType.UPDATE_ONLY
    assert (exported.target.name, exported.target.table_name) == ("sales-db", "daily_sales")
    assert dict(exported.arguments) == {"update-key": "day"}


def test_a_feed_depends_on_its_datasource(tmp_path: Path) -> None:
    repo = ConfigRepo.load(write_repo(tmp_path))
    source = EntityRef(Kind.DATASOURCE, "sales-db")
    assert repo.datasource("sales-db").name == "sales-db"
    assert repo.dependencies(EntityRef(Kind.FEED, "customers")) == (EntityRef(Kind.CLUSTER, "primary"), source)
    assert repo.dependents(source) == (EntityRef(Kind.FEED, "customers"), EntityRef(Kind.FEED, "daily-sales"))
    assert repo.dependencies(source) == ()


def test_load_only_brings_the_datasource_of_a_feed(tmp_path: Path) -> None:
    repo = ConfigRepo.load_only(write_repo(tmp_path), [EntityRef(Kind.FEED, "customers")])
    assert sorted(str(entity.ref) for entity in repo.entities) == [
        "cluster/primary", "datasource/sales-db", "feed/customers"]
    assert isinstance(repo.feed("customers"), Feed)


def test_an_unknown_datasource_is_named_with_the_known_ones(tmp_path: Path) -> None:
    repo = ConfigRepo.load(write_repo(tmp_path))
    with pytest.raises(Exception, match="Unknown datasource 'crm' in repo .*: known datasources are sales-db"):
        repo.datasource("crm")


@pytest.mark.parametrize(("edit", "expected"), [
    (("type: postgres", "type: sybase"), "type is 'sybase'; allowed values are postgres, mysql, mariadb"),
    (("jdbc:postgresql://db.example:5432/sales", "postgresql://db"), "interfaces.readonly.endpoint is 'postgresql://db'"),
    (("  clazz: org.postgresql.Driver\n", ""), "the required field driver.clazz is missing"),
    (("      passwordFile: /secrets/sales-reader.password\n", ""),
     "the required field interfaces.readonly.credential.passwordFile is missing"),
    (("      passwordFile: /secrets/sales-reader.password\n",
      "      passwordFile: /secrets/sales-reader.password\n      passwordText: hunter2\n"),
     "interfaces.readonly.credential holds a password field its type does not use"),
])
def test_schema_errors_name_the_field(edit: tuple[str, str], expected: str) -> None:
    old, new = edit
    assert old in DATASOURCE
    messages = _messages(DATASOURCE.replace(old, new))
    assert any(expected in message for message in messages), messages
    assert not any("hunter2" in message for message in messages)


@pytest.mark.parametrize("edit", [
    (f"passwordText: {SECRET}", "passwordText: 12345"),  # a number where text is expected
    ("type: password-text", "type: password-file"),  # the password field of another type
    ("userName: reader\n", ""),  # a required field missing beside the password
    ("  readonly:", "  credential: {type: password-text, userName: u, passwordText: 12345}\n  other:"),
    (f"passwordText: {SECRET}", f'passwordText: "{SECRET}'),  # YAML errors: an unclosed quote,
    (f"passwordText: {SECRET}", f"passwordText: *{SECRET}"),  # an unknown alias,
    (f"passwordText: {SECRET}", f"passwordText: {SECRET}\n      passwordText: {SECRET}"),  # a duplicate key
])
def test_a_schema_error_never_shows_the_password(edit: tuple[str, str]) -> None:
    old, new = edit
    assert old in DATASOURCE_TEXT
    messages = _messages(DATASOURCE_TEXT.replace(old, new))
    assert messages
    for message in messages:
        assert SECRET not in message and "12345" not in message, message


def test_interfaces_without_an_endpoint_are_named() -> None:
    text = ("kind: datasource\nname: sales-db\ntype: postgres\ninterfaces:\n"
            "  credential: {type: password-file, userName: etl, passwordFile: /p}\n"
            "driver: {clazz: org.postgresql.Driver, jar: [/usr/share/java/postgresql.jar]}\n")
    assert _messages(text) == ["Datasource 'sales-db': interfaces has neither readonly nor write: add the JDBC "
                               "endpoint imports read (readonly) or the one exports write (write)."]
