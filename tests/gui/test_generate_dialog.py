"""The generate dialog: live validation and the credit estimate; and through the outbox, a network
failure as the user presses Generate leaves the request kept and resent with its key, so one
generation starts."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from castdeck.api.models import EpisodeGenerateInput
from castdeck.services.session import ConnectionState
from castdeck.services.source_use import is_research_source
from castdeck.store.outbox import OutboxEntry
from castdeck.ui.dialogs.generate_dialog import LENGTH_FIELD, GenerateDialog
from castdeck.ui.panes.episodes import EpisodesPane
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import make_pane, new_podcast


def low_balance(body: dict[str, Any]) -> dict[str, Any]:
    """The account's answer with a balance of 100 credits."""
    data = body["data"]
    return {**body, "data": {**data, "credits": {**data["credits"], "balance": 100}}}


PROMPT = "How lighthouses kept ships safe before satellite navigation, told by two keepers."


async def open_dialog(pane: EpisodesPane) -> GenerateDialog:
    dialog = pane.generate()
    assert pane.dialog is dialog and dialog.isVisible()
    await dialog.podcast_picker.wait_loaded()
    await dialog.hosts_picker.wait_loaded()
    await dialog.sources_picker.wait_loaded()
    return dialog


@pytest.mark.asyncio
async def test_generate_dialog_validates_and_estimates(qtbot: QtBot, on_line: OnLine, shot) -> None:
    session, line = on_line.session, on_line.line
    pane = await make_pane(qtbot, session, on_line.background)
    dialog = await open_dialog(pane)
    podcast = dialog.podcast_picker.items[dialog.podcast_picker.selected_id() or ""]
    assert dialog.hosts_picker.selected_ids() == podcast.host_ids  # the podcast's hosts are proposed
    assert dialog.length_spin.value() == 7 and dialog.render_check.isChecked()  # rendering is on at first
    assert "210 credits" in dialog.estimate.text()
    assert not dialog.submit_button.isEnabled()  # no prompt yet
    assert not dialog.rows["prompt"].error.isVisible()  # nor a complaint before typing

    # sources that failed (or whose upload never completed) cannot be chosen: the one rule
    errored = [s for s in dialog.sources_picker.items.values() if s.status == "error"]
    assert errored
    for i in range(dialog.sources_picker.list.count()):
        row = dialog.sources_picker.list.item(i)
        source = dialog.sources_picker.items[row.data(Qt.ItemDataRole.UserRole)]
        assert bool(row.flags() & Qt.ItemFlag.ItemIsEnabled) == is_research_source(source)

    qtbot.keyClicks(dialog.prompt_edit, "short")
    prompt_row = dialog.rows["prompt"]
    assert not dialog.submit_button.isEnabled()
    assert prompt_row.error.isVisible() and "at least 10" in prompt_row.error.text().lower()
    assert prompt_row.counter is not None and prompt_row.counter.text() == "5 / 10,000 (at least 10)"
    dialog.length_spin.setValue(75)
    assert "2,250 credits" in dialog.estimate.text()

    # a balance below the estimate is an inline error on the length (the sandbox cannot be made to
    # hold a low balance, so the line changes the account's answer on its way back)
    line.change_answers("GET", "/v1/account", low_balance)
    await session.refresh_account()
    assert session.account is not None and session.account.credits.balance == 100
    length_row = dialog.rows[LENGTH_FIELD]
    await until(lambda: length_row.error.isVisible())
    assert "balance is 100" in length_row.error.text()
    assert "more than the balance" in dialog.estimate.text()
    dialog.try_submit()  # shows every problem; sends nothing
    assert dialog.attempts == 0
    await quiet()
    shot(dialog, "dialog-generate-invalid")

    qtbot.keyClicks(dialog.prompt_edit, " and more of it")
    dialog.length_spin.setValue(3)  # 90 credits: within the balance
    assert not prompt_row.error.isVisible() and not length_row.error.isVisible()
    assert dialog.submit_button.isEnabled(), dialog.problem.text()
    dialog.reject()
    await quiet()


@pytest.mark.asyncio
async def test_generating_again_after_a_network_failure_starts_one_episode(
    qtbot: QtBot, on_line: OnLine, shot
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    podcast = await new_podcast(session, f"Keepers {uuid.uuid4().hex[:6]}")
    pane = await make_pane(qtbot, session, background, podcast)
    assert pane.model.rowCount() == 0
    dialog = await open_dialog(pane)
    assert dialog.podcast_picker.selected_id() == podcast.id  # the filtered podcast is proposed
    dialog.prompt_edit.setPlainText(PROMPT)
    dialog.length_spin.setValue(1)
    source = next(s for s in dialog.sources_picker.items.values() if s.status == "completed")
    dialog.sources_picker.check(source.id)
    assert dialog.submit_button.isEnabled(), dialog.problem.text()
    assert "30 credits" in dialog.estimate.text()
    await quiet()
    shot(dialog, "dialog-generate")

    # the network goes away as the user presses Generate: the service gets the request and starts the
    # episode, but the answer is lost, and the line stays down
    line.lose_answer("POST", "/v1/episodes/generate", then_down=True)
    assert dialog.submit_button.isEnabled()
    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    # the request was stored with its key first; the dialog closes and the pane says what happens next
    assert dialog.result() == GenerateDialog.DialogCode.Accepted
    entry = dialog.result_value
    assert isinstance(entry, OutboxEntry) and entry.state == "pending" and entry.attempts == 1
    assert "same idempotency key" in pane.banner.text
    assert session.state is ConnectionState.OFFLINE
    assert [e.id for e in background.outbox.entries()] == [entry.id]

    # the network is back (the session notices by itself): the outbox sends it again, same key, and
    # the service answers with the episode the first attempt started
    line.up()
    await until(lambda: session.state is ConnectionState.ONLINE)
    sent = await until(lambda: (e := background.outbox.get(entry.id)) is not None and e.state == "sent" and e)
    assert sent.idempotency_key == entry.idempotency_key and sent.attempts == 2
    posts = line.to("POST", "/v1/episodes/generate")
    assert [(p.idempotency_key, p.status, p.fault) for p in posts] == [
        (entry.idempotency_key, 202, "lost answer"),
        (entry.idempotency_key, 202, None),
    ]
    episode_id = str(sent.resource_id)
    job = await until(lambda: background.jobs.job("episode", episode_id))
    assert job.extra["attempts"] == 2 and job.extra["idempotency_key"] == entry.idempotency_key

    # sending it once more with the key still answers the same episode, and there is only one
    payload = dialog.validate(dialog.collect())
    assert isinstance(payload, EpisodeGenerateInput)
    again = await session.client.episodes.generate(payload, idempotency_key=entry.idempotency_key)
    assert str(again.data.id) == episode_id
    episodes = [e.id async for e in session.client.episodes.list(podcast_id=podcast.id, limit=100)]
    assert episodes == [episode_id]
    await quiet(timeout=60)
