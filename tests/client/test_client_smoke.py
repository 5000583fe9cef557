"""The client reaches the sandbox on the app's loop kind (qasync)."""

from __future__ import annotations

import asyncio

import pytest

from castdeck.api import Client, request_id_of
from tests.conftest import DEMO_KEY, RunningSandbox


@pytest.mark.asyncio
async def test_account_and_a_list_on_a_qasync_loop(sandbox: RunningSandbox) -> None:
    assert type(asyncio.get_running_loop()).__name__.endswith("EventLoop")
    assert (
        "QSelector" in type(asyncio.get_running_loop()).__name__
        or "QIOCP" in type(asyncio.get_running_loop()).__name__
    )
    async with Client(sandbox.base_url, DEMO_KEY) as client:
        account = await client.account.get()
        assert account.plan == "creator"
        assert request_id_of(account) and request_id_of(account).startswith("req_")
        voices = await client.voices.list(limit=5).to_list()
        assert len(voices) == 24
        assert len({v.id for v in voices}) == 24
