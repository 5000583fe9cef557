"""The Jobs dock in the real window against the sandbox: cards follow generations to their end, offer
the next actions, announce ends, show refused and unanswered writes, and come back after a restart."""

from __future__ import annotations

import asyncio
import itertools
import re
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRect, Qt
from PySide6.QtGui import QGuiApplication, QPaintEvent
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.event_loop import TURN_SHARE
from castdeck.services.paced import GIVE_WAY_AT_MOST
from castdeck.services.session import ConnectionState, Session
from castdeck.store.cache import Cache
from castdeck.ui.jobs.card import JobCard
from castdeck.ui.jobs.panel import CARD_WINDOW, JobsPanel
from castdeck.ui.main_window import MainWindow
from castdeck.ui.widgets import laid_out
from tests.conftest import RunningSandbox, stop_followers
from tests.gui.conftest import ARTIFACTS, OnLine, open_session, quiet, until
from tests.gui.helpers import answer_save_dialog, new_podcast, on_screen_as_painted_afresh, session_through
from tests.helpers import Line, PassBurner

FAIL = "[sandbox:fail]"


def unique(text: str) -> str:
    return f"{text} {uuid.uuid4().hex[:6]}"


def open_window(qtbot: QtBot, session: Session, background: Background) -> MainWindow:
    window = MainWindow(session, background, start_pane="Account")
    qtbot.addWidget(window)
    window.resize(1400, 860)
    window.show()
    window.jobs_dock.show()
    return window


async def card_for(panel: JobsPanel, key: str, state: str | None = None, timeout: float = 60) -> JobCard:
    def found() -> JobCard | None:
        card = panel.card(key)
        return card if card is not None and (state is None or card.view.state == state) else None

    card: JobCard = await until(found, timeout=timeout)
    return card


def episode_body(podcast_id: str, prompt: str) -> dict[str, Any]:
    return {
        "podcast_id": podcast_id,
        "prompt": prompt,
        "options": {"episode_length_minutes": 1},
        "render": True,
    }


@pytest.mark.asyncio
async def test_a_generation_card_runs_to_its_end_and_offers_the_next_steps(
    qtbot: QtBot, on_line: OnLine, shot: Any, tmp_path: Path
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    assert panel.summary.text() == "No jobs" and panel.empty_label.isVisible()
    podcast = await new_podcast(session, unique("Card podcast"))
    line.hold_requests("POST", "/v1/episodes/generate")  # the write waits: its own card shows first
    entry = background.outbox.submit(
        "episode_generate", episode_body(podcast.id, unique("How harbour pilots bring ships in safely"))
    )
    sending = await card_for(panel, f"entry:{entry.id}", "sending")
    line.release()
    line.hold_requests("GET", "/v1/episodes/")  # the tracker's polls wait: the card is seen running
    sent = await until(lambda: (e := background.outbox.get(entry.id)) is not None and e.state == "sent" and e)
    key = f"job:episode:{sent.resource_id}"
    card = await card_for(panel, key)
    assert card.view.kind == "episode" and "harbour pilots" in card.view.title.lower()
    assert panel.card(f"entry:{entry.id}") is None and card is sending  # the write's card became the job's
    assert card.view.state == "running"
    assert card.progress.isVisible() and "Generating" in card.status_label.text()
    assert card.elapsed_label.text().endswith("s")
    shot(window, "jobs-dock-running")
    await asyncio.wait_for(line.holding.wait(), timeout=60)  # the first poll is due
    line.release()
    card = await card_for(panel, key, "completed", timeout=120)
    assert card.status_label.text() == "Finished: the episode is ready"
    assert {"open", "play", "download", "dismiss"} <= set(card.buttons)
    assert not card.progress.isVisible() and card.elapsed_label.text().startswith("took ")
    assert window.notifier.history[-1].title == "Episode finished"
    assert "running" not in panel.summary.text() and "1 ended" in panel.summary.text()
    await quiet()
    shot(window.jobs_dock, "jobs-dock-finished")

    # Open: the Episodes pane with the episode selected (read from the service: it is not in the first page)
    card.buttons["open"].click()
    pane = window.current_pane()
    assert type(pane).__name__ == "EpisodesPane"
    await until(lambda: pane.current is not None and str(pane.current.id) == sent.resource_id)

    # Play: the app's own player and transcript for that episode, not a browser
    qtbot.mouseClick(card.buttons["play"], Qt.MouseButton.LeftButton)
    listening = await until(lambda: pane.listen_window if pane.listen_window is not None else None)
    await until(listening.isVisible)
    assert listening.episode is not None and str(listening.episode.id) == sent.resource_id
    assert window.current_pane() is pane
    listening.close()

    # Download: the audio is saved where the user says, through the credential-free client
    card.buttons["download"].click()
    assert panel.saver is not None
    target = tmp_path / "episode.mp3"
    await answer_save_dialog(qtbot, panel.saver.dialog, target, suffix=".mp3")
    await until(lambda: "Saved" in panel.banner.text)
    assert target.stat().st_size > 0

    # Clear finished removes the card and forgets the job
    panel.clear_button.click()
    assert panel.card(key) is None and panel.summary.text() == "No jobs"
    assert background.jobs.job("episode", sent.resource_id) is None
    await quiet()


@pytest.mark.asyncio
async def test_a_failed_media_card_copies_its_error_and_retries_with_a_new_key(
    qtbot: QtBot, session: Session, background: Background, shot: Any
) -> None:
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    keys: dict[str, str] = {}
    background.outbox.entryChanged.connect(lambda e: keys.setdefault(e.id, e.idempotency_key))
    background.outbox.submit(
        "media_create", {"prompt": f"{FAIL} {unique('A video that fails')}"}, collection="videos"
    )
    entry_id = next(iter(keys))
    sent = await until(lambda: (e := background.outbox.get(entry_id)) is not None and e.state == "sent" and e)
    key = f"job:video:{sent.resource_id}"
    card = await card_for(panel, key, "failed", timeout=120)
    assert card.view.request_id and "Request ID" in card.detail_label.text()
    assert {"retry", "copy_error", "open", "dismiss"} <= set(card.buttons)
    assert window.notifier.history[-1].title == "Video failed"
    await quiet()
    shot(window.jobs_dock, "jobs-dock-failed")

    card.buttons["copy_error"].click()
    copied = QGuiApplication.clipboard().text()
    assert card.view.detail and card.view.detail in copied and card.view.request_id in copied

    card.buttons["retry"].click()  # asks first: a new attempt holds credits again
    box = await until(lambda: panel.findChild(QMessageBox, "confirm"))
    next(b for b in box.buttons() if b.text() == "Retry").click()
    await until(lambda: len(keys) == 2)
    retry_id = next(k for k in keys if k != entry_id)
    assert keys[retry_id] != keys[entry_id]  # a retry is a new attempt: a new key
    retried = await until(
        lambda: (e := background.outbox.get(retry_id)) is not None and e.state == "sent" and e
    )
    assert retried.resource_id == sent.resource_id and retried.kind == "media_retry"
    # the same card follows the new attempt, which succeeds (the sandbox fails only the first one)
    job = await until(
        lambda: (j := background.jobs.job("video", sent.resource_id)) and j.extra.get("retry") and j
    )
    assert job.extra["idempotency_key"] == keys[retry_id]
    card = await card_for(panel, key, "completed", timeout=120)
    assert {"open", "download", "dismiss"} <= set(card.buttons) and "retry" not in card.buttons
    assert panel.card(f"entry:{retry_id}") is None  # one card for the job, its retry included
    assert window.notifier.history[-1].title == "Video finished"
    await quiet()


@pytest.mark.asyncio
async def test_a_refused_write_shows_why_and_is_not_sent_again(
    qtbot: QtBot, session: Session, background: Background, shot: Any
) -> None:
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    missing_podcast = str(uuid.uuid4())
    entry = background.outbox.submit(
        "episode_generate", episode_body(missing_podcast, unique("An orphan episode"))
    )
    card = await card_for(panel, f"entry:{entry.id}", "rejected")
    assert "not sent again" in card.status_label.text()
    assert card.view.request_id and "Request ID" in card.detail_label.text()
    assert f"No podcast with id '{missing_podcast}' exists in this organization. [HTTP 404]" in (
        card.detail_label.text()
    )
    assert "Correct the input and start it again (a new request with a new key)." in card.detail_label.text()
    assert window.notifier.history[-1].title == "Not started"
    stored = background.outbox.get(entry.id)
    assert stored is not None and stored.attempts == 1
    await quiet()
    shot(window.jobs_dock, "jobs-dock-refused")
    background.outbox.flush()  # a flush sends only unanswered entries
    await quiet()
    assert background.outbox.get(entry.id).attempts == 1  # type: ignore[union-attr]
    card.buttons["dismiss"].click()
    await until(lambda: panel.card(f"entry:{entry.id}") is None)
    assert background.outbox.get(entry.id) is None
    await quiet()


@pytest.mark.asyncio
async def test_unanswered_write_waits_on_its_card_and_is_created_once_after_a_restart(
    qtbot: QtBot, sandbox: RunningSandbox, cache: Cache, tmp_path: Path
) -> None:
    data = tmp_path / "background"
    line = Line()
    first = await session_through(sandbox.base_url, cache, line)
    background = Background(first, data)
    background.start()
    window = open_window(qtbot, first, background)
    podcast = await new_podcast(first, unique("Restart podcast"))
    # the network goes away as the user starts a generation: the service gets the request and starts
    # the episode, the answer never comes back, and the line stays down
    line.lose_answer("POST", "/v1/episodes/generate", then_down=True)
    sent = await background.outbox.send(
        "episode_generate", episode_body(podcast.id, unique("Kept across a restart"))
    )
    assert sent.accepted is None and sent.entry.state == "pending"
    assert [s.fault for s in line.to("POST", "/v1/episodes/generate")] == ["lost answer"]
    card = await card_for(window.jobs_panel, f"entry:{sent.entry.id}", "waiting")
    assert "same idempotency key" in card.detail_label.text() and "send_now" in card.buttons
    assert first.state is ConnectionState.OFFLINE
    # the app quits before the network returns (as CastdeckApp.shutdown does)
    window.hide()  # (closing the last window would stop the test loop)
    await background.close()
    await first.close()

    # the next start: the kept request goes out with its key and its job is followed to the end
    second = await open_session(sandbox.base_url, cache)
    again = Background(second, data)
    try:
        window = open_window(qtbot, second, again)
        # its card is back (waiting) once the kept requests are read, which is before it is resent
        key = f"entry:{sent.entry.id}"
        on_load: list[str | None] = []

        def noted(_: object) -> None:
            view = window.jobs_panel.views.get(key)
            on_load.append(None if view is None else view.state)

        again.outbox.loaded.connect(noted)
        again.start()
        await until(lambda: on_load)
        assert on_load == ["waiting"]
        done = await until(
            lambda: (e := again.outbox.get(sent.entry.id)) is not None and e.state == "sent" and e, timeout=30
        )
        assert done.idempotency_key == sent.entry.idempotency_key and done.attempts == 2
        card = await card_for(window.jobs_panel, f"job:episode:{done.resource_id}", "completed", timeout=120)
        assert "Sent 2 times with one idempotency key" in card.detail_label.text()
        episodes = [e.id async for e in second.client.episodes.list(podcast_id=podcast.id, limit=100)]
        assert episodes == [done.resource_id]  # the service got it twice and created it once
        await quiet()
    finally:
        await again.close()
        await second.close()


@pytest.mark.asyncio
async def test_a_job_past_its_deadline_is_still_running_and_can_be_checked_again(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    window = open_window(qtbot, session, background)
    background.jobs.deadline = 0.3
    podcast = await new_podcast(session, unique("Deadline podcast"))
    accepted = await session.client.episodes.generate(
        **episode_body(podcast.id, unique("A slow one to follow"))
    )
    episode_id = str(accepted.data.id)
    background.jobs.track("episode", episode_id, title="Slow episode", first_poll_after=5)
    card = await card_for(window.jobs_panel, f"job:episode:{episode_id}", "still_running")
    assert card.status_label.text() == "Still running on the service"
    assert "still running on the service; check again" in card.detail_label.text()
    assert "cancel" not in card.detail_label.text().lower()
    background.jobs.deadline = 600
    card.buttons["check_again"].click()
    try:
        await card_for(window.jobs_panel, f"job:episode:{episode_id}", "completed", timeout=40)
    except AssertionError:
        raise AssertionError(
            (
                window.jobs_panel.views.get(f"job:episode:{episode_id}"),
                background.jobs.job("episode", episode_id),
                background.jobs.is_following("episode", episode_id),
            )
        ) from None
    await quiet()


@pytest.mark.asyncio
async def test_the_dock_keeps_the_most_recently_ended_cards_and_forgets_older_jobs(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    """A long session does not grow the dock without end: past the tracker's ``ended_kept`` ended
    jobs, it forgets the earliest ended (as "Clear finished" does), and their cards leave the dock."""
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    background.jobs.ended_kept = 3
    listed = await session.client.episodes.list().to_list()
    finished = [str(e.id) for e in listed if e.generation is not None and e.generation.state == "completed"][
        :5
    ]
    assert len(finished) == 5
    for number, episode_id in enumerate(finished):  # each ends at its first poll
        background.jobs.track("episode", episode_id, title=f"Finished {number}", first_poll_after=0)
        await card_for(panel, f"job:episode:{episode_id}", "completed")
    await until(lambda: panel.pending_builds() == 0)
    kept = [e for e in finished if panel.card(f"job:episode:{e}") is not None]
    assert kept == finished[2:]  # the three that ended last
    assert [e for e in finished if background.jobs.job("episode", e) is not None] == kept
    assert panel.summary.text() == "3 ended"
    assert len(panel.list_widget.findChildren(JobCard)) == 3
    await background.jobs.flush()
    await quiet()


class Resizes(QObject):
    """Counts the resize events ``widget`` receives."""

    def __init__(self, widget: QObject) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.count += 1
        return False


@pytest.mark.asyncio
async def test_the_dock_keeps_its_width_as_its_summary_and_uploads_line_grow(
    qtbot: QtBot, session: Session, background: Background, tmp_path: Path, shot: Any
) -> None:
    """The summary wraps and the uploads line shortens itself with "…" inside the dock: neither
    widens it, so the pane beside the dock is never resized (it would jump sideways under the user,
    and the whole window would repaint each time a count changed)."""
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    qtbot.waitExposed(window)
    await quiet()
    central = window.centralWidget()
    widths = (window.jobs_dock.width(), central.width())
    resizes = Resizes(central)

    # Real uploads: five files sent, one refused.
    files = []
    for number in range(5):
        path = tmp_path / f"notes-{number}.txt"
        path.write_text(f"Research notes {number}.\n" * 20_000)
        files.append(path)
    (tmp_path / "tool.exe").write_bytes(b"MZ" + b"\x00" * 100)
    await background.uploads.add_paths([*files, tmp_path / "tool.exe"])
    await until(
        lambda: panel.uploads_button.full_text().startswith("Uploads: 5 of 5 done · 1 need attention")
    )
    # The longest lines the panel writes: every state at once, an upload's time left.
    summary = "120 running · 16 waiting to send · 12 to check again · 52 ended"
    panel.summary.setText(summary)
    line = "Uploads: 3 of 10 done · 45% · about 120 s left · 2 need attention  ›"
    panel.uploads_button.set_full_text(line)
    # Lay the window out now, with no turn of the event loop: the seeded jobs keep running, and
    # their next answer rewrites the summary with the real (shorter) counts.
    for _ in range(8):  # each level of layouts posts the next level's request
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    assert panel.summary.text() == summary
    assert (window.jobs_dock.width(), central.width()) == widths
    assert resizes.count == 0
    assert panel.summary.height() >= panel.summary.heightForWidth(panel.summary.width())  # all of it
    await quiet()
    assert (window.jobs_dock.width(), central.width()) == widths
    shown = panel.uploads_button.text()
    assert shown.endswith("…") and line.startswith(shown[:-1])
    assert panel.uploads_button.toolTip().splitlines()[0] == line
    assert panel.uploads_button.accessibleDescription() == line
    shot(window.jobs_dock, "jobs-dock-long-lines")
    window.resizeDocks([window.jobs_dock], [widths[0] + 300], Qt.Orientation.Horizontal)  # room: all of it
    await until(lambda: panel.uploads_button.text() == line)


@pytest.mark.asyncio
async def test_elapsed_times_tick_on_the_running_cards_in_view_and_as_cards_scroll_into_view(
    qtbot: QtBot, on_line: OnLine
) -> None:
    """Only the running cards the user can see tick every second (each new text relays out its card;
    two hundred of them cost a frame each second); a card scrolled into view shows its time at once."""
    session, background, line = on_line.session, on_line.background, on_line.line
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    listed = await session.client.episodes.list(limit=16).to_list()
    assert len(listed) >= 12
    line.hold_requests("GET", "/v1/episodes/")  # the polls wait: every job stays running
    try:
        keys = []
        for number, episode in enumerate(listed[:12]):
            background.jobs.track("episode", str(episode.id), title=f"Ticking {number}", first_poll_after=0)
            keys.append(f"job:episode:{episode.id}")
        await until(lambda: panel.pending_builds() == 0 and all(panel.card(k) is not None for k in keys))
        await until(
            lambda: panel.scroll_area.verticalScrollBar().maximum() > 0
        )  # laid out, taller than the dock

        def elapsed(key: str) -> str:
            card = panel.card(key)
            assert card is not None
            return card.elapsed_label.text()

        in_view = panel.ticking()
        out_of_view = [key for key in keys if key not in in_view]
        assert in_view and out_of_view
        shown = {key: elapsed(key) for key in keys}
        await until(lambda: elapsed(in_view[0]) != shown[in_view[0]], timeout=10)  # a tick passed
        assert [elapsed(key) for key in out_of_view] == [shown[key] for key in out_of_view]

        # a card scrolled into view ticks at once: marked stale, it shows its time again (comparing
        # with the time it showed failed when its job's second had not turned since)
        for key in out_of_view:
            panel.card(key).elapsed_label.setText("stale")  # type: ignore[union-attr]
        bar = panel.scroll_area.verticalScrollBar()
        bar.setValue(bar.maximum())
        scrolled_in = [key for key in panel.ticking() if key in out_of_view]
        assert scrolled_in
        times = [elapsed(key) for key in scrolled_in]
        assert all(re.fullmatch(r"\d+ s|\d+ min \d\d s|\d+ h \d\d min", text) for text in times), times
    finally:
        await let_held_polls_go(line)
    await quiet()


@pytest.mark.asyncio
async def test_only_the_newest_cards_are_built_until_the_user_scrolls_to_older_ones(
    qtbot: QtBot, on_line: OnLine
) -> None:
    """Every built card is a widget the list lays out again when any card changes: the newest
    ``CARD_WINDOW`` are built, older ones as the user scrolls to the end or presses the button under
    the list; the summary counts them all, and the list keeps newest on top."""
    session, background, line = on_line.session, on_line.background, on_line.line
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    line.hold_requests("GET", "/v1/episodes/")  # the polls wait: every job stays running
    try:
        ids = [str(uuid.uuid4()) for _ in range(CARD_WINDOW + 15)]
        for number, episode_id in enumerate(ids):
            background.jobs.track("episode", episode_id, title=f"Job {number}", first_poll_after=0)
        keys = [f"job:episode:{i}" for i in ids]
        await until(lambda: panel.pending_builds() == 0)
        assert sorted(panel.cards) == sorted(keys[-CARD_WINDOW:])  # the newest
        assert panel.summary.text() == f"{len(ids)} running"
        assert panel.more_button.isVisible() and panel.more_button.text() == "Show older jobs (15 more)"

        def shown_order() -> list[str]:
            return [c.view.key for c in laid_out(panel.list_layout) if isinstance(c, JobCard)]

        assert shown_order() == keys[::-1][:CARD_WINDOW]  # newest on top

        bar = panel.scroll_area.verticalScrollBar()
        await until(lambda: bar.maximum() > 0)
        # a look at the end of the built cards (scrolling there would build more)
        button = panel.more_button.geometry()
        end = QRect(0, button.bottom() - 420, panel.list_widget.width(), 440)
        assert panel.list_widget.grab(end).save(str(ARTIFACTS / "jobs-dock-older-jobs.png"))
        bar.setValue(bar.maximum())  # to the end: the older cards come, each in its place
        await until(lambda: len(panel.cards) == len(ids) and panel.pending_builds() == 0)
        assert shown_order() == keys[::-1]
        assert not panel.more_button.isVisible()

        # a new job on top: every card stays built (the window grew with the scroll)
        newer = str(uuid.uuid4())
        background.jobs.track("episode", newer, title="Newest", first_poll_after=0)
        await until(lambda: panel.card(f"job:episode:{newer}") is not None)
        assert shown_order()[0] == f"job:episode:{newer}" and len(panel.cards) == len(ids) + 1

        # another profile's dock starts again from the newest
        panel.bind(background)
        await until(lambda: panel.pending_builds() == 0)
        assert len(panel.cards) == CARD_WINDOW and panel.more_button.text() == "Show older jobs (16 more)"
        panel.more_button.click()
        await until(lambda: len(panel.cards) == len(ids) + 1 and panel.pending_builds() == 0)
    finally:
        await let_held_polls_go(line)
    await quiet()


async def let_held_polls_go(line: Line) -> None:
    """The end of a test that held the job polls: the pollers stop first (their held requests with
    them), then the line lets requests through. Released first, thirty polls were answered at once
    as the test ended, and the results they stored raced the teardown ("store job" left running)."""
    await stop_followers()
    line.release()


class AppWideFilter(QObject):
    """An event filter on the whole application (the cards it watches come and go as the test
    runs); ``close`` removes it."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        app = QGuiApplication.instance()
        assert app is not None
        app.installEventFilter(self)

    def close(self) -> None:
        app = QGuiApplication.instance()
        assert app is not None
        app.removeEventFilter(self)


class CardHeights(AppWideFilter):
    """Every height the cards of ``panel`` are laid out at, with what each card asked for then,
    and every height of the list that holds them."""

    def __init__(self, panel: JobsPanel) -> None:
        self.panel = panel
        self.cards: list[tuple[int, int]] = []  # (height given, height asked)
        self.list: list[int] = []
        super().__init__(panel)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            if isinstance(watched, JobCard):
                self.cards.append((watched.height(), watched.sizeHint().height()))
            elif watched is self.panel.list_widget:
                self.list.append(self.panel.list_widget.height())
        return False


def settle_posted_events() -> None:
    """Deliver the events Qt has queued (layout requests, a new child's queued show) and those
    they queue in turn, without waiting for the loop."""
    for _ in range(4):
        QCoreApplication.sendPostedEvents(None, 0)


@pytest.mark.asyncio
async def test_cards_are_laid_out_once_at_the_height_they_ask_as_they_come_and_end(
    qtbot: QtBot, on_line: OnLine
) -> None:
    """A new card grows the list before the list lays its cards out (else every card is first
    squeezed into the old height and the whole dock repaints twice), and a card whose job ends gets
    its new buttons in the same layout (else it shrinks without them, the cards under it move up,
    and everything moves back when Qt's queued show of the buttons comes)."""
    session, background, line = on_line.session, on_line.background, on_line.line
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    heights = CardHeights(panel)
    line.hold_requests("GET", "/v1/episodes/")  # every job stays running
    try:
        for number in range(CARD_WINDOW):
            background.jobs.track("episode", str(uuid.uuid4()), title=f"Job {number}", first_poll_after=0)
        await until(lambda: panel.pending_builds() == 0)
        settle_posted_events()
        assert panel.list_widget.height() > panel.scroll_area.viewport().height()  # the list scrolls
        squeezed = [(given, asked) for given, asked in heights.cards if given < asked]
        assert squeezed == []
        assert len(heights.cards) >= CARD_WINDOW

        card = next(iter(panel.cards.values()))
        assert set(card.buttons) == {"open"} and card.buttons["open"].isVisible()
        settle_posted_events()
        heights.list.clear()
        heights.cards.clear()
        card.show_view(
            replace(card.view, state="completed", status="Finished: the episode is ready", ended_at=time.time(),
                    actions=("open", "play", "download", "dismiss"))
        )  # fmt: skip
        settle_posted_events()
        assert all(button.isVisible() for button in card.buttons.values())
        assert set(card.buttons) == {"open", "play", "download", "dismiss"}
        # the list keeps its height or takes its new one at once; never down without the buttons
        # and up again
        assert heights.list in ([], [panel.list_widget.height()])
        assert heights.cards[-1] == (card.height(), card.sizeHint().height())
    finally:
        heights.close()
        await let_held_polls_go(line)
    await quiet()


class CardPaints(AppWideFilter):
    """Every paint of a whole job card, with where the card was then (in the window's
    coordinates) and its size."""

    def __init__(self) -> None:
        self.whole: list[tuple[JobCard, QRect]] = []
        super().__init__()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(watched, JobCard):
            assert isinstance(event, QPaintEvent)
            if event.rect() == watched.rect():
                at = watched.mapTo(watched.window(), watched.rect().topLeft())
                self.whole.append((watched, QRect(at, watched.size())))
        return False


@pytest.mark.asyncio
async def test_a_card_built_below_the_cards_in_view_leaves_them_unpainted(
    qtbot: QtBot, on_line: OnLine
) -> None:
    """The dock builds a burst of cards one a frame, newest on top, each below the last. The list
    grows at each; were the grown list repainted in full, every card in view would be painted again
    for each card built below it (thirty times for the top card, in a frame busy with the burst).
    A card in view is painted again only when it moves or changes size."""
    session, background, line = on_line.session, on_line.background, on_line.line
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    line.hold_requests("GET", "/v1/episodes/")  # every job stays running: no card changes
    await until(lambda: on_screen_as_painted_afresh(window))  # the window's first paints are done
    paints = CardPaints()
    try:
        for number in range(CARD_WINDOW):
            background.jobs.track("episode", str(uuid.uuid4()), title=f"Job {number}", first_poll_after=0)
        await until(lambda: panel.pending_builds() == 0)
        await until(lambda: any(card is cards_in_order(panel)[0] for card, _ in paints.whole))
        assert panel.list_widget.height() > panel.scroll_area.viewport().height()  # the list scrolls
        repainted_in_place = []
        last: dict[JobCard, QRect] = {}
        for card, where in paints.whole:
            if last.get(card) == where:
                repainted_in_place.append((card.view.title, where))
            last[card] = where
        assert len(last) >= 3  # the cards in view were painted
        assert repainted_in_place == []
        await until(lambda: on_screen_as_painted_afresh(window))

        # a card in view leaves: those under it move up into a shorter list, nothing stale is left
        second = cards_in_order(panel)[1]
        key = second.view.key
        _, kind, resource_id = key.split(":", 2)
        ending = background.jobs.job(kind, resource_id)
        assert ending is not None
        background.jobs.stop(ending, "ended by the test")  # its card shows it failed, then is cleared
        panel.clear_finished()
        assert key not in panel.cards
        await until(lambda: on_screen_as_painted_afresh(window))
    finally:
        paints.close()
        await let_held_polls_go(line)
    await quiet()


@pytest.mark.asyncio
async def test_a_frame_long_already_builds_no_card_and_the_cards_still_come(
    qtbot: QtBot, on_line: OnLine
) -> None:
    """The builder works once a frame; in a frame whose own events already used TURN_SHARE (a big
    repaint) it gives way, at most GIVE_WAY_AT_MOST frames in a row, so a card's build and a long
    repaint do not add up in one pass, and cards still come when every frame is long."""
    session, background, line = on_line.session, on_line.background, on_line.line
    window = open_window(qtbot, session, background)
    panel = window.jobs_panel
    line.hold_requests("GET", "/v1/episodes/")  # every job stays running
    built_after_tick: list[int] = []
    panel.builder.ticked.connect(lambda: built_after_tick.append(len(panel.cards)))
    burner = PassBurner(TURN_SHARE)
    try:
        burner.burn_next = 10**9  # every pass from now on is a long one
        for number in range(3):
            background.jobs.track("episode", str(uuid.uuid4()), title=f"Job {number}", first_poll_after=0)
        await until(lambda: len(panel.cards) == 3 and panel.pending_builds() == 0)
    finally:
        burner.close()
        await let_held_polls_go(line)
    ticks_that_built = [
        tick
        for tick, count in enumerate(built_after_tick)
        if count > (built_after_tick[tick - 1] if tick else 0)
    ]
    assert len(ticks_that_built) == 3  # one card a frame, as always
    apart = [b - a for a, b in itertools.pairwise(ticks_that_built)]
    assert apart == [GIVE_WAY_AT_MOST + 1] * 2
    await quiet()


def cards_in_order(panel: JobsPanel) -> list[JobCard]:
    """The dock's cards, top to bottom."""
    return [widget for widget in laid_out(panel.list_layout) if isinstance(widget, JobCard)]
