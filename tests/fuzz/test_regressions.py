"""What the fuzz suite found, each kept as a plain test of its own (the fuzz tests carry the same
inputs as ``@example``s)."""

from __future__ import annotations

import httpx

from castdeck.api.errors import error_from_response, parse_retry_after
from castdeck.api.retry import backoff_delay
from castdeck.api.transport import RetryPolicy

HUGE_YEAR = "Mon, 01 Jan 99999999999999999999 00:00:00 GMT"


def test_a_retry_after_date_with_a_huge_year_is_no_wait_hint() -> None:
    assert parse_retry_after(HUGE_YEAR) is None
    error = error_from_response(429, b"{}", httpx.Headers({"retry-after": HUGE_YEAR}))
    assert error.retry_after is None


def test_backoff_after_a_thousand_faults_in_a_row_is_still_capped() -> None:
    assert 15.0 <= backoff_delay(1100, cap=30.0) <= 30.0
    assert 0.0 <= RetryPolicy().delay(10**6) <= RetryPolicy().max_delay
    assert 2.0 <= backoff_delay(0, float("nan"), base=4.0) <= 4.0  # an unusable hint is no hint
