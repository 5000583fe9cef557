from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..models import (
    Source,
    SourceCreateInput,
    TextSourceCreate,
    UrlSourceCreate,
    YoutubeSourceCreate,
    parse_source_create,
)
from ..pagination import AsyncPaginator
from .base import Resource, body_of, check_id, parse_input


class SourcesResource(Resource):
    def list(self, *, limit: int | None = None) -> AsyncPaginator[Source]:
        return self._list("/v1/sources", Source, {"limit": limit})

    async def get(self, source_id: str) -> Source:
        return await self._get(f"/v1/sources/{check_id(source_id, 'source_id')}", Source)

    async def create(self, input: SourceCreateInput | None = None, /, **fields: Any) -> Source:
        """A url, youtube or text source (``type`` picks which)."""
        allowed = (UrlSourceCreate, YoutubeSourceCreate, TextSourceCreate)
        payload = parse_input(parse_source_create, input, fields, allowed)
        return await self._write("POST", "/v1/sources", Source, body_of(payload))

    async def delete(self, source_id: str) -> None:
        """Delete a source no episode or media uses."""
        await self._delete(f"/v1/sources/{check_id(source_id, 'source_id')}")

    async def complete_upload(self, source_id: str) -> Source:
        response = await self._transport.request(
            "POST", f"/v1/sources/{check_id(source_id, 'source_id')}/complete-upload"
        )
        return self._data(response, Source)

    async def upload(
        self,
        path: str | Path,
        *,
        title: str | None = None,
        prepare_visuals: bool = False,
        progress: Callable[[int, int], Any] | None = None,
    ) -> Source:
        """Upload a file as a source: checked locally, reserved, streamed to the signed address
        (never with the API key), completed. ``progress(sent, total)`` is called as bytes go out;
        cancel the awaiting task to stop. Returns the source (``processing``)."""
        from ..uploads import upload_source

        return await upload_source(
            self, Path(path), title=title, prepare_visuals=prepare_visuals, progress=progress
        )
