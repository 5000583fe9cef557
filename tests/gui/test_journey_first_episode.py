"""Two creator journeys at a laptop's size, by mouse and keyboard on the real app: the first run up
to the first episode published, and a script draft imported, opened and listened to. Each step
asserts what the creator sees (texts, enabled and visible buttons) and that every window shown lies
within the screen; each step's screenshot is kept in the light and the dark scheme."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode
from castdeck.app import CastdeckApp
from castdeck.services.render_choice import RENDER_OFF_MEANS
from castdeck.services.session import ConnectionState
from castdeck.ui.dialogs.episode_dialogs import PublishDialog
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.jobs.card import JobCard
from castdeck.ui.listen.colors import speaker_colors
from castdeck.ui.listen.listen_window import ListenWindow
from castdeck.ui.panes.episode_parts import GENERATION_STARTED
from castdeck.ui.panes.episodes import EpisodesPane
from castdeck.ui.scripts.dialogs import SendDialog
from castdeck.ui.scripts.pane import ScriptsPane
from castdeck.ui.welcome import Glyph, WelcomeDialog
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import dark_palette
from tests.gui.journey import (
    both_schemes,
    choose_by_keys,
    click_sidebar,
    double_click_row,
    every_window_on_screen,
    open_main_window,
    scheme,
)
from tests.gui.listen_helpers import loaded
from tests.gui.test_listen import listen_button
from tests.gui.test_welcome import arguments, first_screen, no_connection_in_the_environment
from tests.runner import RUNTIME

__all__ = ["no_connection_in_the_environment"]  # the fixture, used here as in test_welcome

PROMPT = "How lighthouse keepers kept the lamp burning through a winter storm, told by two keepers."


def button(parent: QWidget, name: str) -> QAbstractButton:
    """The one visible button called ``name`` (its accessible name, else its text), as a person finds it."""
    found = [
        b
        for b in parent.findChildren(QAbstractButton)
        if b.isVisible() and name in (b.accessibleName(), b.text())
    ]
    assert len(found) == 1, (name, [(b.accessibleName(), b.text()) for b in found])
    return found[0]


def click(qtbot: QtBot, widget: QWidget) -> None:
    assert widget.isVisible() and widget.isEnabled(), widget.accessibleName()
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=widget.rect().center())


def lit_word(player: ListenWindow) -> str:
    """The word lit in the transcript (its last extra selection), as painted."""
    selections = player.view.extraSelections()
    assert selections
    cursor = QTextCursor(selections[-1].cursor)
    return cursor.selectedText()


def whole_in_view(widget: QWidget) -> bool:
    """Nothing of ``widget`` is scrolled or cut out of view."""
    return widget.isVisible() and widget.visibleRegion().boundingRect().size() == widget.size()


def lit_background(player: ListenWindow) -> QColor:
    selections = player.view.extraSelections()
    assert selections
    return QColor(selections[-1].format.background().color())


def welcome_mark(welcome: WelcomeDialog) -> QLabel:
    marks = [label for label in welcome.findChildren(Glyph) if label.parentWidget() is welcome]
    assert len(marks) == 1
    return marks[0]


def redrawn_in_the_dark(label: QLabel) -> bool:
    """The label's icon is drawn anew, in other colours, when the system turns dark (and back)."""
    light = QApplication.palette()
    before = label.pixmap().toImage()
    scheme(dark_palette())
    try:
        dark = label.pixmap().toImage()
    finally:
        scheme(light)
    return dark != before and label.pixmap().toImage() == before


def labels(widget: QWidget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel) if label.isVisible()]


@pytest.mark.asyncio
async def test_first_run_to_the_first_episode_published(qtbot: QtBot, tmp_path: Path, shot: Any) -> None:
    app = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    try:
        # the welcome: the sandbox in one click
        welcome = await first_screen(app)
        assert isinstance(welcome, WelcomeDialog)
        await until(welcome.isActiveWindow)
        every_window_on_screen()
        assert welcome.sandbox_button.isEnabled() and welcome.account_button.isEnabled()
        assert welcome.not_now.isVisible() and not welcome.progress.isVisible()
        for glyph in (welcome_mark(welcome), welcome.sandbox_button.glyph, welcome.account_button.glyph):
            assert redrawn_in_the_dark(glyph)
        both_schemes(shot, welcome, "journey-first-01-welcome")
        click(qtbot, button(welcome, "Try the sandbox"))
        window = await until(lambda: app.window, timeout=60)
        qtbot.addWidget(window)
        session = app.session
        assert session is not None and session.profile.sandbox
        await until(lambda: session.state is ConnectionState.ONLINE)
        await until(window.isActiveWindow)
        every_window_on_screen()

        # the first steps, one by one
        guide = window.first_steps
        assert guide.isVisible() and guide.title.text() == "First steps"
        steps = [b.text() for b in guide.buttons.values()]
        assert steps == [
            "1. Meet the demo hosts",
            "2. Pick or create a podcast",
            "3. Generate your first episode",
        ]
        assert all(b.isEnabled() for b in guide.buttons.values()) and guide.dismiss_button.isVisible()
        # its mark is drawn in the scheme's colours (drawn anew when the system turns dark)
        assert redrawn_in_the_dark(guide.mark)
        both_schemes(shot, window, "journey-first-02-first-steps")
        click(qtbot, button(guide, "Step 1: Meet the demo hosts"))
        hosts = window.current_pane()
        assert hosts is window.pane("Hosts") and window.sidebar.currentItem().text() == "Hosts"
        await until(lambda: hosts.model.rowCount() > 0 and not hosts.model.loading)
        assert guide.buttons["hosts"].accessibleDescription() == "done"
        click(qtbot, button(guide, "Step 2: Pick or create a podcast"))
        podcasts = window.current_pane()
        assert podcasts is window.pane("Podcasts") and window.sidebar.currentItem().text() == "Podcasts"
        await until(lambda: podcasts.model.rowCount() > 0 and not podcasts.model.loading)
        assert guide.buttons["podcast"].accessibleDescription() == "done"
        every_window_on_screen()
        both_schemes(shot, window, "journey-first-03-podcasts")

        # step 3: the generate dialog over Episodes
        click(qtbot, button(guide, "Step 3: Generate your first episode"))
        episodes = window.current_pane()
        assert isinstance(episodes, EpisodesPane) and window.sidebar.currentItem().text() == "Episodes"
        dialog = await until(lambda: episodes.dialog if isinstance(episodes.dialog, GenerateDialog) else None)
        await until(dialog.isVisible)
        every_window_on_screen()
        await dialog.podcast_picker.wait_loaded()
        await until(lambda: dialog.podcast_picker.selected_id() is not None)
        podcast_name = dialog.podcast_picker.currentText()
        assert podcast_name and podcast_name != "Loading…"
        assert dialog.render_check.isChecked()  # rendering on unless the creator turned it off
        assert RENDER_OFF_MEANS in labels(dialog)
        assert not dialog.submit_button.isEnabled()  # no prompt yet
        # the podcast's hosts ticked once the list has loaded
        podcast = dialog.podcast_picker.items[dialog.podcast_picker.selected_id() or ""]
        await until(lambda: dialog.hosts_picker.loading.done() and dialog.hosts_picker.selected_ids())
        assert set(dialog.hosts_picker.selected_ids()) == {str(h) for h in podcast.host_ids or []}
        hosts_named = ", ".join(dialog.hosts_picker.items[h].name for h in dialog.hosts_picker.selected_ids())
        assert dialog.prompt_edit.hasFocus()
        qtbot.keyClicks(dialog.prompt_edit, PROMPT)
        assert dialog.prompt_edit.toPlainText() == PROMPT
        both_schemes(shot, dialog, "journey-first-04-generate")
        # Tab on to the length (the fields scroll to it), 1 minute typed over the default
        for _ in range(8):
            if dialog.length_spin.hasFocus():
                break
            QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert dialog.length_spin.hasFocus()
        QTest.keyClick(dialog.length_spin, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(dialog.length_spin, "1")
        assert dialog.length_spin.value() == 1
        await until(lambda: "Holds about 30 credits (1 min" in dialog.estimate.text())
        await until(dialog.submit_button.isEnabled)
        # the length, the render choice with what "off" means, and the credits it holds: all in view
        render_row = dialog.rows["render"].widget.parentWidget()
        assert render_row is not None
        for shown in (dialog.length_spin, render_row, dialog.estimate, dialog.submit_button):
            assert whole_in_view(shown), shown.accessibleName()
        both_schemes(shot, dialog, "journey-first-05-generate-length")
        click(qtbot, dialog.submit_button)

        # the Jobs dock opens by itself; its card follows the job to its end
        await until(lambda: not dialog.isVisible(), timeout=60)
        await until(window.jobs_dock.isVisible)
        card = await until(lambda: next(iter(window.jobs_panel.findChildren(JobCard)), None))
        assert card.view.kind == "episode"
        # the last step says it has started, not that it is done: the episode is not made yet
        step3 = guide.buttons["episode"]
        await until(lambda: step3.text() == "3. Generate your first episode (started)")
        assert step3.accessibleDescription() == "started; ticked once the episode is ready"
        assert guide.title.text() == "First steps"
        # the new episode is selected in the list, its details following the generation as said
        assert episodes.banner.text == GENERATION_STARTED
        await until(lambda: isinstance(episodes.current, Episode) and episodes.current.status == "draft")
        new_id = str(episodes.current.id) if isinstance(episodes.current, Episode) else ""
        assert episodes.model.row_of(new_id) >= 0
        await until(lambda: (episodes.details.value_of("Generation") or "").startswith("Generating"))
        assert episodes.details.value_of("Hosts") == hosts_named  # by name, not by id
        every_window_on_screen()
        both_schemes(shot, window, "journey-first-06-generating")
        await until(lambda: card.view.state == "completed", timeout=180)
        assert card.status_label.text() == "Finished: the episode is ready"
        # now it is done
        assert step3.accessibleDescription() == "done" and step3.text() == "3. Generate your first episode"
        assert guide.title.text() == "First steps — all done"
        episode_id = card.view.key.rsplit(":", 1)[-1]
        assert episode_id == new_id
        # the details shown follow the end by themselves: rendered, with Publish offered
        await until(lambda: episodes.details.value_of("Generation") == "Completed")
        assert episodes.details.value_of("Status") == "Draft"
        assert listen_button(episodes) is not None and ">Video file</a>" in (
            episodes.details.value_of("Video") or ""
        )
        assert not episodes.details.note.isVisible()  # no "Generating…" note, no "Not rendered" one
        assert episodes.publish_button.isVisible() and episodes.publish_button.isEnabled()
        assert episodes.schedule_button.isVisible()
        both_schemes(shot, window, "journey-first-07-finished")

        # elsewhere in the app, the card's Open brings the episode back, selected in Episodes
        click_sidebar(qtbot, window, "Podcasts")
        click(qtbot, button(card, f"Open: {card.view.title}"))
        assert window.current_pane() is episodes and window.sidebar.currentItem().text() == "Episodes"
        await until(lambda: isinstance(episodes.current, Episode) and str(episodes.current.id) == episode_id)
        selected = episodes.proxy.mapFromSource(episodes.model.index(episodes.model.row_of(episode_id), 0))
        assert episodes.table.selectionModel().isSelected(selected)
        assert episodes.details.value_of("Generation") == "Completed"
        assert episodes.publish_button.isVisible() and episodes.publish_button.isEnabled()
        every_window_on_screen()
        both_schemes(shot, window, "journey-first-08-episode")

        # Publish now
        click(qtbot, episodes.publish_button)
        publish = await until(lambda: episodes.dialog if isinstance(episodes.dialog, PublishDialog) else None)
        await until(publish.isVisible)
        every_window_on_screen()
        assert publish.now_radio.isChecked() and publish.submit_button.text() == "Publish now"
        both_schemes(shot, publish, "journey-first-09-publish")
        click(qtbot, publish.submit_button)
        await until(lambda: not publish.isVisible(), timeout=60)
        await until(lambda: episodes.details.value_of("Status") == "Published")
        title = episodes.current.title if isinstance(episodes.current, Episode) else None
        assert episodes.banner.text == f"Published “{title}”."
        assert episodes.unpublish_button.isVisible() and not episodes.publish_button.isVisible()
        row = episodes.model.row_of(episode_id)
        assert episodes.model.index(row, 2).data() == "Published"
        assert (await session.client.episodes.get(episode_id)).status == "published"
        every_window_on_screen()
        both_schemes(shot, window, "journey-first-10-published")
        await quiet()
    finally:
        await app.shutdown()


SPOKEN = [
    "The harbour wakes before the town does, when the first boats cough and leave.",
    "And the gulls follow them out past the breakwater, shouting about breakfast.",
    "By noon the tide has turned, and the same boats come home heavy and slow.",
]


@pytest.mark.asyncio
async def test_a_draft_typed_imported_rendered_opened_and_listened_to(
    qtbot: QtBot, on_line: OnLine, shot: Any
) -> None:
    session = on_line.session
    tag = uuid.uuid4().hex[:6]
    voices = [1002, 1003]
    hosts = [
        await session.client.hosts.create(
            name=f"{name} {tag}", backstory="Talks about harbours.", voice_id=voice
        )
        for name, voice in (("Nell", voices[0]), ("Bram", voices[1]))
    ]
    show = await session.client.podcasts.create(title=f"Harbour talk {tag}", host_ids=[h.id for h in hosts])
    window = await open_main_window(qtbot, on_line)
    scripts = click_sidebar(qtbot, window, "Scripts")
    assert isinstance(scripts, ScriptsPane)
    await until(lambda: scripts.hosts is not None and {h.id for h in hosts} <= {h.id for h in scripts.hosts})

    # a new draft, typed line by line
    click(qtbot, button(scripts, "New draft"))
    await until(
        lambda: scripts.draft is not None and scripts.editor.isEnabled() and scripts.editor.hasFocus()
    )
    lines = ["# Morning at the harbour"]
    for number, text in enumerate(SPOKEN):
        lines += [f"[{hosts[number % 2].name}]", text]
    for line in lines:
        qtbot.keyClicks(scripts.editor, line)
        QTest.keyClick(scripts.editor, Qt.Key.Key_Return)
    await until(lambda: scripts.analysis is not None and not scripts.analysis.errors)
    assert scripts.draft is not None and scripts.draft.title == "Morning at the harbour"
    every_window_on_screen()
    both_schemes(shot, window, "journey-first-draft-1-typed")

    # Import: the podcast chosen by keys, rendering on (the default), Import clicked
    click(qtbot, button(scripts, "Import as episode"))
    dialog = await until(lambda: scripts.dialog if isinstance(scripts.dialog, SendDialog) else None)
    await until(dialog.isVisible)
    every_window_on_screen()
    await dialog.podcast_picker.wait_loaded()
    choose_by_keys(dialog.podcast_picker, show.title)
    assert dialog.podcast_picker.selected_id() == show.id
    assert dialog.render_check.isChecked()
    assert RENDER_OFF_MEANS in labels(dialog)
    both_schemes(shot, dialog, "journey-first-draft-2-import")
    click(qtbot, dialog.ok_button)
    await until(lambda: scripts.draft is not None and scripts.draft.state == "imported", timeout=60)
    episode_id = scripts.draft.episode_id
    assert episode_id and f'<a href="episode:{episode_id}">open the episode</a>' in scripts.info.text()
    assert scripts.banner.text == "The script was imported; the episode is being made (see its card in Jobs)."
    await until(window.jobs_dock.isVisible)
    # the Jobs dock beside narrows the editor: its counts still read as a line or two under the
    # buttons, and the save state is whole
    await until(lambda: scripts.save_state.text() == "Saved")
    assert scripts.status.height() <= 3 * scripts.status.fontMetrics().lineSpacing()
    assert "41 words" in scripts.status.text() and "0 errors" in scripts.status.text()
    assert scripts.save_state.width() >= scripts.save_state.fontMetrics().horizontalAdvance("Saving…")
    every_window_on_screen()
    both_schemes(shot, window, "journey-first-draft-3-imported")
    # the scheme turning dark and back redrew the colours: that is no edit, nothing to save again
    assert scripts.save_state.text() == "Saved"

    # the draft's row, double-clicked: Episodes, with the episode selected
    double_click_row(qtbot, scripts.list_view, scripts.list_model.row_of(scripts.draft.id))
    episodes = await until(
        lambda: window.current_pane() if isinstance(window.current_pane(), EpisodesPane) else None
    )
    assert window.sidebar.currentItem().text() == "Episodes"
    await until(lambda: isinstance(episodes.current, Episode) and str(episodes.current.id) == episode_id)
    # generated and rendered: the details offer Listen
    listen = await until(lambda: listen_button(episodes), timeout=180)
    assert episodes.details.heading.text() == "Morning at the harbour"
    assert episodes.details.value_of("Generation") == "Completed"
    assert episodes.publish_button.isVisible()
    every_window_on_screen()
    both_schemes(shot, window, "journey-first-draft-4-episode")

    # Listen: the player and the transcript with the draft's lines
    click(qtbot, listen)
    player = await until(lambda: episodes.listen_window)
    await loaded(player)
    assert player.isVisible() and player.title.text() == "Morning at the harbour"
    every_window_on_screen()
    transcript = player.view.transcript
    assert transcript is not None

    def plain(words: list[str]) -> list[str]:
        return [w.strip(".,!?").lower() for w in words]

    # the transcript holds the draft's lines, word for word, each under its speaker
    assert plain([w.text for w in transcript.words]) == plain(" ".join(SPOKEN).split())
    assert [s.name for s in transcript.speakers] == [h.name for h in hosts]
    assert f"{len(transcript.words):,} words" in player.status.text()
    assert player.player_bar is not None
    play = player.player_bar.play_button
    click(qtbot, play)
    await until(lambda: player.playback.playing)
    assert play.accessibleName() == "Pause"
    start = player.playback.position()
    await until(lambda: player.view.current >= 2 and player.playback.position() > start + 0.3, timeout=30)
    assert lit_word(player) == transcript.words[player.view.current].text
    both_schemes(shot, player, "journey-first-draft-5-listening")

    # a click on a later word: playing goes on from there, the word lit
    target = len(transcript.words) - 4
    assert target > player.view.current + 2
    QTest.mouseClick(player.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     player.view.point_of_word(target))  # fmt: skip
    assert player.view.current == target
    assert player.playback.position() == pytest.approx(transcript.words[target].start, abs=0.05)
    assert lit_word(player) == transcript.words[target].text
    click(qtbot, play)  # paused there
    await until(lambda: not player.playback.playing)
    assert play.accessibleName() == "Play"
    paused_at = player.view.current
    assert paused_at >= target and lit_word(player) == transcript.words[paused_at].text

    # the system turns dark while the episode is open: the same word stays lit, in the dark colours,
    # and the speakers' names take their dark colours too
    light = QApplication.palette()
    scheme(dark_palette())
    try:
        assert player.view.current == paused_at and lit_word(player) == transcript.words[paused_at].text
        assert lit_background(player) == QColor("#8a6d00")
        assert player.view.gutter.colors == speaker_colors(transcript.speakers, dark_palette())
    finally:
        scheme(light)
    assert lit_background(player) == QColor("#ffe082")
    both_schemes(shot, player, "journey-first-draft-6-seeked")
    assert player.view.current == paused_at and lit_word(player) == transcript.words[paused_at].text
    player.close()
    await on_line.background.drafts.flush()
    await quiet()


@pytest.mark.asyncio
async def test_the_last_first_step_opens_generate_while_offline_and_says_why(
    qtbot: QtBot, on_line: OnLine, shot: Any
) -> None:
    session, line = on_line.session, on_line.line
    line.down()  # the service cannot be reached, and nothing of it is kept on this computer yet
    window = await open_main_window(qtbot, on_line)
    assert window.offer_first_steps()
    episodes = click_sidebar(qtbot, window, "Episodes")
    assert isinstance(episodes, EpisodesPane)
    await until(lambda: session.state is ConnectionState.OFFLINE)
    assert not episodes.generate_button.isEnabled()

    # the step still opens the dialog, which says why it cannot be sent yet
    click(qtbot, button(window.first_steps, "Step 3: Generate your first episode"))
    dialog = await until(lambda: episodes.dialog if isinstance(episodes.dialog, GenerateDialog) else None)
    await until(dialog.isVisible)
    every_window_on_screen()
    assert dialog.banner.isVisible() and dialog.banner.text == session.write_block_reason
    # the banner above the fields, whole, covering none of them
    await until(lambda: dialog.banner.geometry().bottom() < dialog.area.geometry().top())
    assert whole_in_view(dialog.banner.label)
    assert not dialog.submit_button.isEnabled()
    assert dialog.submit_button.toolTip() == session.write_block_reason
    qtbot.keyClicks(dialog.prompt_edit, PROMPT)
    await dialog.podcast_picker.wait_loaded()
    assert dialog.podcast_picker.count() == 0  # no podcast to choose while none can be read
    await dialog.hosts_picker.wait_loaded()
    assert dialog.hosts_picker.list.count() == 0  # nor a host to tick
    assert not dialog.submit_button.isEnabled()
    both_schemes(shot, dialog, "journey-first-offline-generate")

    # the service is back: the podcasts are read, one is chosen, Generate can be pressed
    line.up()
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    await until(lambda: dialog.podcast_picker.selected_id() is not None)
    await until(dialog.submit_button.isEnabled)
    hosts = [h.name async for h in session.client.hosts.list(limit=100)]
    await until(lambda: dialog.hosts_picker.list.count() == len(hosts))  # the hosts, read again too
    listed = [dialog.hosts_picker.list.item(i).text() for i in range(len(hosts))]
    assert all(any(name in text for text in listed) for name in hosts), (hosts, listed)
    assert not dialog.banner.isVisible() and dialog.problem.text() == ""
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await until(lambda: not dialog.isVisible())
    await quiet()


@pytest.mark.asyncio
async def test_an_import_opened_offline_reads_the_podcasts_once_the_service_is_back(
    qtbot: QtBot, on_line: OnLine
) -> None:
    session, line = on_line.session, on_line.line
    line.down()  # nothing of the service is kept on this computer yet
    window = await open_main_window(qtbot, on_line)
    scripts = click_sidebar(qtbot, window, "Scripts")
    assert isinstance(scripts, ScriptsPane)
    await until(lambda: session.state is ConnectionState.OFFLINE)
    click(qtbot, button(scripts, "New draft"))
    await until(lambda: scripts.draft is not None and scripts.editor.hasFocus())
    for line_text in ("# Tides offline", "[Narrator]", "The tide comes in whether or not we are online."):
        qtbot.keyClicks(scripts.editor, line_text)
        QTest.keyClick(scripts.editor, Qt.Key.Key_Return)
    click(qtbot, button(scripts, "Import as episode"))
    dialog = await until(lambda: scripts.dialog if isinstance(scripts.dialog, SendDialog) else None)
    await until(dialog.isVisible)
    await dialog.podcast_picker.wait_loaded()
    assert dialog.podcast_picker.count() == 0 and not dialog.ok_button.isEnabled()
    assert "cannot be reached" in dialog.offline.text()

    line.up()
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    await until(lambda: dialog.podcast_picker.selected_id() is not None)
    assert dialog.ok_button.isEnabled()
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await until(lambda: not dialog.isVisible())
    await on_line.background.drafts.flush()
    await quiet()
