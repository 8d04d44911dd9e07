"""The one masker of secrets in what the toolkit shows, records or sends: every message, status line, ledger
record's error, notification, lineage event, page and log goes through `masked` (text) or `masked_properties`
(a mapping of settings), so a password written into a definition, or echoed by a driver or a workflow, reaches
none of them. Pure string work, importable from every layer.

What is masked (each value becomes `***`, everything around it stays as written):
- the password of a URL's user info, `scheme://user:password@host` (JDBC's Connector/J, http, hdfs, thrift...),
  up to the last `@` before the authority ends (`/`, `?`, `#`, `;` or a space);
- Oracle's `jdbc:oracle:thin:user/password@...` (a password in double quotes too);
- the value of every setting whose name holds password, passwd, pwd, secret, token, credential, passphrase or
  key (any case; `sslpassword`, `trustCertificateKeyStorePassword`, `OAuthPvtKey`, `fs.s3a.secret.key`), written
  `name=value` or `name: value` (JSON's `"name": "value"` too): a URL's `?a=1&password=x`, SQL Server's
  `;password=x;` or `;password={a;b}}c};` (braces hold `;`, `}}` is a `}`), Teradata's `,PASSWORD=x,`,
  Connector/J's `(password=x)`, a quoted value; but not a name that says where a secret is or what kind it is
  (`password-file`, `token-env`, `keyStoreType`, `allowPublicKeyRetrieval`: see `_POINTER`), nor an error's name
  (`KeyError: 'x'`), nor a mapping's `key` itself (`key=value`), nor a path's partition whose column is named like
  a key (`/partition_key=2026/`), nor a sentence's `a password: use ...` (see `_prose`);
- the credentials of an `Authorization:` header.

`inline_secrets` and `inline_secret` tell lint (DS003, CL011) whether a definition writes a secret itself: the
same names, but a value that is a path, a URI, a boolean or a `${...}` placeholder is no secret there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MASK = "***"

_WORDS = ("password", "passwd", "pwd", "secret", "token", "credential", "passphrase", "key")
_SECRET_WORDS = f"(?:{'|'.join(_WORDS)})"
# The last word of a name that says where a secret is, what kind it is, or that it is no setting at all.
_POINTER = re.compile(r"(?i)(?:env|file|path|location|url|uri|alias|provider|type|class|callback|retrieval|"
                      r"authentication|id|name|user|username|length|size|algorithm|format|error|exception|warning)$")
_SECRET_NAME = re.compile(rf"(?i){_SECRET_WORDS}")

# A setting's value: quoted, in SQL Server's braces, or bare up to what ends a value in a URL or a sentence; a
# bare value goes on over `,` and `)` unless another `name=` follows the comma (Teradata) or the parenthesis ends
# a Connector/J group, and over `}` and `]` unless they end a YAML flow mapping or list.
_VALUE = (r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|\{(?:[^}\n]|\}\})*\}"
          r"|(?:[^\s\"',;&)}\]]|,(?![\s,]|[\w.\-]+=)|\)(?![\s(/,?)]|$)|[}\]](?![\s,;&)}\]\"']|$))+)")
# `name=value`; `name: value` with a space after the colon (YAML, a sentence) or after a quoted name (JSON), so that
# a host and port (`keycloak:8080`) is no setting.
_SETTING = re.compile(rf"(?i)(?<![\w.\-])(?P<name>[\w.\-]*{_SECRET_WORDS}[\w.\-]*)"
                      r"(?P<sep>[\"']?[ \t]*=[ \t]*|[ \t]*:[ \t]+|[\"'][ \t]*:[ \t]*)" + _VALUE)
_USER_INFO = re.compile(r"(?i)(?P<head>\b[a-z][a-z0-9+.\-]*://[^\s/?#@:;]*:)(?P<value>[^\s/?#;]*)(?=@)")
_ORACLE_USER = re.compile(r"(?i)(?P<head>\bjdbc:(?:[a-z0-9]+:)+(?:\"[^\"\s]*\"|[^\s/@:\"]+)/)"
                          r"(?P<value>\"[^\"\n]*\"|[^\s@\"]*)(?=@)")
_AUTHORIZATION = re.compile(r"(?i)(?P<head>\bauthorization[\"']?\s*[=:]\s*[\"']?(?:basic|bearer|negotiate)?\s*)"
                            r"(?P<value>\S+)")
_WORD_BEFORE = re.compile(r"(?:^|\W)(\w+)[ \t]+$")
_ARTICLES = frozenset({"a", "an", "the", "no", "any", "its", "their", "this", "that", "every", "each", "your"})
_STRONG_NAME = re.compile("(?i)" + "|".join(word for word in _WORDS if word != "key"))
_NOT_A_SECRET = re.compile(r"(?i)(?:true|false|yes|no|\$\{[^}]*\}|[/~].*|file:.*|[a-z][a-z0-9+.\-]*://.*)")


def secret_name(name: str) -> bool:
    """Whether a setting of this name holds a secret (`sslpassword`, `api_key`), not where one is (`password-file`)
    nor a mapping's `key` (`key=value`, a partition's key)."""
    return bool(_SECRET_NAME.search(name)) and not _POINTER.search(name) and name.lower() not in ("key", "keys")


def masked(text: str) -> str:
    """`text` with every secret it writes (see the module's list) replaced by `***`."""
    lower = text.lower()  # each form is looked for only where its marks are: most text has none
    if "@" in text:
        if "jdbc:" in lower:
            text = _ORACLE_USER.sub(lambda m: m["head"] + MASK, text)
        if "://" in text:
            text = _USER_INFO.sub(lambda m: m["head"] + MASK if m["value"] else m[0], text)
    if "authorization" in lower:
        text = _AUTHORIZATION.sub(lambda m: m["head"] + MASK, text)
    if any(word in lower for word in _WORDS):
        text = _SETTING.sub(_masked_setting, text)
    return text


def masked_properties(properties: Mapping[str, str]) -> dict[str, str]:
    """The properties as shown: a secret's value `***` (by its name), any other value `masked` (a URL in it)."""
    return {name: MASK if secret_name(name) else masked(str(value)) for name, value in properties.items()}


def inline_secret(name: str, value: str) -> bool:
    """Whether the setting `name: value` of a definition writes a secret itself (a path to one, a boolean or a
    `${...}` placeholder does not)."""
    return secret_name(name) and bool(value.strip()) and not _NOT_A_SECRET.fullmatch(value.strip())


def inline_secrets(text: str) -> list[str]:
    """What of a URL (or any text) writes a secret itself, named and never shown: `the password of its user
    info`, `password`, `sslpassword`... in the order written, once each."""
    found = []
    if any(m["value"] for m in _USER_INFO.finditer(text)) or any(m["value"] for m in _ORACLE_USER.finditer(text)):
        found.append("the password of its user info")
    for match in _SETTING.finditer(text):
        value = match["value"].strip("\"'")
        if inline_secret(match["name"], value) and match["name"] not in found:
            found.append(match["name"])
    return found


def _masked_setting(match: re.Match[str]) -> str:
    if not secret_name(match["name"]) or _partition_column(match) or _prose(match) or _flow_collection(match):
        return match["name"] + match["sep"] + _SETTING.sub(_masked_setting, match["value"])
    value = match["value"]
    shown = f"{value[0]}{MASK}{value[0]}" if value[0] in "\"'" else MASK
    return match["name"] + match["sep"] + shown


def _prose(match: re.Match[str]) -> bool:
    """`never a password: use ...` in a sentence: a name after an article is a word, not a setting."""
    before = _WORD_BEFORE.search(match.string[max(0, match.start() - 64):match.start()])
    return ":" in match["sep"] and before is not None and before[1].lower() in _ARTICLES


def _flow_collection(match: re.Match[str]) -> bool:
    """`credential: {type: ..., userName: ...}`: YAML's mapping (or list) after a colon, whose own settings are
    masked one by one; braces after `=` are SQL Server's value."""
    return ":" in match["sep"] and match["value"][0] in "{["


def _partition_column(match: re.Match[str]) -> bool:
    """A path's `/customer_key=2026/` segment: a table partition's column named like a key, not a setting."""
    start = match.start()
    return start > 0 and match.string[start - 1] == "/" and not _STRONG_NAME.search(match["name"])
