from __future__ import annotations

from typing import Any

from ..models import Host, HostCreate, HostUpdate, Voice, VoiceListQuery
from ..pagination import AsyncPaginator
from .base import Resource, body_of, build_input, check_id


class HostsResource(Resource):
    def list(self, *, limit: int | None = None) -> AsyncPaginator[Host]:
        return self._list("/v1/hosts", Host, {"limit": limit})

    async def get(self, host_id: str) -> Host:
        return await self._get(f"/v1/hosts/{check_id(host_id, 'host_id')}", Host)

    async def create(self, input: HostCreate | None = None, /, **fields: Any) -> Host:
        payload = build_input(HostCreate, input, fields)
        return await self._write("POST", "/v1/hosts", Host, body_of(payload))

    async def update(self, host_id: str, input: HostUpdate | None = None, /, **fields: Any) -> Host:
        payload = build_input(HostUpdate, input, fields)
        return await self._write(
            "PATCH", f"/v1/hosts/{check_id(host_id, 'host_id')}", Host, body_of(payload, partial=True)
        )

    async def delete(self, host_id: str) -> None:
        """Archive the host (it stays readable; it can no longer be used)."""
        await self._delete(f"/v1/hosts/{check_id(host_id, 'host_id')}")


class VoicesResource(Resource):
    def list(
        self,
        *,
        language: str | None = None,
        gender: str | None = None,
        voice_type: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Voice]:
        query = build_input(
            VoiceListQuery,
            None,
            {
                k: v
                for k, v in {
                    "language": language,
                    "gender": gender,
                    "voice_type": voice_type,
                    "limit": limit,
                }.items()
                if v is not None
            },
        )
        return self._list("/v1/voices", Voice, query.model_dump(mode="json", exclude_unset=True))
