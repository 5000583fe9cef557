"""What the main window asks of its panes, as typed Protocols.

The window holds its panes as ``QWidget`` (each is built when first shown, and a pane that fails
to build is a :class:`~castdeck.ui.pane_failed.PaneFailed` in its place). Everything it calls on one
is a role below, checked with ``isinstance`` against the Protocol: a pane that is to play a role
and misses a method (or spells it differently) is a type error where the pane is declared
(``tests/unit/test_pane_roles.py`` holds each pane to the roles it is given), not a click that does
nothing. A role a pane does not play is shown as such: its menu action is disabled on that pane.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from PySide6.QtCore import SignalInstance

__all__ = [
    "Creates",
    "EpisodeFigures",
    "EpisodeGenerator",
    "EpisodeListener",
    "Filters",
    "OpensItems",
    "Refreshes",
    "Reveals",
    "Shown",
    "ShowsUploads",
]


@runtime_checkable
class Shown(Protocol):
    """A pane that reads its content when it is first shown (and then keeps it)."""

    def activate(self) -> None: ...


@runtime_checkable
class Refreshes(Protocol):
    """F5: the pane reads its content again."""

    def refresh(self) -> None: ...


@runtime_checkable
class Creates(Protocol):
    """Ctrl+N: the pane's "New …"; ``can_create()`` says whether it can now (its button's state)."""

    def new_item(self) -> None: ...

    def can_create(self) -> bool: ...


@runtime_checkable
class Filters(Protocol):
    """Ctrl+F: the pane's filter box takes the keyboard."""

    def focus_filter(self) -> None: ...


@runtime_checkable
class Reveals(Protocol):
    """ "Open" from a job card or another pane: the item with this id selected (read when not listed)."""

    def reveal(self, item_id: str) -> None: ...


@runtime_checkable
class OpensItems(Protocol):
    """A pane that asks the window to open an item elsewhere: ``openRequested(kind, id)``."""

    @property
    def openRequested(self) -> SignalInstance: ...


@runtime_checkable
class ShowsUploads(Protocol):
    """A pane with the upload queue (Sources): "Show uploads" brings it into view."""

    def show_uploads(self) -> None: ...


@runtime_checkable
class EpisodeListener(Protocol):
    """A pane that opens an episode's player and transcript (Episodes)."""

    def listen_to(self, episode_id: str) -> None: ...


@runtime_checkable
class EpisodeFigures(Protocol):
    """A pane that shows an episode's figures (Episodes: in its details, below its facts)."""

    def show_figures(self, episode_id: str) -> None: ...


@runtime_checkable
class EpisodeGenerator(Protocol):
    """A pane that opens the generate dialog (Episodes)."""

    def generate(self) -> Any: ...
