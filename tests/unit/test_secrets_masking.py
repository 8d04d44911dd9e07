"""The one masker (toolkit/secrets_masking.py): URLs of every scheme with a password in their user info, secrets
in sentences, properties by their names; and what lint is told is written inline. (The JDBC forms:
tests/unit/storage/test_jdbc_urls.py.)"""

from __future__ import annotations

import pytest

from toolkit.secrets_masking import inline_secret, inline_secrets, masked, masked_properties, secret_name

SECRET = "Pw1-s3cr3t"


@pytest.mark.parametrize(("text", "shown"), [
    (f"http://oozie:{SECRET}@oozie.example:11000/oozie", "http://oozie:***@oozie.example:11000/oozie"),
    (f"https://etl:{SECRET}@airflow.example/api/v2", "https://etl:***@airflow.example/api/v2"),
    (f"hdfs://etl:{SECRET}@nn:8020/data/clicks", "hdfs://etl:***@nn:8020/data/clicks"),
    (f"webhdfs://etl:{SECRET}@nn:9870/data", "webhdfs://etl:***@nn:9870/data"),
    (f"thrift://hive:{SECRET}@metastore:9083", "thrift://hive:***@metastore:9083"),
    (f"http://etl:p@ss:{SECRET}@host/x", "http://etl:***@host/x"),  # up to the last @ of the authority
    # nothing to hide
    ("http://keycloak:8080/auth?realm=etl", "http://keycloak:8080/auth?realm=etl"),
    ("hdfs://nn:8020/data/customer_key=2026/monkey.csv", "hdfs://nn:8020/data/customer_key=2026/monkey.csv"),
    ("thrift://hive@metastore:9083", "thrift://hive@metastore:9083"),
])
def test_a_urls_password_is_masked_and_the_rest_is_as_written(text: str, shown: str) -> None:
    assert masked(text) == shown


@pytest.mark.parametrize(("text", "shown"), [
    (f"Cannot connect to jdbc:sqlserver://db;password={{a b;{SECRET}}};x=1 as 'etl': refused",
     "Cannot connect to jdbc:sqlserver://db;password=***;x=1 as 'etl': refused"),
    (f"java.sql.SQLException: invalid URL jdbc:oracle:thin:etl/{SECRET}@//db:1521/ORCL\n\tat oracle.jdbc",
     "java.sql.SQLException: invalid URL jdbc:oracle:thin:etl/***@//db:1521/ORCL\n\tat oracle.jdbc"),
    (f'{{"password":"{SECRET}","user":"etl"}}', '{"password":"***","user":"etl"}'),
    (f"sslpassword: '{SECRET}' for etl", "sslpassword: '***' for etl"),
    (f"--conf spark.authenticate.secret={SECRET} --conf spark.ui.enabled=false",
     "--conf spark.authenticate.secret=*** --conf spark.ui.enabled=false"),
    ("KeyError: 'sales' (line 3)", "KeyError: 'sales' (line 3)"),
    ("--tags 'owner' is not key=value; give a tag", "--tags 'owner' is not key=value; give a tag"),
    ("the property airflow.password-file: /etc/airflow.pw is read",
     "the property airflow.password-file: /etc/airflow.pw is read"),
])
def test_a_secret_in_a_sentence_is_masked_and_the_sentence_kept(text: str, shown: str) -> None:
    assert masked(text) == shown
    assert masked(shown) == shown  # masking twice is masking once


def test_properties_are_masked_by_their_names_and_urls_in_their_values() -> None:
    properties = {"sslpassword": SECRET, "ssl.keystore.password": SECRET, "OAuthPvtKey": SECRET, "sslmode": "require",
                  "sslkey-file": "/etc/pg/etl.pk8", "proxy": f"http://etl:{SECRET}@proxy:3128"}
    assert masked_properties(properties) == {
        "sslpassword": "***", "ssl.keystore.password": "***", "OAuthPvtKey": "***", "sslmode": "require",
        "sslkey-file": "/etc/pg/etl.pk8", "proxy": "http://etl:***@proxy:3128"}


@pytest.mark.parametrize(("name", "secret"), [
    ("password", True), ("sslpassword", True), ("PWD", True), ("fs.s3a.secret.key", True), ("api_key", True),
    ("airflow.token", True), ("keyStoreSecret", True), ("password-file", False), ("airflow.token-env", False),
    ("keyStoreType", False), ("allowPublicKeyRetrieval", False), ("user", False), ("KeyError", False),
])
def test_what_names_a_secret(name: str, secret: bool) -> None:
    assert secret_name(name) is secret


@pytest.mark.parametrize(("name", "value", "inline"), [
    ("sslpassword", SECRET, True), ("password", "{a;b}", True), ("sslpassword", "${SSL_PASSWORD}", False),
    ("sslkey", "/etc/pg/etl.pk8", False), ("secretProvider", "jceks://hdfs/etl.jceks", False),
    ("token", "", False), ("useKeyring", "true", False), ("user", "etl", False),
])
def test_what_writes_a_secret_inline(name: str, value: str, inline: bool) -> None:
    assert inline_secret(name, value) is inline


@pytest.mark.parametrize(("url", "found"), [
    (f"jdbc:mysql://etl:{SECRET}@db/sales", ["the password of its user info"]),
    (f"jdbc:oracle:thin:etl/{SECRET}@//db:1521/ORCL", ["the password of its user info"]),
    (f"jdbc:postgresql://db/sales?sslpassword={SECRET}&password={SECRET}", ["sslpassword", "password"]),
    (f"jdbc:sqlserver://db;password={{{SECRET}}}", ["password"]),
    ("jdbc:postgresql://db/sales?sslmode=require&sslkey=/etc/pg/etl.pk8", []),
    ("jdbc:mysql://db/sales?allowPublicKeyRetrieval=true&user=etl", []),
    ("jdbc:oracle:thin:@//db:1521/ORCL", []),
])
def test_what_a_url_writes_inline_is_named_never_shown(url: str, found: list[str]) -> None:
    assert inline_secrets(url) == found


@pytest.mark.parametrize("sentence", [
    "cluster 'primary' has a password in its workflow interface (never a password: use oozie.client.auth: kerberos).",
    "interfaces.readonly.credential is a password-text: the password of user 'reader' is in the repo.",
])
def test_the_toolkits_own_sentences_about_secrets_are_kept(sentence: str) -> None:
    assert masked(sentence) == sentence


def test_a_setting_after_a_sentences_colon_is_still_masked() -> None:
    assert masked(f"the password: token={SECRET} failed") == "the password: token=*** failed"


@pytest.mark.parametrize(("text", "shown"), [
    (f"    credential: {{type: password-text, userName: reader, passwordText: {SECRET}}}",
     "    credential: {type: password-text, userName: reader, passwordText: ***}"),
    (f"    properties: {{sslmode: require, sslpassword: '{SECRET}'}}",
     "    properties: {sslmode: require, sslpassword: '***'}"),
    ("  credential:\n    type: password-file\n    userName: reader",
     "  credential:\n    type: password-file\n    userName: reader"),
    (f"connecting with password: {SECRET}", "connecting with password: ***"),
])
def test_yaml_as_written_is_masked_setting_by_setting(text: str, shown: str) -> None:
    assert masked(text) == shown
