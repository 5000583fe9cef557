"""Voice resource and the voice list query (spec 2.7, 4.4)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import StringConstraints

from ._base import ResourceModel
from .common import ListQuery
from .hosts import TolerantId

__all__ = ["Voice", "VoiceListQuery"]


class Voice(ResourceModel):
    """A TTS voice; ``id`` is an int, or kept as a string when a rendering sends a non-numeric one."""

    id: TolerantId
    description: str | None = None
    language: str | None = None
    gender: str | None = None
    accent: str | None = None
    voice_type: str | None = None
    model: str | None = None


class VoiceListQuery(ListQuery):
    language: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}$")] | None = None
    gender: Literal["male", "female", "other"] | None = None
    voice_type: Literal["professional", "clone", "design"] | None = None
