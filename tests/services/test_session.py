"""The session's connection state against the real sandbox, through a line the test can break."""

from __future__ import annotations

import pytest

from castdeck.api import APIConnectionError
from castdeck.services.session import ConnectionState
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
