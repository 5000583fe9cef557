"""Account (spec 2.1)."""

from __future__ import annotations

from ._base import ResourceModel

__all__ = ["Account", "Credits"]


class Credits(ResourceModel):
    balance: int | float


class Account(ResourceModel):
    organization_id: str
    plan: str
    credits: Credits
