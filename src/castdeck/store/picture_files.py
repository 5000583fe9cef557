"""Where the pictures fetched from the service are kept on disk, and under which name.

The early window finds the covers it shows here before the rest of the app has loaded (after its
first paint: :mod:`hashlib` and :mod:`urllib.parse`, about 4 ms to import, load when a name is first
asked for); :class:`castdeck.services.artwork.Artwork` fetches and keeps them.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["picture_key", "pictures_dir"]


def pictures_dir(data_dir: Path) -> Path:
    """The pictures' folder beside the cache file in ``data_dir``."""
    return data_dir / "media" / "pictures"


def picture_key(url: str) -> str:
    """The file name a picture is kept under: a hash of its address without the query (a signed
    address's signature and expiry change; a new picture gets a new path)."""
    import hashlib
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return hashlib.sha256(f"{parts.scheme}://{parts.netloc}{parts.path}".encode()).hexdigest()[:40]
