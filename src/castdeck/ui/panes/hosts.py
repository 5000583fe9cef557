"""Hosts: the organization's hosts with their voices; create, edit and archive them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSizeF, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHeaderView, QLabel, QPushButton, QWidget

from castdeck.api.models import Host
from castdeck.services import catalog
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session

from ..accessible import set_value
from ..dialogs.host_dialog import HostDialog
from ..pictured import PicturedPane
from ..resource_model import Column, format_time
from ..widgets import SafeTextBrowser, ask
from .voices import LANGUAGES, voice_facts

__all__ = ["HostsPane", "host_columns", "plain_value"]


def host_columns() -> list[Column]:
    def voice_attr(name: str) -> Any:
        return lambda h: getattr(h.voice, name, None) if h.voice is not None else None

    def language(host: Host) -> str | None:
        code = getattr(host.voice, "language", None) if host.voice is not None else None
        return LANGUAGES.get(code, code) if code else None

    return [
        Column("Name", lambda h: h.name or h.id),
        Column("Title", lambda h: h.title),
        Column(
            "Voice",
            lambda h: (h.voice.description or f"Voice {h.voice.id}") if h.voice is not None else _no_voice(h),
        ),
        Column("Language", language),
        Column("Gender", lambda h: (voice_attr("gender")(h) or "").capitalize()),
        Column("Accent", voice_attr("accent")),
    ]


def _no_voice(host: Host) -> str:
    return f"Voice {host.voice_id} (not in the catalogue)" if host.voice_id is not None else "No voice"


def plain_value(text: Any, parent: QWidget | None = None) -> QLabel:
    """A details value from the service, shown as plain text (never interpreted as markup). The form
    row's label labels it for a screen reader, which reads the value as its name."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    set_value(label, None if text in (None, "", []) else text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _fitted_text(text: str | None, name: str, parent: QWidget) -> QWidget:
    """Service text (plain or HTML) in a safe browser as tall as its text, up to a limit."""
    if not text:
        return plain_value(None, parent)
    browser = SafeTextBrowser(parent)
    browser.setAccessibleName(name)
    browser.setFrameShape(QFrame.Shape.NoFrame)
    browser.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    browser.document().setDocumentMargin(0)
    browser.set_service_text(text)

    def fit(size: QSizeF) -> None:
        browser.setFixedHeight(min(int(size.height()) + 4, 140))

    browser.document().documentLayout().documentSizeChanged.connect(fit)
    browser.setFixedHeight(40)
    return browser


class HostsPane(PicturedPane):
    title = "Hosts"
    kind = "host"
    new_label = "New host"
    picture_what = "Picture"
    has_pictures = True

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.setup_pictures(112)
        self.dialog: HostDialog | None = None
        self.edit_button = QPushButton("Edit…", self)
        self.edit_button.setAccessibleName("Edit host")
        self.edit_button.setToolTip("Change the name, texts or voice of this host (Ctrl+E)")
        self.edit_button.clicked.connect(self.edit_current)
        self.delete_button = QPushButton("Archive…", self)
        self.delete_button.setAccessibleName("Archive host")
        self.delete_button.setToolTip("Archive this host: it is no longer offered for new episodes (Delete)")
        self.delete_button.clicked.connect(self.delete_current)
        self.writes(self.edit_button, self.delete_button)
        for keys, slot in (
            (QKeySequence("Ctrl+E"), self.edit_current),
            (QKeySequence.StandardKey.Delete, self.delete_current),
        ):
            shortcut = QShortcut(keys, self.table, context=Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(slot)
        self.edit_button.hide()
        self.delete_button.hide()

    # --- ResourcePane --------------------------------------------------------------------------------------

    def columns(self) -> list[Column]:
        return host_columns()

    def open_list(self) -> ListFeed[Host]:
        return catalog.hosts(self.session, self.page_size)

    async def fetch_item(self, item: Host) -> Host:
        return await catalog.host(self.session, item.id)

    async def read_item(self, host_id: str) -> Host:
        return await catalog.host(self.session, host_id)

    def picture_url(self, item: Host) -> str | None:
        """The spec shows no host picture; an answer that carries one (a tolerant model keeps unknown
        fields) is shown: ``image_url``, or an ``image_path`` that is a web address."""
        extra = item.model_extra or {}
        for name in ("image_url", "image_path"):
            value = extra.get(name)
            if isinstance(value, str) and value.startswith(("http://", "https://")):
                return value
        return None

    def card_title(self, item: Host) -> str:
        return item.name or item.id

    def card_subtitle(self, item: Host) -> str:
        return item.title or ""

    def show_item(self, item: Host) -> None:
        self.show_cover(item)
        extra = item.model_extra or {}
        archived = bool(extra.get("archived"))
        rows: list[tuple[str, Any]] = [
            ("Title", plain_value(item.title)),
            ("Role", "Guest" if extra.get("is_guest") else "Host"),
        ]
        if item.voice is not None:
            rows.append(("Voice", plain_value(item.voice.description or f"Voice {item.voice.id}")))
            for label, value in voice_facts(item.voice):
                name = "Voice ID" if label == "ID" else label
                rows.append((name, plain_value(value)))
        else:
            rows.append(("Voice", plain_value(_no_voice(item))))
        rows.append(("Personality", _fitted_text(item.personality, "Personality", self.details)))
        rows += [
            ("Host ID", plain_value(item.id)),
            ("Created", format_time(item.created_at)),
            ("Updated", format_time(item.updated_at)),
        ]
        note = "This host is archived: it stays readable but can no longer be changed." if archived else None
        self.details.show_facts(
            item.name or item.id,
            rows,
            text=item.backstory or "",
            text_heading="Backstory",
            note=note,
            note_kind="warning",
        )
        self.details.set_actions([] if archived else [self.edit_button, self.delete_button])

    STRETCH_COLUMN = 2  # the name is sized to its text; the voice takes what is left

    def _size_columns(self) -> None:
        super()._size_columns()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.table.resizeColumnToContents(0)
        header.resizeSection(0, min(max(header.sectionSize(0) + 8, 80), 200))
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the voice takes what is left

    def new_item(self) -> None:
        self.dialog = self.open_dialog(HostDialog(self.session, parent=self), self._saved)

    # --- actions -------------------------------------------------------------------------------------------

    def edit_current(self) -> None:
        if isinstance(self.current, Host) and self._can(self.edit_button):
            self.dialog = self.open_dialog(HostDialog(self.session, self.current, parent=self), self._saved)

    def _can(self, button: QPushButton) -> bool:
        """Whether the action is offered now (a keyboard shortcut obeys what the button shows)."""
        return button.isEnabled() and not button.isHidden()

    def _saved(self, dialog: HostDialog) -> None:
        if isinstance(dialog.result_value, Host):
            self.item_changed(dialog.result_value)

    def delete_current(self) -> None:
        host = self.current
        if isinstance(host, Host) and self._can(self.delete_button):
            self.run(self._archive(host), f"Could not archive {host.name or 'the host'}")

    async def _archive(self, host: Host) -> None:
        name = host.name or host.id
        confirmed = await ask(
            self,
            "Archive host",
            # the first line holds no service text, so the box never reads the name as markup
            f"Archive this host?\n\n“{name}” keeps the episodes it spoke in but can no longer be "
            "chosen for new ones. This cannot be undone here.",
            "Archive",
        )
        if not confirmed:
            return
        await catalog.delete_host(self.session, host.id)
        self.item_removed(str(host.id))
        self.banner.show_message(f"Archived the host “{name}”.", kind="info")
