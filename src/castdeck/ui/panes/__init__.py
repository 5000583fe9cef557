"""The panes of the main window, in navigation order (Ctrl+1 … Ctrl+9, Ctrl+0).

A pane's module is imported, and the pane built, when it is first shown: start-up pays only for
the pane the window opens on.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from PySide6.QtWidgets import QWidget

from castdeck.services.background import Background
from castdeck.services.session import Session

__all__ = ["PaneSpec", "pane_specs"]


@dataclass(frozen=True)
class PaneSpec:
    title: str
    target: str  # "module:Class" under castdeck.ui.panes
    background: bool = False  # the pane starts or follows background work: it is given it

    def build(self, session: Session, background: Background, parent: QWidget) -> QWidget:
        module, name = self.target.split(":")
        cls = getattr(importlib.import_module(f"castdeck.ui.panes.{module}"), name)
        pane: QWidget = cls(session, background, parent) if self.background else cls(session, parent)
        return pane


PANES = (
    PaneSpec("Podcasts", "podcasts:PodcastsPane"),
    PaneSpec("Episodes", "episodes:EpisodesPane", background=True),
    PaneSpec("Analytics", "analytics:AnalyticsPane"),
    PaneSpec("Hosts", "hosts:HostsPane"),
    PaneSpec("Voices", "voices:VoicesPane"),
    PaneSpec("Sources", "sources:SourcesPane", background=True),
    PaneSpec("Videos", "media:VideosPane", background=True),
    PaneSpec("Shorts", "media:ShortsPane", background=True),
    PaneSpec("Voiceovers", "media:VoiceoversPane", background=True),
    PaneSpec("Scripts", "scripts:ScriptsPane", background=True),
    PaneSpec("Account", "account:AccountPane"),  # the eleventh: in the sidebar and the Go menu, no Ctrl+digit
)


def pane_specs() -> list[PaneSpec]:
    return list(PANES)
