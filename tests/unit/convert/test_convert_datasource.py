"""`toolkit convert-falcon` carries Falcon's datasource entity and a feed's import and export over, Falcon's names one
to one, Sqoop's argument names without their leading `--`; tested on Falcon's own examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.convert.conftest import FALCON, Run
from tests.unit.convert.test_convert_entities import data
from toolkit.core.entities.model import CredentialType, DatasourceType, ExtractType, LoadType
from toolkit.core.entities.repo import ConfigRepo

CORPUS = Path(__file__).resolve().parents[2] / "falcon_corpus" / "files"
EXAMPLES = CORPUS / "examples" / "entity" / "importexport"
DATASOURCES = sorted(EXAMPLES.glob("*-datasource.xml"))
PARSER_DATASOURCES = CORPUS / "common" / "src" / "test" / "resources" / "config" / "datasource"


def test_falcons_postgres_example_is_converted_field_by_field(convert: Run, tmp_path: Path) -> None:
    code, out, err = convert(EXAMPLES / "pgsql-datasource.xml", "--out", tmp_path)
    assert (code, err) == (0, "")
    assert out == f"wrote {tmp_path / 'datasources' / 'pgsql-db.yaml'}\n"
    password_text = {"type": "password-text", "userName": "ambari-qa", "passwordText": "sqoop"}
    assert data(tmp_path / "datasources" / "pgsql-db.yaml") == {
        "kind": "datasource",
        "name": "pgsql-db",
        "description": "Postgres database on west coast",
        "colo": "west-coast",
        "type": "postgres",
        "tags": {"owner": "foobar@ambari.apache.org", "consumer": "phoe@ambari.apache.org"},
        "interfaces": {
            "readonly": {"endpoint": "jdbc:postgresql://c6402:5432/test", "credential": password_text},
            "write": {"endpoint": "jdbc:postgresql://c6402:5432/test", "credential": password_text},
            "credential": {"type": "password-alias", "userName": "ambari-qa", "passwordAlias": {
                "alias": "sqoop.password.alias",
                "providerPath": "hdfs://c6401.ambari.apache.org:8020/user/ambari-qa/sqoop_password.jceks"}},
        },
        "driver": {"clazz": "org.postgresql.Driver",
                   "jar": ["/user/oozie/share/lib/lib_20160628052542/sqoop/postgresql-9.4.1208.jar"]},
    }


@pytest.mark.parametrize("source", DATASOURCES, ids=[path.stem for path in DATASOURCES])
def test_every_falcon_datasource_example_converts_to_a_valid_datasource(convert: Run, tmp_path: Path,
                                                                       source: Path) -> None:
    code, _, err = convert(source, "--out", tmp_path)
    assert (code, err) == (0, "")
    (datasource,) = ConfigRepo.load(tmp_path).datasources.values()
    assert datasource.type in set(DatasourceType)
    assert all(interface.endpoint.startswith("jdbc:") for interface in datasource.interfaces.values())
    assert datasource.driver.jars


def test_falcons_password_file_datasource_converts(convert: Run, tmp_path: Path) -> None:
    code, _, err = convert(PARSER_DATASOURCES / "datasource-file-0.1.xml", "--out", tmp_path)
    assert (code, err) == (0, "")
    datasource = ConfigRepo.load(tmp_path).datasource("test-hsql-db")
    credential = datasource.interfaces["readonly"].credential
    assert credential is not None and credential.type is CredentialType.PASSWORD_FILE
    assert credential.password_file == "/falcon/passwordfile"
    assert datasource.type is DatasourceType.HSQL


def test_falcons_import_and_export_feed_keeps_sqoops_arguments_without_dashes(convert: Run, tmp_path: Path) -> None:
    files = [EXAMPLES / name for name in ("primary_cluster.xml", "mysql-datasource.xml",
                                          "feed-import-export-filesystem.xml")]
    code, _, err = convert(*files, "--out", tmp_path)
    assert (code, err) == (0, "")
    feed = data(tmp_path / "feeds" / "feed-import-export-filesystem.yaml")
    (cluster,) = feed["clusters"]
    assert cluster["import"] == {
        "source": {"name": "mysql-db", "tableName": "simple", "extract": {"type": "full", "mergepolicy": "snapshot"},
                   "fields": {"includes": ["id", "name"]}},
        "arguments": {"split-by": "id", "num-mappers": "2"},
    }
    assert cluster["export"] == {"target": {"name": "mysql-db", "tableName": "simple_export",
                                            "load": {"type": "allowinsert"}},
                                 "arguments": {"update-key": "id"}}
    repo = ConfigRepo.load(tmp_path)
    feed_cluster = repo.feed("feed-import-export-filesystem").clusters[0]
    assert feed_cluster.import_ is not None and feed_cluster.import_.source.extract.type is ExtractType.FULL
    assert feed_cluster.export is not None and feed_cluster.export.target.load is LoadType.ALLOW_INSERT
    assert feed_cluster.datasources == ("mysql-db",)


def test_an_argument_given_with_and_without_dashes_is_reported(convert: Run, tmp_path: Path) -> None:
    source = tmp_path / "feed.xml"
    source.write_text((FALCON / "customer-emails-feed.xml").read_text(encoding="utf-8").replace(
        '<argument name="--num-mappers" value="2"/>', '<argument name="split-by" value="name"/>'), encoding="utf-8")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert err.splitlines()[0] == (
        f"{source}: /feed/clusters/cluster[@name='primary']/import/arguments: the argument 'split-by' is given twice "
        "(with and without --); only the first was converted: keep one.")
    feed = data(tmp_path / "conf" / "feeds" / "customer-emails.yaml")
    assert feed["clusters"][0]["import"]["arguments"] == {"split-by": "id"}


def test_an_invalid_load_type_is_reported_by_the_schema_with_its_line(convert: Run, tmp_path: Path) -> None:
    code, _, err = convert(FALCON / "customer-emails-feed.xml", "--out", tmp_path)
    assert code == 1
    assert ("clusters[0].export.target.load.type is 'insert'; allowed values are updateonly, allowinsert, "
            "snapshot.") in err
