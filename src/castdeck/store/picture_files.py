"""Where the pictures fetched from the service are kept on disk, and under which name.

Only :mod:`hashlib` and :mod:`urllib`: the early window finds the covers it shows here before the
rest of the app has loaded; :class:`castdeck.services.artwork.Artwork` fetches and keeps them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["picture_key", "picture_path", "pictures_dir"]


def pictures_dir(data_dir: Path) -> Path:
    """The pictures' folder beside the cache file in ``data_dir``."""
    return data_dir / "media" / "pictures"


def picture_key(url: str) -> str:
    """The file name a picture is kept under: a hash of its address without the query (a signed
    address's signature and expiry change; a new picture gets a new path)."""
    parts = urlsplit(url)
    return hashlib.sha256(f"{parts.scheme}://{parts.netloc}{parts.path}".encode()).hexdigest()[:40]


def picture_path(data_dir: Path, url: str) -> Path:
    """Where the picture at ``url`` is kept once fetched (the file may not exist)."""
    return pictures_dir(data_dir) / picture_key(url)
