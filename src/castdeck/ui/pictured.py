"""What the panes whose items have pictures share: a :class:`PictureBook` owned by the pane, the
cover at the top of the details, and the ``picture`` hook the table's and the cards' delegates ask."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QSize
from PySide6.QtGui import QImage, QPixmap

from .cover_view import CoverView
from .pane import ResourcePane
from .pictures import PictureBook

__all__ = ["PicturedPane"]


class PicturedPane(ResourcePane):
    """A pane whose items carry a picture address (:meth:`picture_url`)."""

    picture_what = "Cover"

    def setup_pictures(self, side: int = 168) -> None:
        """Call once from the subclass's ``__init__`` (after the base's)."""
        self.pictures = PictureBook(self.session, self)
        self.cover = CoverView(self.pictures, self.tiles, side)
        self.details.add_picture(self.cover)
        self.pictures.changed.connect(self._picture_arrived)

    def picture_url(self, item: Any) -> str | None:
        return getattr(item, "image_url", None) or None

    def picture(self, item: Any, size: QSize) -> QPixmap | None:
        return self.pictures.pixmap(self.picture_url(item), size)

    def card_title(self, item: Any) -> str:
        return getattr(item, "title", None) or getattr(item, "name", None) or "(untitled)"

    def picture_text(self, item: Any) -> str:
        title = self.card_title(item)
        reason = self.pictures.failure(self.picture_url(item))
        if reason:
            return f"No {self.picture_what.lower()} shown for {title}: {reason}"
        if not self.picture_url(item):
            return f"No {self.picture_what.lower()} for {title}"
        return f"{self.picture_what} of {title}"

    def show_cover(self, item: Any) -> None:
        """Point the details' cover at ``item`` (from ``show_item``)."""
        title = self.card_title(item)
        self.cover.show_picture(self.picture_url(item), title, str(item.id), what=self.picture_what)

    def take_pictures(self, images: Mapping[str, QImage], size: QSize) -> None:
        """Keep ``images`` (decoded at ``size`` elsewhere, by address: the early window's covers) for
        the items whose pictures they are. An address is matched by its path: the query (a
        signature) and the host (the sandbox's port changes at each start) may differ, the
        picture is the same; a new picture has a new path."""
        by_path = {urlsplit(url).path: image for url, image in images.items()}
        for item in self.model.items:
            url = self.picture_url(item)
            image = by_path.get(urlsplit(url).path) if url else None
            if url and image is not None:
                self.pictures.keep(url, size, image)

    def _picture_arrived(self, url: str) -> None:
        self.pictures_changed(lambda item: self.picture_url(item) == url)
