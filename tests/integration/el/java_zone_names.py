"""Java's English time-zone names, read from a running JVM: the data behind `toolkit/core/el/java_zone_names.py`.

`SimpleDateFormat` writes `z` and `zzzz` as `TimeZone.getDisplayName` gives them, from the JDK's locale data
(CLDR, with the JDK's older names where CLDR has no abbreviation), which Python has no copy of. Regenerate the
table after a JDK upgrade with `python -m tests.integration.el.java_zone_names > toolkit/core/el/java_zone_names.py`.
"""

from __future__ import annotations

import json
from zoneinfo import available_timezones

Names = tuple[str, str, str, str]


def zone_names(jvm) -> dict[str, Names]:  # noqa: ANN001 - the py4j view of the JVM
    """Zone id -> (long standard, short standard, long daylight, short daylight): what
    `TimeZone.getDisplayName(daylight, style, Locale.US)` gives, which SimpleDateFormat writes, for the zones
    both Java and Python know."""
    locale = jvm.java.util.Locale.US
    short, long = jvm.java.util.TimeZone.SHORT, jvm.java.util.TimeZone.LONG
    table: dict[str, Names] = {}
    for zone in sorted(set(jvm.java.util.TimeZone.getAvailableIDs()) & available_timezones()):
        java_zone = jvm.java.util.TimeZone.getTimeZone(zone)
        table[zone] = (java_zone.getDisplayName(False, long, locale), java_zone.getDisplayName(False, short, locale),
                       java_zone.getDisplayName(True, long, locale), java_zone.getDisplayName(True, short, locale))
    return table


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def module_text(table: dict[str, Names], java_version: str) -> str:
    lines = [
        f'"""Java\'s English (Locale.US) time-zone names, generated from JDK {java_version} by',
        "tests/integration/el/java_zone_names.py (do not edit): zone id -> (long standard, short standard,",
        'long daylight, short daylight), what SimpleDateFormat writes for `zzzz` and `z`."""',
        "",
        "ZONE_NAMES: dict[str, tuple[str, str, str, str]] = {",
    ]
    for zone, names in sorted(table.items()):
        line = f"    {_quoted(zone)}: ({', '.join(map(_quoted, names))}),"
        if len(line) > 120:  # the project's line length
            line = f"    {_quoted(zone)}: (\n" + "".join(f"        {_quoted(name)},\n" for name in names) + "    ),"
        lines.append(line)
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    from pyspark import SparkContext

    context = SparkContext("local[1]", "java-zone-names")
    try:
        jvm = context._jvm
        print(module_text(zone_names(jvm), jvm.java.lang.System.getProperty("java.version")), end="")
    finally:
        context.stop()
