"""What an empty pane says instead of an empty table: what the pane is for and the next step.

:class:`EmptyState` shows an icon, a title, a sentence or two and one primary button. The texts of
each pane kind are in :data:`EMPTY_TEXTS`; :func:`nothing_matches` is the state of a filter that
hides every row. The pane decides when to show it (see ``ResourcePane``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from . import icons
from .accessible import shows_value

__all__ = ["EMPTY_TEXTS", "EmptyState", "EmptyText", "empty_text", "nothing_matches"]


@dataclass(frozen=True)
class EmptyText:
    title: str
    body: str
    button: str | None = None
    """The primary button's text; ``None`` when there is no next step to offer."""
    action: Literal["first_step", "clear_filter"] = "first_step"
    """What the button does: the pane's ``first_step()`` (its New, or the kind's better first step:
    Generate for episodes, Add files for sources), or clear the filter box."""
    icon: str = ""


EMPTY_TEXTS: dict[str, EmptyText] = {
    "host": EmptyText(
        "No hosts yet",
        "Hosts are the voices of your shows. Create a host first, then a podcast for them to present.",
        "New host",
        icon="hosts",
    ),
    "podcast": EmptyText(
        "No podcasts yet",
        "A podcast holds your episodes. You need a host first.",
        "New podcast",
        icon="podcasts",
    ),
    "episode": EmptyText(
        "No episodes yet",
        "Generate an episode from a prompt, a script, or imported text.",
        "Generate episode",
        icon="episodes",
    ),
    "source": EmptyText(
        "No sources yet",
        "Add research sources: drop files or whole folders here, or add a web page.",
        "Add files…",
        icon="sources",
    ),
    "video": EmptyText(
        "No videos yet",
        "Turn a prompt or your sources into a narrated landscape video.",
        "New video…",
        icon="videos",
    ),
    "short": EmptyText(
        "No shorts yet",
        "Make a short portrait video for social feeds from a prompt or your sources.",
        "New short…",
        icon="shorts",
    ),
    "voiceover": EmptyText(
        "No voiceovers yet",
        "Narrate your slides or images: a voiceover reads a script over the visuals you upload.",
        "New voiceover…",
        icon="voiceovers",
    ),
    "voice": EmptyText(
        "No voices",
        "The service offers no voices for these filters. Choose other filters above.",
        None,
        icon="voices",
    ),
}


def empty_text(kind: str, title: str, new_label: str | None) -> EmptyText:
    """The texts for a pane kind; a plain one from the pane's title for kinds not listed."""
    known = EMPTY_TEXTS.get(kind)
    if known is not None:
        return known
    noun = title.lower() or "items"
    return EmptyText(f"No {noun} yet", f"Nothing is here yet. {new_label} to add the first." if new_label
                     else "Nothing is here yet.", new_label)  # fmt: skip


def filtered_empty(title: str, empty: EmptyText) -> EmptyText:
    """The service's filters (a podcast, a status) leave no rows: say so, keep the next step."""
    noun = title.lower() or "items"
    return EmptyText(
        f"No {noun} match these filters",
        "Choose other filters above to see more, or start a new one.",
        empty.button,
        empty.action,
        empty.icon,
    )


def nothing_matches(text: str, title: str, searched: int, more: bool) -> EmptyText:
    """The filter box hides every row that was read."""
    noun = title.lower() or "items"
    body = f"None of the {searched:,} {noun} shown contains this text."
    if more:
        body += " More are read as you scroll; clear the filter to see them."
    return EmptyText(f"Nothing matches “{text}”", body, "Clear filter", action="clear_filter", icon="search")


class EmptyState(QFrame):
    """An icon, a title, a sentence or two, and one primary button, centred.

    ``button`` is the next step that writes (the pane registers it with ``writes``, so it is
    disabled while writing is impossible, and ``reason_label`` says why); ``clear_button`` clears
    the filter box and never needs the service."""

    ICON_SIZE = 56

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = EmptyText("", "")
        self._reason: str | None = None
        self.setObjectName("emptyState")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.addStretch(2)
        box = QWidget(self)
        box.setMaximumWidth(440)
        box.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(10)
        self.icon_label = QLabel(box)
        self.icon_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.icon_label.hide()
        layout.addWidget(self.icon_label)
        self.title_label = QLabel(box)
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        self.title_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title_label.setWordWrap(True)
        font = QFont(self.title_label.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setWeight(QFont.Weight.DemiBold)
        self.title_label.setFont(font)
        layout.addWidget(self.title_label)
        self.body_label = QLabel(box)
        self.body_label.setTextFormat(Qt.TextFormat.PlainText)
        self.body_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.body_label.setWordWrap(True)
        layout.addWidget(self.body_label)
        layout.addSpacing(6)
        self.button = QPushButton(box)
        self.button.setAutoDefault(True)
        self.button.setDefault(True)  # drawn as the primary action
        self.button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignHCenter)
        self.clear_button = QPushButton("Clear filter", box)
        self.clear_button.setAccessibleName("Clear filter")
        self.clear_button.setToolTip("Show every row again (Escape in the filter box clears it too)")
        self.clear_button.setAutoDefault(True)
        self.clear_button.setDefault(True)
        self.clear_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.clear_button.hide()
        layout.addWidget(self.clear_button, 0, Qt.AlignmentFlag.AlignHCenter)
        self.reason_label = QLabel(box)  # a disabled button takes no focus: its reason is said here
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)
        self.reason_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reason_label.setWordWrap(True)
        shows_value(self.reason_label, "Why the button is unavailable")
        self.reason_label.hide()
        layout.addWidget(self.reason_label)
        across = QHBoxLayout()  # the texts take most of a narrow pane, at most 440 px of a wide one
        across.addStretch(1)
        across.addWidget(box, 6)
        across.addStretch(1)
        outer.addLayout(across)
        outer.addStretch(3)

    @property
    def primary(self) -> QPushButton | None:
        """The button shown (the next step, or "Clear filter"), if any."""
        if self.text.action == "clear_filter":
            return self.clear_button
        return self.button if self.text.button else None

    def show_text(self, text: EmptyText) -> None:
        self.text = text
        self.title_label.setText(text.title)
        self.title_label.setAccessibleName(text.title)
        self.body_label.setText(text.body)
        self.body_label.setAccessibleName(text.body)
        self.setAccessibleName(text.title)
        self.setAccessibleDescription(text.body)
        clearing = text.action == "clear_filter"
        self.clear_button.setVisible(clearing)
        self.button.setVisible(bool(text.button) and not clearing)
        if text.button and not clearing:
            self.button.setText(text.button)
            self.button.setAccessibleName(text.button.rstrip("…"))
            self.button.setAccessibleDescription(text.body)
        self._set_icon(text.icon)
        self.set_reason(self._reason)

    def set_reason(self, reason: str | None) -> None:
        """Why the next-step button is disabled (``None``: it is not)."""
        self._reason = reason
        self.reason_label.setText(reason or "")
        self.reason_label.setVisible(bool(reason) and not self.button.isHidden())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.text.icon:
            self._set_icon(self.text.icon)  # the icon is drawn in the palette's colours

    def _set_icon(self, name: str) -> None:
        if not name or name not in icons.icon_names():
            self.icon_label.clear()
            self.icon_label.hide()
            return
        self.icon_label.setPixmap(icons.icon(name).pixmap(self.ICON_SIZE, self.ICON_SIZE))
        self.icon_label.setAccessibleName("")  # decoration: the title says what it shows
        self.icon_label.show()
