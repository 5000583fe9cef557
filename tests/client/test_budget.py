"""The shared request budget of background polls: bursts stay small, the rate holds over time.

The budget's clock is its own (``clock=``), so these tests move time by hand: nothing here waits
on the machine's speed, only on the budget letting a request through."""

from __future__ import annotations

import asyncio

import pytest

from castdeck.api.budget import DEFAULT_BURST, DEFAULT_RATE, RequestBudget


async def settle() -> None:
    """Let every waiting task run until it blocks again."""
    for _ in range(50):
        await asyncio.sleep(0)


async def granted(budget: RequestBudget, count: int) -> None:
    async with asyncio.timeout(10):
        while budget.granted < count:  # noqa: ASYNC110 - the budget has no event to wait on
            await asyncio.sleep(0.01)


@pytest.mark.asyncio
async def test_polls_go_at_most_two_at_once_after_a_lull_then_one_per_share_of_the_rate() -> None:
    """Answers of polls let through together arrive together, and each is read on the UI thread:
    after a lull only ``DEFAULT_BURST`` (2) go at once; the others follow one per 1/rate."""
    assert DEFAULT_BURST == 2
    now = [1000.0]
    budget = RequestBudget(clock=lambda: now[0])
    waiting = [asyncio.create_task(budget.acquire()) for _ in range(6)]
    await settle()
    assert budget.granted == 2
    assert sum(task.done() for task in waiting) == 2

    now[0] += 1.0 / DEFAULT_RATE  # one request's share of a second
    await granted(budget, 3)
    await settle()
    assert budget.granted == 3

    now[0] += 3600.0  # an hour of quiet fills the bucket to its burst, not beyond
    await granted(budget, 5)
    await settle()
    assert budget.granted == 5
    assert sum(task.done() for task in waiting) == 5

    now[0] += 1.0 / DEFAULT_RATE
    await granted(budget, 6)
    assert all(task.done() for task in waiting)
