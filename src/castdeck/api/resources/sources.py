from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
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
from ..response import ApiResponse
from ..uploads import complete_upload, upload_source
from .base import Resource, body_of, check_id, parse_input


class SourcesWithRawResponse:
    """``client.sources.with_raw_response``: reads that keep the answer's status and headers."""

    def __init__(self, sources: SourcesResource) -> None:
        self._sources = sources

    async def get(self, source_id: str) -> ApiResponse[Source]:
        return await self._sources._get_response(f"/v1/sources/{check_id(source_id, 'source_id')}", Source)


class SourcesResource(Resource):
    def list(self, *, limit: int | None = None) -> AsyncPaginator[Source]:
        return self._list("/v1/sources", Source, {"limit": limit})

    async def get(self, source_id: str) -> Source:
        return await self._get(f"/v1/sources/{check_id(source_id, 'source_id')}", Source)

    @cached_property
    def with_raw_response(self) -> SourcesWithRawResponse:
        """The same reads, answering :class:`ApiResponse` (status, headers, request id beside the model)."""
        return SourcesWithRawResponse(self)

    async def create(self, input: SourceCreateInput | None = None, /, **fields: Any) -> Source:
        """A url, youtube or text source (``type`` picks which)."""
        allowed = (UrlSourceCreate, YoutubeSourceCreate, TextSourceCreate)
        payload = parse_input(parse_source_create, input, fields, allowed)
        return await self._write("POST", "/v1/sources", Source, body_of(payload))

    async def delete(self, source_id: str) -> None:
        """Delete a source no episode or media uses."""
        await self._delete(f"/v1/sources/{check_id(source_id, 'source_id')}")

    async def complete_upload(self, source_id: str) -> Source:
        return await complete_upload(self._transport, check_id(source_id, "source_id"))

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
        return await upload_source(
            self._transport, Path(path), title=title, prepare_visuals=prepare_visuals, progress=progress
        )
