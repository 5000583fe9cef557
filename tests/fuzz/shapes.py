"""Strategies of valid-ish answers, one per shape of the interface spec (parts 2 and 7), and the
hostile versions of each (:func:`answer`, which runs them through :func:`tests.fuzz.hostile.mutated`).

Valid-ish: every field of the spec, with the types it states, including the variants it mentions
(the older word shape, the variant episode rendering, a voice id as a string), and values from the
wider world where the spec leaves them open (titles in any script, descriptions in HTML).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

from .hostile import HTML, Json, mutated

S = st.SearchStrategy

# --- building blocks ----------------------------------------------------------------------------------------

UUID = st.uuids().map(str)
HOST_ID = st.text("0123456789abcdef", min_size=8, max_size=8)
VOICE_ID = st.integers(1, 10**6)


def _iso(seconds: int) -> str:
    """An ISO 8601 time; half of them end in Z (both spellings are common)."""
    text = datetime.fromtimestamp(seconds, UTC).isoformat()
    return text.replace("+00:00", "Z") if seconds % 2 else text


TIME = st.integers(0, 4_000_000_000).map(_iso)


# Drawing text character by character is what makes a case slow: most text comes from samples,
# some is drawn (the mutator brings the strangest).
SAMPLES = [
    "Tides", "Über Café", "日本語のタイトル", "مرحبا بالعالم", "A title with \"quotes\" & <angles>",
    "Episode 12: the return", "x", "  padded  ", "emoji 🎙️🎧", "Ελληνικά", "line one\nline two",
    "https://example.com/not-a-link-field", "O'Neil", "100%", "tab\tseparated",
]  # fmt: skip
TEXT = st.one_of(st.sampled_from(["", *SAMPLES]), st.text(max_size=12))
TITLE = st.one_of(st.sampled_from(SAMPLES), st.text(min_size=1, max_size=12))
DESCRIPTION = st.one_of(TEXT.map(lambda t: f"<p>{t}</p>"), TEXT, HTML)
URL = st.one_of(
    st.sampled_from(["https://cdn.example.com/a.mp3", "https://example.com/p/1", "http://127.0.0.1:9/x.png"]),
    UUID.map(lambda u: f"https://cdn.example.com/{u}.png"),
)


def maybe(strategy: S[Any]) -> S[Any]:
    return st.none() | strategy


def obj(required: dict[str, S[Any]], optional: dict[str, S[Any]] | None = None) -> S[dict[str, Any]]:
    return st.fixed_dictionaries(required, optional=optional or {})


# --- resources (spec 2) -------------------------------------------------------------------------------------

ACCOUNT = obj(
    {
        "organization_id": st.text(min_size=1, max_size=20),
        "plan": st.sampled_from(["creator", "free", "pro", "enterprise"]),
        "credits": obj({"balance": st.integers(0, 10**7) | st.just(12.5)}),
    }
)

PODCAST = obj(
    {
        "id": UUID,
        "title": TITLE,
        "description": DESCRIPTION,
        "episode_count": st.integers(0, 5000),
        "episode_order": st.sampled_from(["episodic", "serial"]),
        "host_ids": maybe(st.lists(HOST_ID, max_size=4)),
        "image_url": maybe(URL),
        "languages": st.lists(st.sampled_from(["en", "de", "fr", "ja", "haw"]), max_size=3),
        "rss_feed_url": maybe(URL),
        "url": maybe(URL),
        "visibility": maybe(st.sampled_from(["public", "private", "unlisted"])),
        "created_at": TIME,
        "updated_at": TIME,
    }
)

SKIPPED_SOURCE = obj({"id": UUID, "title": maybe(TEXT), "url": maybe(URL), "reason": TEXT})
GENERATION = obj(
    {
        "state": st.sampled_from(["generating", "completed", "failed"]),
        "started_at": TIME,
        "completed_at": maybe(TIME),
    },
    {
        "error_message": TEXT,
        "skipped_sources": st.lists(SKIPPED_SOURCE, max_size=3),
        "phase": st.sampled_from(["writing_script", "rendering", "tts"]),  # the variant rendering
        "progress_pct": st.integers(0, 100) | st.just(33.3),
    },
)
EPISODE = obj(
    {
        "id": UUID,
        "podcast_id": UUID,
        "status": st.sampled_from(["draft", "published", "scheduled"]),
        "title": maybe(TITLE),
        "description": maybe(DESCRIPTION),
        "image_url": maybe(URL),
        "audio_url": maybe(URL),
        "video_url": maybe(URL),
        "url": maybe(URL),
        "host_ids": maybe(st.lists(HOST_ID, max_size=4)),
        "source_ids": st.lists(UUID, max_size=3),
        "published_at": maybe(TIME),
        "scheduled_at": maybe(TIME),
        "created_at": TIME,
        "updated_at": TIME,
        "generation": maybe(GENERATION),
    },
    {"duration": st.integers(0, 5000) | st.just(1.5), "error_message": TEXT},  # variant
)
EPISODE_ACCEPTED = obj(
    {
        "id": UUID,
        "podcast_id": UUID,
        "status": st.just("generating"),
        "host_ids": st.lists(HOST_ID, max_size=4),
        "workflow_run_id": TEXT,
        "created_at": TIME,
        "updated_at": TIME,
    }
)
PUBLISH_RESULT = obj(
    {"id": UUID, "status": st.sampled_from(["published", "scheduled"])}, {"scheduled_time": TIME}
)

SECONDS = st.integers(0, 720_000).map(lambda n: n / 100)
WORD_TEXT = st.sampled_from(["Welcome", "back.", "tides", "über", "日本", "—", "a", "(laughs)", "don't"])
WORD = obj({"start": SECONDS, "end": SECONDS, "speaker": maybe(st.integers(0, 3)), "text": WORD_TEXT})
OLDER_WORD = obj({"word": WORD_TEXT, "start": SECONDS, "end": SECONDS})
SPEAKER = obj({"host_id": HOST_ID, "name": TITLE})
TIMESTAMPS = st.one_of(
    obj(
        {"episode_id": UUID, "speakers": st.lists(SPEAKER, max_size=4), "words": st.lists(WORD, max_size=30)}
    ),
    obj({"words": st.lists(OLDER_WORD, max_size=30)}),
    st.lists(OLDER_WORD | WORD, max_size=30),  # a bare list of words
)

GENDER = st.sampled_from(["male", "female", "other"])
VOICE_TYPE = st.sampled_from(["professional", "clone", "design"])
VOICE = obj(
    {
        "id": VOICE_ID | VOICE_ID.map(str),  # one reference renders it as a string
        "description": maybe(TEXT),
        "language": maybe(st.sampled_from(["en", "de", "haw", "pt"])),
        "gender": GENDER,
        "accent": maybe(TEXT),
        "voice_type": VOICE_TYPE,
        "model": maybe(st.sampled_from(["provider/model-1", "eleven_v3"])),
    }
)
HOST_VOICE = obj(
    {
        "id": VOICE_ID,
        "gender": maybe(GENDER),
        "voice_type": maybe(VOICE_TYPE),
        "accent": maybe(TEXT),
        "description": maybe(TEXT),
        "language": maybe(st.just("en")),
        "model": maybe(TEXT),
    }
)
HOST = obj(
    {
        "id": HOST_ID,
        "name": TITLE,
        "title": maybe(TEXT),
        "backstory": maybe(DESCRIPTION),
        "personality": maybe(DESCRIPTION),
        "voice_id": maybe(VOICE_ID),
        "voice": maybe(HOST_VOICE),
        "created_at": TIME,
        "updated_at": TIME,
    },
    {"archived": st.booleans(), "is_guest": st.booleans(), "image_url": URL},
)

SOURCE = obj(
    {
        "id": UUID,
        "status": st.sampled_from(["awaiting_upload", "processing", "completed", "error"]),
        "type": maybe(st.sampled_from(["url", "youtube", "text", "upload"])),
        "title": maybe(TITLE),
        "error_message": maybe(TEXT),
        "created_at": TIME,
        "updated_at": TIME,
    },
    {"metadata": st.one_of(st.none(), st.dictionaries(TEXT, TEXT | st.integers(), max_size=4), TEXT)},
)

UPLOAD_SLOT = obj(
    {
        "url": URL,
        "method": st.sampled_from(["PUT", "POST", "put"]),
        "headers": st.fixed_dictionaries(
            {"content-type": st.just("text/plain")}, optional={"x-amz-meta": TEXT}
        ),
        "expires_at": TIME,
    }
)
UPLOAD_RESERVATION = obj({"source": SOURCE, "upload": UPLOAD_SLOT})

MEDIA_OBJECT = st.sampled_from(["video", "short", "voiceover"])
MEDIA_STATUS_VALUE = st.sampled_from(["idle", "generating", "completed", "failed"])
MEDIA_ERROR = maybe(TEXT | obj({"code": TEXT, "message": TEXT}))
MEDIA_JOB = obj(
    {
        "id": UUID,
        "object": MEDIA_OBJECT,
        "title": maybe(TITLE),
        "status": MEDIA_STATUS_VALUE,
        "phase": maybe(st.sampled_from(["scripting", "rendering", "uploading"])),
        "error": MEDIA_ERROR,
        "generation_id": maybe(UUID),
        "studio_url": maybe(URL),
        "host_id": maybe(HOST_ID),
        "style_id": maybe(st.sampled_from(["clean", "bold"])),
        "target_duration_seconds": maybe(st.sampled_from([30, 60, 300, 420, 600])),
        "created_at": TIME,
        "updated_at": TIME,
    }
)
MEDIA_STATUS = obj(
    {
        "id": UUID,
        "object": MEDIA_OBJECT,
        "status": MEDIA_STATUS_VALUE,
        "phase": maybe(TEXT),
        "error": MEDIA_ERROR,
        "generation_id": maybe(UUID),
        "studio_url": maybe(URL),
        "poll_after_seconds": st.integers(0, 60) | st.just(2.5),
    }
)
DELIVERY = st.one_of(
    obj({"kind": st.just("available"), "url": URL, "origin": st.sampled_from(["storage", "mux"])}),
    obj({"kind": st.just("preparing"), "reason": st.sampled_from(["rendition", "ingest"])}),
    obj({"kind": st.just("unavailable")}),
)
MEDIA_DOWNLOAD = obj({"id": UUID, "object": MEDIA_OBJECT, "delivery": DELIVERY})
STYLE = obj({"id": st.sampled_from(["clean", "bold", "retro"]), "name": TEXT, "description": TEXT})
MEDIA_OPTIONS = obj(
    {
        "supported_duration_seconds": st.lists(st.sampled_from([30, 60, 300, 420, 600]), max_size=5),
        "styles": st.lists(STYLE, max_size=4),
        "default_host_id": maybe(HOST_ID),
        "default_language": maybe(st.just("en")),
        "default_orientation": maybe(st.sampled_from(["AUTO", "LANDSCAPE", "PORTRAIT", "SQUARE"])),
        "default_style_id": maybe(st.just("clean")),
        "default_duration_seconds": maybe(st.sampled_from([30, 420])),
    }
)

COUNT = st.integers(0, 10**6) | st.integers(0, 10**8).map(lambda n: n / 100)
DOWNLOADS = obj({"first_7_days": COUNT, "first_30_days": COUNT, "total": COUNT})
VIEWS = obj({"last_7_days": COUNT, "last_30_days": COUNT, "total": COUNT})
EPISODE_ANALYTICS = obj(
    {
        "episode_id": UUID,
        "as_of": TIME,
        "complete": st.booleans(),
        "downloads": DOWNLOADS,
        "video_views": VIEWS,
    }
)
PODCAST_ANALYTICS = obj(
    {
        "podcast_id": UUID,
        "as_of": TIME,
        "complete": st.booleans(),
        "analytics_enabled": st.booleans(),
        "totals": obj(
            {
                "downloads": COUNT,
                "video_views": COUNT,
                "plays": COUNT,
                "last_7_days": COUNT,
                "last_30_days": COUNT,
            }
        ),
        "plays_by_app": st.dictionaries(
            st.sampled_from(["Apple Podcasts", "Spotify", "Overcast", "Web"]), COUNT
        ),
        "episodes": st.lists(
            obj({"episode_id": UUID, "downloads": DOWNLOADS, "video_views": VIEWS}), max_size=5
        ),
    }
)

# --- errors (spec 7) ----------------------------------------------------------------------------------------

PROBLEM_TYPES = [
    "bad_request", "validation_error", "unauthorized", "forbidden", "not_found", "conflict",
    "method_not_allowed", "unsupported_media_type", "unprocessable_entity", "rate_limited",
    "bad_gateway", "internal_error",
]  # fmt: skip
FIELD_ERROR = obj({"field": TEXT, "message": TEXT})
RECOVERY = obj(
    {"action": st.sampled_from(["correct_input", "choose_characters", "poll_content", "retry", "reconnect"])},
    {
        "idempotency_key": st.sampled_from(["reuse", "new"]),
        "poll_after_seconds": st.integers(0, 600) | st.just(0.5),
        "tool": st.sampled_from(["list_characters", "get_content"]),
    },
)


@functools.cache
def problem(status: int) -> S[dict[str, Any]]:
    return obj(
        {"status": st.just(status), "title": TEXT, "type": st.sampled_from(PROBLEM_TYPES)},
        {
            "detail": TEXT,
            "errors": st.lists(FIELD_ERROR, max_size=3),
            "reason": st.just("unresolved_speakers"),
            "speakers": st.lists(TEXT, max_size=3),
            "recovery": RECOVERY,
            "request_id": TEXT,
            "resource_id": UUID,
        },
    )


LEGACY_ERROR = obj(
    {
        "error": obj(
            {"code": st.sampled_from(PROBLEM_TYPES), "message": TEXT},
            {"request_id": TEXT, "details": st.lists(FIELD_ERROR, max_size=3)},
        )
    }
)


@functools.cache
def error_body(status: int) -> S[Json]:
    """Either envelope, a gateway's HTML page, or nothing."""
    return st.one_of(
        problem(status),
        LEGACY_ERROR,
        st.just(f"<html><body><h1>{status}</h1><script>x()</script></body></html>"),
        st.just(""),
    )


# --- envelopes and pages ------------------------------------------------------------------------------------

PAGINATION = obj({"has_more": st.booleans(), "next_cursor": maybe(st.text(min_size=1, max_size=20))})


def data(resource: S[Json]) -> S[Json]:
    return st.fixed_dictionaries({"data": resource})


def page(item: S[Json], max_items: int = 4) -> S[Json]:
    return st.fixed_dictionaries(
        {"data": st.lists(item, max_size=max_items)}, optional={"pagination": PAGINATION}
    )


@functools.cache
def answer(valid: S[Json], *, huge_max: int = 1_000_000, max_changes: int = 3) -> S[Json]:
    """A valid answer body, mutated in a few places (or whole)."""
    return mutated(valid, huge_max=huge_max, max_changes=max_changes)
