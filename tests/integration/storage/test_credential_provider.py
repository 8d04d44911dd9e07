"""A password kept in a Hadoop credential provider (a JCEKS keystore, as `hadoop credential create` writes it), read by
the import's and export's `password-alias` (toolkit/core/storage/jdbc/credential_provider.py) through Hadoop's own
`Configuration.getPassword` in the Spark driver: the keystore written with Hadoop's API, then read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.jdbc.credential_provider import alias_reader


def _keystore(spark: SparkSession, path: Path, entries: dict[str, str]) -> str:
    """A JCEKS keystore at `path` holding `entries`, written by Hadoop's credential provider API."""
    jvm: Any = spark._jvm
    provider_path = f"jceks://file{path}"
    conf = jvm.org.apache.hadoop.conf.Configuration()
    conf.set("hadoop.security.credential.provider.path", provider_path)
    [provider] = list(jvm.org.apache.hadoop.security.alias.CredentialProviderFactory.getProviders(conf))
    gateway: Any = spark.sparkContext._gateway
    for alias, password in entries.items():
        chars = gateway.new_array(jvm.char, len(password))
        for index, char in enumerate(password):
            chars[index] = char
        provider.createCredentialEntry(alias, chars)
    provider.flush()
    return provider_path


def test_an_alias_is_read_from_a_real_keystore_and_a_missing_one_is_none(spark: SparkSession,
                                                                         tmp_path: Path) -> None:
    provider = _keystore(spark, tmp_path / "shop.jceks", {"shop.password": "Kéy-st0re pass"})
    read = alias_reader(spark)

    assert read(provider, "shop.password") == "Kéy-st0re pass"
    assert read(provider, "other.password") is None
    assert (tmp_path / "shop.jceks").read_bytes()[:4] == bytes.fromhex("cececece")  # a JCEKS keystore


def test_a_provider_that_cannot_be_read_is_one_sentence(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "broken.jceks").write_bytes(b"not a keystore")

    with pytest.raises(StorageError) as failed:
        alias_reader(spark)(f"jceks://file{tmp_path / 'broken.jceks'}", "shop.password")

    said = str(failed.value)
    assert said.startswith(f"The credential provider jceks://file{tmp_path / 'broken.jceks'} cannot be read (")
    assert said.endswith("): check the path and that this user may read it.") and "\n" not in said
