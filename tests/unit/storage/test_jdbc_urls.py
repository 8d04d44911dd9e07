"""A JDBC URL as the toolkit shows it (`JdbcEndpoint.shown_url`, toolkit/secrets_masking.py): every form a driver
takes a password in, with the password gone and the rest as written; and the server it names (host, port,
database) read from every form, so that a lineage namespace holds nothing else."""

from __future__ import annotations

import pytest

from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.jdbc.registry import dialect_for

SECRET = "Pw1-s3cr3t"

SHOWN = [
    # the query string of pgjdbc, Connector/J and others; `password`, `pwd`, `sslpassword`, any case
    (f"jdbc:postgresql://db:5432/sales?user=etl&password={SECRET}&ssl=true",
     "jdbc:postgresql://db:5432/sales?user=etl&password=***&ssl=true"),
    (f"jdbc:postgresql://db:5432/sales?sslmode=verify-full&sslpassword={SECRET}&sslcert=/etc/pg/etl.crt",
     "jdbc:postgresql://db:5432/sales?sslmode=verify-full&sslpassword=***&sslcert=/etc/pg/etl.crt"),
    (f"jdbc:postgresql://db/sales?PASSWORD={SECRET}", "jdbc:postgresql://db/sales?PASSWORD=***"),
    (f"jdbc:mysql://db:3306/sales?user=etl&pwd={SECRET}", "jdbc:mysql://db:3306/sales?user=etl&pwd=***"),
    (f"jdbc:mysql://db/sales?trustCertificateKeyStorePassword={SECRET}&verifyServerCertificate=true",
     "jdbc:mysql://db/sales?trustCertificateKeyStorePassword=***&verifyServerCertificate=true"),
    (f"jdbc:postgresql://db/sales?token={SECRET}&ApplicationName=etl",
     "jdbc:postgresql://db/sales?token=***&ApplicationName=etl"),
    # Connector/J's user info, and its key-value host forms
    (f"jdbc:mysql://etl:{SECRET}@db:3306/sales?useSSL=true", "jdbc:mysql://etl:***@db:3306/sales?useSSL=true"),
    (f"jdbc:mariadb://etl:{SECRET}@db1:3306,db2:3306/sales", "jdbc:mariadb://etl:***@db1:3306,db2:3306/sales"),
    (f"jdbc:mysql://(host=db,port=3306,user=etl,password={SECRET})/sales",
     "jdbc:mysql://(host=db,port=3306,user=etl,password=***)/sales"),
    (f"jdbc:mysql://address=(host=db)(port=3306)(password={SECRET})/sales",
     "jdbc:mysql://address=(host=db)(port=3306)(password=***)/sales"),
    # Oracle thin's user/password@
    (f"jdbc:oracle:thin:etl/{SECRET}@//db:1521/ORCL", "jdbc:oracle:thin:etl/***@//db:1521/ORCL"),
    (f"jdbc:oracle:thin:etl/{SECRET}@db:1521:XE", "jdbc:oracle:thin:etl/***@db:1521:XE"),
    ('jdbc:oracle:thin:etl/"' + SECRET + '@/x"@//db:1521/ORCL', "jdbc:oracle:thin:etl/***@//db:1521/ORCL"),
    # SQL Server's properties after `;`, a value in braces holding `;` and an escaped `}}`
    (f"jdbc:sqlserver://db:1433;databaseName=sales;user=etl;password={SECRET};encrypt=true",
     "jdbc:sqlserver://db:1433;databaseName=sales;user=etl;password=***;encrypt=true"),
    ("jdbc:sqlserver://db:1433;databaseName=sales;password={" + SECRET + ";x}}y};encrypt=true",
     "jdbc:sqlserver://db:1433;databaseName=sales;password=***;encrypt=true"),
    (f"jdbc:sqlserver://db.database.windows.net:1433;database=sales;user=etl@db;password={SECRET}",
     "jdbc:sqlserver://db.database.windows.net:1433;database=sales;user=etl@db;password=***"),
    (f"jdbc:sqlserver://db;keyStoreSecret={SECRET};keyStoreAuthentication=JavaKeyStorePassword",
     "jdbc:sqlserver://db;keyStoreSecret=***;keyStoreAuthentication=JavaKeyStorePassword"),
    # Teradata's comma-separated parameters, DB2's after the database, HSQLDB's after `;`
    (f"jdbc:teradata://db/DATABASE=sales,USER=etl,PASSWORD={SECRET},TMODE=ANSI",
     "jdbc:teradata://db/DATABASE=sales,USER=etl,PASSWORD=***,TMODE=ANSI"),
    (f"jdbc:db2://db:50000/sales:user=etl;password={SECRET};", "jdbc:db2://db:50000/sales:user=etl;password=***;"),
    (f"jdbc:hsqldb:hsql://db:9001/sales;user=SA;password={SECRET}", "jdbc:hsqldb:hsql://db:9001/sales;user=SA;password=***"),
    # a key that names a key
    (f"jdbc:bigquery://https://www.googleapis.com/bigquery/v2:443;ProjectId=p;OAuthPvtKey={SECRET};OAuthType=0",
     "jdbc:bigquery://https://www.googleapis.com/bigquery/v2:443;ProjectId=p;OAuthPvtKey=***;OAuthType=0"),
    # a password of the user info holding `/ ; ? # ,` (up to the last `@`), or a space; a value with spaces
    (f"jdbc:postgresql://etl:{SECRET}/x@db:5432/sales", "jdbc:postgresql://etl:***@db:5432/sales"),
    (f"jdbc:postgresql://etl:{SECRET};x@db/sales", "jdbc:postgresql://etl:***@db/sales"),
    (f"jdbc:postgresql://etl:4711#{SECRET}@db:5432/sales", "jdbc:postgresql://etl:***@db:5432/sales"),
    (f"jdbc:postgresql://etl:{SECRET}?x@db/sales", "jdbc:postgresql://etl:***@db/sales"),
    (f"jdbc:mysql://etl:{SECRET} 1@db/sales", "jdbc:mysql://etl:***@db/sales"),
    (f"jdbc:sqlserver://db:1433;user=etl;password={SECRET} 1 x;databaseName=sales",
     "jdbc:sqlserver://db:1433;user=etl;password=***;databaseName=sales"),
    (f"jdbc:h2:tcp://db/sales;CIPHER=AES;PASSWORD={SECRET} userpw", "jdbc:h2:tcp://db/sales;CIPHER=AES;PASSWORD=***"),
    (f"jdbc:sqlserver://db;password='{SECRET};encrypt=true", "jdbc:sqlserver://db;password='***;encrypt=true"),
    # nothing to hide: as written
    ("jdbc:mysql://db/sales?keySizeBits=256&useSSL=true", "jdbc:mysql://db/sales?keySizeBits=256&useSSL=true"),
    ("jdbc:postgresql://db:5432/sales?sslmode=require", "jdbc:postgresql://db:5432/sales?sslmode=require"),
    ("jdbc:oracle:thin:@//db:1521/ORCL", "jdbc:oracle:thin:@//db:1521/ORCL"),
]


def _endpoint(url: str) -> JdbcEndpoint:
    return JdbcEndpoint(url=url, user="etl", password=SECRET, driver_class="org.Driver", jars=("/d.jar",),
                        dialect=dialect_for("generic"))


@pytest.mark.parametrize(("url", "shown"), SHOWN)
def test_the_url_is_shown_without_its_password_and_otherwise_as_written(url: str, shown: str) -> None:
    endpoint = _endpoint(url)
    assert endpoint.shown_url == shown
    assert SECRET not in repr(endpoint)


SERVERS = [
    (f"jdbc:postgresql://db.example:5432/sales?password={SECRET}", ("db.example", "5432", "sales")),
    (f"jdbc:mysql://etl:{SECRET}@db:3306/sales?useSSL=true", ("db", "3306", "sales")),
    (f"jdbc:mysql://etl:{SECRET}@db1:3306,db2:3306/sales", ("db1", "3306", "sales")),
    (f"jdbc:mysql://(host=db,port=3306,user=etl,password={SECRET})/sales", ("db", "3306", "sales")),
    (f"jdbc:mysql://address=(host=db)(port=3306)(password={SECRET})/sales", ("db", "3306", "sales")),
    (f"jdbc:sqlserver://db:1433;databaseName=sales;user=etl;password={SECRET}", ("db", "1433", "sales")),
    (f"jdbc:sqlserver://db\\SALES:1433;database=sales;password={{{SECRET};x}}", ("db", "1433", "sales")),
    (f"jdbc:sqlserver://;serverName=db;portNumber=1433;databaseName=sales;password={SECRET}",
     ("db", "1433", "sales")),
    (f"jdbc:oracle:thin:etl/{SECRET}@//db:1521/ORCL", ("db", "1521", "ORCL")),
    (f"jdbc:oracle:thin:etl/{SECRET}@db:1521:XE", ("db", "1521", "XE")),
    ("jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=ORCL)))",
     ("db", "1521", "ORCL")),
    (f"jdbc:teradata://db/DATABASE=sales,USER=etl,PASSWORD={SECRET},DBS_PORT=1025", ("db", "1025", "sales")),
    (f"jdbc:db2://db:50000/sales:user=etl;password={SECRET};", ("db", "50000", "sales")),
    (f"jdbc:hsqldb:hsql://db:9001/sales;password={SECRET}", ("db", "9001", "sales")),
    ("jdbc:postgresql://[::1]:5432/sales", ("[::1]", "5432", "sales")),
    ("jdbc:hsqldb:mem:sales", ("", "", "")),
    # the host is what follows the last `@` of the user info: nothing of a user or a password
    (f"jdbc:postgresql://etl:4711#{SECRET}@db:5432/sales", ("db", "5432", "sales")),
    (f"jdbc:postgresql://etl:4711?{SECRET}@db:5432/sales", ("db", "5432", "sales")),
    (f"jdbc:postgresql://etl:4711;{SECRET}@db:5432/sales", ("db", "5432", "sales")),
    (f"jdbc:postgresql://etl:4711,{SECRET}@db:5432/sales", ("db", "5432", "sales")),
    (f"jdbc:postgresql://etl:Pw/{SECRET}@db:5432/sales", ("db", "5432", "sales")),
    (f"jdbc:mysql://etl:p@ss?w{SECRET}@db:3306/sales", ("db", "3306", "sales")),
    (f"jdbc:postgresql://etl:4711 {SECRET}@db:5432/sales", ("", "", "")),  # no URL: nothing is read from it
    (f"jdbc:sqlserver://db:1433;password=a,databaseName={SECRET};databaseName=sales", ("db", "1433", "sales")),
    (f"jdbc:sqlserver://db.database.windows.net:1433;database=sales;user=etl@db;password={SECRET}",
     ("db.database.windows.net", "1433", "sales")),
    (f"jdbc:oracle:thin:etl/{SECRET}@", ("", "", "")),
]


@pytest.mark.parametrize(("url", "server"), SERVERS)
def test_the_server_is_read_from_every_form_and_holds_nothing_else(url: str, server: tuple[str, str, str]) -> None:
    endpoint = _endpoint(url)
    assert (*endpoint.host_and_port, endpoint.database) == server


def test_the_repr_shows_the_properties_with_their_secrets_masked() -> None:
    endpoint = JdbcEndpoint(url="jdbc:postgresql://db/sales", user="etl", password=SECRET, driver_class="org.Driver",
                            jars=("/d.jar",), dialect=dialect_for("postgres"),
                            properties={"sslpassword": SECRET, "sslmode": "verify-full"})
    assert repr(endpoint).endswith("properties={'sslpassword': '***', 'sslmode': 'verify-full'})")
    assert SECRET not in repr(endpoint)
