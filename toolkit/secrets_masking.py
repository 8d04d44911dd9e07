"""The one masker of secrets in what the toolkit shows, records or sends: every message, status line, ledger
record's error, notification, lineage event, page and log goes through `masked` (text) or `masked_properties`
(a mapping of settings), so a password written into a definition, or echoed by a driver or a workflow, reaches
none of them. Pure string work, importable from every layer.

What is masked (each value becomes `***`, everything around it stays as written):
- the password of a URL's user info, `scheme://user:password@host` (JDBC's Connector/J, http, hdfs, thrift...),
  up to the last `@` of the run of non-blank characters after `scheme://user:` (a password may hold `/ ; ? # @ ,`),
  unless a parameter (`;name=`, `?name=`, `&name=`) starts before it: SQL Server's `host:1433;user=etl@db` is no user
  info; a JDBC URL's password holding one or two spaces (`jdbc:mysql://u:a b@h`, as a driver's URISyntaxException
  echoes it), never more (a sentence after a URL); an http(s) user info that is a token alone
  (`https://TOKEN@github.com`);
- Oracle's `jdbc:oracle:thin:user/password@...` (a password in double quotes too), up to the last `@` likewise;
- the value of every setting named for a secret (`secret_name`), written `name=value` or `name: value` (JSON's
  `"name": "value"` too), or a command line's `--password value`: a URL's `?a=1&password=x`, SQL Server's
  `;password=x;` or `;password={a;b}}c};` (braces hold `;`, `}}` is a `}`), Teradata's `,PASSWORD=x,`,
  Connector/J's `(password=x)`, a quoted value (a quote that never closes: to the end of the value), Azure's `sig=`,
  AWS's `X-Amz-Signature=`; after a `;` the value runs to the next `;` (or the line's end), after `name: ` to the
  line's end (or the next `, name:` or the `}` ending a YAML flow mapping), so a value with spaces is masked whole;
  but not a name that says where a secret is or what kind it is (`password-file`, `token-env`, `keyStoreType`: see
  `_POINTER`), nor an error's name (`KeyError: 'x'`), nor a path's partition whose column is named like a key
  (`/partition_key=2026/`), nor a sentence's `a password: use ...` or `password: must not be empty` (see `_prose`);
- an `Authorization:` header's credentials, whatever their scheme (`Basic`, `Bearer`, `Negotiate`, `Digest` kept).

`inline_secrets` and `inline_secret` tell lint (DS003, CL011) whether a definition writes a secret itself: the
same names, but a value that is a path, a URI, a boolean or a `${...}` placeholder is no secret there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

MASK = "***"
USER_INFO = "the password of its user info"

# A name holding one of these anywhere names a secret; `secret` and `token` must end a part of the name
# (`client_secret`, `keyStoreSecret`, `authtoken`; not `secretary`, `tokenizer`, `max_tokens`); `key` must end the
# name after a part that makes it a secret's (`api_key`, `OAuthPvtKey`, `AccountKey`; not `partition_key`, `monkey`).
_STRONG_WORDS = ("password", "passwd", "pwd", "passphrase", "credential")
_KEY_OWNERS = frozenset({"api", "secret", "private", "priv", "pvt", "access", "encryption", "decryption", "master",
                         "client", "signing", "account", "shared", "storage", "auth", "hmac", "sas"})
_CANDIDATE = r"(?:password|passwd|pwd|passphrase|credential|secret|token|key|sig)"
# The last word of a name that says where a secret is, what kind it is, or that it is no setting at all.
_POINTER = re.compile(r"(?i)(?:env|file|path|location|url|uri|alias|provider|type|class|callback|retrieval|"
                      r"authentication|id|name|user|username|length|size|algorithm|format|error|exception|warning|"
                      r"count)$")
_NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# `name=value`; `name: value` with a space after the colon (YAML, a sentence) or after a quoted name (JSON), so that
# a host and port (`keycloak:8080`) is no setting.
_NAME_SEP = re.compile(rf"(?i)(?<![\w.\-])(?P<name>[\w.\-]*{_CANDIDATE}[\w.\-]*)"
                       r"(?P<sep>[\"']?[ \t]*=[ \t]*|[ \t]*:[ \t]+|[\"'][ \t]*:[ \t]*)")
# A command line's `--password value` (Sqoop, beeline).
_OPTION = re.compile(rf"(?i)(?<![\w.\-])(?P<head>(?P<name>--[\w.\-]*{_CANDIDATE}[\w.\-]*)[ \t]+)"
                     r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'\-]\S*)")
# A value: closed quotes (the closing quote ends the value), SQL Server's braces, or an opening quote that never
# closes followed by the value's characters; those, by where the setting is: bare, after a `;`, after `name: `.
_QUOTED = re.compile(r"\"(?:[^\"\\\n]|\\.)+\"(?=[\s,;&.:)}\]]|$)|'[^'\n]+'(?=[\s,;&.:)}\]\"]|$)")
_BRACES = re.compile(r"\{(?:[^}\n]|\}\})*\}")
_OPENER = re.compile(r"\\?[\"']")
_BARE = re.compile(r"(?:[^\s\"',;&)}\]]|,(?![\s,]|[\w.\-]+=)|\)(?![\s(/,?)]|$)|[}\]](?![\s,;&)}\]\"']|$))+")
_TO_SEMICOLON = re.compile(r"[^;\n]+")
_TO_LINE_END = re.compile(r"(?:(?!,[ \t]*[\"']?[\w.\-]+[\"']?[ \t]*[:=])(?:[^\n}\]]|[}\]](?![\s,;&)}\]\"']|$)))+")

_PARAMETER_START = r"[;?&][\w.\-]+="
_USER_INFO = re.compile(rf"(?i)(?P<head>\b[a-z][a-z0-9+.\-]*://[^\s/?#@:;]*:)(?P<value>(?:(?!{_PARAMETER_START})\S)*)"
                        r"(?=@)")
_SPACED_USER_INFO = re.compile(r"(?i)(?P<head>\bjdbc:(?:[a-z0-9]+:)+//[^\s/?#@:;]*:)"
                               r"(?P<value>[^\s/@]+(?: [^\s/@]+){1,2})(?=@)")
_TOKEN_USER_INFO = re.compile(r"(?i)(?P<head>\bhttps?://)(?P<value>[^\s/?#@:]+)(?=@)")
_ORACLE_USER = re.compile(r"(?i)(?P<head>\bjdbc:(?:[a-z0-9]+:)+(?:\"[^\"\s]*\"|[^\s/@:\"]+)/)"
                          r"(?P<value>\"[^\"\n]*\"|[^\s\"]*)(?=@)")
_USER_INFOS = (_USER_INFO, _SPACED_USER_INFO, _TOKEN_USER_INFO)
_AUTHORIZATION = re.compile(r"(?i)(?<![\w.\-])(?P<head>(?:proxy-)?authorization[\"']?[ \t]*[=:][ \t]*(?P<quote>[\"']?)"
                            r"(?:(?:basic|bearer|negotiate|digest)[ \t]+(?=\S))?)(?P<value>[^\n]*)")

_WORD_BEFORE = re.compile(r"(?:^|\W)(\w+)[ \t]+$")
_ARTICLES = frozenset({"a", "an", "the", "no", "any", "its", "their", "this", "that", "every", "each", "your"})
# `password: must not be empty`: a sentence's word after a plain `password:`, `token:`, `authorization:`.
_PROSE_NAMES = frozenset({"password", "passwd", "passphrase", "secret", "token", "credential", "credentials",
                          "authorization"})
_PROSE_WORDS = frozenset({"must", "is", "was", "are", "not", "required", "wrong", "expired", "denied", "missing",
                          "invalid", "incorrect", "empty", "none", "see", "use", "cannot", "should", "too", "failed",
                          "rejected", "unknown", "unset", "changed", "reset", "needed", "ok"})
_FIRST_WORD = re.compile(r"[a-z]+(?=[\s.,;:!)]|$)")
_STRONG_PART = re.compile("(?i)" + "|".join((*_STRONG_WORDS, "secret", "token")))
_NOT_A_SECRET = re.compile(r"(?i)(?:true|false|yes|no|\$\{[^}]*\}|[/~].*|file:.*|[a-z][a-z0-9+.\-]*://.*)")


def secret_name(name: str) -> bool:
    """Whether a setting of this name holds a secret (`sslpassword`, `api_key`), not where one is (`password-file`)
    nor a name that only holds the letters (`partition_key`, `secretary`, `max_tokens`)."""
    if _POINTER.search(name):
        return False
    lower = name.lower()
    if any(word in lower for word in _STRONG_WORDS):
        return True
    parts = [part.lower() for piece in re.split(r"[^A-Za-z0-9]+", name) for part in _NAME_PARTS.findall(piece)]
    if not parts:
        return False
    if any(part.endswith(("secret", "token")) for part in parts) or lower == "sig" or parts[-1] == "signature":
        return True
    last = parts[-1].removesuffix("s")
    if not last.endswith("key"):
        return False
    owner = last[:-3] or (parts[-2] if len(parts) > 1 else "")
    return owner in _KEY_OWNERS


def masked(text: str) -> str:
    """`text` with every secret it writes (see the module's list) replaced by `***`."""
    lower = text.lower()  # each form is looked for only where its marks are: most text has none
    if "@" in text:
        if "jdbc:" in lower:
            text = _ORACLE_USER.sub(lambda m: m["head"] + MASK if m["value"] else m[0], text)
        if "://" in text:
            for pattern in _USER_INFOS:
                text = pattern.sub(lambda m: m["head"] + MASK if m["value"] else m[0], text)
    if "authorization" in lower:
        text = _AUTHORIZATION.sub(_masked_authorization, text)
    if "--" in text:
        text = _OPTION.sub(lambda m: m["head"] + MASK if secret_name(m["name"]) else m[0], text)
    if re.search(_CANDIDATE, lower):
        text = _masked_settings(text)
    return text


def masked_properties(properties: Mapping[str, str]) -> dict[str, str]:
    """The properties as shown: a secret's value `***` (by its name), any other value `masked` (a URL in it)."""
    return {name: MASK if secret_name(name) else masked(str(value)) for name, value in properties.items()}


def inline_secret(name: str, value: str) -> bool:
    """Whether the setting `name: value` of a definition writes a secret itself (a path to one, a boolean or a
    `${...}` placeholder does not)."""
    return secret_name(name) and bool(value.strip()) and not _NOT_A_SECRET.fullmatch(value.strip())


def secret_settings(text: str) -> list[tuple[str, str]]:
    """Each secret a URL (or any text) writes itself, with what names it (`USER_INFO`, `password`...), in the
    order written: what a page showing the text must not show."""
    found = [(USER_INFO, m["value"]) for pattern in (*_USER_INFOS, _ORACLE_USER) for m in pattern.finditer(text)
             if m["value"]]
    for name, _, start, end in _settings(text):
        value = text[start:end].strip("\"'")
        if inline_secret(name, value):
            found.append((name, value))
    return found


def inline_secrets(text: str) -> list[str]:
    """What of a URL (or any text) writes a secret itself, named and never shown: `the password of its user
    info`, `password`, `sslpassword`... in the order written, once each."""
    return list(dict.fromkeys(name for name, _ in secret_settings(text)))


def without_user_info(url: str) -> str:
    """`url` without the user info whose password `masked` masks (`thrift://hive:p/w@h:9083` is `thrift://h:9083`),
    so that what reads its host and port (urllib's `.port`) reads neither the user nor the password."""
    for pattern in _USER_INFOS:
        found = pattern.search(url)
        if found is not None and found["value"]:
            start = url.index("://", found.start()) + 3
            return url[:start] + url[found.end() + 1:]
    return url


def _settings(text: str) -> Iterator[tuple[str, str, int, int]]:
    """Each setting named for a secret that holds one: its name, separator, and where its value starts and ends."""
    position = 0
    while (match := _NAME_SEP.search(text, position)) is not None:
        position = match.end()
        if _no_setting(match):
            continue
        end = _value_end(text, match)
        if end > match.end():
            yield match["name"], match["sep"], match.end(), end
            position = end


def _masked_settings(text: str) -> str:
    parts, position = [], 0
    for _, _, start, end in _settings(text):
        value = text[start:end]
        opener = _OPENER.match(value)
        if opener is not None and _QUOTED.fullmatch(value):
            shown = f"{value[0]}{MASK}{value[0]}"
        elif opener is not None:
            shown = opener[0] + MASK
        else:
            shown = MASK
        parts += [text[position:start], shown]
        position = end
    return "".join(parts) + text[position:]


def _value_end(text: str, match: re.Match[str]) -> int:
    """Where the value after `match` ends: a closed quote's or braces' end, else by the form's rule (see the
    module's list); trailing blanks are not the value's."""
    start = match.end()
    closed = _QUOTED.match(text, start) or ("=" in match["sep"] and _BRACES.match(text, start))
    if closed:
        return closed.end()
    opener = _OPENER.match(text, start)
    value_start = opener.end() if opener is not None else start
    if ":" in match["sep"]:
        rule = _TO_LINE_END
    elif text[:match.start()].rstrip(" \t").endswith(";"):
        rule = _TO_SEMICOLON
    else:
        rule = _BARE
    found = rule.match(text, value_start)
    end = found.end() if found is not None else value_start
    while end > value_start and text[end - 1] in " \t\r":
        end -= 1
    return end if end > value_start else start


def _no_setting(match: re.Match[str]) -> bool:
    return (not secret_name(match["name"]) or _partition_column(match) or _flow_collection(match)
            or _prose(match, match["name"], match.end()))


def _masked_authorization(match: re.Match[str]) -> str:
    value = match["value"]
    if match["quote"] and match["quote"] in value:
        value = value[:value.index(match["quote"])]
    value = value.rstrip(" \t\r")
    if not value or _prose(match, "authorization", match.start("value")):
        return match[0]
    return match["head"] + MASK + match["value"][len(value):]


def _prose(match: re.Match[str], name: str, value_start: int) -> bool:
    """`never a password: use ...`, `password: must not be empty` in a sentence: a name after an article, or a
    plain name followed by a sentence's word, is a word, not a setting."""
    if ":" not in match[0][:value_start - match.start()]:
        return False
    before = _WORD_BEFORE.search(match.string[max(0, match.start() - 64):match.start()])
    if before is not None and before[1].lower() in _ARTICLES:
        return True
    first = _FIRST_WORD.match(match.string, value_start)
    return name.lower() in _PROSE_NAMES and first is not None and first[0] in _PROSE_WORDS


def _flow_collection(match: re.Match[str]) -> bool:
    """`credential: {type: ..., userName: ...}`: YAML's mapping (or list) after a colon, whose own settings are
    masked one by one; braces after `=` are SQL Server's value."""
    return ":" in match["sep"] and match.string[match.end():match.end() + 1] in ("{", "[")


def _partition_column(match: re.Match[str]) -> bool:
    """A path's `/customer_key=2026/` segment: a table partition's column named like a key, not a setting."""
    start = match.start()
    return start > 0 and match.string[start - 1] == "/" and not _STRONG_PART.search(match["name"])
