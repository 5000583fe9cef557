"""What the job tracker polls for each kind of job, and what an answer means for the job.

An episode's generation and a publish read the episode, a source reads itself, a Video, Short or
Voiceover reads its status; each answer becomes the job's new fields (state, phase, progress,
error, links). No state: :mod:`castdeck.services.jobs` holds the jobs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from castdeck.api import ApiResponse, Client
from castdeck.api.models import Episode, MediaStatus, Source
from castdeck.api.polling import MAX_POLL_INTERVAL, episode_running, media_running
from castdeck.store.kinds import MEDIA_KINDS, collection_of

from .messages import problem_text

__all__ = ["RUNNING", "UPDATES", "fetch", "hint", "request_id_of"]


def fetch(client: Client, kind: str, resource_id: str) -> Awaitable[ApiResponse[Any]]:
    """One read of what a ``kind`` job follows, with its raw answer (the poll reads its hints)."""
    if kind in ("episode", "publish"):
        return client.episodes.with_raw_response.get(resource_id)
    if kind == "source":
        return client.sources.with_raw_response.get(resource_id)
    media = {"videos": client.videos, "shorts": client.shorts, "voiceovers": client.voiceovers}
    return media[collection_of(kind)].with_raw_response.status(resource_id)


def _source_running(source: Source) -> bool:
    return source.status not in ("completed", "error")


RUNNING: dict[str, Callable[[Any], bool]] = {  # whether an answer says the work still runs
    "episode": episode_running,
    "publish": episode_running,  # publishing waits until rendering ends, then its finisher publishes
    "source": _source_running,
    **dict.fromkeys(MEDIA_KINDS, media_running),
}


def request_id_of(observation: Any) -> str | None:
    """The request ID the answer came with (quoted in an error), when the client kept one."""
    value = getattr(observation, "_request_id", None)
    return value if isinstance(value, str) else None


def hint(seconds: float) -> float:
    """A wait the service asked for, within what the tracker honours."""
    return min(max(float(seconds), 0.0), MAX_POLL_INTERVAL)


def _progress(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return min(max(float(value), 0.0), 100.0)


def _episode_update(episode: Episode) -> dict[str, Any]:
    generation = episode.generation
    state_of = generation.state if generation is not None else None
    if state_of is None:
        state_of = "generating" if episode.status == "generating" else "completed"
    update: dict[str, Any] = {
        "phase": generation.phase if generation is not None else None,
        "progress": _progress(generation.progress_pct if generation is not None else None),
        "extra": {k: v for k, v in {"audio_url": episode.audio_url, "url": episode.url}.items() if v},
    }
    if episode.title:
        update["title"] = episode.title
    if state_of == "completed":
        update.update(state="completed", progress=100.0, error=None)
    elif state_of == "failed":
        message = (generation.error_message if generation else None) or episode.error_message
        update.update(state="failed", error=message or "The generation failed.")
    return update


def _publish_update(episode: Episode) -> dict[str, Any]:
    generation = episode.generation
    return {
        "phase": "waiting for rendering" if episode_running(episode) else "publishing",
        "progress": _progress(generation.progress_pct if generation is not None else None),
    }


def _media_update(status: MediaStatus) -> dict[str, Any]:
    extra_fields = status.model_extra or {}
    update: dict[str, Any] = {
        "phase": status.phase,
        "progress": _progress(extra_fields.get("progress_pct")),  # not in the spec; used when sent
        "extra": {k: v for k, v in {"studio_url": status.studio_url}.items() if v},
    }
    if status.status == "completed":
        update.update(state="completed", progress=100.0, error=None)
    elif status.status == "failed":
        update.update(state="failed", error=problem_text(status.error) or "The job failed.")
    elif status.status == "idle":
        update.update(state="failed", error="The job has not started (idle); retry it to start it.")
    return update


def _source_update(source: Source) -> dict[str, Any]:
    update: dict[str, Any] = {"phase": source.status}
    if source.title:
        update["title"] = source.title
    if source.status == "completed":
        update.update(state="completed", progress=100.0, error=None)
    elif source.status == "error":
        update.update(state="failed", error=source.error_message or "Processing the source failed.")
    return update


UPDATES: dict[str, Callable[[Any], dict[str, Any]]] = {  # an answer as the job's new fields
    "episode": _episode_update,
    "publish": _publish_update,
    "source": _source_update,
    **dict.fromkeys(MEDIA_KINDS, _media_update),
}
