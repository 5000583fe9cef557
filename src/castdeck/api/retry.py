"""The one backoff rule: how long to wait before trying again after a fault.

The service's ``Retry-After`` wins when it gave one (capped: a broken header must not park work for
hours); otherwise capped exponential backoff with full jitter in the upper half, so that many
clients (or many jobs of one client) that failed together do not come back together.
"""

from __future__ import annotations

import math
import random

__all__ = ["MAX_RETRY_AFTER", "backoff_delay"]

MAX_RETRY_AFTER = 300.0
"""The longest ``Retry-After`` honoured as given; longer ones are capped to this."""


def backoff_delay(
    attempt: int,
    retry_after: float | None = None,
    *,
    base: float = 1.0,
    cap: float = 30.0,
    max_retry_after: float = MAX_RETRY_AFTER,
) -> float:
    """Seconds to wait after ``attempt`` failures in a row (0 for the first): ``retry_after`` when
    the service gave one, else a random time in ``[c/2, c]`` with ``c = min(cap, base * 2**attempt)``."""
    if retry_after is not None and math.isfinite(retry_after):
        return min(max(retry_after, 0.0), max_retry_after)
    # The exponent is bounded: a poller that meets faults for hours counts past 1024, and
    # 2.0 ** 1024 no longer fits a float.
    ceiling = min(cap, base * 2.0 ** min(max(0, attempt), 64))
    return random.uniform(ceiling / 2, ceiling)
