"""What the window asks of its panes goes through typed roles (castdeck.ui.pane_roles), and each
pane plays the roles it is listed under in castdeck.ui.panes.roles (mypy checks the same before
the suite runs: test_architecture.test_the_types_hold)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from castdeck.api.models import Podcast
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.main_window import OPEN_PANES
from castdeck.ui.pane import ResourcePane
from castdeck.ui.pane_failed import PaneFailed
from castdeck.ui.pane_roles import (
    Creates,
    EpisodeFigures,
    EpisodeGenerator,
    EpisodeListener,
    Filters,
    OpensItems,
    Refreshes,
    Reveals,
    Shown,
    ShowsUploads,
)
from castdeck.ui.panes import pane_specs
from tests.gui.conftest import quiet, until
from tests.gui.test_main_window import open_window

LISTED = ("Podcasts", "Episodes", "Hosts", "Voices", "Sources", "Videos", "Shorts", "Voiceovers")
ROLES: dict[str, set[type]] = {
    # every list pane has Ctrl+N (enabled where it has a New button: not on Voices) and Open
    **{title: {Shown, Refreshes, Filters, Creates, Reveals} for title in LISTED},
    "Analytics": {Shown, Refreshes, Reveals, OpensItems},
    "Scripts": {Shown, Refreshes, Filters, Creates, OpensItems, Reveals},  # a batch card opens a draft
    "Account": {Shown, Refreshes},
}
ROLES["Podcasts"] |= {OpensItems}
ROLES["Episodes"] |= {EpisodeListener, EpisodeFigures, EpisodeGenerator}
ROLES["Sources"] |= {ShowsUploads}
EVERY_ROLE = {Shown, Refreshes, Filters, Creates, Reveals, OpensItems, ShowsUploads,
              EpisodeListener, EpisodeFigures, EpisodeGenerator}  # fmt: skip


@pytest.mark.asyncio
async def test_each_pane_plays_its_roles_and_the_menu_follows_them(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    window = await open_window(qtbot, session, background)
    assert {spec.title for spec in pane_specs()} == set(ROLES)
    for spec in pane_specs():
        pane = window.show_pane(spec.title)
        assert not isinstance(pane, PaneFailed), spec.title
        played = {role for role in EVERY_ROLE if isinstance(pane, role)}
        assert played == ROLES[spec.title], spec.title
        actions = window.actions_by_name
        assert actions["new"].isEnabled() == (Creates in played and pane.can_create()), spec.title
        assert actions["refresh"].isEnabled() == (Refreshes in played), spec.title
        assert actions["filter"].isEnabled() == (Filters in played), spec.title
    await quiet()


def test_every_kind_a_card_opens_lands_on_a_pane_that_can_show_it() -> None:
    titles = {spec.title for spec in pane_specs()}
    for kind, title in OPEN_PANES.items():
        assert title in titles, kind
        needed = EpisodeFigures if kind == "episode_figures" else Reveals
        assert needed in ROLES[title], kind


@pytest.mark.asyncio
async def test_a_podcast_opened_before_its_list_is_read_is_read_and_selected(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    """A job card's or Analytics' "Open" on a podcast: the pane reads that one podcast when its list
    has not got it (the list's first page is still on its way), then selects it."""
    first = (await session.client.podcasts.list(limit=1).first_page()).items[0]
    window = await open_window(qtbot, session, background)
    window.open_item("podcast", str(first.id))
    pane = window.pane("Podcasts")
    assert isinstance(pane, ResourcePane)
    await until(lambda: isinstance(pane.current, Podcast) and str(pane.current.id) == str(first.id))
    assert window.stack.currentWidget() is pane
    await quiet()


@pytest.mark.asyncio
async def test_a_voice_that_is_not_listed_is_said_so(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    """Voices are not read one by one: revealing one the list has not got says so, in the pane."""
    window = await open_window(qtbot, session, background)
    pane = window.show_pane("Voices")
    assert isinstance(pane, ResourcePane)
    await until(lambda: pane.model.rowCount() > 0 and not pane.model.loading)
    pane.reveal("no-such-voice")
    await until(pane.banner.isVisible)
    assert pane.banner.text == "That voice is not in this list."
    await quiet()
