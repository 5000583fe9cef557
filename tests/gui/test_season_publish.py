"""Publishing a season from the Episodes pane, as a creator does it: select several episodes with the
keyboard and the mouse, open "Publish or schedule…", read every date in the preview, schedule them
weekly on two weekdays across a daylight-saving change, and find them scheduled on the sandbox."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QDate, QDateTime, QPoint, Qt, QTime
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.dialogs.season_dialog import SeasonDialog
from tests.conftest import RunningSandbox
from tests.gui.conftest import answer_confirmation, quiet, until
from tests.gui.helpers import make_pane, new_podcast, rendered_drafts


def at_utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


@pytest.mark.asyncio
async def test_a_season_selected_in_the_list_is_previewed_then_scheduled_on_two_weekdays(
    qtbot: QtBot, session: Session, background: Background, sandbox: RunningSandbox, shot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("TZ", "Europe/Berlin")  # the creator's zone (springs forward on 2027-03-28)
    show = await new_podcast(session, f"Season show {uuid.uuid4().hex[:6]}")
    drafts = await rendered_drafts(session, show.id, ["Tide tables", "Kelp at night", "The long swell"])
    never = (await rendered_drafts(session, show.id, ["Script only"], render=False))[0]
    pane = await make_pane(qtbot, session, background, show)
    for episode in [*drafts, never]:
        await until(lambda e=episode: pane.model.row_of(e.id) >= 0)

    # one row clicked shows that episode; Ctrl+A selects every row: the details speak of all four
    table = pane.table
    first_row = table.visualRect(pane.proxy.index(0, 0)).center()
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, first_row)
    await until(lambda: pane.details.value_of("Episode ID") is not None)
    assert not pane.season_button.isVisible()
    table.setFocus()
    QTest.keyClick(table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: pane.details.heading.text() == "4 episodes selected")
    assert pane.details.value_of("Can be published") == "3"
    assert pane.details.value_of("Left out") == "1 never rendered"
    assert pane.season_button.isVisible() and pane.current is None
    await quiet()
    shot(pane, "pane-episodes-several-selected")
    shown = [episode.title for episode in pane.selected_items()]
    assert sorted(shown) == sorted(["Tide tables", "Kelp at night", "The long swell", "Script only"])

    qtbot.mouseClick(pane.season_button, Qt.MouseButton.LeftButton)
    dialog = pane.dialog
    assert isinstance(dialog, SeasonDialog)
    await until(dialog.isVisible)
    # now, by default: every episode but the one never rendered, with its reason
    assert dialog.submit_button.text() == "Publish 3"
    rows = dialog.row_texts()
    assert [row[1] for row in rows] == shown  # the order the list shows
    left = next(row for row in rows if row[1] == "Script only")
    assert left[2] == "Left out" and left[3].startswith("Never rendered")

    # scheduled as a series: Tuesdays and Fridays from Tue 23 March 2027, 09:00 in Berlin
    qtbot.mouseClick(dialog.series_radio, Qt.MouseButton.LeftButton)
    dialog.first_edit.setDateTime(QDateTime(QDate(2027, 3, 23), QTime(9, 0)))
    # weekly, no day ticked yet: nothing dated, nothing said as "now", and no Schedule to press
    qtbot.mouseClick(
        dialog.weekly_radio, Qt.MouseButton.LeftButton, pos=QPoint(4, dialog.weekly_radio.height() // 2)
    )
    assert dialog.problem.text() == "Choose the weekdays the episodes come out on."
    assert (
        dialog.summary.text() == "3 to schedule once the weekdays are chosen; 1 left out (greyed, with why)."
    )
    assert {row[2] for row in dialog.row_texts() if row[1] != "Script only"} == {"No date yet"}
    assert not dialog.submit_button.isEnabled()
    await quiet()
    shot(dialog, "dialog-season-no-weekdays")
    for day in ("Tue", "Fri"):
        box = next(b for b in dialog.weekday_boxes if b.text() == day)
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(4, box.height() // 2))
    assert dialog.weekly_radio.isChecked() and dialog.submit_button.text() == "Schedule 3"
    assert "Europe/Berlin (UTC+01:00)" in dialog.zone_note.text()
    going = [row for row in dialog.row_texts() if row[2] != "Left out"]
    assert [row[0] for row in going] == ["1", "2", "3"]
    assert [row[2] for row in going] == [
        "Tue 23 Mar 2027, 09:00", "Fri 26 Mar 2027, 09:00", "Tue 30 Mar 2027, 09:00 (UTC+02:00)",
    ]  # fmt: skip
    assert dialog.summary.text().startswith("3 to schedule from Tue 23 Mar 2027, 09:00 to Tue 30 Mar")
    assert dialog.width() <= 1280 and dialog.height() <= 720
    await quiet()
    shot(dialog, "dialog-season-schedule")

    # Ctrl+Enter presses Schedule 3; each row says its outcome, then the summary
    QTest.keyClick(dialog, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: len(dialog.outcomes) == 3 and not dialog.sending)
    assert dialog.summary.text() == "3 scheduled; 1 left out."
    assert [row[3] for row in dialog.row_texts() if row[2] != "Left out"] == ["Scheduled."] * 3
    assert not dialog.submit_button.isVisible() and dialog.close_button.isDefault()
    shot(dialog, "dialog-season-sent")
    await until(lambda: "Publish: 3 scheduled; 1 left out." in pane.banner.text)

    # on the service: the three on their dates (the third an hour earlier in UTC, after the change)
    stored = {e.id: e async for e in session.client.episodes.list(podcast_id=show.id, limit=100)}
    by_title = {e.title: e for e in stored.values()}
    going_titles = [row[1] for row in going]
    assert [at_utc(by_title[t].scheduled_at or "") for t in going_titles] == [
        datetime(2027, 3, 23, 8, 0, tzinfo=UTC), datetime(2027, 3, 26, 8, 0, tzinfo=UTC),
        datetime(2027, 3, 30, 7, 0, tzinfo=UTC),
    ]  # fmt: skip
    assert {by_title[t].status for t in going_titles} == {"scheduled"}
    assert by_title["Script only"].status == "draft"
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    await until(lambda: not dialog.isVisible())
    await quiet()


@pytest.mark.asyncio
async def test_a_selection_unpublished_at_once_comes_back_with_undo_then_is_deleted_with_one_question(
    qtbot: QtBot, session: Session, background: Background, sandbox: RunningSandbox, shot
) -> None:
    show = await new_podcast(session, f"Taken back {uuid.uuid4().hex[:6]}")
    out, later, draft = await rendered_drafts(session, show.id, ["Out now", "Out later", "Still a draft"])
    await session.client.episodes.publish(out.id)
    when = sandbox.now().replace(microsecond=0) + timedelta(days=9)
    await session.client.episodes.publish(later.id, when)
    pane = await make_pane(qtbot, session, background, show)
    for episode in (out, later, draft):
        await until(lambda e=episode: pane.model.row_of(e.id) >= 0)

    # Shift+click from the first row to the last selects all three
    table = pane.table
    top = table.visualRect(pane.proxy.index(0, 0)).center()
    bottom = table.visualRect(pane.proxy.index(2, 0)).center()
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, top)
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, bottom)
    await until(lambda: pane.details.heading.text() == "3 episodes selected")
    assert pane.unpublish_many_button.isVisible() and pane.delete_many_button.isVisible()

    # one question for the two that are out; the draft stays as it is
    qtbot.mouseClick(pane.unpublish_many_button, Qt.MouseButton.LeftButton)
    question = await answer_confirmation(pane, "Unpublish 2")
    assert "1 of the selected are drafts already" in question
    await until(lambda: pane.banner.text == "2 episodes are drafts again.")
    assert {(await session.client.episodes.get(e.id)).status for e in (out, later)} == {"draft"}
    assert pane.details.heading.text() == "3 episodes selected"
    assert not pane.unpublish_many_button.isVisible()  # nothing selected is out any more

    # Undo: the published one is out again now, the scheduled one at its own time
    assert pane.banner.action_button.isVisible() and pane.banner.action_button.text() == "Undo"
    await quiet()
    shot(pane, "pane-episodes-unpublished-undo")
    qtbot.mouseClick(pane.banner.action_button, Qt.MouseButton.LeftButton)
    await until(lambda: pane.banner.text.startswith("Undone: "))
    assert pane.banner.text == "Undone: 1 published, 1 scheduled."
    assert not pane.banner.action_button.isVisible()
    assert (await session.client.episodes.get(out.id)).status == "published"
    again = await session.client.episodes.get(later.id)
    assert again.status == "scheduled" and at_utc(again.scheduled_at or "") == when.astimezone(UTC)
    assert (await session.client.episodes.get(draft.id)).status == "draft"

    # delete all three with one question; the service keeps nothing
    await until(lambda: all(pane.model.row_of(e.id) >= 0 for e in (out, later, draft)))
    table.setFocus()
    QTest.keyClick(table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: pane.details.heading.text() == "3 episodes selected")
    qtbot.mouseClick(pane.delete_many_button, Qt.MouseButton.LeftButton)
    question = await answer_confirmation(pane, "Delete 3")
    assert "cannot be undone" in question
    await until(lambda: pane.banner.text == "Deleted 3 episodes.")
    remaining = [e.id async for e in session.client.episodes.list(podcast_id=show.id, limit=100)]
    assert remaining == []
    assert pane.model.rowCount() == 0 and pane.details.heading.text() == ""
    await quiet()


@pytest.mark.asyncio
async def test_a_season_is_selected_among_the_cards_as_in_the_table(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    show = await new_podcast(session, f"Cards show {uuid.uuid4().hex[:6]}")
    drafts = await rendered_drafts(session, show.id, ["First light", "High water", "Ebb"])
    pane = await make_pane(qtbot, session, background, show)
    for episode in drafts:
        await until(lambda e=episode: pane.model.row_of(e.id) >= 0)
    pane.set_view("cards")
    view = pane.cards_view
    assert view is not None
    await until(lambda: view.visualRect(pane.proxy.index(2, 0)).isValid())
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.card_rect(pane.proxy.index(0, 0)).center())  # fmt: skip
    for row in (1, 2):  # Ctrl+click adds a card, as in the table
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                         view.card_rect(pane.proxy.index(row, 0)).center())  # fmt: skip
    await until(lambda: pane.details.heading.text() == "3 episodes selected")
    assert sorted(e.title for e in pane.selected_items()) == ["Ebb", "First light", "High water"]
    assert pane.season_button.isVisible()
    await quiet()
