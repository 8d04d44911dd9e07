"""CRC32C (Castagnoli, reflected 0x82F63B78) in plain Python, as 8 hex digits: the standard library has none,
and the tests check the JVM's checksums against an implementation of their own."""

from __future__ import annotations


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _table()


def crc32c(data: bytes) -> str:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return f"{crc ^ 0xFFFFFFFF:08x}"
