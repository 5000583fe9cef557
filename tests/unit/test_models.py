"""The wire contract: strict inputs name the failing field, tolerant resources keep what the service sends."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

import castdeck.api.models as m
from castdeck.api.models import field_errors

P = str(uuid.uuid4())
S1, S2 = str(uuid.uuid4()), str(uuid.uuid4())


def fields_of(model: type[BaseModel], body: object) -> list[str]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(body)
    return [e.field for e in field_errors(info.value)]


def errors_of(call: Any) -> list[m.FieldError]:
    with pytest.raises(ValidationError) as info:
        call()
    return field_errors(info.value)


def script(*chapters: list[tuple[str, str]]) -> dict[str, Any]:
    return {"chapters": [{"segments": [{"host_id": h, "text": t} for h, t in ch]} for ch in chapters]}


# --- field_errors -------------------------------------------------------------------------------------------


def test_field_errors_unknown_field_and_nested_loc() -> None:
    errs = errors_of(
        lambda: m.EpisodeGenerateInput.model_validate(
            {"podcast_id": P, "script": script([("a", "x"), ("a", "")]), "bogus": 1}
        )
    )
    by_field = {e.field: e.message for e in errs}
    assert by_field["bogus"] == "unknown field"
    assert "script.chapters.0.segments.1.text" in by_field


@pytest.mark.parametrize("body", [None, [], "text", 3])
def test_field_errors_non_object_body_has_empty_field(body: object) -> None:
    errs = errors_of(lambda: m.PodcastCreate.model_validate(body))
    assert [e.field for e in errs] == [""]
    assert "JSON object" in errs[0].message


def test_field_errors_invalid_json_has_empty_field() -> None:
    errs = errors_of(lambda: m.PodcastCreate.model_validate_json(b"{not json"))
    assert [e.field for e in errs] == [""]


def test_field_errors_missing_field_message() -> None:
    errs = errors_of(lambda: m.HostCreate.model_validate({"name": "Ann", "backstory": "x" * 10}))
    assert [(e.field, e.message) for e in errs] == [("voice_id", "this field is required")]


# --- idempotency keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["a", "!", "~", "abc-123_XYZ", "x" * 255, "k:{json}"])
def test_idempotency_key_valid(key: str) -> None:
    assert m.is_valid_idempotency_key(key)


@pytest.mark.parametrize("key", ["", " ", "a b", "x" * 256, "tab\t", "naïve", "line\n", "\x7f"])
def test_idempotency_key_invalid(key: str) -> None:
    assert not m.is_valid_idempotency_key(key)


def test_idempotency_key_annotated_type() -> None:
    class H(BaseModel):
        key: m.IdempotencyKey

    assert H(key="abc").key == "abc"
    with pytest.raises(ValidationError):
        H(key="a b")


# --- error envelopes ----------------------------------------------------------------------------------------


def test_problem_envelope_parses_and_keeps_unknown_fields() -> None:
    p = m.Problem.model_validate(
        {
            "status": 422,
            "title": "Unresolved speakers",
            "type": "unprocessable_entity",
            "detail": "Two labels match no character",
            "reason": "unresolved_speakers",
            "speakers": ["Ann", "Bob"],
            "recovery": {
                "action": "choose_characters",
                "idempotency_key": "reuse",
                "tool": "list_characters",
            },
            "request_id": "req_1",
            "instance": "/v1/episodes/import",
        }
    )
    assert p.speakers == ["Ann", "Bob"]
    assert p.recovery is not None and p.recovery.action == "choose_characters"
    assert p.recovery.idempotency_key == "reuse"
    assert p.model_extra == {"instance": "/v1/episodes/import"}


def test_problem_with_field_errors_and_unknown_type() -> None:
    p = m.Problem.model_validate(
        {
            "status": 400,
            "title": "Invalid",
            "type": "some_future_type",
            "errors": [{"field": "title", "message": "too long"}],
            "recovery": {"action": "poll_content", "poll_after_seconds": 5},
        }
    )
    assert p.type == "some_future_type"
    assert p.errors == [m.FieldError(field="title", message="too long")]
    assert p.recovery is not None and p.recovery.poll_after_seconds == 5


def test_recovery_rejects_negative_poll_hint() -> None:
    with pytest.raises(ValidationError):
        m.Recovery.model_validate({"action": "retry", "poll_after_seconds": -1})


def test_legacy_envelope_to_problem() -> None:
    env = m.LegacyErrorEnvelope.model_validate(
        {
            "error": {
                "code": "VALIDATION_ERROR",
                "message": "Validation failed",
                "request_id": "req_9",
                "details": [{"field": "title", "message": "too long"}],
            }
        }
    )
    p = env.to_problem(400)
    assert (p.status, p.type, p.title, p.request_id) == (
        400,
        "validation_error",
        "Validation failed",
        "req_9",
    )
    assert p.errors == [m.FieldError(field="title", message="too long")]


def test_legacy_envelope_minimal() -> None:
    p = m.LegacyErrorEnvelope.model_validate({"error": {"message": "nope"}}).to_problem(404)
    assert p.status == 404 and p.title == "nope" and p.errors is None and p.request_id is None


# --- envelopes and list queries -----------------------------------------------------------------------------


def test_list_envelope_with_body_pagination() -> None:
    env = m.ListEnvelope[m.Voice].model_validate(
        {"data": [{"id": 1}, {"id": "2"}], "pagination": {"has_more": True, "next_cursor": "c2"}}
    )
    assert [v.id for v in env.data] == [1, 2]
    assert env.pagination == m.Pagination(has_more=True, next_cursor="c2")
    assert m.ListEnvelope[m.Voice].model_validate({"data": []}).pagination is None


def test_data_envelope() -> None:
    env = m.DataEnvelope[m.Account].model_validate(
        {"data": {"organization_id": "o1", "plan": "creator", "credits": {"balance": 12.5}}}
    )
    assert env.data.credits.balance == 12.5


def test_list_query_defaults_and_limits() -> None:
    q = m.ListQuery.model_validate({})
    assert (q.limit, q.cursor) == (m.PAGE_SIZE_DEFAULT, None)
    assert m.ListQuery.model_validate({"limit": "100", "cursor": "abc"}).limit == 100
    assert fields_of(m.ListQuery, {"limit": 0}) == ["limit"]
    assert fields_of(m.ListQuery, {"limit": 101}) == ["limit"]
    assert fields_of(m.ListQuery, {"limit": True}) == ["limit"]
    assert fields_of(m.ListQuery, {"cursor": ""}) == ["cursor"]
    assert fields_of(m.ListQuery, {"page": 2}) == ["page"]


def test_episode_and_voice_list_queries() -> None:
    q = m.EpisodeListQuery.model_validate({"podcast_id": P, "status": "in review"})
    assert str(q.podcast_id) == P and q.status == "in review"
    assert fields_of(m.EpisodeListQuery, {"podcast_id": "nope"}) == ["podcast_id"]
    v = m.VoiceListQuery.model_validate({"language": "en", "gender": "female", "voice_type": "clone"})
    assert v.gender == "female"
    assert fields_of(m.VoiceListQuery, {"language": "EN"}) == ["language"]
    assert fields_of(m.VoiceListQuery, {"language": "eng"}) == ["language"]
    assert fields_of(m.VoiceListQuery, {"gender": "robot"}) == ["gender"]
    assert fields_of(m.VoiceListQuery, {"voice_type": "synthetic"}) == ["voice_type"]


# --- limits -------------------------------------------------------------------------------------------------


def test_limits_constants() -> None:
    assert (m.CREDITS_PER_NARRATION_MINUTE, m.CREDITS_PER_IMAGE, m.CREDITS_PER_VIDEO_CLIP) == (30, 7, 20)
    assert m.MAX_UPLOAD_BYTES == 100 * 1024 * 1024
    assert m.UPLOAD_SLOT_LIFETIME_SECONDS == 2 * 3600
    assert m.IDEMPOTENCY_WINDOW_SECONDS == 24 * 3600
    assert m.MAX_SCRIPT_CHARS == 75_000
    assert m.VIDEO_DURATIONS == (300, 420, 600, 900, 1200)
    assert m.SHORT_DURATIONS == (30, 60)
    assert m.VOICEOVER_DURATIONS == (180, 300, 420, 600, 900, 1200, 1800, 2700, 3600)
    assert m.ORIENTATIONS == ("AUTO", "LANDSCAPE", "PORTRAIT", "SQUARE")
    assert m.EPISODE_LENGTH_VALUES == ("extra_short", "short", "medium", "long", "extra_long")


# --- podcasts -----------------------------------------------------------------------------------------------


def test_podcast_create_happy_path_and_defaults() -> None:
    p = m.PodcastCreate.model_validate({"host_ids": ["a1b2c3d4"], "title": "Show"})
    assert (p.episode_order, p.language, p.visibility) == ("serial", "en", "public")
    assert (
        m.PodcastCreate.model_validate({"host_ids": ["h"], "title": "T", "language": "deu"}).language == "deu"
    )


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"host_ids": []}, "host_ids"),
        ({"title": ""}, "title"),
        ({"title": "x" * 101}, "title"),
        ({"episode_order": "Serial"}, "episode_order"),
        ({"language": "e"}, "language"),
        ({"language": "en-US"}, "language"),
        ({"visibility": "unlisted"}, "visibility"),
        ({"extra": 1}, "extra"),
    ],
)
def test_podcast_create_rules(patch: dict[str, Any], field: str) -> None:
    assert fields_of(m.PodcastCreate, {"host_ids": ["h"], "title": "T", **patch}) == [field]


def test_podcast_update_partial_and_no_nulls() -> None:
    u = m.PodcastUpdate.model_validate({"visibility": "unlisted"})
    assert u.model_dump(exclude_unset=True) == {"visibility": "unlisted"}
    assert m.PodcastUpdate.model_validate({}).model_dump(exclude_unset=True) == {}
    assert fields_of(m.PodcastUpdate, {"host_ids": []}) == ["host_ids"]
    assert fields_of(m.PodcastUpdate, {"title": None}) == ["title"]
    assert fields_of(m.PodcastUpdate, {"title": "x" * 101}) == ["title"]


def test_podcast_resource_tolerant() -> None:
    p = m.Podcast.model_validate({"id": P, "visibility": "secret", "episode_count": 3, "cover": {"w": 1}})
    assert p.visibility == "secret" and p.model_extra == {"cover": {"w": 1}}


# --- episodes -----------------------------------------------------------------------------------------------


def test_episode_strict_shape() -> None:
    e = m.Episode.model_validate(
        {
            "id": S1,
            "podcast_id": P,
            "status": "draft",
            "title": "One",
            "host_ids": ["a1b2c3d4"],
            "source_ids": [],
            "generation": {
                "state": "failed",
                "started_at": "2025-01-01T00:00:00Z",
                "completed_at": None,
                "error_message": "boom",
                "skipped_sources": [{"id": S2, "title": None, "url": None, "reason": "unreadable"}],
            },
        }
    )
    assert e.generation is not None and e.generation.skipped_sources is not None
    assert e.generation.skipped_sources[0].reason == "unreadable"


def test_episode_variant_shape_parses_and_keeps_extras() -> None:
    e = m.Episode.model_validate(
        {
            "id": S1,
            "status": "generating",
            "duration": 421.5,
            "error_message": "tts failed",
            "generation": {"state": "generating", "phase": "narration", "progress_pct": 42.5, "eta": 3},
            "brand_new": True,
        }
    )
    assert e.status == "generating" and e.duration == 421.5 and e.error_message == "tts failed"
    assert e.generation is not None and (e.generation.phase, e.generation.progress_pct) == ("narration", 42.5)
    assert e.generation.model_extra == {"eta": 3}
    assert e.model_extra == {"brand_new": True}
    assert e.model_dump()["brand_new"] is True


def test_episode_create() -> None:
    e = m.EpisodeCreate.model_validate({"podcast_id": P, "title": "T", "image": "https://x.test/a.png"})
    assert str(e.podcast_id) == P and e.image == "https://x.test/a.png"
    assert fields_of(m.EpisodeCreate, {}) == ["podcast_id"]
    assert fields_of(m.EpisodeCreate, {"podcast_id": "nope"}) == ["podcast_id"]
    assert fields_of(m.EpisodeCreate, {"podcast_id": P, "title": ""}) == ["title"]
    assert fields_of(m.EpisodeCreate, {"podcast_id": P, "title": "x" * 256}) == ["title"]
    assert fields_of(m.EpisodeCreate, {"podcast_id": P, "description": "x" * 2001}) == ["description"]
    assert fields_of(m.EpisodeCreate, {"podcast_id": P, "image": "not a uri"}) == ["image"]
    assert fields_of(m.EpisodeCreate, {"podcast_id": P, "status": "draft"}) == ["status"]


def test_episode_update_nullable_fields() -> None:
    u = m.EpisodeUpdate.model_validate({"description": None, "image": None})
    assert u.model_dump(exclude_unset=True) == {"description": None, "image": None}
    assert fields_of(m.EpisodeUpdate, {"title": None}) == ["title"]
    assert fields_of(m.EpisodeUpdate, {"title": "x" * 256}) == ["title"]
    assert fields_of(m.EpisodeUpdate, {"description": "x" * 2001}) == ["description"]
    assert fields_of(m.EpisodeUpdate, {"image": "relative/path.png"}) == ["image"]


def test_publish_input() -> None:
    assert m.PublishInput.model_validate({}).scheduled_time is None
    when = m.PublishInput.model_validate({"scheduled_time": "2030-05-01T10:00:00+02:00"}).scheduled_time
    assert when is not None and when.utcoffset() is not None
    assert fields_of(m.PublishInput, {"scheduled_time": "2030-05-01T10:00:00"}) == ["scheduled_time"]
    assert fields_of(m.PublishInput, {"scheduled_time": "tomorrow"}) == ["scheduled_time"]


def test_small_episode_results() -> None:
    acc = m.EpisodeAccepted.model_validate(
        {"id": S1, "podcast_id": P, "status": "generating", "host_ids": [], "workflow_run_id": "wf"}
    )
    assert acc.workflow_run_id == "wf"
    assert m.PublishResult.model_validate(
        {"id": S1, "status": "scheduled", "scheduled_time": "t"}
    ).status == ("scheduled")
    assert m.EpisodeImageResult.model_validate({"id": S1, "image_url": "u"}).image_url == "u"
    ts = m.WordTimestamps.model_validate(
        {
            "episode_id": S1,
            "speakers": [{"host_id": "h1", "name": "Ann"}],
            "words": [
                {"start": 0, "end": 0.4, "speaker": 0, "text": "Hi"},
                {"start": 1, "end": 2, "text": "x"},
            ],
        }
    )
    assert ts.words[0].speaker == 0 and ts.words[1].speaker is None and ts.speakers[0].name == "Ann"


# --- episode generation -------------------------------------------------------------------------------------


def test_generate_prompt_mode_happy_path() -> None:
    g = m.EpisodeGenerateInput.model_validate(
        {
            "podcast_id": P,
            "prompt": "Talk about tides",
            "source_ids": [S1, S2],
            "host_ids": ["h1"],
            "options": {"episode_length_minutes": 12, "episode_length": "long", "web_search": True},
        }
    )
    assert g.mode == "prompt" and g.render is False
    assert g.options is not None and g.options.episode_length_minutes == 12


def test_generate_script_mode_happy_path() -> None:
    g = m.EpisodeGenerateInput.model_validate(
        {
            "podcast_id": P,
            "script": script([("h1", "Hello"), ("h2", "Hi")]),
            "host_ids": ["h1", "h2"],
            "options": {},
            "render": True,
        }
    )
    assert g.mode == "script" and g.render is True
    assert g.script is not None and g.script.host_ids == ["h1", "h2"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "prompt"),
        ({"prompt": "long enough prompt", "script": script([("h", "x")])}, "prompt"),
        ({"prompt": "too short"}, "prompt"),
        ({"prompt": "x" * 10001}, "prompt"),
        ({"prompt": "long enough prompt", "source_ids": [S1, S1]}, "source_ids"),
        ({"prompt": "long enough prompt", "host_ids": ["a", "a"]}, "host_ids"),
        (
            {"prompt": "long enough prompt", "options": {"episode_length_minutes": 0}},
            "options.episode_length_minutes",
        ),
        (
            {"prompt": "long enough prompt", "options": {"episode_length_minutes": 76}},
            "options.episode_length_minutes",
        ),
        (
            {"prompt": "long enough prompt", "options": {"episode_length_minutes": "7"}},
            "options.episode_length_minutes",
        ),
        ({"prompt": "long enough prompt", "options": {"episode_length": "huge"}}, "options.episode_length"),
        ({"prompt": "long enough prompt", "options": {"web_search": "yes"}}, "options.web_search"),
        ({"prompt": "long enough prompt", "options": {"tone": "calm"}}, "options.tone"),
        ({"prompt": "long enough prompt", "render": "true"}, "render"),
        ({"script": script([("h", "x")]), "source_ids": [S1]}, "source_ids"),
        ({"script": script([("h", "x")]), "options": {"web_search": False}}, "options"),
        (
            {"script": script([("h1", "x"), ("h2", "y")]), "host_ids": ["h1"]},
            "script.chapters.0.segments.1.host_id",
        ),
        ({"script": {"chapters": []}}, "script.chapters"),
        ({"script": {"chapters": [{"segments": []}]}}, "script.chapters.0.segments"),
        ({"script": script([("", "x")])}, "script.chapters.0.segments.0.host_id"),
        ({"script": script([("h", "x" * 5001)])}, "script.chapters.0.segments.0.text"),
        (
            {"script": {"chapters": [{"title": "", "segments": [{"host_id": "h", "text": "x"}]}]}},
            "script.chapters.0.title",
        ),
    ],
)
def test_generate_rules(body: dict[str, Any], field: str) -> None:
    assert fields_of(m.EpisodeGenerateInput, {"podcast_id": P, **body}) == [field]


def test_generate_rejects_segment_speed() -> None:
    body = {
        "podcast_id": P,
        "script": {"chapters": [{"segments": [{"host_id": "h", "text": "x", "speed": 1.2}]}]},
    }
    errs = errors_of(lambda: m.EpisodeGenerateInput.model_validate(body))
    assert [(e.field, e.message) for e in errs] == [("script.chapters.0.segments.0.speed", "unknown field")]


def test_script_structure_limits() -> None:
    too_many_chapters = {"chapters": [{"segments": [{"host_id": "h", "text": "x"}]}] * 51}
    assert fields_of(m.Script, too_many_chapters) == ["chapters"]
    too_many_in_chapter = {"chapters": [{"segments": [{"host_id": "h", "text": "x"}] * 201}]}
    assert fields_of(m.Script, too_many_in_chapter) == ["chapters.0.segments"]
    at_limit = {"chapters": [{"segments": [{"host_id": "h", "text": "x"}] * 200}] * 3}
    assert m.Script.model_validate(at_limit).segment_count == 600


def test_script_totals_name_the_field() -> None:
    too_many_segments = {"chapters": [{"segments": [{"host_id": "h", "text": "x"}] * 200}] * 4}
    errs = errors_of(
        lambda: m.EpisodeGenerateInput.model_validate({"podcast_id": P, "script": too_many_segments})
    )
    assert [e.field for e in errs] == ["script.chapters"]
    assert "600" in errs[0].message
    too_long = {"chapters": [{"segments": [{"host_id": "h", "text": "x" * 5000}] * 16}]}
    errs = errors_of(lambda: m.EpisodeGenerateInput.model_validate({"podcast_id": P, "script": too_long}))
    assert [e.field for e in errs] == ["script"]
    at_limit = {"chapters": [{"segments": [{"host_id": "h", "text": "x" * 5000}] * 15}]}
    assert m.Script.model_validate(at_limit).text_chars == 75_000


def test_import_input() -> None:
    i = m.EpisodeImportInput.model_validate(
        {
            "podcast_id": P,
            "script": "[Ann]\nHello\n[Bob]\nHi",
            "speaker_characters": [{"character_id": "a1", "label": "Ann"}],
        }
    )
    assert i.render is False and i.speaker_characters is not None
    base = {"podcast_id": P, "script": "[Ann]\nHi"}
    assert fields_of(m.EpisodeImportInput, {**base, "script": ""}) == ["script"]
    assert fields_of(m.EpisodeImportInput, {**base, "script": "x" * 75001}) == ["script"]
    assert fields_of(m.EpisodeImportInput, {**base, "speaker_characters": []}) == ["speaker_characters"]
    assert fields_of(
        m.EpisodeImportInput, {**base, "speaker_characters": [{"character_id": "", "label": "A"}]}
    ) == ["speaker_characters.0.character_id"]
    assert fields_of(m.EpisodeImportInput, {**base, "speaker_characters": [{"character_id": "a"}]}) == [
        "speaker_characters.0.label"
    ]
    dup = [{"character_id": "a", "label": "Ann"}, {"character_id": "b", "label": "ANN"}]
    assert fields_of(m.EpisodeImportInput, {**base, "speaker_characters": dup}) == [
        "speaker_characters.1.label"
    ]
    assert fields_of(m.EpisodeImportInput, {**base, "render": 1}) == ["render"]


# --- hosts and voices ---------------------------------------------------------------------------------------


def test_host_create() -> None:
    h = m.HostCreate.model_validate(
        {"name": "Ann", "backstory": "A sailor who", "voice_id": 5, "is_guest": True}
    )
    assert h.voice_id == 5 and h.is_guest is True
    # JSON has one kind of number: 5.0 is the integer 5, as JSON Schema's "integer" says.
    whole = m.HostCreate.model_validate({"name": "Ann", "backstory": "A sailor who", "voice_id": 5.0})
    assert whole.voice_id == 5 and type(whole.voice_id) is int
    base: dict[str, Any] = {"name": "Ann", "backstory": "x" * 10, "voice_id": 5}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"name": ""}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"backstory": "x" * 9}, "backstory"),
        ({"backstory": "x" * 3001}, "backstory"),
        ({"voice_id": "5"}, "voice_id"),
        ({"voice_id": True}, "voice_id"),
        ({"voice_id": 0}, "voice_id"),
        ({"voice_id": 5.5}, "voice_id"),
        ({"personality": ""}, "personality"),
        ({"personality": "x" * 3001}, "personality"),
        ({"title": "x" * 101}, "title"),
        ({"is_guest": "no"}, "is_guest"),
        ({"avatar": "x"}, "avatar"),
    ]
    for patch, field in cases:
        assert fields_of(m.HostCreate, {**base, **patch}) == [field], patch


def test_host_update() -> None:
    assert m.HostUpdate.model_validate({"title": "Dr"}).model_dump(exclude_unset=True) == {"title": "Dr"}
    assert fields_of(m.HostUpdate, {"voice_id": "3"}) == ["voice_id"]
    assert fields_of(m.HostUpdate, {"name": None}) == ["name"]
    assert fields_of(m.HostUpdate, {"backstory": "short"}) == ["backstory"]


def test_host_resource_tolerant() -> None:
    h = m.Host.model_validate(
        {
            "id": "not-hex-id",
            "name": "Ann",
            "voice_id": 3,
            "voice": {"id": "3", "gender": "nonbinary", "voice_type": "neural", "model": None},
            "is_guest": False,
        }
    )
    assert h.id == "not-hex-id" and h.voice is not None
    assert (h.voice.id, h.voice.gender, h.voice.voice_type) == (3, "nonbinary", "neural")
    assert h.model_extra == {"is_guest": False}


def test_voice_ids_tolerant() -> None:
    assert m.Voice.model_validate({"id": 7}).id == 7
    assert m.Voice.model_validate({"id": "42"}).id == 42
    assert m.Voice.model_validate({"id": "voice_abc"}).id == "voice_abc"
    v = m.Voice.model_validate({"id": 1, "gender": "other", "voice_type": "unknown_kind", "sample": "u"})
    assert v.voice_type == "unknown_kind" and v.model_extra == {"sample": "u"}


# --- account, index, analytics ------------------------------------------------------------------------------


def test_account_and_index() -> None:
    a = m.Account.model_validate({"organization_id": "o", "plan": "pro", "credits": {"balance": 100}})
    assert a.credits.balance == 100
    idx = m.ApiIndex.model_validate(
        {
            "name": "API",
            "description": "d",
            "version": "1.0.0",
            "openapi_url": "http://h/openapi.json",
            "documentation_url": "http://h/docs",
            "developers_url": "http://h/dev",
            "llms_txt_url": "http://h/llms.txt",
            "authentication": {
                "type": "bearer",
                "header": "Authorization",
                "documentation_url": "u",
                "keys_url": "k",
            },
            "errors": {
                "format": "application/problem+json",
                "specification": "https://www.rfc-editor.org/rfc/rfc9457",
            },
            "mcp": {
                "url": "u",
                "documentation_url": "d",
                "server_card_url": "s",
                "transport": "streamable-http",
            },
        }
    )
    assert idx.mcp.transport == "streamable-http" and idx.authentication.type == "bearer"
    assert m.Health.model_validate({"status": "ok"}).status == "ok"


def test_analytics() -> None:
    pa = m.PodcastAnalytics.model_validate(
        {
            "podcast_id": P,
            "as_of": "2025-01-01T00:00:00Z",
            "complete": False,
            "analytics_enabled": True,
            "totals": {"downloads": 10, "video_views": 5, "plays": 15, "last_7_days": 2, "last_30_days": 9},
            "plays_by_app": {"Apple Podcasts": 7, "Spotify": 3.5},
            "episodes": [
                {
                    "episode_id": S1,
                    "downloads": {"first_7_days": 1, "first_30_days": 2, "total": 3},
                    "video_views": {"last_7_days": 0, "last_30_days": 1, "total": 1},
                }
            ],
        }
    )
    assert pa.complete is False and pa.totals.plays == 15 and pa.plays_by_app["Spotify"] == 3.5
    assert pa.episodes[0].downloads.total == 3
    ea = m.EpisodeAnalytics.model_validate({"episode_id": S1, "downloads": {"total": 4}})
    assert ea.downloads.total == 4 and ea.video_views.total == 0
    with pytest.raises(ValidationError):
        m.DownloadWindows.model_validate({"total": -1})


# --- sources ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "cls"),
    [
        ({"type": "URL", "url": "https://example.com/a"}, m.UrlSourceCreate),
        ({"type": "url", "url": "http://example.com", "title": "A"}, m.UrlSourceCreate),
        ({"type": "YouTube", "url": "https://www.youtube.com/watch?v=abc"}, m.YoutubeSourceCreate),
        ({"type": "youtube", "url": "https://youtu.be/abc"}, m.YoutubeSourceCreate),
        ({"type": "Text", "content": "Notes"}, m.TextSourceCreate),
    ],
)
def test_parse_source_create_happy(body: dict[str, Any], cls: type[BaseModel]) -> None:
    parsed = m.parse_source_create(body)
    assert type(parsed) is cls
    assert parsed.type == body["type"].lower()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "type"),
        ({"type": 3}, "type"),
        ({"type": "pdf"}, "type"),
        ({"type": "url"}, "url"),
        ({"type": "url", "url": "ftp://example.com/a"}, "url"),
        ({"type": "url", "url": "example.com"}, "url"),
        ({"type": "youtube", "url": "https://vimeo.com/1"}, "url"),
        ({"type": "youtube", "url": "https://notyoutube.com/watch"}, "url"),
        ({"type": "text", "content": ""}, "content"),
        ({"type": "text", "content": "x" * 100_001}, "content"),
        ({"type": "text", "content": "x", "url": "https://a.test"}, "url"),
        ("not an object", ""),
    ],
)
def test_parse_source_create_rules(body: object, field: str) -> None:
    errs = errors_of(lambda: m.parse_source_create(body))
    assert [e.field for e in errs] == [field]


def test_source_create_discriminated_union() -> None:
    from pydantic import TypeAdapter

    ta: TypeAdapter[Any] = TypeAdapter(m.SourceCreate)
    assert isinstance(ta.validate_python({"type": "text", "content": "x"}), m.TextSourceCreate)


def test_source_resource_and_reservation() -> None:
    r = m.UploadReservation.model_validate(
        {
            "source": {"id": S1, "status": "awaiting_upload", "metadata": {"pages": 3}, "kind": "file"},
            "upload": {
                "url": "http://127.0.0.1/u/1?sig=x",
                "method": "PUT",
                "headers": {"content-type": "application/pdf"},
                "expires_at": "2030-01-01T02:00:00Z",
            },
        }
    )
    assert r.source.status == "awaiting_upload" and r.source.metadata == {"pages": 3}
    assert r.source.model_extra == {"kind": "file"}
    assert r.upload.headers["content-type"] == "application/pdf"


UPLOAD: dict[str, Any] = {"file_name": "deck.pdf", "mime_type": "application/pdf", "size_bytes": 1000}


def test_upload_reservation_happy_paths() -> None:
    assert m.UploadReservationInput.model_validate(UPLOAD).prepare_visuals is False
    ok = [
        {"file_name": "Notes.MD", "mime_type": "text/markdown", "size_bytes": 1},
        {"file_name": "talk.mp3", "mime_type": "audio/mpeg", "size_bytes": m.MAX_UPLOAD_BYTES},
        {"file_name": "photo.jpeg", "mime_type": "image/jpeg", "size_bytes": 9, "prepare_visuals": True},
        {
            "file_name": "slides.key",
            "mime_type": "application/vnd.apple.keynote",
            "size_bytes": 9,
            "prepare_visuals": True,
        },
        {
            "file_name": "a.pptm",
            "mime_type": "application/vnd.ms-powerpoint.presentation.macroenabled.12",
            "size_bytes": 9,
        },
        {
            "file_name": "sheet.xlsx",
            "mime_type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "size_bytes": 9,
            "title": "Budget",
        },
    ]
    for body in ok:
        m.UploadReservationInput.model_validate(body)


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"file_name": "dir/deck.pdf"}, "file_name"),
        ({"file_name": "dir\\deck.pdf"}, "file_name"),
        ({"file_name": "nul\x00.pdf"}, "file_name"),
        ({"file_name": ".."}, "file_name"),
        ({"file_name": ""}, "file_name"),
        ({"file_name": "x" * 252 + ".pdf"}, "file_name"),
        ({"file_name": "deck.docx"}, "file_name"),
        ({"file_name": "deck"}, "file_name"),
        ({"mime_type": "application/x-msdownload", "file_name": "a.exe"}, "mime_type"),
        ({"mime_type": "video/mp4", "file_name": "a.mp4"}, "mime_type"),
        ({"size_bytes": 0}, "size_bytes"),
        ({"size_bytes": m.MAX_UPLOAD_BYTES + 1}, "size_bytes"),
        ({"size_bytes": "1000"}, "size_bytes"),
        ({"size_bytes": 10.5}, "size_bytes"),
        ({"title": ""}, "title"),
        ({"title": "x" * 501}, "title"),
        ({"prepare_visuals": "false"}, "prepare_visuals"),
        ({"file_name": "n.txt", "mime_type": "text/plain", "prepare_visuals": True}, "mime_type"),
        ({"file_name": "a.mp3", "mime_type": "audio/mpeg", "prepare_visuals": True}, "mime_type"),
        ({"sha256": "x"}, "sha256"),
    ],
)
def test_upload_reservation_rules(patch: dict[str, Any], field: str) -> None:
    assert fields_of(m.UploadReservationInput, {**UPLOAD, **patch}) == [field]


def test_upload_reservation_video_message_says_extract_audio() -> None:
    errs = errors_of(
        lambda: m.UploadReservationInput.model_validate(
            {**UPLOAD, "file_name": "a.mov", "mime_type": "video/quicktime"}
        )
    )
    assert "audio" in errs[0].message


# --- files --------------------------------------------------------------------------------------------------


def test_mime_tables() -> None:
    assert set(m.VOICEOVER_VISUAL_MIME_TYPES) < set(m.VISUAL_MIME_TYPES) < set(m.RESEARCH_MIME_TYPES)
    assert len(m.VISUAL_MIME_TYPES) == 9
    assert m.RESEARCH_MIME_TYPES["text/markdown"] == (".md", ".markdown")
    assert m.VISUAL_MIME_TYPES["image/jpeg"] == (".jpg", ".jpeg")
    assert not any(mime.startswith("video/") for mime in m.RESEARCH_MIME_TYPES)


@pytest.mark.parametrize(
    ("name", "mime"),
    [
        ("a.PDF", "application/pdf"),
        ("x.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
        ("x.htm", "text/html"),
        ("song.flac", "audio/flac"),
        ("a.tar.gz", None),
        ("noext", None),
        (".md", None),
        ("clip.mp4", None),
    ],
)
def test_mime_for_filename(name: str, mime: str | None) -> None:
    assert m.mime_for_filename(name) == mime


def test_extension_matches_and_file_names() -> None:
    assert m.extension_matches("a.JPG", "image/jpeg")
    assert m.extension_matches("a.jpeg", "IMAGE/JPEG")
    assert not m.extension_matches("a.png", "image/jpeg")
    assert not m.extension_matches("a.exe", "application/x-msdownload")
    assert m.is_acceptable_file_name("report 2025 (final).pdf")
    assert m.is_acceptable_file_name("x" * 255)
    for bad in ["", ".", "..", "a/b", "a\\b", "a\x00b", "x" * 256]:
        assert not m.is_acceptable_file_name(bad), bad
    assert m.is_video_mime("video/mp4") and m.is_video_mime("Video/WebM") and not m.is_video_mime("audio/mp4")


ZIP = b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\x00" * 20
ODF_HEAD = b"PK\x03\x04" + b"\x00" * 26 + b"mimetypeapplication/vnd.oasis.opendocument.presentation"
OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 24

SNIFF_CASES: list[tuple[bytes, str | None, str]] = [
    (b"%PDF-1.7\n%\xe2\xe3", None, "application/pdf"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None, "image/png"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", None, "image/jpeg"),
    (b"RIFF\x24\x00\x00\x00WEBPVP8 ", None, "image/webp"),
    (b"GIF89a\x01\x00", None, "image/gif"),
    (b"RIFF\x24\x00\x00\x00WAVEfmt ", None, "audio/wav"),
    (b"ID3\x04\x00\x00\x00\x00\x00\x00", None, "audio/mpeg"),
    (b"\xff\xfb\x90\x64\x00", None, "audio/mpeg"),
    (b"fLaC\x00\x00\x00\x22", None, "audio/flac"),
    (b"OggS\x00\x02", None, "audio/ogg"),
    (b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00", None, "audio/mp4"),
    (b"\x00\x00\x00\x20ftypisom\x00\x00\x00\x00", "voice.m4a", "audio/mp4"),
    (b"\x00\x00\x00\x20ftypisom\x00\x00\x00\x00", "clip.mp4", "video/mp4"),
    (ZIP, "deck.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
    (ZIP, "deck.pptm", "application/vnd.ms-powerpoint.presentation.macroEnabled.12"),
    (ZIP, "paper.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    (ZIP, "sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    (ZIP, "talk.key", "application/vnd.apple.keynote"),
    (ZIP, "notes.odt", "application/vnd.oasis.opendocument.text"),
    (ODF_HEAD, None, "application/vnd.oasis.opendocument.presentation"),
    (
        ZIP + b"word/document.xml",
        None,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    (ZIP, None, "application/zip"),
    (OLE, "old.ppt", "application/vnd.ms-powerpoint"),
    (OLE, "old.doc", "application/msword"),
    (b"{\\rtf1\\ansi hello}", None, "application/rtf"),
    ("Grüße\n# title".encode(), "notes.md", "text/markdown"),
    (b"a,b\n1,2\n", "data.csv", "text/csv"),
    (b"<!doctype html><p>x", "page.html", "text/html"),
    (b'{"a": 1}', "data.json", "application/json"),
    (b"plain words", None, "text/plain"),
    ("é".encode() * 10 + "€".encode()[:2], "cut.txt", "text/plain"),
]


@pytest.mark.parametrize(("head", "name", "mime"), SNIFF_CASES)
def test_sniff_mime(head: bytes, name: str | None, mime: str) -> None:
    assert m.sniff_mime(head, name) == mime


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"text\x00with nul",
        b"\xc3\x28 invalid utf8",
        b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff",
    ],
)
def test_sniff_mime_unknown(head: bytes) -> None:
    assert m.sniff_mime(head, "x.txt") is None


@pytest.mark.parametrize(("head", "name", "mime"), [c for c in SNIFF_CASES if c[2] in m.RESEARCH_MIME_TYPES])
def test_signature_matches_each_supported_type(head: bytes, name: str | None, mime: str) -> None:
    assert m.signature_matches(head, mime, name)


def test_signature_mismatches() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00"
    assert not m.signature_matches(png, "application/pdf")
    assert not m.signature_matches(png, "image/jpeg")
    assert not m.signature_matches(b"%PDF-1.4", "image/png")
    assert not m.signature_matches(b"\x00\x01binary", "text/plain")
    assert not m.signature_matches(
        OLE, "application/vnd.openxmlformats-officedocument.presentationml.presentation"
    )
    assert not m.signature_matches(ZIP, "application/vnd.ms-powerpoint")
    assert not m.signature_matches(b"RIFF\x24\x00\x00\x00WAVEfmt ", "image/webp")
    assert not m.signature_matches(png, "video/mp4")
    assert m.signature_matches(b"%PDF-1.4", "Application/PDF")
    assert m.SNIFF_BYTES == 4096


# --- media --------------------------------------------------------------------------------------------------


def test_media_resources_tolerant() -> None:
    job = m.MediaJob.model_validate(
        {
            "id": S1,
            "object": "video",
            "status": "queued",
            "target_duration_seconds": 420,
            "error": None,
            "x": 1,
        }
    )
    assert job.status == "queued" and job.model_extra == {"x": 1}
    st = m.MediaStatus.model_validate(
        {"id": S1, "object": "short", "status": "generating", "phase": None, "poll_after_seconds": 10}
    )
    assert st.poll_after_seconds == 10
    dl = m.MediaDownload.model_validate(
        {"id": S1, "object": "video", "delivery": {"kind": "available", "url": "u", "origin": "storage"}}
    )
    assert dl.delivery.kind == "available" and dl.delivery.origin == "storage"
    prep = m.Delivery.model_validate({"kind": "preparing", "reason": "ingest"})
    assert prep.reason == "ingest"
    assert m.Delivery.model_validate({"kind": "future_kind"}).kind == "future_kind"
    opts = m.MediaOptions.model_validate(
        {
            "supported_duration_seconds": [180, 300],
            "styles": [],
            "default_host_id": None,
            "default_language": "en",
            "default_orientation": "LANDSCAPE",
            "default_style_id": None,
            "default_duration_seconds": None,
        }
    )
    assert opts.styles == [] and opts.default_duration_seconds is None
    assert m.Style.model_validate({"id": "s1", "name": "Clean", "description": None}).name == "Clean"


def test_video_prompt_mode() -> None:
    v = m.parse_video_create(
        {
            "prompt": "Explain tides",
            "target_duration_seconds": 600,
            "orientation": "SQUARE",
            "host_ids": ["a", "b"],
            "source_ids": [S1, S2],
            "style_id": "s1",
            "language": "en",
        }
    )
    assert isinstance(v, m.VideoCreateInput) and v.target_duration_seconds == 600
    assert isinstance(m.parse_video_create({"prompt": "x", "host_id": "a"}), m.VideoCreateInput)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "prompt"),
        ({"prompt": "   "}, "prompt"),
        ({"prompt": "x" * 20001}, "prompt"),
        ({"prompt": "x", "script": "[A]\nHi"}, "prompt"),
        ({"prompt": "x", "target_duration_seconds": 30}, "target_duration_seconds"),
        ({"prompt": "x", "target_duration_seconds": "300"}, "target_duration_seconds"),
        ({"prompt": "x", "orientation": "landscape"}, "orientation"),
        ({"prompt": "x", "host_id": "a", "host_ids": ["b"]}, "host_ids"),
        ({"prompt": "x", "host_ids": []}, "host_ids"),
        ({"prompt": "x", "host_ids": ["a", "b", "c", "d", "e"]}, "host_ids"),
        ({"prompt": "x", "host_ids": ["a", "a"]}, "host_ids"),
        ({"prompt": "x", "source_ids": [S1, S1]}, "source_ids"),
        ({"prompt": "x", "source_ids": [str(uuid.uuid4()) for _ in range(101)]}, "source_ids"),
        ({"prompt": "x", "source_ids": ["not-a-uuid"]}, "source_ids.0"),
        ({"prompt": "x", "background_music": True}, "background_music"),
    ],
)
def test_video_prompt_rules(body: dict[str, Any], field: str) -> None:
    assert [e.field for e in errors_of(lambda: m.parse_video_create(body))] == [field]


def test_video_script_mode() -> None:
    v = m.parse_video_create({"script": "[Ann]\nHello", "style_id": "s1", "target_duration_seconds": 300})
    assert isinstance(v, m.VideoScriptCreateInput) and v.style_id == "s1"
    for body, field in [
        ({"script": "[Ann]\nHi"}, "style_id"),
        ({"script": " \n ", "style_id": "s"}, "script"),
        ({"script": "x" * 75001, "style_id": "s"}, "script"),
        ({"script": "x", "style_id": "s", "host_id": "a"}, "host_id"),
        ({"script": "x", "style_id": "s", "host_ids": ["a"]}, "host_ids"),
        ({"script": "x", "style_id": "s", "source_ids": [S1]}, "source_ids"),
        ({"script": "x", "style_id": "s", "target_duration_seconds": 60}, "target_duration_seconds"),
    ]:
        errs = errors_of(lambda body=body: m.parse_video_create(body))
        assert [e.field for e in errs] == [field], body
    errs = errors_of(lambda: m.parse_video_create({"script": "x", "style_id": "s", "host_id": "a"}))
    assert "finished script" in errs[0].message


def test_short_modes() -> None:
    s = m.parse_short_create(
        {"prompt": "Quick fact", "target_duration_seconds": 60, "background_music": False}
    )
    assert isinstance(s, m.ShortCreateInput) and s.background_music is False
    ss = m.parse_short_create({"script": "[A]\nHi", "style_id": "s", "background_music": True})
    assert isinstance(ss, m.ShortScriptCreateInput)
    for body, field in [
        ({"prompt": "x", "target_duration_seconds": 300}, "target_duration_seconds"),
        ({"prompt": "x", "background_music": "yes"}, "background_music"),
        ({"prompt": "x", "script": "y"}, "prompt"),
        ({"script": "y", "style_id": "s", "source_ids": [S1]}, "source_ids"),
        ({"prompt": "x", "host_id": "a", "host_ids": ["a"]}, "host_ids"),
    ]:
        errs = errors_of(lambda body=body: m.parse_short_create(body))
        assert [e.field for e in errs] == [field], body


def test_voiceover_input() -> None:
    v = m.VoiceoverCreateInput.model_validate(
        {"source_ids": [S1], "direction": "Calm", "target_duration_seconds": 3600}
    )
    assert (v.captions_enabled, v.visual_motion) == (False, "static")
    assert (
        m.VoiceoverCreateInput.model_validate({"source_ids": [S1], "visual_motion": "auto"}).visual_motion
        == "auto"
    )
    for body, field, message in [
        ({}, "source_ids", None),
        ({"source_ids": []}, "source_ids", None),
        ({"source_ids": [str(uuid.uuid4()) for _ in range(11)]}, "source_ids", None),
        ({"source_ids": [S1, S1]}, "source_ids", None),
        ({"source_ids": [S1], "direction": "x" * 4001}, "direction", None),
        ({"source_ids": [S1], "target_duration_seconds": 240}, "target_duration_seconds", None),
        ({"source_ids": [S1], "captions_enabled": 1}, "captions_enabled", None),
        ({"source_ids": [S1], "visual_motion": "zoom"}, "visual_motion", None),
        ({"source_ids": [S1], "host_id": "a", "host_ids": ["a"]}, "host_ids", None),
        ({"source_ids": [S1], "orientation": "portrait"}, "orientation", None),
        ({"source_ids": [S1], "prompt": "x"}, "prompt", "unknown field"),
        ({"source_ids": [S1], "style_id": "s"}, "style_id", "unknown field"),
    ]:
        errs = errors_of(lambda body=body: m.VoiceoverCreateInput.model_validate(body))
        assert [e.field for e in errs] == [field], body
        if message is not None:
            assert errs[0].message == message


def test_all_exports_resolve() -> None:
    missing = [name for name in m.__all__ if not hasattr(m, name)]
    assert missing == []
    assert len(m.__all__) == len(set(m.__all__))
