"""The line under every list, and under the early window's Episodes, is made by one function."""

from __future__ import annotations

from castdeck.ui.cells import shown_count
from castdeck.ui.early.episodes import episodes_pane


def test_the_count_names_one_item_in_the_singular() -> None:
    assert shown_count(1, "episodes") == "1 episode shown"
    assert shown_count(0, "episodes") == "0 episodes shown"
    assert shown_count(2, "hosts") == "2 hosts shown"
    assert shown_count(1204, "videos", more=True) == "1,204 videos shown — scroll for more"
    assert shown_count(3, "sources", loading=True) == "3 sources shown — loading…"


def test_the_early_window_counts_as_the_pane_does() -> None:
    one = episodes_pane([{"id": "e1", "title": "Tides"}], False, {})
    assert one.status == "1 episode shown"
    assert (
        episodes_pane([{"id": "e1"}, {"id": "e2"}], True, {}).status == "2 episodes shown — scroll for more"
    )
