"""The C heap: how the process's freed memory goes back to the system (glibc on Linux; elsewhere
these calls do nothing and say so by returning False).

Two things let a long session's resident memory creep up while its live memory stays flat
(measured in the 10-minute soak, ``benchmarks/soak.py``, with glibc's ``mallinfo2`` each round:
bytes in use level off at about 60 MiB after the third round while the heap's free bytes grew from
under 1 MiB to 47 MiB):

* glibc's *dynamic mmap threshold*. A block larger than the threshold (128 KiB at start) is
  mapped on its own and unmapped when freed; but each such free raises the threshold to that
  block's size (up to 32 MiB). After the first decoded cover, window image or response body of a
  few MiB is freed, blocks of that size come from the heap instead, among small long-lived ones,
  and what they leave when freed cannot be given back. :func:`tune_heap` fixes the threshold.
* one heap (arena) per thread that allocates, up to eight per core: the app's dozen threads
  (Qt's, the disk worker, the executors, FFmpeg's) each keep their own free pages.
  :func:`tune_heap` caps the arenas.

:func:`trim_heap` gives back the free pages left inside every heap (``malloc_trim``); the app's
:class:`~castdeck.services.collector.QuietCollector` calls it after each full collection.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from dataclasses import dataclass

__all__ = ["ARENAS", "MMAP_THRESHOLD", "HeapUsage", "heap_usage", "trim_heap", "tune_heap"]

MMAP_THRESHOLD = 128 * 1024
"""Blocks at least this large are mapped on their own and go back to the system when freed:
glibc's starting value, held fixed."""
ARENAS = 2
"""Heaps the threads share (glibc's default is eight per core)."""

_M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
_M_ARENA_MAX = -8


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class HeapUsage:
    """The C heap's own account, in MiB (glibc's ``mallinfo2``, every arena)."""

    in_use: float
    """Bytes the program holds through ``malloc`` (in the heaps and mapped on their own)."""
    free: float
    """Bytes freed but kept inside the heaps: resident only where a trim could not give them back
    (free runs shorter than a page, between live blocks)."""
    mapped: float
    """Blocks mapped on their own (part of ``in_use``)."""


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (the one with ``mallopt`` and ``malloc_trim``), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.mallopt.restype = ctypes.c_int
        libc.mallinfo2.argtypes = []
        libc.mallinfo2.restype = _MallInfo2
    except (OSError, AttributeError):  # musl has none of these calls (mallinfo2: glibc 2.33)
        return None
    return libc


def tune_heap() -> bool:
    """Fix the mmap threshold at :data:`MMAP_THRESHOLD` and cap the heaps at :data:`ARENAS`.
    Called once, first thing in the app's process (before Qt starts its threads); True when the
    C library took both settings."""
    libc = _glibc()
    if libc is None:
        return False
    took: list[int] = [libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD), libc.mallopt(_M_ARENA_MAX, ARENAS)]
    return took == [1, 1]


def trim_heap() -> bool:
    """Give the free pages inside every heap back to the system (glibc's ``malloc_trim(0)``, well
    under a millisecond here). False where the C library has no such call (macOS, Windows, musl)."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def heap_usage() -> HeapUsage | None:
    """What the C heap holds and keeps (None where the C library is not glibc)."""
    libc = _glibc()
    if libc is None:
        return None
    info = libc.mallinfo2()
    mib = 1 / 2**20
    return HeapUsage((info.uordblks + info.hblkhd) * mib, info.fordblks * mib, info.hblkhd * mib)
