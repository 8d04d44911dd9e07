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


# The forms a reviewer found to survive (issue 68): every one masked, the text around it as written.
@pytest.mark.parametrize(("text", "shown"), [
    # a password of the user info holding `/ ; ? # @ ,`: up to the last `@` of the run after `scheme://user:`
    (f"jdbc:postgresql://u:{SECRET}/x@h/db", "jdbc:postgresql://u:***@h/db"),
    (f"jdbc:postgresql://u:{SECRET};x@h/db", "jdbc:postgresql://u:***@h/db"),
    (f"jdbc:postgresql://u:{SECRET}#x@h/db", "jdbc:postgresql://u:***@h/db"),
    (f"jdbc:postgresql://u:{SECRET}?x@h/db", "jdbc:postgresql://u:***@h/db"),
    (f"jdbc:mysql://u:{SECRET}@h1:3306,u2:{SECRET}@h2:3306/db", "jdbc:mysql://u:***@h2:3306/db"),
    (f"thrift://hive:p/{SECRET}@127.0.0.1:9083", "thrift://hive:***@127.0.0.1:9083"),
    # a token alone as an http(s) user info
    (f"https://{SECRET}@github.com/x", "https://***@github.com/x"),
    # a password with a space, as a driver's URISyntaxException echoes it
    (f"Illegal character in authority at index 20: jdbc:mysql://u:{SECRET} 1@h/db",
     "Illegal character in authority at index 20: jdbc:mysql://u:***@h/db"),
    # a value with spaces: to the next `;` in a `;`-separated URL, to the end of the line after `name: `
    (f"jdbc:sqlserver://h:1433;user=u;password={SECRET} 1 x;db=d", "jdbc:sqlserver://h:1433;user=u;password=***;db=d"),
    (f"jdbc:h2:file:/x;CIPHER=AES;PASSWORD={SECRET} userpw", "jdbc:h2:file:/x;CIPHER=AES;PASSWORD=***"),
    (f"password: {SECRET} 1 x\nuser: etl", "password: ***\nuser: etl"),
    (f"private_key: -----BEGIN PRIVATE KEY-----{SECRET}", "private_key: ***"),
    # a quote that never closes: to the end of the value; a quote that closes is kept
    (f"password='{SECRET}", "password='***"),
    (f'password="{SECRET}', 'password="***'),
    (f'password=\\"{SECRET}', 'password=\\"***'),
    (f"datasource 'x' writes password='{SECRET} inline; don't", "datasource 'x' writes password='*** inline; don't"),
    # Authorization of any scheme; Azure's and AWS's signed URLs
    (f"Authorization: token {SECRET}", "Authorization: ***"),
    (f"Proxy-Authorization: Basic {SECRET}", "Proxy-Authorization: Basic ***"),
    (f"https://acct.blob.core.windows.net/c?sv=2020&sig={SECRET}", "https://acct.blob.core.windows.net/c?sv=2020&sig=***"),
    (f"https://b.s3.amazonaws.com/k?X-Amz-Signature={SECRET}&X-Amz-Credential={SECRET}&X-Amz-Security-Token={SECRET}",
     "https://b.s3.amazonaws.com/k?X-Amz-Signature=***&X-Amz-Credential=***&X-Amz-Security-Token=***"),
    # a command line's option (Sqoop, beeline)
    (f"sqoop import --connect jdbc:mysql://h/db --username u --password {SECRET} --table t",
     "sqoop import --connect jdbc:mysql://h/db --username u --password *** --table t"),
    (f"beeline -u jdbc:hive2://h:10000 --password={SECRET}", "beeline -u jdbc:hive2://h:10000 --password=***"),
    # names whose last part is a key after a secret-ish part
    (f"secretKey={SECRET}", "secretKey=***"), (f"encryption.key={SECRET}", "encryption.key=***"),
    (f"AccountKey={SECRET};", "AccountKey=***;"), (f"master_key: {SECRET}", "master_key: ***"),
    (f"fs.s3a.access.key={SECRET}", "fs.s3a.access.key=***"), (f"X-Api-Key: {SECRET}", "X-Api-Key: ***"),
    (f"client_key={SECRET}", "client_key=***"), (f"signing_key={SECRET}", "signing_key=***"),
])
def test_the_forms_that_survived_are_masked(text: str, shown: str) -> None:
    assert masked(text) == shown
    assert SECRET not in masked(text)


@pytest.mark.parametrize("text", [
    "monkey=1", "hockey: 3", "keyword: select", "keyboard=qwerty", "publickey=ssh-rsa AAAA", "keySizeBits: 256",
    "update-key: day", "partition_key=2026-01-01", "surrogate_key=12345", "hash_key=md5(id)", "sort_key=day",
    "cache_key=ab12cd34ef", "pkey=id", "primary_key: id", "public_key: ssh-ed25519 AAAA", "secretary: Bob",
    "tokenizer: bert", "max_tokens=4096", "column token_count: int is not a string",
    "http://h/a:b@c", "ssh://git@h:22/repo", "thrift://hive@metastore:9083", "mailto:etl@example.com",
    "jdbc:sqlserver://db.database.windows.net:1433;database=sales;user=etl@db",
])
def test_a_name_that_only_looks_like_a_secret_is_kept(text: str) -> None:
    assert masked(text) == text
    assert inline_secrets(text) == []


@pytest.mark.parametrize(("name", "secret"), [
    ("api_key", True), ("apikey", True), ("secret.key", True), ("secret_key", True), ("private_key", True),
    ("privateKey", True), ("access_key", True), ("encryption.key", True), ("AccountKey", True),
    ("OAuthPvtKey", True), ("ssl.key.password", True), ("AWS_SECRET_ACCESS_KEY", True), ("client_secret", True),
    ("access_token", True), ("X-Amz-Security-Token", True), ("sig", True),
    ("monkey", False), ("keyword", False), ("keySizeBits", False), ("partition_key", False), ("primary_key", False),
    ("publickey", False), ("update-key", False), ("secretary", False), ("tokenizer", False), ("max_tokens", False),
    ("keys", False), ("privateKeyAlias", False), ("AccessKeyID", False),
])
def test_a_key_secret_or_token_is_a_name_part_meaning_a_secret(name: str, secret: bool) -> None:
    assert secret_name(name) is secret


@pytest.mark.parametrize(("url", "found"), [
    (f"jdbc:postgresql://u:{SECRET}/x@h/db", ["the password of its user info"]),
    (f"jdbc:postgresql://u:{SECRET};x@h/db", ["the password of its user info"]),
    (f"jdbc:postgresql://u:{SECRET}#x@h/db", ["the password of its user info"]),
    (f"jdbc:postgresql://u:{SECRET}?x@h/db", ["the password of its user info"]),
    (f"https://{SECRET}@github.com/x", ["the password of its user info"]),
    (f"jdbc:sqlserver://h;password='{SECRET}", ["password"]),
    ("jdbc:mysql://db/sales?keySizeBits=256&useSSL=true", []),
])
def test_what_a_url_writes_inline_in_the_forms_that_survived(url: str, found: list[str]) -> None:
    assert inline_secrets(url) == found
