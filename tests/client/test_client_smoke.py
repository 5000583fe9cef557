"""The client on the loop the app uses (qasync): in the test process, and in a child process
built exactly as the app builds its loop, so a crash there shows its output instead of ending the run."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

from castdeck.api import Client, request_id_of
from tests.conftest import DEMO_KEY, RunningSandbox

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from PySide6.QtWidgets import QApplication
    import qasync
    from castdeck.api import Client
    from castdeck.services.event_loop import new_event_loop

    app = QApplication([])

    async def main(base_url: str) -> str:
        assert isinstance(asyncio.get_running_loop(), qasync.QEventLoop)
        async with Client(base_url, "sk_sandbox_demo") as client:
            account = await client.account.get()
            voices = await client.voices.list(limit=5).to_list()
            podcasts = await client.podcasts.list(limit=1).to_list()
            episodes = [e async for e in client.episodes.list(limit=3)]
            for _ in range(20):
                await client.account.get()
            return f"{account.plan} {len(voices)} {len(podcasts)} {len(episodes)}"

    with asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner:
        print(runner.run(main(sys.argv[1])))
    """
)


@pytest.mark.asyncio
async def test_account_and_a_list(sandbox: RunningSandbox) -> None:
    async with Client(sandbox.base_url, DEMO_KEY) as client:
        account = await client.account.get()
        assert account.plan == "creator"
        assert request_id_of(account) and request_id_of(account).startswith("req_")
        voices = await client.voices.list(limit=5).to_list()
        assert len(voices) == 24
        assert len({v.id for v in voices}) == 24


async def listed_now(base_url: str) -> tuple[int, int]:
    async with Client(base_url, DEMO_KEY) as client:
        return (
            len(await client.podcasts.list(limit=100).to_list()),
            len(await client.episodes.list(limit=100).to_list()),
        )


def test_the_client_on_a_qasync_loop(sandbox: RunningSandbox) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, sandbox.base_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    plan, voices, podcasts, episodes = result.stdout.split()
    # what the shared sandbox holds now (tests before this one may have added podcasts), read here
    shows, listed = asyncio.run(listed_now(sandbox.base_url))
    assert shows >= 3 and listed >= 14  # the seeded ones at least
    assert (plan, voices, podcasts, episodes) == ("creator", "24", str(shows), str(listed))
