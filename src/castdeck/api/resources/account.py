from __future__ import annotations

from ..models import Account
from .base import Resource


class AccountResource(Resource):
    async def get(self) -> Account:
        """The organization, its plan and credit balance (``GET /v1/account``)."""
        return await self._get("/v1/account", Account)
