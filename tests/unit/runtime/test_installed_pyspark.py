"""Which pyspark an entrypoint imports (installed_pyspark.py): spark-submit's zip is taken off the path only when the
installed package is the same release; another release, a damaged zip or no installed copy keep it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from toolkit.services.runtime.installed_pyspark import preferred_path

RELEASE = "__version__: str = '4.3.0'\n"


def installed(folder: Path, package: str, version: str) -> str:
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text("")
    (folder / package / "version.py").write_text(version)
    return str(folder)


def zipped(file: Path, package: str, version: str | None) -> str:
    with zipfile.ZipFile(file, "w") as archive:
        archive.writestr(f"{package}/__init__.py", "")
        if version is not None:
            archive.writestr(f"{package}/version.py", version)
    return str(file)


def test_the_zips_of_the_installed_releases_leave_the_path(tmp_path):
    site = installed(tmp_path / "site", "pyspark", RELEASE)
    installed(tmp_path / "site", "py4j", "__version__ = '0.10.9.9'\n")
    spark_zip = zipped(tmp_path / "pyspark.zip", "pyspark", RELEASE)
    py4j_zip = zipped(tmp_path / "py4j-0.10.9.9-src.zip", "py4j", "__version__ = '0.10.9.9'\n")
    path = ["/entrypoints", spark_zip, py4j_zip, "/spark/jars/spark-core.jar", "/usr/lib/python311.zip", site]
    assert preferred_path(path) == ["/entrypoints", "/spark/jars/spark-core.jar", "/usr/lib/python311.zip", site]


@pytest.mark.parametrize("zip_version", ["__version__: str = '4.2.1'\n", None])
def test_another_release_or_an_unreadable_zip_keeps_the_zip(tmp_path, zip_version):
    site = installed(tmp_path / "site", "pyspark", RELEASE)
    spark_zip = zipped(tmp_path / "pyspark.zip", "pyspark", zip_version)
    assert preferred_path([spark_zip, site]) == [spark_zip, site]


def test_no_installed_copy_keeps_the_zip(tmp_path):
    spark_zip = zipped(tmp_path / "pyspark.zip", "pyspark", RELEASE)
    (tmp_path / "damaged.zip").write_bytes(b"not a zip")
    assert preferred_path([spark_zip, str(tmp_path / "elsewhere")]) == [spark_zip, str(tmp_path / "elsewhere")]
