"""Spec 4.6 through the app: a slow acceptance plus a lost answer. The resend under the same key
meets 409 ``poll_content``/``reuse``; the app treats it as accepted-pending, never as a refusal,
and never offers to start again (a new key would charge a second generation).

The sandbox holds every keyed generation write for 30 s (``--accept-hold``) before it answers; the
app's first request gives up reading after half a second, so its answer is lost while the service
is still accepting. The 409 that meets the resend ends the hold: nothing waits on the clock.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.store.cache import Cache
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry
from castdeck.ui.jobs.card import JobCard
from castdeck.ui.main_window import MainWindow
from tests.conftest import RunningSandbox
from tests.gui.conftest import quiet, until
from tests.gui.helpers import first_host, new_podcast, session_through
from tests.tls import SHARED_TLS

GENERATE = "/v1/episodes/generate"
HOLD = ("--speed", "50", "--accept-hold", "30", "--no-seed-media")


class FirstAnswerLost(httpx.AsyncBaseTransport):
    """Forwards everything; the first keyed generate stops reading its answer after 0.5 s (the
    sandbox holds it for 30), as when a connection drops mid-answer. Records each generate's key
    and status (None for the lost one)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=SHARED_TLS)
        self.generates: list[tuple[str | None, int | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        is_generate = request.method == "POST" and request.url.path.endswith(GENERATE)
        key = request.headers.get("idempotency-key")
        if is_generate and not self.generates:
            request.extensions["timeout"] = {"connect": 10.0, "read": 0.5, "write": 10.0, "pool": 10.0}
            try:
                return await self.inner.handle_async_request(request)
            except httpx.TimeoutException:
                self.generates.append((key, None))
                raise
        response = await self.inner.handle_async_request(request)
        if is_generate:
            self.generates.append((key, response.status_code))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def card_in(window: MainWindow, key: str, state: str) -> JobCard:
    def found() -> JobCard | None:
        card = window.jobs_panel.card(key)
        return card if card is not None and card.view.state == state else None

    return await until(found, timeout=120)


@pytest.mark.asyncio
async def test_a_resend_meeting_an_unresolved_acceptance_follows_the_named_episode(
    qtbot: QtBot, sandbox_factory: Callable[..., RunningSandbox], cache: Cache, tmp_path: Path, shot: Any
) -> None:
    running = sandbox_factory(*HOLD)
    line = FirstAnswerLost()
    session = await session_through(running.base_url, cache, line)
    background = Background(session, tmp_path / "background")
    window = MainWindow(session, background, start_pane="Account")
    qtbot.addWidget(window)
    window.resize(1400, 860)
    window.show()
    window.jobs_dock.show()
    background.start()
    try:
        podcast = await new_podcast(session, "Held acceptance")
        host = await first_host(session)
        entries: list[OutboxEntry] = []
        jobs: list[Job] = []
        background.outbox.entryChanged.connect(entries.append)
        background.jobs.jobChanged.connect(jobs.append)

        entry = background.outbox.submit(
            "episode_generate",
            {
                "podcast_id": podcast.id,
                "prompt": "Why lighthouses were painted in stripes, in two minutes.",
                "host_ids": [host.id],
                "options": {"episode_length_minutes": 1},
            },
        )
        # the answer is lost: the card waits to send again, with the same key
        await until(lambda: line.generates)
        assert line.generates == [(entry.idempotency_key, None)]
        await until(lambda: (e := background.outbox.get(entry.id)) is not None and e.state == "pending")
        card = await card_in(window, f"entry:{entry.id}", "waiting")
        assert "same idempotency key" in card.detail_label.text(), card.detail_label.text()

        # the user sends it now: the service is still accepting it and names the episode
        card.buttons["send_now"].click()
        sent = await until(
            lambda: (e := background.outbox.get(entry.id)) is not None and e.state == "sent" and e
        )
        assert line.generates == [(entry.idempotency_key, None), (entry.idempotency_key, 409)]
        episode_id = sent.resource_id
        assert episode_id and sent.idempotency_key == entry.idempotency_key

        # followed as that episode, first as "being accepted", then to its end
        await until(lambda: background.jobs.job("episode", episode_id))
        accepting = [j for j in jobs if j.resource_id == episode_id and j.extra.get("accepting")]
        assert accepting and accepting[0].kind == "episode"
        done = await card_in(window, f"job:episode:{episode_id}", "completed")
        assert window.jobs_panel.card(f"entry:{entry.id}") is None  # one card: the job's

        # never a refusal, never "start again"; one episode, started once
        assert [e.state for e in entries if e.id == entry.id and e.state == "rejected"] == []
        assert "start again" not in done.detail_label.text().lower()
        listed = await session.client.episodes.list(podcast_id=podcast.id).to_list()
        assert [e.id for e in listed] == [episode_id]
        assert len(line.generates) == 2  # nothing sent under a new key
        await quiet()
        shot(window, "app-unresolved-acceptance")
    finally:
        window.hide()
        await background.close()
        await session.close()
