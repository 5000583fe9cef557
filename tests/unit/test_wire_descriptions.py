"""The JSON Schema each input model publishes says what its validator says, on the rules a client meets.

The sandbox's /openapi.json is built from these schemas, so a client generated from it must not send
what the validator refuses (schemathesis's positive checks) nor be told to refuse what it accepts.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from pydantic import BaseModel, ValidationError

from castdeck.api.models import (
    EpisodeCreate,
    EpisodeGenerateInput,
    HostUpdate,
    PodcastUpdate,
    ShortCreateInput,
    UploadReservationInput,
    UrlSourceCreate,
    VideoCreateInput,
    VideoScriptCreateInput,
    YoutubeSourceCreate,
)
from castdeck.api.models.files import RESEARCH_MIME_TYPES, VISUAL_MIME_TYPES

PODCAST = "6db6c50b-cf1a-4661-8885-5bd4f7b5fa75"
SCRIPT = {"chapters": [{"segments": [{"host_id": "a1b2c3d4", "text": "Hello there."}]}]}


FORMATS = FormatChecker()


@FORMATS.checks("uri")
def _absolute_uri(value: object) -> bool:
    """RFC 3986 absolute-URI in outline: a scheme, a colon, then no spaces (jsonschema has no checker of
    its own without an extra package)."""
    return not isinstance(value, str) or re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]+", value) is not None


def described(model: type[BaseModel], body: dict[str, Any]) -> bool:
    validator = Draft202012Validator(model.model_json_schema(), format_checker=FORMATS)
    return validator.is_valid(body)


def accepted(model: type[BaseModel], body: dict[str, Any]) -> bool:
    try:
        model.model_validate(body)
    except ValidationError:
        return False
    return True


CASES: list[tuple[type[BaseModel], dict[str, Any], bool]] = [
    # Absolute URIs.
    (EpisodeCreate, {"podcast_id": PODCAST, "image": "https://example.com/cover.png"}, True),
    (EpisodeCreate, {"podcast_id": PODCAST, "image": ""}, False),
    (EpisodeCreate, {"podcast_id": PODCAST, "image": "cover.png"}, False),
    (UrlSourceCreate, {"type": "url", "url": "https://example.com/a?b=c#d"}, True),
    (UrlSourceCreate, {"type": "url", "url": "ftp://example.com/a"}, False),
    (UrlSourceCreate, {"type": "url", "url": ""}, False),
    (YoutubeSourceCreate, {"type": "youtube", "url": "https://www.youtube.com/watch?v=x"}, True),
    (YoutubeSourceCreate, {"type": "youtube", "url": "https://youtu.be/x"}, True),
    (YoutubeSourceCreate, {"type": "youtube", "url": "https://example.com/watch?v=x"}, False),
    # Media prompts are not blank.
    (VideoCreateInput, {"prompt": "A tour of the harbour"}, True),
    (VideoCreateInput, {"prompt": ""}, False),
    (VideoCreateInput, {"prompt": " \t\n"}, False),
    (ShortCreateInput, {"prompt": "\u2003"}, False),
    (VideoScriptCreateInput, {"script": "  ", "style_id": "s1"}, False),
    (VideoCreateInput, {"prompt": "x", "host_id": "a1b2c3d4", "host_ids": ["a1b2c3d4"]}, False),
    (VideoCreateInput, {"prompt": "x", "host_id": None, "host_ids": ["a1b2c3d4"]}, True),
    # Durations are the listed ones; a whole number is one however JSON spells it, never a bool.
    (ShortCreateInput, {"prompt": "x", "target_duration_seconds": 49637838238}, False),
    (ShortCreateInput, {"prompt": "x", "target_duration_seconds": 30}, True),
    (ShortCreateInput, {"prompt": "x", "target_duration_seconds": 60.0}, True),
    (ShortCreateInput, {"prompt": "x", "target_duration_seconds": 30.5}, False),
    (
        UploadReservationInput,
        {"file_name": "a.pdf", "mime_type": "application/pdf", "size_bytes": 514368.0},
        True,
    ),
    (
        UploadReservationInput,
        {"file_name": "a.pdf", "mime_type": "application/pdf", "size_bytes": 5.5},
        False,
    ),
    (
        UploadReservationInput,
        {"file_name": "a.pdf", "mime_type": "application/pdf", "size_bytes": True},
        False,
    ),
    (
        UploadReservationInput,
        {"file_name": "a.pdf", "mime_type": "application/pdf", "size_bytes": "5"},
        False,
    ),
    # Bounds are stated as JSON Schema's own keywords (a whole-number input once hid them as "gt").
    (HostUpdate, {"voice_id": 0}, False),
    (HostUpdate, {"voice_id": 1.0}, True),
    (UploadReservationInput, {"file_name": "a.pdf", "mime_type": "application/pdf", "size_bytes": 0}, False),
    # Updates refuse null where the validator does.
    (HostUpdate, {"backstory": None}, False),
    (HostUpdate, {"image_path": None}, False),
    (HostUpdate, {"name": "Ada"}, True),
    (PodcastUpdate, {"description": None}, False),
    (PodcastUpdate, {"host_ids": None}, False),
    (PodcastUpdate, {"description": "A show"}, True),
    # Generate: exactly one of prompt or script; a script takes no sources or options.
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "prompt": "Tides and moons, explained"}, True),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "script": SCRIPT}, True),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "prompt": None, "script": SCRIPT}, True),
    (EpisodeGenerateInput, {"podcast_id": PODCAST}, False),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "prompt": None, "script": None}, False),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "prompt": "Tides and moons", "script": SCRIPT}, False),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "script": SCRIPT, "source_ids": [PODCAST]}, False),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "script": SCRIPT, "source_ids": []}, True),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "script": SCRIPT, "options": {"web_search": True}}, False),
    (EpisodeGenerateInput, {"podcast_id": PODCAST, "script": SCRIPT, "options": {}}, True),
    # Uploads: an accepted type whose extension the file name carries; visuals take fewer types.
    (
        UploadReservationInput,
        {"file_name": "notes.PDF", "mime_type": "application/pdf", "size_bytes": 10},
        True,
    ),
    (
        UploadReservationInput,
        {"file_name": "notes.txt", "mime_type": "application/pdf", "size_bytes": 10},
        False,
    ),
    (UploadReservationInput, {"file_name": "0", "mime_type": "0", "size_bytes": 1}, False),
    (UploadReservationInput, {"file_name": ".pdf", "mime_type": "application/pdf", "size_bytes": 10}, False),
    (
        UploadReservationInput,
        {"file_name": "a/b.pdf", "mime_type": "application/pdf", "size_bytes": 10},
        False,
    ),
    (UploadReservationInput, {"file_name": "talk.mp4", "mime_type": "video/mp4", "size_bytes": 10}, False),
    (
        UploadReservationInput,
        {"file_name": "talk.mp3", "mime_type": "audio/mpeg", "size_bytes": 10, "prepare_visuals": True},
        False,
    ),
    (
        UploadReservationInput,
        {"file_name": "deck.png", "mime_type": "application/pdf", "size_bytes": 10, "prepare_visuals": True},
        False,
    ),
    (
        UploadReservationInput,
        {"file_name": "deck.pdf", "mime_type": "application/pdf", "size_bytes": 10, "prepare_visuals": True},
        True,
    ),
]


@pytest.mark.parametrize(
    ("model", "body", "valid"), CASES, ids=lambda value: getattr(value, "__name__", None)
)
def test_the_description_and_the_validator_agree(
    model: type[BaseModel], body: dict[str, Any], valid: bool
) -> None:
    assert accepted(model, body) is valid, body
    assert described(model, body) is valid, body


@pytest.mark.parametrize("visuals", [False, True])
def test_every_accepted_upload_type_is_described_with_each_of_its_extensions(visuals: bool) -> None:
    table = VISUAL_MIME_TYPES if visuals else RESEARCH_MIME_TYPES
    for mime, extensions in table.items():
        for extension in extensions:
            body = {"file_name": f"file{extension.upper()}", "mime_type": mime, "size_bytes": 10}
            body["prepare_visuals"] = visuals
            assert accepted(UploadReservationInput, body), body
            assert described(UploadReservationInput, body), body
    if visuals:
        for mime in RESEARCH_MIME_TYPES.keys() - VISUAL_MIME_TYPES.keys():
            extension = RESEARCH_MIME_TYPES[mime][0]
            body = {
                "file_name": f"file{extension}",
                "mime_type": mime,
                "size_bytes": 10,
                "prepare_visuals": True,
            }
            assert not accepted(UploadReservationInput, body), body
            assert not described(UploadReservationInput, body), body
