"""Source resource, the create-source inputs and the upload reservation (spec 2.8)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit

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

from ._base import (
    HTTP_URL_SCHEMA,
    WHOLE_NUMBER,
    InputModel,
    ResourceModel,
    any_case,
    check_http_uri,
    field_error,
    http_url_schema,
    validation_error,
)
from .files import (
    RESEARCH_MIME_TYPES,
    VISUAL_MIME_TYPES,
    canonical_mime,
    extension_matches,
    is_acceptable_file_name,
    is_video_mime,
)
from .limits import (
    MAX_FILE_NAME_CHARS,
    MAX_TEXT_SOURCE_CHARS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_TITLE_CHARS,
    MIN_UPLOAD_BYTES,
    MIN_UPLOAD_TITLE_CHARS,
)

__all__ = [
    "HttpUriStr",
    "Source",
    "SourceCreate",
    "SourceCreateInput",
    "TextSourceCreate",
    "UploadReservation",
    "UploadReservationInput",
    "UploadSlot",
    "UrlSourceCreate",
    "YoutubeSourceCreate",
    "is_youtube_url",
    "parse_source_create",
]

YOUTUBE_HOSTS = frozenset({"youtube.com", "youtu.be", "youtube-nocookie.com"})


class Source(ResourceModel):
    """A source; ``status`` is kept as sent (values used: awaiting_upload, processing, completed, error)."""

    id: str
    status: str | None = None
    type: str | None = None
    title: str | None = None
    error_message: str | None = None
    metadata: Any = None
    created_at: str | None = None
    updated_at: str | None = None


HttpUriStr = Annotated[str, AfterValidator(check_http_uri), WithJsonSchema(HTTP_URL_SCHEMA)]
"""An absolute http or https URL, kept as the exact string given."""


def is_youtube_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return any(host == h or host.endswith("." + h) for h in YOUTUBE_HOSTS)


def _check_youtube(url: str) -> str:
    if not is_youtube_url(url):
        raise PydanticCustomError("youtube_url", "must be a YouTube URL (youtube.com or youtu.be)")
    return url


UploadTitle = Annotated[
    str, StringConstraints(min_length=MIN_UPLOAD_TITLE_CHARS, max_length=MAX_UPLOAD_TITLE_CHARS)
]


class UrlSourceCreate(InputModel):
    type: Literal["url"]
    url: HttpUriStr
    title: str | None = None


class YoutubeSourceCreate(InputModel):
    type: Literal["youtube"]
    url: Annotated[HttpUriStr, AfterValidator(_check_youtube), WithJsonSchema(http_url_schema(YOUTUBE_HOSTS))]
    title: str | None = None


class TextSourceCreate(InputModel):
    type: Literal["text"]
    content: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_SOURCE_CHARS)]
    title: str | None = None


SourceCreateInput = UrlSourceCreate | YoutubeSourceCreate | TextSourceCreate
SourceCreate = Annotated[SourceCreateInput, Field(discriminator="type")]
"""The create-source body, discriminated on lowercase ``type``; :func:`parse_source_create` lowercases it."""

_SOURCE_CLASSES: dict[str, type[UrlSourceCreate] | type[YoutubeSourceCreate] | type[TextSourceCreate]] = {
    "url": UrlSourceCreate,
    "youtube": YoutubeSourceCreate,
    "text": TextSourceCreate,
}


def parse_source_create(body: object) -> SourceCreateInput:
    """Validate a create-source body; ``type`` is case-insensitive. Raises ``ValidationError``."""
    if not isinstance(body, dict):
        return UrlSourceCreate.model_validate(body)  # raises: the body is not an object
    kind = body.get("type")
    if kind is None:
        message = "type is required: url, youtube or text"
        raise validation_error("SourceCreate", [("missing", message, "type")], body)
    cls = _SOURCE_CLASSES.get(kind.lower()) if isinstance(kind, str) else None
    if cls is None:
        message = "type must be url, youtube or text"
        raise validation_error("SourceCreate", [("source_type", message, "type")], body)
    return cls.model_validate({**body, "type": kind.lower()})


def _check_file_name(name: str) -> str:
    if not is_acceptable_file_name(name):
        message = "must be a plain file name without directory separators or NUL, and not '.' or '..'"
        raise PydanticCustomError("file_name", message)
    return name


def _extension_pattern(extensions: tuple[str, ...]) -> str:
    """A file name ending in one of ``extensions``, in any case (``.PDF`` is a ``.pdf``)."""
    spelled = "|".join(any_case(ext[1:]) for ext in extensions)
    return rf"^[^/\\\x00]+\.({spelled})$"


def _describe_upload_types(schema: dict[str, Any]) -> None:
    """The accepted types, the narrower list with ``prepare_visuals``, and the extension each needs."""
    schema["properties"]["mime_type"] = {"type": "string", "enum": list(RESEARCH_MIME_TYPES)}
    schema["anyOf"] = [
        {
            "title": f"{mime} {'visuals' if visual else 'research'}",
            "properties": {
                "mime_type": {"const": mime},
                "file_name": {"pattern": _extension_pattern(extensions)},
                "prepare_visuals": {"const": visual},
            },
            **({"required": ["prepare_visuals"]} if visual else {}),
        }
        for visual, table in ((False, RESEARCH_MIME_TYPES), (True, VISUAL_MIME_TYPES))
        for mime, extensions in table.items()
    ]


class UploadReservationInput(InputModel):
    """Reserve an upload slot. ``mime_type`` must be supported and match the file name's extension."""

    model_config = ConfigDict(json_schema_extra=_describe_upload_types)

    file_name: Annotated[
        str, StringConstraints(min_length=1, max_length=MAX_FILE_NAME_CHARS), AfterValidator(_check_file_name)
    ]
    mime_type: Annotated[str, StringConstraints(min_length=1)]
    size_bytes: Annotated[StrictInt, Field(ge=MIN_UPLOAD_BYTES, le=MAX_UPLOAD_BYTES), WHOLE_NUMBER]
    title: UploadTitle | None = None
    prepare_visuals: StrictBool = False

    @model_validator(mode="after")
    def _file_type(self) -> Self:
        if is_video_mime(self.mime_type):
            raise field_error(
                "video_not_supported",
                "video files are not accepted; extract the audio track and upload it "
                "(for example as audio/mpeg)",
                "mime_type",
            )
        table = VISUAL_MIME_TYPES if self.prepare_visuals else RESEARCH_MIME_TYPES
        mime = canonical_mime(self.mime_type, table)
        if mime is None:
            purpose = "visual sources (prepare_visuals)" if self.prepare_visuals else "research uploads"
            raise field_error(
                "unsupported_mime_type",
                f"{self.mime_type} is not a supported type for {purpose}",
                "mime_type",
            )
        if not extension_matches(self.file_name, mime):
            exts = ", ".join(table[mime])
            raise field_error(
                "extension_mismatch",
                f"the file name's extension does not match {mime} (expected {exts})",
                "file_name",
            )
        return self


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP token (RFC 9110 section 5.6.2): what a method or a header name is made of."""


def _http_method(value: str) -> str:
    if not _TOKEN.fullmatch(value):
        raise PydanticCustomError("http_method", "must be an HTTP method such as PUT")
    return value


def _http_fields(value: dict[str, str]) -> dict[str, str]:
    for name, text in value.items():
        if not _TOKEN.fullmatch(name) or not text.isascii() or not text.isprintable():
            raise PydanticCustomError("http_field", "must be HTTP header fields (printable ASCII values)")
    return value


class UploadSlot(ResourceModel):
    """Where the bytes go. The method and headers are sent as given, so they must be ones HTTP can
    carry: a name with a space or a value with a line break or an "é" would fail in the middle of
    the upload otherwise."""

    url: str
    method: Annotated[str, AfterValidator(_http_method)] = "PUT"
    headers: Annotated[dict[str, str], AfterValidator(_http_fields)] = Field(default_factory=dict)
    expires_at: str | None = None


class UploadReservation(ResourceModel):
    source: Source
    upload: UploadSlot
