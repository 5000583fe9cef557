"""The panes of the main window, in navigation order (Ctrl+1 … Ctrl+9, Ctrl+0)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QWidget

from castdeck.services.session import Session

__all__ = ["PaneSpec", "pane_specs"]


@dataclass(frozen=True)
class PaneSpec:
    title: str
    factory: Callable[[Session, QWidget], QWidget]


@functools.cache
def pane_specs() -> list[PaneSpec]:
    """Imported on first use: pane modules import each other's helpers (voice columns, pickers)."""
    from .account import AccountPane
    from .episodes import EpisodesPane
    from .podcasts import PodcastsPane
    from .scripts import ScriptsPane
    from .voices import VoicesPane

    return [
        PaneSpec("Podcasts", PodcastsPane),
        PaneSpec("Episodes", EpisodesPane),
        PaneSpec("Voices", VoicesPane),
        PaneSpec("Account", AccountPane),
        PaneSpec("Scripts", ScriptsPane),
    ]

