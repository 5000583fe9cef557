"""Episode generation from a prompt or a structured script, and script import (spec 2.4, 2.5, 4.2)."""

from __future__ import annotations

import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import (
    CREDITS_PER_NARRATION_MINUTE,
    EpisodeAccepted,
    EpisodeGenerateInput,
    EpisodeImportInput,
)

from .. import importer, writer, writer_prompt
from ..config import FAIL_PHRASE, REJECT_PHRASE
from ..db import Database, Org
from ..idempotency import idempotency_key, run_idempotent
from ..problems import ApiProblem, field_problem
from ..routing import route
from ..service import PLAN_MAX_EPISODE_MINUTES, Sandbox, hold_credits, org_of, owned, sandbox_of
from ..web import data_response, json_body, validate
from .episodes import new_episode_data
from .podcasts import check_hosts

DEFAULT_MINUTES = 7


def _accepted(sandbox: Sandbox, data: dict[str, Any], workflow_run_id: str) -> Response:
    ack = {
        "id": data["id"],
        "podcast_id": data["podcast_id"],
        "status": "generating",
        "host_ids": data["host_ids"] or [],
        "workflow_run_id": workflow_run_id,
        "created_at": data["created_at"],
        "updated_at": data["updated_at"],
    }
    headers = {"Location": f"/v1/episodes/{data['id']}", "Retry-After": str(sandbox.poll_hint(5))}
    return data_response(ack, 202, headers)


def _start(
    sandbox: Sandbox,
    org: Org,
    podcast_id: str,
    host_ids: list[str],
    job: dict[str, Any],
    minutes: float,
    source_ids: list[str] | None = None,
) -> tuple[Response, str]:
    workflow_run_id = "wf_" + secrets.token_hex(8)
    data = new_episode_data(
        podcast_id,
        host_ids,
        title=job.get("title"),
        source_ids=source_ids or [],
        generation={
            "state": "generating",
            "started_at": None,
            "completed_at": None,
            "phase": "queued",
            "progress_pct": 0,
        },
    )
    data["generation"]["started_at"] = data["created_at"]
    hold_credits(sandbox.db, org, minutes * CREDITS_PER_NARRATION_MINUTE, "episode", data["id"])
    sandbox.db.insert(
        "episode", data["id"], org.id, data, {"workflow_run_id": workflow_run_id, "rendered": False}
    )
    sandbox.db.add_job(f"episode:{data['id']}", "episode", org.id, {**job, "episode_id": data["id"]})
    return _accepted(sandbox, data, workflow_run_id), data["id"]


def _kick(sandbox: Sandbox) -> None:
    if sandbox.jobs is not None:
        sandbox.jobs.kick()


def _active_hosts(db: Database, org: Org, host_ids: list[str] | None) -> list[str]:
    return [
        h
        for h in host_ids or []
        if (r := db.get("host", h)) is not None and r.org_id == org.id and not r.meta.get("archived")
    ]


@route(
    "POST",
    "/v1/episodes/generate",
    tag="Episodes",
    summary="Generate an episode from a prompt or a structured script",
    status=202,
    body=EpisodeGenerateInput,
    response=EpisodeAccepted,
    idempotency="optional",
    response_headers=("Location", "Retry-After"),
    errors=(400, 401, 403, 404, 409, 415, 422, 429, 500, 502),
)
async def generate_episode(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    key = idempotency_key(request, required=False)
    body = await json_body(request)

    def produce() -> tuple[Response, str | None]:
        payload = validate(EpisodeGenerateInput, body)
        podcast = owned(sandbox.db, "podcast", str(payload.podcast_id), org)
        if payload.host_ids:
            check_hosts(sandbox.db, org, payload.host_ids)
        max_minutes = PLAN_MAX_EPISODE_MINUTES.get(org.plan, 75)
        if payload.script is not None:
            segments = [
                (c_index, chapter.title, segment.host_id, segment.text)
                for c_index, chapter in enumerate(payload.script.chapters)
                for segment in chapter.segments
            ]
            active = set(_active_hosts(sandbox.db, org, payload.script.host_ids))
            for c_index, chapter in enumerate(payload.script.chapters):
                for s_index, segment in enumerate(chapter.segments):
                    if segment.host_id not in active:
                        raise field_problem(
                            f"script.chapters.{c_index}.segments.{s_index}.host_id",
                            f"no active host with id {segment.host_id!r} in this organization",
                        )
            words = sum(len(text.split()) for *_, text in segments)
            minutes = max(words / writer.WORDS_PER_MINUTE, 0.1)
            if minutes > max_minutes:
                raise field_problem("script", f"is longer than the plan's maximum of {max_minutes} minutes")
            host_ids = payload.host_ids or list(dict.fromkeys(s[2] for s in segments))
            job: dict[str, Any] = {
                "mode": "script",
                "chapters": [
                    {"title": chapter.title, "segments": [[s.host_id, s.text] for s in chapter.segments]}
                    for chapter in payload.script.chapters
                ],
                "title": next((c.title for c in payload.script.chapters if c.title), None),
                "fail": any(FAIL_PHRASE in s[3] for s in segments),
                "render": payload.render,
            }
            return _start(sandbox, org, podcast.id, host_ids, job, minutes)
        assert payload.prompt is not None
        host_ids = payload.host_ids or _active_hosts(sandbox.db, org, podcast.data.get("host_ids"))
        if not host_ids:
            raise ApiProblem(
                422,
                "The podcast has no active hosts; pass host_ids.",
                recovery={"action": "choose_characters", "tool": "list_characters"},
            )
        source_ids = [str(s) for s in payload.source_ids or []]
        for index, source_id in enumerate(source_ids):
            source = sandbox.db.get("source", source_id)
            if source is None or source.org_id != org.id:
                raise field_problem(
                    f"source_ids.{index}", f"no source with id {source_id} in this organization"
                )
        options = payload.options
        minutes = float(
            (options.episode_length_minutes if options and options.episode_length_minutes else None)
            or writer_prompt.minutes_from_prompt(payload.prompt)
            or DEFAULT_MINUTES
        )
        minutes = min(max(minutes, 1.0), float(max_minutes))
        job = {
            "mode": "prompt",
            "prompt": payload.prompt,
            "minutes": minutes,
            "source_ids": source_ids,
            "title": writer_prompt.title_from_prompt(payload.prompt.replace(FAIL_PHRASE, "")),
            "fail": FAIL_PHRASE in payload.prompt,
            "render": payload.render,
            "seed": secrets.randbits(31),
        }
        return _start(sandbox, org, podcast.id, host_ids, job, minutes, source_ids)

    response = await run_idempotent(
        request, sandbox.db, org.id, "episodes.generate", key, body, produce, record_rejections=False
    )
    _kick(sandbox)
    return response


@route(
    "POST",
    "/v1/episodes/import",
    tag="Episodes",
    summary="Import script text with bracketed speaker labels",
    status=202,
    body=EpisodeImportInput,
    response=EpisodeAccepted,
    idempotency="optional",
    response_headers=("Location", "Retry-After"),
    errors=(400, 401, 403, 404, 409, 415, 422, 429, 500, 502),
)
async def import_episode(request: Request) -> Response:
    sandbox, org = sandbox_of(request), org_of(request)
    key = idempotency_key(request, required=False)
    body = await json_body(request)

    def produce() -> tuple[Response, str | None]:
        payload = validate(EpisodeImportInput, body)
        podcast = owned(sandbox.db, "podcast", str(payload.podcast_id), org)
        assignments: dict[str, str] = {}
        for index, item in enumerate(payload.speaker_characters or []):
            if not _active_hosts(sandbox.db, org, [item.character_id]):
                raise field_problem(
                    f"speaker_characters.{index}.character_id",
                    f"no active host with id {item.character_id!r} in this organization",
                )
            assignments[item.label] = item.character_id
        parsed = importer.parse_script_text(payload.script)
        if not parsed.segments:
            raise field_problem(
                "script",
                "has no usable segments: put each speaker label like [Name] on its own line before the text",
            )
        if REJECT_PHRASE in payload.script:
            raise ApiProblem(
                422,
                "The speech provider rejected this content. Revise the text and try again.",
                title="Content rejected by the speech provider",
                recovery={"action": "check_content"},
            )
        hosts = [
            (r.id, str(r.data.get("name")))
            for r in sandbox.db.all("host", org.id)
            if not r.meta.get("archived")
        ]
        mapping, unresolved = importer.resolve_labels(parsed.labels, hosts, assignments)
        if unresolved:
            raise ApiProblem(
                422,
                "Some speaker labels match no host: "
                + ", ".join(unresolved)
                + ". Create the hosts first or assign them with speaker_characters.",
                title="Unresolved speakers",
                reason="unresolved_speakers",
                speakers=unresolved,
                recovery={"action": "choose_characters", "tool": "list_characters"},
            )
        max_minutes = PLAN_MAX_EPISODE_MINUTES.get(org.plan, 75)
        segments = importer.cut_to_words(parsed.segments, int(max_minutes * writer.WORDS_PER_MINUTE))
        words = sum(len(s.text.split()) for s in segments)
        minutes = max(words / writer.WORDS_PER_MINUTE, 0.1)
        host_ids = list(dict.fromkeys(mapping[s.label] for s in segments))
        job: dict[str, Any] = {
            "mode": "import",
            "chapters": [{"title": None, "segments": [[mapping[s.label], s.text] for s in segments]}],
            "dropped_lines": parsed.dropped_lines[:200],
            "title": None,
            "fail": FAIL_PHRASE in payload.script,
            "render": payload.render,
        }
        return _start(sandbox, org, podcast.id, host_ids, job, minutes)

    response = await run_idempotent(
        request, sandbox.db, org.id, "episodes.import", key, body, produce, record_rejections=False
    )
    _kick(sandbox)
    return response
