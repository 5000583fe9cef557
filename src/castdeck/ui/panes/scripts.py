"""The Scripts place in the navigation: the offline script workspace (see :mod:`castdeck.ui.scripts`)."""

from __future__ import annotations

from ..scripts.pane import ScriptsPane

__all__ = ["ScriptsPane"]
