"""The Videos, Shorts and Voiceovers panes against the sandbox: paging, the create dialogs, validation,
server rejections on the right field, idempotency keys, retry and the three download answers."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from castdeck.api.models import MediaJob
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.store.outbox import OutboxEntry
from castdeck.ui.dialogs.media_dialog import MediaCreateDialog, format_duration
from castdeck.ui.panes import media as media_module
from castdeck.ui.panes.media import MediaPane, ShortsPane, VideosPane, VoiceoversPane, readable_error
from tests import runner as work
from tests.gui.conftest import OnLine, until
from tests.gui.helpers import answer_save_dialog

FAIL_PHRASE = "[sandbox:fail]"  # the sandbox fails a job whose prompt holds this (sandbox/config.py)

SEEDED = {
    VideosPane: ({"How Tidal Power Works", "Kelp Forests and Carbon", "Ocean Energy Outlook",
                  "Harbour Town Futures"}, "Ocean Energy Outlook", "pane-videos"),
    ShortsPane: ({"Tides in 30 Seconds", "Turbines Under the Sea", "Three Facts About Kelp", "The Rance Story"},
                 "Three Facts About Kelp", "pane-shorts"),
    VoiceoversPane: ({"Tidal Array Diagram Walkthrough", "Diagram Narration, Dynamic", "Board Meeting Narration",
                      "Diagram for the Open Day"}, "Board Meeting Narration", "pane-voiceovers"),
}  # fmt: skip


async def drain() -> None:
    """Let the background work a test started finish while the loop runs: pytest-qt processes Qt events
    after the test, and a request still in flight then would resume outside the asyncio loop."""
    try:
        await until(lambda: work.running() == 0, timeout=20)
    except AssertionError:
        raise AssertionError([t.get_name() for t in work.pending()]) from None


async def laid_out() -> None:
    """Let layouts settle before a screenshot (new rows and messages are laid out on later loop turns)."""
    await asyncio.sleep(0.1)


def unique(text: str) -> str:
    return f"{text} {uuid.uuid4().hex[:8]}"


def open_pane(
    qtbot: QtBot, session: Session, background: Background, cls: type[MediaPane], page_size: int = 100
) -> MediaPane:
    pane = cls(session, background)
    qtbot.addWidget(pane)
    pane.page_size = page_size
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    return pane


async def load_all(pane: MediaPane) -> None:
    await until(lambda: pane.model.rowCount() > 0)
    await pane.model.wait_idle()
    while pane.model.canFetchMore():
        pane.model.fetchMore()
        await pane.model.wait_idle()


def titles(pane: MediaPane) -> set[str]:
    return {job.title for job in pane.model.items}


async def select(pane: MediaPane, job_id: str) -> None:
    assert pane.select_id(job_id), job_id
    await until(lambda: pane.current is not None and str(pane.current.id) == job_id)


async def open_dialog(pane: MediaPane) -> MediaCreateDialog:
    pane.new_item()
    dialog = await until(lambda: pane.dialog if pane.dialog is not None and pane.dialog.isVisible() else None)
    assert isinstance(dialog, MediaCreateDialog)
    for picker in ("hosts", "sources", "visuals", "host"):
        if hasattr(dialog, picker):
            await getattr(dialog, picker).wait_loaded()
    return dialog


def source_id(picker: Any, title: str) -> str:
    return next(key for key, item in picker.items.items() if item.title == title)


def check_title(picker: Any, title: str) -> None:
    picker.check(source_id(picker, title))


def error_of(dialog: MediaCreateDialog, name: str) -> str:
    row = dialog.rows[name]
    return row.error.text() if not row.error.isHidden() else ""


async def submit(dialog: MediaCreateDialog) -> None:
    assert dialog.submit_button.isEnabled(), {n: r.error.text() for n, r in dialog.rows.items()}
    dialog.submit_button.click()
    await dialog.wait_sent()


async def retryable_job(pane: MediaPane) -> MediaJob:
    """A failed job of the test's own (the seeded ones stay as seeded: other tests read them)."""
    resource = pane.info.resource(pane.session.client)
    accepted = await resource.create(prompt=f"{FAIL_PHRASE} {unique('Doomed')}")
    job_id = accepted.data.id
    deadline = time.monotonic() + 120
    while (await resource.status(job_id)).status != "failed":
        assert time.monotonic() < deadline, "the doomed job never failed"
        await asyncio.sleep(0.05)
    pane.refresh()
    await until(lambda: pane.model.row_of(job_id) >= 0)
    return pane.model.item(pane.model.row_of(job_id))


# --- lists ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("cls", [VideosPane, ShortsPane, VoiceoversPane])
async def test_pane_loads_pages_and_shows_details(qtbot: QtBot, session: Session, background: Background, shot, qtmodeltester,
                                                  cls: type[MediaPane]) -> None:  # fmt: skip
    seeded, shown, screenshot = SEEDED[cls]
    pane = cls(session, background)
    qtbot.addWidget(pane)
    pane.page_size = 2
    pages: list[int] = []
    pane.model.pageLoaded.connect(pages.append)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    await until(lambda: pane.model.rowCount() >= 2)
    await load_all(pane)  # the view asks for more while it has room; the rest is fetched here
    assert len(pages) >= 2 and max(pages) == 2  # pages of two rows, read one after another
    assert not pane.model.canFetchMore()
    assert pane.model.rowCount() >= 4
    assert seeded <= titles(pane)
    assert {job.object for job in pane.model.items} == {pane.kind}
    qtmodeltester.check(pane.model)
    assert pane.model.headerData(3, Qt.Orientation.Horizontal) == "Length"
    headers = [pane.model.headerData(c, Qt.Orientation.Horizontal) for c in range(pane.model.columnCount())]
    assert ("Style" in headers) == (pane.kind != "voiceover")  # a voiceover has no style: no empty column

    job = next(j for j in pane.model.items if j.title == shown)
    await select(pane, str(job.id))
    await until(lambda: pane.details.value_of("Status") == media_module.status_text(pane.current.status))
    await until(lambda: pane.details.value_of("Generation ID") is not None)
    assert job.host_id is not None
    host = await pane.session.client.hosts.get(str(job.host_id))
    await until(lambda: pane.details.value_of("Host") == host.name)  # its name, once the names are read
    assert pane.options is not None
    style = {s.id: s.name for s in pane.options.styles}.get(job.style_id or "")  # voiceovers have none
    assert pane.details.value_of("Style") == style
    assert (pane.kind == "voiceover") == (style is None)
    assert pane.download_button is not None and pane.studio_button is not None
    assert pane.studio_button.isEnabled()
    # each pane shows a seeded job that failed (tests leave those as seeded)
    assert pane.current.status == "failed"
    assert pane.details.value_of("Error") == readable_error(pane.current.error)
    assert pane.retry_button is not None and pane.retry_button.isEnabled()
    await laid_out()
    shot(pane, screenshot)
    await drain()


def test_readable_error_and_durations() -> None:
    assert readable_error("Narration failed.") == "Narration failed."
    assert readable_error({"code": "render_failed", "message": "The encoder stopped."}) == (
        "The encoder stopped. (render_failed)"
    )
    assert readable_error({"code": "quota"}) == "quota"
    assert readable_error({"other": 1}) == '{"other": 1}'
    assert readable_error(None) == ""
    assert [format_duration(s) for s in (30, 60, 90, 420, 2700, 3600)] == [
        "30 s", "1 min", "1 min 30 s", "7 min", "45 min", "1 h",
    ]  # fmt: skip


# --- create -----------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_create_video_through_the_dialog(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    pane = open_pane(qtbot, session, background, VideosPane)
    await until(lambda: pane.model.rowCount() > 0)
    dialog = await open_dialog(pane)
    options = dialog.options
    assert dialog.style_combo.currentData() == options.default_style_id
    assert dialog.duration.currentData() == options.default_duration_seconds
    assert dialog.language.currentData() == options.default_language
    assert dialog.orientation.currentData() == "AUTO"
    assert not dialog.submit_button.isEnabled()  # no prompt yet
    assert error_of(dialog, "prompt") == ""  # nothing shouts before the user types

    prompt = unique("An explainer on how tidal lagoons store energy")
    qtbot.keyClicks(dialog.prompt, prompt)
    dialog.duration.setCurrentIndex(dialog.duration.findData(300))
    dialog.style_combo.setCurrentIndex(dialog.style_combo.findData("documentary"))
    host_ids = list(dialog.hosts.items)[:2]
    for host_id in host_ids:
        dialog.hosts.check(host_id)
    check_title(dialog.sources, "Tidal energy primer")
    failed_source = next(k for k, s in dialog.sources.items.items() if s.status == "error")
    row = next(
        dialog.sources.list.item(i) for i in range(dialog.sources.list.count())
        if dialog.sources.list.item(i).data(Qt.ItemDataRole.UserRole) == failed_source
    )  # fmt: skip
    assert not row.flags() & Qt.ItemFlag.ItemIsEnabled  # a failed source cannot be picked
    assert dialog.submit_button.isEnabled()
    await laid_out()
    shot(dialog, "dialog-video-create")

    await submit(dialog)
    assert dialog.result() == dialog.DialogCode.Accepted
    job = dialog.result_value.data
    assert job.status == "generating"
    assert dialog.attempts == 1
    await until(lambda: pane.current is not None and pane.current.id == job.id)
    assert pane.model.row_of(job.id) == 0
    assert pane.details.value_of("Status") == "Generating"

    sent = await session.client.videos.get(job.id)
    assert sent.host_ids == host_ids
    assert sent.style_id == "documentary"
    assert sent.target_duration_seconds == 300
    assert len(sent.source_ids) == 1
    assert sent.prompt == prompt
    await drain()


@pytest.mark.asyncio
async def test_create_short_with_background_music(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    pane = open_pane(qtbot, session, background, ShortsPane)
    dialog = await open_dialog(pane)
    assert [dialog.duration.itemData(i) for i in range(dialog.duration.count())] == [30, 60]
    assert "portrait" in dialog.orientation.currentText().lower()
    qtbot.keyClicks(dialog.prompt, unique("Why the tide comes in twice a day"))
    dialog.duration.setCurrentIndex(dialog.duration.findData(60))
    dialog.music.setChecked(True)
    dialog.hosts.check(next(iter(dialog.hosts.items)))
    await laid_out()
    shot(dialog, "dialog-short-create")
    await submit(dialog)
    job = dialog.result_value.data
    assert job.object == "short"
    await until(lambda: pane.current is not None and pane.current.id == job.id)
    sent = await session.client.shorts.get(job.id)
    assert sent.background_music is True
    assert sent.target_duration_seconds == 60
    assert sent.orientation == "PORTRAIT"
    await drain()


@pytest.mark.asyncio
async def test_create_voiceover_from_prepared_visuals(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    pane = open_pane(qtbot, session, background, VoiceoversPane)
    dialog = await open_dialog(pane)
    assert dialog.duration.currentData() is None  # automatic
    assert not hasattr(dialog, "prompt")
    picker = dialog.visuals

    def enabled(title: str) -> bool:
        key = source_id(picker, title)
        for i in range(picker.list.count()):
            if picker.list.item(i).data(Qt.ItemDataRole.UserRole) == key:
                return bool(picker.list.item(i).flags() & Qt.ItemFlag.ItemIsEnabled)
        raise KeyError(title)

    assert enabled("Tidal array diagram")
    assert not enabled("Harbour master interview notes")  # an upload without prepared visuals
    assert not enabled("Tidal energy primer")  # a text source
    assert not dialog.submit_button.isEnabled()

    check_title(picker, "Tidal array diagram")
    assert "1. Tidal array diagram" in dialog.order.text()
    qtbot.keyClicks(dialog.direction, "Walk through the diagram slowly, channel first.")
    dialog.captions.setChecked(True)
    dialog.motion.setCurrentIndex(dialog.motion.findData("dynamic"))
    dialog.duration.setCurrentIndex(dialog.duration.findData(180))
    dialog.host.setCurrentIndex(1)
    await laid_out()
    shot(dialog, "dialog-voiceover-create")
    await submit(dialog)
    job = dialog.result_value.data
    assert job.object == "voiceover" and job.status == "generating"
    await until(lambda: pane.current is not None and pane.current.id == job.id)
    sent = await session.client.voiceovers.get(job.id)
    assert sent.captions_enabled is True
    assert sent.visual_motion == "dynamic"
    assert sent.source_ids == [source_id(picker, "Tidal array diagram")]
    assert sent.host_id == dialog.host.itemData(1)
    await drain()


# --- validation and rejections ----------------------------------------------------------------------------


async def five_hosts(session: Session) -> None:
    hosts = [h async for h in session.client.hosts.list(limit=100)]
    voices = [v async for v in session.client.voices.list(limit=1)]
    voice = voices[0]
    names = ["Jordan Blake", "Sam Ortega", "Lena Fischer", "Tom Okafor", "Ana Souza"]
    for n in range(5 - len(hosts)):
        await session.client.hosts.create(
            name=names[n], title="Guest", voice_id=voice.id,
            backstory="A harbour engineer who joins now and then to explain how things are built.",
        )  # fmt: skip


@pytest.mark.asyncio
async def test_validation_blocks_bad_input(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    await five_hosts(session)
    pane = open_pane(qtbot, session, background, VideosPane)
    dialog = await open_dialog(pane)
    assert len(dialog.hosts.items) >= 5

    qtbot.keyClicks(dialog.prompt, "   ")
    assert error_of(dialog, "prompt") == "Describe what the video should be about."
    assert not dialog.submit_button.isEnabled()

    for host_id in list(dialog.hosts.items)[:5]:
        dialog.hosts.check(host_id)
    assert error_of(dialog, "host_ids") == "Choose at most 4 hosts."
    assert not dialog.submit_button.isEnabled()
    await laid_out()
    shot(dialog, "dialog-media-invalid")

    dialog.hosts.check(list(dialog.hosts.items)[4], False)
    assert error_of(dialog, "host_ids") == ""
    dialog.prompt.setPlainText("A fine prompt")
    assert dialog.submit_button.isEnabled()

    # a finished script needs a style, and takes no hosts or sources
    dialog.mode.setCurrentIndex(dialog.mode.findData("script"))
    assert dialog.rows["host_ids"].widget.parentWidget().isHidden()
    assert dialog.rows["prompt"].widget.parentWidget().isHidden()
    dialog.script.setPlainText("[Alex Rivera]\nWelcome to the tides.")
    assert dialog.submit_button.isEnabled()
    assert "host_ids" not in dialog.collect()
    dialog.style_combo.setCurrentIndex(dialog.style_combo.findData(None))
    assert error_of(dialog, "style_id") == "A finished script needs a style: choose one."
    assert not dialog.submit_button.isEnabled()
    dialog.submit_button.click()  # refused locally: nothing sent
    assert dialog.attempts == 0
    dialog.reject()
    await drain()


def record_keys(session: Session, background: Background) -> dict[str, str]:
    """Each outbox entry's idempotency key, by entry id, as the outbox stores them."""
    keys: dict[str, str] = {}
    background.outbox.entryChanged.connect(lambda entry: keys.setdefault(entry.id, entry.idempotency_key))
    return keys


@pytest.mark.asyncio
async def test_server_rejection_lands_on_the_field_and_needs_a_new_key(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    title = unique("Short-lived research note")
    source = await session.client.sources.create(type="text", title=title, content="Tides rise and fall.")
    pane = open_pane(qtbot, session, background, VideosPane)
    dialog = await open_dialog(pane)
    keys = record_keys(session, background)
    check_title(dialog.sources, title)
    qtbot.keyClicks(dialog.prompt, unique("A video citing a note that is deleted meanwhile"))
    await session.client.sources.delete(source.id)

    await submit(dialog)
    assert dialog.isVisible()
    assert "no source" in error_of(dialog, "source_ids")
    assert "did not accept" in dialog.banner.text
    assert len(keys) == 1
    assert background.outbox.entries() == []  # shown in the dialog: no card, never resent

    dialog.sources.check(source.id, False)
    await submit(dialog)
    assert dialog.result() == dialog.DialogCode.Accepted
    assert len(keys) == 2 and len(set(keys.values())) == 2  # the corrected input went with a new key
    await drain()


@pytest.mark.asyncio
async def test_a_resend_after_an_unknown_outcome_keeps_the_key(qtbot: QtBot, on_line: OnLine) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    pane = open_pane(qtbot, session, background, ShortsPane)
    dialog = await open_dialog(pane)
    # the service gets the request and starts the short, but its answer is lost on the way back
    line.lose_answer("POST", "/v1/shorts")
    prompt = unique("A short sent twice")
    qtbot.keyClicks(dialog.prompt, prompt)
    await submit(dialog)
    # no answer: the dialog closes, the request is kept and the pane says it will be sent again
    assert dialog.result() == dialog.DialogCode.Accepted
    entry = dialog.result_value
    assert isinstance(entry, OutboxEntry) and entry.state == "pending"
    assert "same idempotency key" in pane.banner.text
    # the outbox sends it again by itself, with the same key; the service answers with the same short
    sent = await until(lambda: (e := background.outbox.get(entry.id)) is not None and e.state == "sent" and e)
    posts = line.to("POST", "/v1/shorts")
    assert [(p.idempotency_key, p.status, p.fault) for p in posts] == [
        (entry.idempotency_key, 202, "lost answer"),
        (entry.idempotency_key, 202, None),
    ]
    shorts = [s async for s in session.client.shorts.list(limit=100) if prompt in str(s.model_dump())]
    assert [str(s.id) for s in shorts] == [sent.resource_id]  # one short, however many sends
    await until(lambda: background.jobs.job("short", sent.resource_id))
    await drain()


# --- retry, status and download ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_retry_a_failed_job(qtbot: QtBot, session: Session, background: Background) -> None:
    pane = open_pane(qtbot, session, background, VideosPane)
    job = await retryable_job(pane)
    await select(pane, str(job.id))
    await until(lambda: pane.retry_button is not None)
    assert pane.retry_button is not None
    pane.retry_button.click()
    box = await until(lambda: pane.findChild(QMessageBox, "confirm"))
    retry = next(b for b in box.buttons() if b.text() == "Retry")
    retry.click()
    # The note, not the status, is what the retry's answer brings: the job tracker may show the new
    # attempt generating a moment before the answer comes back, so the status changing first proves
    # nothing about the note (red once in a fresh-clone run). The note stays until the attempt ends,
    # which takes at least the tracker's next poll.
    note = await until(lambda: pane.details.value_of("Status check"))
    assert "New attempt started" in note
    assert pane.current.id == job.id
    assert pane.current.status in ("generating", "completed")
    fresh = await session.client.videos.status(job.id)
    assert fresh.status in ("generating", "completed")
    await drain()


@pytest.mark.asyncio
async def test_download_states_are_distinct(
    qtbot: QtBot, session: Session, background: Background, tmp_path: Path, shot
) -> None:
    pane = open_pane(qtbot, session, background, VideosPane)
    accepted = await session.client.videos.create(prompt=unique("A short explainer about neap tides"))
    job_id = accepted.data.id

    # generating: the file is being prepared
    pane.refresh()
    await until(lambda: pane.model.row_of(job_id) >= 0)
    await select(pane, job_id)
    pane.download_button.click()
    view = await until(lambda: pane.download_view)
    assert view.kind == "preparing"
    assert "Not ready yet" in view.message.text() and view.check_again is not None
    assert view.headline.text() == "◌ Being prepared"
    assert pane.saver.dialog is None  # nothing to save yet

    pane.status_button.click()
    note = await until(lambda: pane.details.value_of("Status check"))
    said = {"generating": "Still generating at ", "completed": "Completed (checked "}
    assert note.startswith(said[pane.current.status])  # what the status just read says

    # completed: saved where the creator says, inside the app (no browser needed)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        previous = pane.deliveries[job_id].checked_at if job_id in pane.deliveries else 0.0
        if pane.download_view is not None and pane.download_view.check_again is not None:
            pane.download_view.check_again.click()
        else:
            pane.download_button.click()
        await until(
            lambda before=previous: job_id in pane.deliveries and pane.deliveries[job_id].checked_at != before
        )
        if pane.deliveries[job_id].kind == "available":
            break
        await asyncio.sleep(0.05)
    view = pane.download_view
    assert view is not None and view.kind == "available"
    assert view.link is not None and "Download the video file" in view.link.text()
    assert view.headline.text() == "● Ready to download"
    assert pane.details.value_of("Status") == "Completed"
    saving = await until(lambda: pane.saver.dialog)
    target = tmp_path / "neap tides.mp4"
    await answer_save_dialog(qtbot, saving, target, suffix=".mp4")
    await until(lambda: "Saved" in pane.banner.text)
    assert target.stat().st_size > 0 and str(target) in pane.banner.text
    await laid_out()
    shot(pane, "pane-videos-download")

    # failed or idle: no file, the studio instead
    job = await retryable_job(pane)
    await select(pane, str(job.id))
    pane.download_button.click()
    view = await until(lambda: pane.download_view if pane.download_view is not None else None)
    assert view.kind == "unavailable"
    assert "no file to download" in view.message.text()
    assert view.headline.text() == "○ No downloadable file"
    assert view.link is not None and "studio" in view.link.text()
    assert pane.saver.dialog is saving  # nothing offered to save
    await drain()


@pytest.mark.asyncio
async def test_a_generating_job_shown_is_followed_by_the_tracker_to_its_end(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    """The pane polls nothing: the job it shows while generating is the tracker's, and the row and
    the details follow the tracker until the job has finished, with no "Refresh status" pressed."""
    background.jobs.default_interval = 0.3
    pane = open_pane(qtbot, session, background, ShortsPane)
    accepted = await session.client.shorts.create(prompt=unique("Why harbour seals sleep upright"))
    job_id = str(accepted.data.id)
    pane.refresh()
    await until(lambda: pane.model.row_of(job_id) >= 0)
    await select(pane, job_id)
    assert pane.details.value_of("Status") == "Generating"
    assert "its card in Jobs" in pane.details.note.text()
    job = await until(lambda: background.jobs.job("short", job_id))
    assert job.kind == "short" and job.title and "harbour seals" in job.title
    finished = await until(
        lambda: (j := background.jobs.job("short", job_id)) and j.finished and j, timeout=120
    )
    assert finished.state == "completed"
    await until(lambda: pane.details.value_of("Status") == "Completed")
    row = pane.model.row_of(job_id)
    assert pane.model.item(row).status == "completed"
    assert pane.details.value_of("Status check") is None  # nobody pressed "Refresh status"
    assert not background.jobs.is_following("short", job_id)
    await drain()
