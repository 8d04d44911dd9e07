"""The text of a SQL workflow, as the spark-sql and hive engines run it and column lineage reads it: its `${name}`
variables and its statements."""

from __future__ import annotations

import re

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


def split_statements(source: str) -> list[str]:
    """Statements separated by `;` outside quotes, backticks and comments; comments dropped, empty ones too."""
    statements, current = [], []
    i, n = 0, len(source)
    quote: str | None = None
    while i < n:
        char = source[i]
        if quote:
            current.append(char)
            if char == "\\" and quote != "`" and i + 1 < n:
                current.append(source[i + 1])
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"`":
            quote = char
            current.append(char)
        elif source.startswith("--", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
            current.append(" ")
            continue
        elif char == ";":
            statements.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    statements.append("".join(current))
    return [statement.strip() for statement in statements if statement.strip()]
