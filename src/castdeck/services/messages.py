"""The one place an error becomes the words a person reads (a banner, a card, an upload row)."""

from __future__ import annotations

import reprlib
from typing import Any

from castdeck.api import APIConnectionError, ApiError, CastdeckError, InvalidResponseError, UploadError

__all__ = ["MESSAGE_LIMIT", "TITLE_LIMIT", "clip", "error_text", "problem_text", "quoted", "shortened"]

MESSAGE_LIMIT = 500
"""Characters of a message at most: a service that sends a megabyte of ``detail`` gets a banner,
a card and a log line of a few lines, not a megabyte (the status suffix comes on top)."""


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, ending in an ellipsis when it was cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


TITLE_LIMIT = 60
"""Characters of a title quoted in a sentence at most (a status line, a notification)."""


def shortened(title: str, limit: int = TITLE_LIMIT) -> str:
    """``title`` on one line, cut at a word boundary to at most ``limit`` characters with an
    ellipsis ("Welcome back to The Curious Current…", never "…Today we" or "Curr…")."""
    text = " ".join(title.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:  # a word boundary not too far back; else a very long word is cut
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—") + "…"


def quoted(title: str, limit: int = TITLE_LIMIT) -> str:
    """A title as a sentence quotes it: “shortened”."""
    return f"“{shortened(title, limit)}”"


def error_text(error: BaseException, *, status: bool = True) -> str:
    """A sentence a creator can act on, at most :data:`MESSAGE_LIMIT` characters (plus the
    status). A service error says what the service said (and which fields it refused), with
    ``[HTTP 4xx]`` unless ``status`` is false."""
    if isinstance(error, UploadError):
        return clip(error.reason[:1].upper() + error.reason[1:] + ".")
    if isinstance(error, ApiError):
        text = error.detail or error.title or str(error)
        if error.errors:
            fields = error.errors[:20]  # a list of thousands would be clipped anyway
            text += " (" + "; ".join(f"{e.field or 'request'}: {e.message}" for e in fields) + ")"
        return f"{clip(text)} [HTTP {error.status}]" if status else clip(text)
    if isinstance(error, InvalidResponseError):
        return clip(f"The service sent an answer Castdeck cannot read: {error}")
    if isinstance(error, APIConnectionError):
        return clip(f"No answer from the service: {error}")
    if isinstance(error, CastdeckError):
        return clip(str(error) or type(error).__name__)
    return clip(f"Something went wrong: {error}")


def problem_text(problem: Any) -> str | None:
    """The words of an error object inside a status body (``{message|detail|title|code}`` or text),
    clipped like :func:`error_text`."""
    if problem is None:
        return None
    if isinstance(problem, dict):
        for name in ("message", "detail", "title", "code"):
            if isinstance(problem.get(name), str):
                return clip(str(problem[name]))
        return clip(_short_repr(problem))
    return clip(_short_repr(problem))


_REPR = reprlib.Repr()  # keyword arguments only from Python 3.12
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist = 4, 12, 12
_REPR.maxstring = _REPR.maxother = MESSAGE_LIMIT


def _short_repr(value: Any) -> str:
    """A value from the service as text, without building a megabyte (or recursing) first."""
    return value if isinstance(value, str) else _REPR.repr(value)
