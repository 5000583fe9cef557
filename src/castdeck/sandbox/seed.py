"""First-start content: the demo organizations and everything Demo Studio owns.

Records are written at once (the sandbox answers within a second on an empty data folder);
their audio and video are produced afterwards by ordinary background jobs marked
``seed_only``, which write media without moving the records' states.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from . import render, seed_content
from .clock import CLOCK
from .config import DEMO_KEY, FREE_KEY, OTHER_KEY
from .routes.media import COLLECTIONS, credits_for
from .service import Sandbox, as_html, new_id, now_iso

DEMO_ORG = "org_demo_studio"
OTHER_ORG = "org_northwind_audio"
FREE_ORG = "org_hobby_free"
DEMO_BALANCE = 50_000.0
MEDIA_COLLECTION = {kind: collection for collection, kind in COLLECTIONS.items()}


def seed_if_empty(sandbox: Sandbox) -> bool:
    db = sandbox.db
    if db.org_count():
        return False
    with db.transaction():
        db.add_org(DEMO_ORG, seed_content.ORGANIZATION_NAME, "creator", DEMO_BALANCE, [DEMO_KEY])
        db.add_org(OTHER_ORG, "Northwind Audio", "creator", 5_000.0, [OTHER_KEY])
        db.add_org(FREE_ORG, "Hobby Workshop", "free", 100.0, [FREE_KEY])
        for voice in reversed(seed_content.VOICES):  # newest first lists the lowest id first
            public = {k: v for k, v in voice.items() if k != "espeak"}
            db.insert("voice", str(voice["id"]), None, public, {"espeak": voice["espeak"]})
        _seed_demo(sandbox)
        _seed_other(sandbox)
    return True


def _ago(days: float) -> str:
    return now_iso(CLOCK.now() - timedelta(days=days))


def _host_data(blueprint: dict[str, Any], host_id: str, created: str) -> dict[str, Any]:
    return {
        "id": host_id,
        "name": blueprint["name"],
        "title": blueprint.get("title"),
        "backstory": as_html(blueprint["backstory"]),
        "personality": blueprint.get("personality"),
        "voice_id": blueprint["voice_id"],
        "image_path": None,
        "is_guest": bool(blueprint.get("is_guest")),
        "created_at": created,
        "updated_at": created,
    }


def _podcast_data(
    blueprint: dict[str, Any], podcast_id: str, host_ids: list[str], created: str
) -> dict[str, Any]:
    return {
        "id": podcast_id,
        "title": blueprint["title"],
        "description": as_html(blueprint["description"]),
        "episode_count": 0,
        "episode_order": blueprint["episode_order"],
        "host_ids": host_ids,
        "image_url": None,
        "languages": [blueprint["language"]],
        "rss_feed_url": None,
        "url": None,
        "visibility": blueprint["visibility"],
        "created_at": created,
        "updated_at": created,
    }


def _seed_demo(sandbox: Sandbox) -> None:
    db = sandbox.db
    host_ids = []
    for index, blueprint in enumerate(seed_content.HOSTS):
        host_id = secrets.token_hex(4)
        db.insert("host", host_id, DEMO_ORG, _host_data(blueprint, host_id, _ago(90 - index)))
        host_ids.append(host_id)
    db.set_org_settings(DEMO_ORG, {"narrator_host_id": host_ids[3], "language": "en"})

    podcast_ids = []
    for index, blueprint in enumerate(seed_content.PODCASTS):
        podcast_id = new_id()
        data = _podcast_data(
            blueprint, podcast_id, [host_ids[i] for i in blueprint["hosts"]], _ago(80 - index)
        )
        relative = f"podcasts/{podcast_id}/cover.jpg"
        path = sandbox.file_path(relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        render.render_cover(
            path, blueprint["title"], seed_content.ORGANIZATION_NAME, seed=index, size=(600, 600)
        )
        meta: dict[str, Any] = {"image_file": relative}
        if blueprint.get("analytics") == "degraded":
            meta["analytics_degraded"] = True
        db.insert("podcast", podcast_id, DEMO_ORG, data, meta)
        podcast_ids.append(podcast_id)

    source_ids = [
        _seed_source(sandbox, blueprint, 70 - index) for index, blueprint in enumerate(seed_content.SOURCES)
    ]

    episodes = sorted(seed_content.EPISODES, key=lambda e: -float(e["created_days_ago"]))
    for blueprint in episodes:
        _seed_episode(sandbox, blueprint, podcast_ids, host_ids, source_ids)

    media = sorted(seed_content.MEDIA, key=lambda m: -float(m["created_days_ago"]))
    for blueprint in media:
        _seed_media(sandbox, blueprint, host_ids, source_ids)


def _seed_source(sandbox: Sandbox, blueprint: dict[str, Any], age: float) -> str:
    db = sandbox.db
    source_id = new_id()
    created = _ago(age)
    kind = blueprint["kind"]
    data: dict[str, Any] = {
        "id": source_id,
        "status": blueprint["status"],
        "type": "upload" if kind.startswith("upload") else blueprint["type"],
        "title": blueprint["title"],
        "error_message": blueprint.get("error_message"),
        "metadata": {},
        "created_at": created,
        "updated_at": created,
    }
    meta: dict[str, Any] = {"text": blueprint.get("extracted_text") or blueprint.get("content") or ""}
    if kind == "url":
        data["metadata"] = {"url": blueprint["url"], "fetched": False}
        meta["url"] = blueprint["url"]
    elif kind == "text":
        data["metadata"] = {
            "characters": len(blueprint["content"]),
            "words": len(blueprint["content"].split()),
        }
    else:
        path = sandbox.file_path(f"uploads/{source_id}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if blueprint.get("png"):
            render.render_cover(
                path,
                blueprint.get("png_caption", blueprint["title"]),
                blueprint["title"],
                seed=7,
                size=(1280, 720),
                fmt="PNG",
            )
        else:
            path.write_text(blueprint.get("content", ""), encoding="utf-8")
        data["metadata"] = {
            "file_name": blueprint["file_name"],
            "mime_type": blueprint["mime_type"],
            "size_bytes": path.stat().st_size,
            "prepare_visuals": bool(blueprint.get("prepare_visuals")),
        }
        if blueprint.get("prepare_visuals"):
            data["metadata"]["visual_count"] = 1
    db.insert("source", source_id, DEMO_ORG, data, meta)
    return source_id


def _seed_episode(
    sandbox: Sandbox,
    blueprint: dict[str, Any],
    podcast_ids: list[str],
    host_ids: list[str],
    source_ids: list[str],
) -> None:
    db = sandbox.db
    state = blueprint["state"]
    episode_id = new_id()
    created = _ago(float(blueprint["created_days_ago"]))
    hosts = [host_ids[i] for i in blueprint["hosts"]]
    sources = [source_ids[i] for i in blueprint["sources"]]
    data: dict[str, Any] = {
        "id": episode_id,
        "podcast_id": podcast_ids[blueprint["podcast"]],
        "status": "draft",
        "title": blueprint["title"],
        "description": blueprint["description"],
        "image_url": None,
        "audio_url": None,
        "video_url": None,
        "url": None,
        "host_ids": hosts,
        "source_ids": sources if blueprint.get("prompt") else [],
        "published_at": None,
        "scheduled_at": None,
        "created_at": created,
        "updated_at": created,
        "generation": None,
    }
    meta: dict[str, Any] = {"workflow_run_id": "wf_" + secrets.token_hex(8), "seed_key": blueprint["key"]}
    if state != "empty_draft":
        finished = _ago(max(float(blueprint["created_days_ago"]) - 0.01, 0))
        data["generation"] = {"state": "completed", "started_at": created, "completed_at": finished}
    if state == "published":
        data["status"] = "published"
        data["published_at"] = _ago(float(blueprint["published_days_ago"]))
    elif state == "scheduled":
        data["status"] = "scheduled"
        data["scheduled_at"] = now_iso(CLOCK.now() + timedelta(days=float(blueprint["scheduled_in_days"])))
    elif state == "failed":
        data["generation"].update(state="failed", error_message=blueprint["error_message"])
        data["generation"]["skipped_sources"] = [
            {
                "id": s,
                "title": seed_content.SOURCES[i]["title"],
                "url": seed_content.SOURCES[i].get("url"),
                "reason": "failed processing",
            }
            for s, i in zip(sources, blueprint["sources"], strict=True)
        ]
    elif state == "generating":
        data["generation"] = {
            "state": "generating",
            "started_at": created,
            "completed_at": None,
            "phase": "queued",
            "progress_pct": 0,
        }
    rendered = state in ("published", "scheduled", "rendered_draft")
    meta["rendered"] = rendered
    db.insert("episode", episode_id, DEMO_ORG, data, meta)
    if state in ("empty_draft", "failed"):
        return
    minutes = float(blueprint["minutes"]) or 1.0
    job = {
        "mode": "prompt",
        "prompt": blueprint["prompt"],
        "minutes": minutes,
        "source_ids": sources,
        "title": blueprint["title"],
        "fail": False,
        "render": rendered,
        "seed": int.from_bytes(blueprint["key"].encode()[:4], "big"),
        "episode_id": episode_id,
        "seed_only": state != "generating",
    }
    if state == "generating":
        db.hold(DEMO_ORG, minutes * 30, "episode", episode_id)
    if state == "generating" or sandbox.settings.seed_media:
        db.add_job(f"episode:{episode_id}", "episode", DEMO_ORG, job)


def _seed_media(
    sandbox: Sandbox, blueprint: dict[str, Any], host_ids: list[str], source_ids: list[str]
) -> None:
    db = sandbox.db
    kind = blueprint["object"]
    collection = MEDIA_COLLECTION[kind]
    media_id = new_id()
    created = _ago(float(blueprint["created_days_ago"]))
    host_id = host_ids[blueprint["host"]]
    orientation = blueprint.get("orientation") or "AUTO"
    if orientation == "AUTO":
        orientation = "PORTRAIT" if kind == "short" else "LANDSCAPE"
    status = blueprint["status"]
    data: dict[str, Any] = {
        "id": media_id,
        "object": kind,
        "title": blueprint["title"],
        "status": status,
        "phase": blueprint.get("phase") if status == "generating" else None,
        "error": blueprint.get("error") if status == "failed" else None,
        "generation_id": None if status == "idle" else "gen_" + secrets.token_hex(8),
        "studio_url": f"{sandbox.base_url}/studio/{collection}/{media_id}",
        "host_id": host_id,
        "host_ids": [host_id],
        "style_id": blueprint.get("style_id"),
        "target_duration_seconds": blueprint.get("target_duration_seconds"),
        "orientation": orientation,
        "language": "en",
        "source_ids": [source_ids[i] for i in blueprint.get("sources") or []],
        "mode": "prompt",
        "attempt": 0 if status == "idle" else 1,
        "progress_pct": 0 if status == "generating" else (100 if status == "completed" else None),
        "created_at": created,
        "updated_at": created,
    }
    for extra in ("prompt", "direction", "background_music", "captions_enabled", "visual_motion"):
        if blueprint.get(extra) is not None:
            data[extra] = blueprint[extra]
    planned = float(blueprint.get("target_duration_seconds") or 60)
    rendered_seconds = float(blueprint.get("seed_render_seconds") or 20)
    text = blueprint.get("prompt") or blueprint.get("direction") or ""
    job: dict[str, Any] = {
        "kind": kind,
        "media_id": media_id,
        "text": text,
        "labels": {},
        "planned_seconds": planned,
        "fail": False,
        # from the blueprint, as an episode's is: the same demo renders the same media everywhere
        # (which lets sandboxes share their renders, ``render_cache``)
        "seed": int.from_bytes(hashlib.sha256(blueprint["title"].encode()).digest()[:4], "big") % 100_000,
    }
    db.insert(kind, media_id, DEMO_ORG, data, {"job": job})
    if status == "generating":
        db.hold(DEMO_ORG, credits_for(kind, planned), kind, media_id)
        db.add_job(f"{kind}:{media_id}", kind, DEMO_ORG, job)
    elif status == "completed" and sandbox.settings.seed_media:
        db.add_job(
            f"{kind}:{media_id}",
            kind,
            DEMO_ORG,
            {**job, "planned_seconds": rendered_seconds, "seed_only": True},
        )


def _seed_other(sandbox: Sandbox) -> None:
    """Northwind Audio: a small second organization, so ownership checks have something to find."""
    db = sandbox.db
    host_id = secrets.token_hex(4)
    created = _ago(20)
    db.insert(
        "host",
        host_id,
        OTHER_ORG,
        _host_data(
            {
                "name": "Sam Okafor",
                "title": "Host",
                "backstory": "Sam runs a weekly audio newsletter for Northwind.",
                "personality": "Warm and direct.",
                "voice_id": 1002,
            },
            host_id,
            created,
        ),
    )
    podcast_id = new_id()
    db.insert(
        "podcast",
        podcast_id,
        OTHER_ORG,
        _podcast_data(
            {
                "title": "Northwind Weekly",
                "description": "Company news, read aloud.",
                "episode_order": "episodic",
                "language": "en",
                "visibility": "private",
            },
            podcast_id,
            [host_id],
            created,
        ),
    )
    episode_id = new_id()
    db.insert(
        "episode",
        episode_id,
        OTHER_ORG,
        {
            "id": episode_id,
            "podcast_id": podcast_id,
            "status": "draft",
            "title": "Welcome to Northwind Weekly",
            "description": None,
            "image_url": None,
            "audio_url": None,
            "video_url": None,
            "url": None,
            "host_ids": [host_id],
            "source_ids": [],
            "published_at": None,
            "scheduled_at": None,
            "created_at": created,
            "updated_at": created,
            "generation": None,
        },
        {"rendered": False},
    )
    source_id = new_id()
    db.insert(
        "source",
        source_id,
        OTHER_ORG,
        {
            "id": source_id,
            "status": "completed",
            "type": "text",
            "title": "Northwind style guide",
            "error_message": None,
            "metadata": {"characters": 64},
            "created_at": created,
            "updated_at": created,
        },
        {"text": "Northwind writes short sentences and avoids jargon in every newsletter."},
    )
