"""A little reading of ELF files (64-bit, little-endian: Linux on x86_64 and arm64): the libraries
a file links directly, whether it still has a symbol table, and whether the dynamic loader would
accept its segments."""

from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["has_symbol_table", "is_elf", "loads_aligned", "needed"]

_ELF64_LE = b"\x7fELF\x02\x01"
_SHT_SYMTAB = 2
_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB = 0, 1, 5


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(6) == _ELF64_LE
    except OSError:
        return False


def _segments(data: bytes) -> list[tuple[int, int, int, int, int]]:
    """(type, offset, vaddr, filesz, align) of each program header."""
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    found = []
    for index in range(phnum):
        kind, _flags, offset, vaddr, _paddr, filesz, _memsz, align = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + index * phentsize
        )
        found.append((kind, offset, vaddr, filesz, align))
    return found


def has_symbol_table(path: Path) -> bool:
    if not is_elf(path):
        return False
    data = path.read_bytes()
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for index in range(shnum):
        (kind,) = struct.unpack_from("<I", data, shoff + index * shentsize + 4)
        if kind == _SHT_SYMTAB:
            return True
    return False


def loads_aligned(path: Path) -> bool:
    """Every PT_LOAD segment has ``offset % align == vaddr % align`` (else the loader refuses the
    file: "ELF load command address/offset not page-aligned")."""
    if not is_elf(path):
        return False
    for kind, offset, vaddr, _filesz, align in _segments(path.read_bytes()):
        if kind == _PT_LOAD and align > 1 and offset % align != vaddr % align:
            return False
    return True


def needed(path: Path) -> list[str]:
    """The libraries ``path`` links directly (its DT_NEEDED entries), e.g. ``libQt6Core.so.6``."""
    data = path.read_bytes()
    segments = _segments(data)
    dynamic = next(((offset, size) for kind, offset, _v, size, _a in segments if kind == _PT_DYNAMIC), None)
    if dynamic is None:
        return []
    entries = []
    strtab = None
    for position in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", data, position)
        if tag == _DT_NULL:
            break
        if tag == _DT_STRTAB:
            strtab = value
        elif tag == _DT_NEEDED:
            entries.append(value)
    if strtab is None:
        return []
    # the string table's address -> its place in the file
    base = next((offset + strtab - vaddr for kind, offset, vaddr, size, _a in segments
                 if kind == _PT_LOAD and vaddr <= strtab < vaddr + size), None)  # fmt: skip
    if base is None:
        return []
    names = []
    for entry in entries:
        end = data.index(b"\0", base + entry)
        names.append(data[base + entry : end].decode("utf-8", "replace"))
    return names
