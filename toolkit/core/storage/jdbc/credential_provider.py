"""A password kept in a Hadoop credential provider (a JCEKS keystore, `jceks://hdfs/user/etl/sales.jceks`), read
as Sqoop reads `--password-alias`: Hadoop's `Configuration.getPassword` in the Spark driver's JVM, with the
provider path set on a copy of the session's Hadoop configuration (so the keystore may be on the cluster's file
system, with its credentials)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.java_errors import java_error, one_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PROVIDER_PATH = "hadoop.security.credential.provider.path"


def alias_reader(spark: SparkSession) -> Callable[[str, str], str | None]:
    """(provider path, alias) -> the password, or None when the provider holds no such alias."""

    def read(provider: str, alias: str) -> str | None:
        jvm: Any = spark._jvm
        jsc: Any = spark._jsc
        conf = jvm.org.apache.hadoop.conf.Configuration(jsc.hadoopConfiguration())
        conf.set(PROVIDER_PATH, provider)
        try:
            chars = conf.getPassword(alias)
        except Exception as err:  # noqa: BLE001 - a py4j error, said in one sentence
            raise StorageError(f"The credential provider {provider} cannot be read "
                               f"({one_line(java_error(err)[1] or str(err))}): check the path and that this user "
                               "may read it.") from None
        if chars is None:
            return None
        return "".join(chr(code) if isinstance(code, int) else str(code) for code in chars)

    return read
