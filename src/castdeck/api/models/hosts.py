"""Host resource (Characters in the studio) and its create and update inputs (spec 2.6)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, StrictBool, StrictInt, StringConstraints

from ._base import WHOLE_NUMBER, InputModel, ResourceModel, UpdateModel
from .limits import (
    MAX_HOST_BACKSTORY_CHARS,
    MAX_HOST_NAME_CHARS,
    MAX_HOST_PERSONALITY_CHARS,
    MAX_HOST_TITLE_CHARS,
    MIN_HOST_BACKSTORY_CHARS,
    MIN_HOST_PERSONALITY_CHARS,
)

__all__ = ["Host", "HostCreate", "HostUpdate", "HostVoice", "TolerantId", "coerce_numeric_id"]


def coerce_numeric_id(value: Any) -> Any:
    """An ID rendered as a numeric string becomes an int; any other string is kept as is."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return value


TolerantId = Annotated[int | str, BeforeValidator(coerce_numeric_id)]
"""A numeric ID that one reference renders as a string: numeric strings become ints, others stay strings."""


class HostVoice(ResourceModel):
    id: TolerantId | None = None
    gender: str | None = None
    voice_type: str | None = None
    accent: str | None = None
    description: str | None = None
    language: str | None = None
    model: str | None = None


class Host(ResourceModel):
    """A host. ``id`` is documented as 8-character hex but kept as any string."""

    id: str
    name: str | None = None
    title: str | None = None
    backstory: str | None = None
    personality: str | None = None
    voice_id: TolerantId | None = None
    voice: HostVoice | None = None
    created_at: str | None = None
    updated_at: str | None = None
    archived_at: str | None = None
    """When the host was archived (``DELETE /v1/hosts/{id}``); archived hosts leave the list."""


HostName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_HOST_NAME_CHARS)]
HostTitle = Annotated[str, StringConstraints(min_length=1, max_length=MAX_HOST_TITLE_CHARS)]
Backstory = Annotated[
    str, StringConstraints(min_length=MIN_HOST_BACKSTORY_CHARS, max_length=MAX_HOST_BACKSTORY_CHARS)
]
Personality = Annotated[
    str, StringConstraints(min_length=MIN_HOST_PERSONALITY_CHARS, max_length=MAX_HOST_PERSONALITY_CHARS)
]
VoiceId = Annotated[StrictInt, Field(gt=0), WHOLE_NUMBER]


class HostCreate(InputModel):
    name: HostName
    backstory: Backstory
    voice_id: VoiceId
    personality: Personality | None = None
    title: HostTitle | None = None
    image_path: str | None = None
    is_guest: StrictBool | None = None


class HostUpdate(UpdateModel):
    """Only provided fields change: use ``model_dump(exclude_unset=True)``. ``null`` is refused."""

    name: HostName | None = None
    backstory: Backstory | None = None
    voice_id: VoiceId | None = None
    personality: Personality | None = None
    title: HostTitle | None = None
    image_path: str | None = None
    is_guest: StrictBool | None = None
