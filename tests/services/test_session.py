"""The session's connection state against the real sandbox, through a line the test can break."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from castdeck.api import APIConnectionError
from castdeck.services.session import BALANCE_SPACING, ConnectionState
from castdeck.store.cache import Cache
from tests.conftest import RunningSandbox
from tests.gui.conftest import settle, until
from tests.gui.helpers import session_through
from tests.helpers import Line


@pytest.mark.asyncio
async def test_an_error_answer_while_the_service_comes_back_does_not_keep_the_app_offline(
    sandbox: RunningSandbox, cache: Cache
) -> None:
    """Found by the soak: the first reconnection probe after the network returned met a 502 (the
    sandbox's chaos); the probe ended with it and the app stayed offline for good, its pollers
    waiting for a return that nothing would announce."""
    line = Line()
    session = await session_through(sandbox.base_url, cache, line)
    try:
        assert session.state is ConnectionState.ONLINE
        line.down()
        with pytest.raises(APIConnectionError):
            await session.refresh_account()
        assert session.state is ConnectionState.OFFLINE
        line.fail_next("GET", "/v1/account", 502)
        line.up()
        await until(lambda: session.online, timeout=30)
        probes = [(s.status, s.fault) for s in line.to("GET", "/v1/account")]
        assert (502, "answered 502 by the line") in probes  # the probe met the error, and went on
        assert probes[-1] == (200, None)
    finally:
        await settle()
        await session.close()


@pytest.mark.asyncio
async def test_a_burst_of_writes_reads_the_balance_once_a_second_and_once_after_the_last(
    sandbox: RunningSandbox, cache: Cache
) -> None:
    """Each accepted write reads the balance again (a start costs credits); in a burst of writes the
    reads come at most once a second, and the last one comes after the last write, so the balance
    shown is the one after all of them."""
    line = Line()
    session = await session_through(sandbox.base_url, cache, line)
    try:
        await settle()
        reads_before = len(line.to("GET", "/v1/account"))
        started = time.monotonic()
        for _ in range(25):  # writes 50 ms apart (and however long each takes on this machine)
            # (what makes a call a write for the session is this flag: the outbox's sends set it)
            await session.call(lambda c: c.podcasts.list(limit=1).to_list(), write=True)
            last_write = time.monotonic()  # (when the last write returned: a read may start in the sleep)
            await asyncio.sleep(0.05)
        await until(lambda: session._balance_task is not None and session._balance_task.done(), timeout=30)
        reads = line.to("GET", "/v1/account")[reads_before:]
        assert 2 <= len(reads) <= 2 + int(last_write - started)  # one at once, then one a second at most
        gaps = [b.at - a.at for a, b in itertools.pairwise(reads)]
        assert min(gaps) > BALANCE_SPACING - 0.2  # (the slack: each read's own way to the line)
        assert reads[-1].at >= last_write  # the balance shown is read after the last write
    finally:
        await settle()
        await session.close()
