"""Video, Short and Voiceover resources and their create inputs (spec 2.9)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ._base import WHOLE_NUMBER, InputModel, ResourceModel, check_unique, field_error, validation_error
from .limits import (
    MAX_MEDIA_HOSTS,
    MAX_MEDIA_PROMPT_CHARS,
    MAX_MEDIA_SCRIPT_CHARS,
    MAX_RESEARCH_SOURCES,
    MAX_VOICEOVER_DIRECTION_CHARS,
    MAX_VOICEOVER_SOURCES,
    MIN_MEDIA_HOSTS,
    MIN_VOICEOVER_SOURCES,
    SHORT_DURATIONS,
    VIDEO_DURATIONS,
    VOICEOVER_DURATIONS,
)

__all__ = [
    "Delivery",
    "MediaDownload",
    "MediaJob",
    "MediaOptions",
    "MediaStatus",
    "Orientation",
    "ShortCreateInput",
    "ShortScriptCreateInput",
    "Style",
    "VideoCreateInput",
    "VideoScriptCreateInput",
    "VisualMotion",
    "VoiceoverCreateInput",
    "parse_short_create",
    "parse_video_create",
]

# --- resources ----------------------------------------------------------------------------------------------


class MediaJob(ResourceModel):
    """A Video, Short or Voiceover (``object`` says which); everything but ``id`` is tolerant."""

    id: str
    object: str | None = None
    title: str | None = None
    status: str | None = None
    phase: str | None = None
    error: str | dict[str, Any] | None = None
    generation_id: str | None = None
    studio_url: str | None = None
    host_id: str | None = None
    style_id: str | None = None
    target_duration_seconds: int | float | None = None
    created_at: str | None = None
    updated_at: str | None = None


class MediaStatus(ResourceModel):
    id: str
    object: str | None = None
    status: str | None = None
    phase: str | None = None
    error: str | dict[str, Any] | None = None
    generation_id: str | None = None
    studio_url: str | None = None
    poll_after_seconds: int | float | None = None


class Delivery(ResourceModel):
    """``kind`` is ``available`` (url, origin), ``preparing`` (reason) or ``unavailable``; kept as sent."""

    kind: str
    url: str | None = None
    origin: str | None = None
    reason: str | None = None


class MediaDownload(ResourceModel):
    id: str
    object: str | None = None
    delivery: Delivery


class Style(ResourceModel):
    id: str
    name: str | None = None
    description: str | None = None


class MediaOptions(ResourceModel):
    supported_duration_seconds: list[int] = Field(default_factory=list)
    styles: list[Style] = Field(default_factory=list)
    default_host_id: str | None = None
    default_language: str | None = None
    default_orientation: str | None = None
    default_style_id: str | None = None
    default_duration_seconds: int | None = None


# --- input building blocks ----------------------------------------------------------------------------------

Orientation = Literal["AUTO", "LANDSCAPE", "PORTRAIT", "SQUARE"]
VisualMotion = Literal["static", "dynamic", "auto"]


def _one_of(allowed: tuple[int, ...]) -> Callable[[int], int]:
    listed = ", ".join(str(v) for v in allowed)

    def check(value: int) -> int:
        if value not in allowed:
            message = "must be one of {allowed} seconds"
            raise PydanticCustomError("duration_not_supported", message, {"allowed": listed})
        return value

    return check


def _nonblank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must not be blank")
    return value


VideoDuration = Annotated[
    StrictInt,
    AfterValidator(_one_of(VIDEO_DURATIONS)),
    WithJsonSchema({"enum": list(VIDEO_DURATIONS)}),
    WHOLE_NUMBER,
]
ShortDuration = Annotated[
    StrictInt,
    AfterValidator(_one_of(SHORT_DURATIONS)),
    WithJsonSchema({"enum": list(SHORT_DURATIONS)}),
    WHOLE_NUMBER,
]
VoiceoverDuration = Annotated[
    StrictInt,
    AfterValidator(_one_of(VOICEOVER_DURATIONS)),
    WithJsonSchema({"enum": list(VOICEOVER_DURATIONS)}),
    WHOLE_NUMBER,
]


def _nonblank_schema(max_length: int) -> WithJsonSchema:
    """How text that must not be blank is described: something other than white space in it."""
    return WithJsonSchema({"type": "string", "maxLength": max_length, "pattern": r"\S"})


MediaPrompt = Annotated[
    str,
    StringConstraints(max_length=MAX_MEDIA_PROMPT_CHARS),
    AfterValidator(_nonblank),
    _nonblank_schema(MAX_MEDIA_PROMPT_CHARS),
]
MediaScript = Annotated[
    str,
    StringConstraints(max_length=MAX_MEDIA_SCRIPT_CHARS),
    AfterValidator(_nonblank),
    _nonblank_schema(MAX_MEDIA_SCRIPT_CHARS),
]
NonEmptyStr = Annotated[str, StringConstraints(min_length=1)]
HostIdList = Annotated[
    list[NonEmptyStr],
    Field(min_length=MIN_MEDIA_HOSTS, max_length=MAX_MEDIA_HOSTS),
    AfterValidator(check_unique),
]
ResearchSourceIds = Annotated[
    list[uuid.UUID], Field(max_length=MAX_RESEARCH_SOURCES), AfterValidator(check_unique)
]
VoiceoverSourceIds = Annotated[
    list[uuid.UUID],
    Field(min_length=MIN_VOICEOVER_SOURCES, max_length=MAX_VOICEOVER_SOURCES),
    AfterValidator(check_unique),
]


def _describe_host_choice(schema: dict[str, Any]) -> None:
    """Never both ``host_id`` and ``host_ids`` (``null`` counts as absent)."""
    schema["not"] = {
        "required": ["host_id", "host_ids"],
        "properties": {"host_id": {"type": "string"}, "host_ids": {"type": "array"}},
    }


class _HostChoice(InputModel):
    """One ``host_id`` or 1..4 unique ``host_ids``, never both."""

    model_config = ConfigDict(json_schema_extra=_describe_host_choice)

    host_id: NonEmptyStr | None = None
    host_ids: HostIdList | None = None

    @model_validator(mode="after")
    def _host_id_xor_host_ids(self) -> Self:
        if self.host_id is not None and self.host_ids is not None:
            raise field_error("host_id_and_host_ids", "give host_id or host_ids, not both", "host_ids")
        return self


_SCRIPT_MODE_REJECTS = ("host_id", "host_ids", "source_ids")


class _ScriptMode(InputModel):
    """Finished-script mode: speakers come from bracketed labels, so hosts and sources are refused."""

    @model_validator(mode="before")
    @classmethod
    def _no_hosts_or_sources(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in _SCRIPT_MODE_REJECTS:
                if name in data:
                    raise field_error(
                        "not_in_script_mode",
                        f"{name} is not accepted with a finished script; "
                        "speakers come from its bracketed labels",
                        name,
                    )
        return data


# --- Video --------------------------------------------------------------------------------------------------


class VideoCreateInput(_HostChoice):
    """Video from a prompt."""

    prompt: MediaPrompt
    target_duration_seconds: VideoDuration | None = None
    language: NonEmptyStr | None = None
    orientation: Orientation | None = None
    style_id: NonEmptyStr | None = None
    source_ids: ResearchSourceIds | None = None


class VideoScriptCreateInput(_ScriptMode):
    """Video from a finished script (field name ``script``; not shown in the spec)."""

    script: MediaScript
    style_id: NonEmptyStr
    target_duration_seconds: VideoDuration | None = None
    language: NonEmptyStr | None = None
    orientation: Orientation | None = None


# --- Short --------------------------------------------------------------------------------------------------


class ShortCreateInput(_HostChoice):
    """Short from a prompt (30 or 60 seconds; omitted or AUTO orientation means portrait)."""

    prompt: MediaPrompt
    target_duration_seconds: ShortDuration | None = None
    language: NonEmptyStr | None = None
    orientation: Orientation | None = None
    style_id: NonEmptyStr | None = None
    source_ids: ResearchSourceIds | None = None
    background_music: StrictBool | None = None


class ShortScriptCreateInput(_ScriptMode):
    script: MediaScript
    style_id: NonEmptyStr
    target_duration_seconds: ShortDuration | None = None
    language: NonEmptyStr | None = None
    orientation: Orientation | None = None
    background_music: StrictBool | None = None


def _both_modes_error(title: str, body: object) -> Exception:
    message = "give either prompt or script, not both"
    return validation_error(title, [("prompt_or_script", message, "prompt")], body)


def parse_video_create(body: object) -> VideoCreateInput | VideoScriptCreateInput:
    """Pick prompt or finished-script mode by the presence of ``script``; both is an error on ``prompt``."""
    if isinstance(body, dict) and "script" in body:
        if "prompt" in body:
            raise _both_modes_error("VideoCreateInput", body)
        return VideoScriptCreateInput.model_validate(body)
    return VideoCreateInput.model_validate(body)


def parse_short_create(body: object) -> ShortCreateInput | ShortScriptCreateInput:
    """As :func:`parse_video_create`, for Shorts."""
    if isinstance(body, dict) and "script" in body:
        if "prompt" in body:
            raise _both_modes_error("ShortCreateInput", body)
        return ShortScriptCreateInput.model_validate(body)
    return ShortCreateInput.model_validate(body)


# --- Voiceover ----------------------------------------------------------------------------------------------


class VoiceoverCreateInput(_HostChoice):
    """Voiceover over uploaded visuals; ``prompt`` and ``style_id`` are unknown fields here."""

    source_ids: VoiceoverSourceIds
    direction: Annotated[str, StringConstraints(max_length=MAX_VOICEOVER_DIRECTION_CHARS)] | None = None
    target_duration_seconds: VoiceoverDuration | None = None
    captions_enabled: StrictBool = False
    visual_motion: VisualMotion = "static"
    language: NonEmptyStr | None = None
    orientation: Orientation | None = None
