"""The whole app, quit in the middle of everything and started again: a creator drops a folder of
documents, starts several generations, quits, restarts, and every item finishes exactly once."""

from __future__ import annotations

import argparse
import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from castdeck.api import Client
from castdeck.app import CastdeckApp, build_parser
from castdeck.services.background import Background
from castdeck.services.session import ConnectionState
from castdeck.services.settings import CONCURRENCY_KEY
from tests.gui.conftest import until
from tests.gui.helpers import drop_on
from tests.helpers import FastClock, Line
from tests.runner import RUNTIME

DOCUMENTS = 4
MIB = 24


def documents(root: Path, tag: str) -> Path:
    """A folder of PDFs big enough that one upload at a time is still going when the app quits."""
    folder = root / "Handouts"
    folder.mkdir()
    block = uuid.uuid4().bytes * (1024 * 64)  # 1 MiB
    for number in range(DOCUMENTS):
        with (folder / f"{tag}-handout-{number}.pdf").open("wb") as handle:
            handle.write(b"%PDF-1.4\n")
            for _ in range(MIB):
                handle.write(block)
            handle.write(b"\n%%EOF\n")
    return folder


async def start_app(
    qtbot: QtBot, args: argparse.Namespace, data: Path, clock: FastClock, line: Line | None = None
) -> tuple[CastdeckApp, Background]:
    """The app as ``castdeck --sandbox`` starts it, on ``clock``; with ``line``, every request it
    makes (to the service and to signed addresses) goes through that line."""

    def factory(url: str, key: str) -> Client:
        if line is None:
            return Client(url, key, timeout=20.0, max_retries=2, clock=clock)
        return Client(url, key, timeout=20.0, http_transport=line, signed_transport=line, clock=clock)

    app = CastdeckApp(args, data, client_factory=factory, clock=clock, runtime=RUNTIME)
    assert await app.open()
    assert app.window is not None and app.session is not None and app.background is not None
    qtbot.addWidget(app.window)
    await until(lambda: app.session is not None and app.session.state is ConnectionState.ONLINE, timeout=30)
    return app, app.background


@pytest.mark.asyncio
async def test_drop_generate_quit_restart_and_everything_finishes_once(
    qtbot: QtBot, tmp_path: Path, shot: Any
) -> None:
    QSettings().setValue(CONCURRENCY_KEY, 1)  # one at a time: some are still waiting at the quit
    # The app's time, ten times as fast as the machine's from now, across both starts: the
    # service's hints (a second at least between polls) are honoured in it. Made here, not when
    # the module is imported: a suite reaching this test 15 minutes after collecting it gave the
    # app a clock 2.5 hours ahead, and every upload slot (two hours) expired as it was reserved.
    clock = FastClock(10)
    tag = uuid.uuid4().hex[:6]
    args = build_parser().parse_args(["--sandbox", "--data", str(tmp_path / "sb"), "--speed", "50"])
    data = tmp_path / "data"
    folder = documents(tmp_path, tag)

    # The first run's line holds what the test must catch half-done, however fast the machine is:
    # the first file's bytes stop after two chunks (the rest of the queue waits behind it), and the
    # polls of the new episodes and video wait, so their jobs are still running at the quit.
    line = Line()
    line.hold_bodies(after=2)
    app, background = await start_app(qtbot, args, data, clock, line)
    try:
        assert app.window is not None and app.session is not None
        sources = app.window.show_pane("Sources")
        drop_on(sources.drop_area, [folder], direct=sources.drop_area.dropEvent)
        await until(lambda: len(background.uploads.items()) == DOCUMENTS)
        podcast = await app.session.client.podcasts.list(limit=1).to_list()
        line.hold_requests("GET", "/v1/episodes/")
        line.hold_requests("GET", "/v1/videos/")
        prompts = [f"Episode {n} about harbour tides {tag}" for n in range(2)]
        for prompt in prompts:
            body = {"podcast_id": podcast[0].id, "prompt": prompt, "options": {"episode_length_minutes": 1}}
            background.outbox.submit("episode_generate", body)
        background.outbox.submit(
            "media_create", {"prompt": f"A video on tide clocks {tag}"}, collection="videos"
        )
        # quit while the first file is on its way and the generations have just been accepted
        try:
            await until(
                lambda: any(i.state == "uploading" and i.sent > 0 for i in background.uploads.items())
            )
        except AssertionError as missed:  # what the queue and the line were doing instead
            items = [(i.name, i.state, i.sent, i.error) for i in background.uploads.items()]
            sent = [(s.method, s.path, s.status, s.fault) for s in line.sent[-12:]]
            raise AssertionError(f"no file on its way: {items}; the line's last requests: {sent}") from missed
        await until(lambda: sum(e.state == "sent" for e in background.outbox.entries()) == 3)
        # "sent" is read from the store, which the disk thread writes a moment before the outbox
        # hands the job to the tracker: wait for the tracker's three jobs as well
        await until(lambda: len(background.jobs.jobs()) == 3)
        states = sorted(i.state for i in background.uploads.items())
        assert states == ["queued"] * (DOCUMENTS - 1) + ["uploading"], states
        jobs = background.jobs.jobs()
        assert sorted((j.kind, j.state) for j in jobs) == [
            ("episode", "running"),
            ("episode", "running"),
            ("video", "running"),
        ], jobs
    finally:
        await app.shutdown()
        if app.window is not None:
            app.window.hide()  # (closing the last window would stop the test loop)

    # the next start: the same data folder, the sandbox again (on a new port), everything resumes
    app, background = await start_app(qtbot, args, data, clock)
    try:
        assert app.window is not None and app.session is not None
        panel = app.window.jobs_panel
        app.window.jobs_dock.show()
        try:
            await until(lambda: all(i.state == "done" for i in background.uploads.items()), timeout=120)
        except AssertionError:
            raise AssertionError([(i.name, i.state, i.error) for i in background.uploads.items()]) from None
        kinds = {"episode": 2, "video": 1, "source": DOCUMENTS}
        await until(
            lambda: (
                sorted(v.kind for v in panel.views.values() if v.state == "completed")
                == sorted(k for k, n in kinds.items() for _ in range(n))
            ),
            timeout=180,
        )
        await until(lambda: panel.pending_builds() == 0)
        shot(app.window, "app-after-restart-everything-finished")
        # a source card's Open shows the source in the Sources pane
        card = next(c for c in panel.cards.values() if c.view.kind == "source")
        source_id = card.view.key.rsplit(":", 1)[1]
        card.buttons["open"].click()
        sources = app.window.current_pane()
        await until(lambda: sources.current is not None and str(sources.current.id) == source_id)

        # exactly once: one source per file, one episode per prompt, one video
        client = app.session.client
        uploaded = [s.title for s in await client.sources.list(limit=100).to_list() if tag in (s.title or "")]
        assert sorted(uploaded) == sorted(f"{tag}-handout-{n}.pdf" for n in range(DOCUMENTS))
        episodes = await client.episodes.list(podcast_id=podcast[0].id, limit=100).to_list()
        ours = [e for e in episodes if tag in (e.title or "") or tag in str(e.model_dump())]
        assert len(ours) == 2, [e.title for e in ours]
        videos = [v for v in await client.videos.list(limit=100).to_list() if tag in str(v.model_dump())]
        assert len(videos) == 1
    finally:
        await app.shutdown()
        if app.window is not None:
            app.window.hide()
