"""Downloading results: where a finished job's file is, and saving it to a file the user chose.

A signed download address is fetched by the client's credential-free client: the API key never
goes to it.
"""

from __future__ import annotations

from pathlib import Path

from castdeck.api.downloads import download_to
from castdeck.api.models import MediaDownload
from castdeck.store.kinds import MEDIA_KINDS, collection_of

from .session import Session

__all__ = ["Downloads"]


class Downloads:
    def __init__(self, session: Session) -> None:
        self._session = session

    async def delivery(self, kind: str, resource_id: str) -> MediaDownload:
        """Where the result of a Video, Short or Voiceover job can be downloaded (or why not yet)."""
        if kind not in MEDIA_KINDS:
            raise ValueError(f"a {kind} has no media download")
        collection = collection_of(kind)
        return await self._session.call(lambda c: getattr(c, collection).download(resource_id))

    async def save(self, url: str, dest: Path) -> Path:
        """Save the file at ``url`` (a signed address) to ``dest``."""
        await download_to(self._session.client.transport, url, dest)
        return dest
