"""How long a Video, Short or Voiceover is, as the media panes show it (the Length column, its sort
and tooltip, the details' Duration, the card's subtitle).

The item's own length comes from the service's ``duration_seconds`` where it gives one (the spec
shows no such field, so a service may never send it); else, for a finished item, from its file on
this computer, as the player found when the item's still was made
(:meth:`castdeck.ui.preview.stills.Stills.length`). Until then, the length that was asked for
stands in, and the tooltip says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from castdeck.api.models import MediaJob
from castdeck.services.media_actions import format_duration

__all__ = ["FROM_FILE", "FROM_SERVICE", "ItemLength", "clock_text", "item_length", "length_tip"]

FROM_SERVICE = "service"
FROM_FILE = "file"


@dataclass(frozen=True)
class ItemLength:
    seconds: float
    source: str  # FROM_SERVICE or FROM_FILE


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value > 0 else None


def item_length(job: MediaJob, file_seconds: float | None) -> ItemLength | None:
    """The item's own length (the service's, else its file's once finished), or ``None``."""
    given = _seconds(getattr(job, "duration_seconds", None))
    if given is not None:
        return ItemLength(given, FROM_SERVICE)
    measured = _seconds(file_seconds)
    if measured is not None and (job.status or "").lower() == "completed":
        return ItemLength(measured, FROM_FILE)
    return None


def clock_text(seconds: float) -> str:
    """``396`` → ``6:36``, ``3725`` → ``1:02:05``; a part of a second dropped, as the player does."""
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def length_tip(job: MediaJob, length: ItemLength | None, noun: str, *, readable: bool = True) -> str | None:
    """What the Length cell's tooltip says: whose length it is, or that it is the one asked for
    (``readable``: the file's length can be read on this computer, once it is here)."""
    asked = format_duration(job.target_duration_seconds)
    if length is not None and length.source == FROM_SERVICE:
        return f"Its length; {asked} was asked for" if asked else "Its length"
    if length is not None:
        mine = "Its length, read from its file on this computer (the service gives none)"
        return f"{mine}; {asked} was asked for" if asked else mine
    if (job.status or "").lower() == "completed":
        read = (
            f"the service gives none; Castdeck reads it from the file once the {noun} is previewed here"
            if readable
            else "the service gives none"
        )
        return f"The length asked for ({asked}): {read}" if asked else f"No length yet: {read}"
    return f"The length asked for ({asked}); it is known once made" if asked else None
