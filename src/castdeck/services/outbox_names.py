"""What an outbox write is called and what kind of job it starts: the names its card, its
notification and its tracked job carry before the service has answered."""

from __future__ import annotations

from typing import Any

from castdeck.store.kinds import kind_of
from castdeck.store.outbox import OutboxEntry

__all__ = ["job_kind_of", "title_of"]


def job_kind_of(entry: OutboxEntry) -> str:
    """The kind of job an outbox write starts."""
    if entry.kind in ("episode_generate", "episode_import"):
        return "episode"
    return kind_of(entry.collection or "videos")


def title_of(entry: OutboxEntry, limit: int = 60) -> str:
    """A short name for the job a write starts, from what the user typed."""
    noun = job_kind_of(entry).capitalize()
    body = entry.body or {}
    text = (
        body.get("title") or body.get("prompt") or body.get("direction") or body.get("script_text")
        or _script_name(body.get("script"))
    )  # fmt: skip
    if not isinstance(text, str) or not text.strip():
        if entry.kind == "media_retry":
            return f"{noun} (retry)"
        return f"New {noun.lower()}"
    line = " ".join(text.split())
    return f"{noun}: {line[: limit - 1] + '…' if len(line) > limit else line}"


def _script_name(script: Any) -> str | None:
    """A script's first chapter title (structured), or its first ``# Title`` line (text)."""
    if isinstance(script, dict):
        chapters = script.get("chapters")
        first = chapters[0] if isinstance(chapters, list) and chapters else None
        title = first.get("title") if isinstance(first, dict) else None
        return title if isinstance(title, str) else None
    if isinstance(script, str):
        for line in script[:20_000].splitlines():
            if line.startswith("# ") and line[2:].strip():
                return line[2:].strip()
    return None
