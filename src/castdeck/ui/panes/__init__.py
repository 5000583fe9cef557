"""The panes of the main window, in navigation order (Ctrl+1 … Ctrl+9, Ctrl+0)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QWidget

from castdeck.services.session import Session

__all__ = ["PANES", "PaneSpec"]


@dataclass(frozen=True)
class PaneSpec:
    title: str
    factory: Callable[[Session, QWidget], QWidget]


def _specs() -> list[PaneSpec]:
    from .account import AccountPane
    from .scripts import ScriptsPane
    from .voices import VoicesPane

    return [
        PaneSpec("Voices", VoicesPane),
        PaneSpec("Account", AccountPane),
        PaneSpec("Scripts", ScriptsPane),
    ]


PANES = _specs()
