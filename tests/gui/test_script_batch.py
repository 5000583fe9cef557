"""A season sent from the Scripts workspace, the way a creator does it on a laptop screen: a folder
dropped, its scripts selected together, Import… opens the batch, a label shared by two scripts is
mapped once for both, a script with an error is left out, the balance is weighed first (a batch it
cannot hold is refused with the figures, and "Only the first N" sends those), and one card in the
Jobs dock follows the batch to its end and opens each script's episode."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from castdeck.scripts import analyze
from castdeck.ui.jobs.batch_card import BatchCard
from castdeck.ui.scripts.batch_dialog import BatchSendDialog
from castdeck.ui.scripts.pane import ScriptsPane
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import drop_on, new_podcast
from tests.gui.journey import both_schemes, click_sidebar, every_window_on_screen, open_main_window


def balance_of(credits: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(body: dict[str, Any]) -> dict[str, Any]:
        data = body["data"]
        return {**body, "data": {**data, "credits": {**data["credits"], "balance": credits}}}

    return change


def write_season(folder: Path, host: str, token: str) -> None:
    """Four scripts: two share a label no host has, one has an error (no speaker turn at all)."""
    folder.mkdir(parents=True)
    (folder / "Episode 1.txt").write_text(f"[{host}]\nPart one of {token}.\n\n[Guest]\nGlad to be here.\n")
    (folder / "Episode 2.txt").write_text(f"[{host}]\nPart two of {token}.\n")
    (folder / "Episode 10.md").write_text(f"[{host}]\nPart ten of {token}.\n\n[guest]\nAnd again.\n")
    (folder / "Episode 3.txt").write_text("Notes for part three, no speaker yet.\n")


async def batch_dialog(pane: ScriptsPane) -> BatchSendDialog:
    dialog: BatchSendDialog = await until(
        lambda: pane.dialog if isinstance(pane.dialog, BatchSendDialog) and pane.dialog.isVisible() else None
    )
    await dialog.podcast_picker.wait_loaded()
    return dialog


def rows(dialog: BatchSendDialog) -> list[tuple[str, ...]]:
    table = dialog.table
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount())) for r in range(table.rowCount())
    ]


@pytest.mark.asyncio
async def test_a_season_dropped_checked_mapped_once_and_sent_in_order(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, shot: Callable[[QWidget, str], Path]
) -> None:
    session, line = on_line.session, on_line.line
    token = uuid.uuid4().hex[:6]
    show = await new_podcast(session, f"Season {token}")
    window = await open_main_window(qtbot, on_line)
    pane = click_sidebar(qtbot, window, "Scripts")
    assert isinstance(pane, ScriptsPane)
    await until(lambda: pane.hosts)
    host = (pane.hosts or [])[0]
    write_season(tmp_path / "Season 3", host.name, token)
    drop_on(pane, [tmp_path / "Season 3"])
    await until(lambda: len(pane.selected_ids()) == 4)
    assert pane.import_button.text() == "Import 4…" and pane.generate_button.text() == "Generate 4…"
    assert "They are selected: Import… or Generate… sends them as one batch." in pane.banner.text

    # the balance holds two of the three that can go, not the third
    credits = {p.name: analyze(p.read_text()).estimate.credits for p in (tmp_path / "Season 3").iterdir()}
    balance = credits["Episode 1.txt"] + credits["Episode 2.txt"]
    line.change_answers("GET", "/v1/account", balance_of(balance))
    await session.refresh_account()
    qtbot.mouseClick(pane.import_button, Qt.MouseButton.LeftButton)
    dialog = await batch_dialog(pane)
    every_window_on_screen()
    assert [r[1] for r in rows(dialog)] == [
        "Episode 1.txt",
        "Episode 2.txt",
        "Episode 3.txt",
        "Episode 10.md",
    ]
    assert rows(dialog)[2][4].startswith("Left out: ") and rows(dialog)[2][0] == "–"
    # [Guest] and [guest] are one label, used by two scripts, mapped once
    (label,) = dialog.combos
    assert label == "Guest" and dialog.labels_form.labelForField(dialog.combos[label]).text() == (
        "[Guest] (used in 2 scripts)"
    )
    assert rows(dialog)[0][4] == "Left out until [Guest] has a host (below)"
    dialog.podcast_picker.set_selected(show.id)
    combo = dialog.combos["Guest"]
    combo.setFocus()
    qtbot.keyClicks(combo, host.name.split()[0])  # typed, as a closed list takes it (a space would open it)
    assert combo.currentData() == host.id
    assert [r[4] for r in rows(dialog)] == ["Ready", "Ready", rows(dialog)[2][4], "Ready"]
    summary = dialog.summary.text()
    assert summary.startswith("3 scripts: ") and f"more than the balance of {balance}" in summary
    assert "the first 2 (Episode 1.txt, Episode 2.txt:" in summary
    assert not dialog.send_button.isEnabled() and dialog.send_button.toolTip() == (
        "The balance cannot hold the whole batch."
    )
    both_schemes(shot, dialog, "scripts-batch-over-balance")
    # only the first two, then: the third stays a draft
    qtbot.mouseClick(
        dialog.fitting_check, Qt.MouseButton.LeftButton, pos=QPoint(6, dialog.fitting_check.height() // 2)
    )
    assert dialog.fitting_check.isChecked() and dialog.send_button.isEnabled()
    assert dialog.send_button.text() == "Import 2 scripts"
    qtbot.mouseClick(dialog.send_button, Qt.MouseButton.LeftButton)
    said = await until(lambda: pane.banner.text if pane.banner.text.startswith("Sending 2 scripts") else None)
    assert "one at a time in this order, each once" in said

    # one card in Jobs follows the batch; its scripts have no cards of their own
    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    panel = window.jobs_panel
    card: BatchCard = await until(lambda: next(iter(panel.batch_cards.cards.values()), None))
    await until(lambda: card.summary.text() == "2 of 2 accepted, 2 finished", timeout=120)
    assert card.title.text() == "Import of 2 scripts" and card.dismiss_button.isVisible()
    assert not panel.cards, list(panel.cards)
    every_window_on_screen()
    qtbot.mouseClick(card.toggle_button, Qt.MouseButton.LeftButton)
    assert [card.items.item(r).text() for r in range(card.items.count())] == [
        "1. Episode 1 — finished",
        "2. Episode 2 — finished",
    ]
    listed = [e async for e in session.client.episodes.list(podcast_id=show.id)]
    assert [e.title for e in reversed(listed)] == ["Episode 1", "Episode 2"]  # counted on the sandbox
    shot(window, "scripts-batch-card")
    card.items.setCurrentRow(1)
    with qtbot.waitSignal(panel.openRequested) as opened:
        qtbot.mouseClick(card.open_button, Qt.MouseButton.LeftButton)
    assert opened.args == ["episode", str(listed[0].id)]
    # the third draft of the season, and the one left out, are drafts still
    states = {d.title: d.state for d in await on_line.background.drafts.list_drafts()}
    assert (states["Episode 10.md"], states["Episode 3.txt"]) == ("draft", "draft")
    assert len(line.to("POST", "/v1/episodes/import")) == 2
    await until(lambda: on_line.background.jobs.following == 0, timeout=60)
    await quiet()
    qtbot.mouseClick(card.dismiss_button, Qt.MouseButton.LeftButton)
    await until(lambda: not panel.batch_cards.cards)
    assert not panel.cards and not panel.batch_cards.isVisible()
    await quiet()
