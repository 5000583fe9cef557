"""Which sources a generation can use (spec 3.2), one rule for every dialog that offers them.

Research sources (an episode's, a Video's, a Short's): a source that failed processing is refused,
and so is an upload whose bytes never arrived (``awaiting_upload``: "a newly reserved upload must be
completed before attaching"; the service refuses it for Videos and Shorts, and an episode would
leave it out without a word). A source still ``processing`` is offered: the creator ticks it
expecting it used, and the generation waits for it. A state this app does not know is left to the
service to judge.

Voiceover visuals are narrower: completed uploaded files with prepared visuals only.
"""

from __future__ import annotations

from typing import Any

from castdeck.api.models import Source

__all__ = [
    "RESEARCH_REFUSED",
    "is_research_source",
    "is_visual_source",
    "research_source_problem",
    "visual_count",
    "visual_source_problem",
]

RESEARCH_REFUSED = {"error": "failed processing", "awaiting_upload": "upload never completed"}
"""The source states a generation refuses, and why in words."""


def _metadata(source: Source) -> dict[str, Any]:
    return source.metadata if isinstance(source.metadata, dict) else {}


def research_source_problem(source: Source) -> str | None:
    """Why ``source`` cannot be a research source of a generation, or ``None`` when it can."""
    return RESEARCH_REFUSED.get((source.status or "").lower())


def is_research_source(source: Source) -> bool:
    return research_source_problem(source) is None


def visual_count(source: Source) -> int:
    """Pages or images a visuals source holds (the sandbox records ``visual_count``; 1 when unknown)."""
    count = _metadata(source).get("visual_count")
    return count if isinstance(count, int) and count > 0 else 1


def visual_source_problem(source: Source) -> str | None:
    """Why ``source`` cannot be a Voiceover visual, or ``None`` when it can: it must be an uploaded
    file that was uploaded with ``prepare_visuals`` and has finished processing."""
    meta = _metadata(source)
    kind = (source.type or "").lower()
    if kind in ("url", "youtube", "text"):
        named = {"url": "a web page", "youtube": "a YouTube video", "text": "pasted text"}[kind]
        return f"{named}, not an uploaded file"
    if not (meta.get("prepare_visuals") or meta.get("prepared_visuals")):
        return "uploaded without prepared visuals"
    if source.status != "completed":
        return f"not ready ({source.status or 'unknown'})"
    return None


def is_visual_source(source: Source) -> bool:
    return source.status == "completed" and visual_source_problem(source) is None
