"""The early window: the main window's frame with the cached first rows of its start pane, painted
before the rest of the app (pydantic, the models, httpx, qasync) has loaded.

Light on purpose: QtCore, QtGui, QtWidgets, the icons and the pure cell texts only (a test checks
that importing it loads none of the heavy modules). :mod:`castdeck.startup` decides whether to
show it, reads the cache (:mod:`castdeck.store.cache_peek`) and hands it to the app, which shows
the real window in its place once the real list has its first rows.

``EARLY_PANES``: the panes the early window can show, by title, with the cached lists they read
(``list_key`` as :func:`castdeck.services.listing.list_key` names the pane's unfiltered list, and
related lists by kind, read for names) and how their rows are made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .episodes import episodes_pane
from .window import EarlyPane, EarlyWindow

__all__ = ["EARLY_PANES", "PANE_TITLES", "EarlyPane", "EarlySource", "EarlyWindow"]

PANE_TITLES = (
    "Podcasts", "Episodes", "Analytics", "Hosts", "Voices", "Sources", "Videos", "Shorts", "Voiceovers",
    "Scripts", "Account",
)  # fmt: skip
"""The sidebar, as ``castdeck.ui.panes.pane_specs()`` lists it (a test checks they agree)."""


class EarlySource(NamedTuple):
    list_key: str
    build: Callable[[list[dict[str, Any]], bool, dict[str, list[dict[str, Any]]]], EarlyPane]
    related: tuple[tuple[str, str], ...] = ()
    """Other cached lists the rows need: (kind, list key) pairs."""
    page: int = 100
    """Rows the pane's first page holds (``ResourcePane.page_size``)."""
    kind: str = ""
    """The pane's ``kind``: the early window is not shown when its cards are the chosen view."""


EARLY_PANES = {
    "Episodes": EarlySource("episodes", episodes_pane, (("podcast", "podcasts"),), kind="episode"),
}
