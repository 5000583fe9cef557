"""API index and health (spec 2.11)."""

from __future__ import annotations

from ._base import ResourceModel

__all__ = ["ApiIndex", "Health", "IndexAuthentication", "IndexErrors", "IndexMcp"]


class IndexAuthentication(ResourceModel):
    type: str
    header: str
    documentation_url: str
    keys_url: str


class IndexErrors(ResourceModel):
    format: str
    specification: str


class IndexMcp(ResourceModel):
    url: str
    documentation_url: str
    server_card_url: str
    transport: str


class ApiIndex(ResourceModel):
    name: str
    description: str
    version: str
    openapi_url: str
    documentation_url: str
    developers_url: str
    llms_txt_url: str
    authentication: IndexAuthentication
    errors: IndexErrors
    mcp: IndexMcp


class Health(ResourceModel):
    status: str
