"""What the fuzz suite found, each kept as a plain test of its own (the fuzz tests carry the same
inputs as ``@example``s)."""

from __future__ import annotations

import httpx

from castdeck.api.errors import error_from_response, parse_retry_after

HUGE_YEAR = "Mon, 01 Jan 99999999999999999999 00:00:00 GMT"


def test_a_retry_after_date_with_a_huge_year_is_no_wait_hint() -> None:
    assert parse_retry_after(HUGE_YEAR) is None
    error = error_from_response(429, b"{}", httpx.Headers({"retry-after": HUGE_YEAR}))
    assert error.retry_after is None
