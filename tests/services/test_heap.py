"""The C heap gives freed memory back to the system (services/heap.py; glibc on Linux)."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
from pathlib import Path

import pytest

from castdeck.services.heap import MMAP_THRESHOLD, heap_usage, trim_heap

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's mallopt and malloc_trim"
)


def libc() -> ctypes.CDLL:
    c = ctypes.CDLL(None)
    c.malloc.argtypes, c.malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
    c.free.argtypes, c.free.restype = [ctypes.c_void_p], None
    return c


def mapped_mib() -> float:
    usage = heap_usage()
    assert usage is not None
    return usage.mapped


def resident_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def test_memory_freed_between_live_blocks_goes_back_to_the_system_once_trimmed() -> None:
    blocks = [bytearray(4000) for _ in range(20_000)]  # 80 MB through malloc
    pinned = blocks[::64]  # a live block every 256 KB: glibc can give back none of it by itself
    del blocks
    before = resident_mib()
    assert trim_heap()
    assert resident_mib() < before - 40
    del pinned


TUNED_THEN_THREE_LARGE_BLOCKS = """
import ctypes, json
from castdeck.services.heap import heap_usage, tune_heap
c = ctypes.CDLL(None)
c.malloc.argtypes, c.malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
c.free.argtypes, c.free.restype = [ctypes.c_void_p], None
tuned = tune_heap()
grown = []
for _ in range(3):
    before = heap_usage().mapped
    block = c.malloc(4 * 2**20)
    assert block
    grown.append(heap_usage().mapped - before)
    c.free(block)
print(json.dumps({"tuned": tuned, "grown": grown}))
"""


def test_once_tuned_a_large_block_is_mapped_on_its_own_even_after_one_was_freed() -> None:
    """Untuned, glibc raises its mmap threshold to the size of each mapped block freed, so the
    second 4 MiB block here would come from the heap (where what it leaves cannot go back).

    In a fresh process: the threshold only decides when the heap would have to grow, so in this
    one, after other tests have left a free run of 4 MiB inside the heap, malloc rightly takes
    that run instead (seen in CI)."""
    assert MMAP_THRESHOLD < 4 * 2**20
    ran = subprocess.run(
        [sys.executable, "-c", TUNED_THEN_THREE_LARGE_BLOCKS], capture_output=True, text=True, check=True
    )
    outcome = json.loads(ran.stdout)
    assert outcome["tuned"] is True
    assert [grown >= 4 for grown in outcome["grown"]] == [True, True, True], outcome


def test_the_heaps_account_for_what_is_held_and_what_is_kept_free() -> None:
    c = libc()
    before = heap_usage()
    assert before is not None
    blocks = [c.malloc(1000) for _ in range(20_000)]  # 20 MB of small blocks, from the heaps
    held = heap_usage()
    assert held is not None
    assert held.in_use - before.in_use > 15
    for block in blocks[::2]:
        c.free(block)
    freed = heap_usage()
    assert freed is not None
    assert held.in_use - freed.in_use > 7
    assert freed.free - held.free > 7  # between live blocks: kept inside the heap
    for block in blocks[1::2]:
        c.free(block)
