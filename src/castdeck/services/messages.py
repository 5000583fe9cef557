"""The one place an error becomes the words a person reads (a banner, a card, an upload row)."""

from __future__ import annotations

from typing import Any

from castdeck.api import APIConnectionError, ApiError, CastdeckError, InvalidResponseError, UploadError

__all__ = ["error_text", "problem_text"]


def error_text(error: BaseException, *, status: bool = True) -> str:
    """A sentence a creator can act on. A service error says what the service said (and which
    fields it refused), with ``[HTTP 4xx]`` unless ``status`` is false."""
    if isinstance(error, UploadError):
        return error.reason[:1].upper() + error.reason[1:] + "."
    if isinstance(error, ApiError):
        text = error.detail or error.title or str(error)
        if error.errors:
            text += " (" + "; ".join(f"{e.field or 'request'}: {e.message}" for e in error.errors) + ")"
        return f"{text} [HTTP {error.status}]" if status else text
    if isinstance(error, InvalidResponseError):
        return f"The service sent an answer Castdeck cannot read: {error}"
    if isinstance(error, APIConnectionError):
        return f"No answer from the service: {error}"
    if isinstance(error, CastdeckError):
        return str(error) or type(error).__name__
    return f"Something went wrong: {error}"


def problem_text(problem: Any) -> str | None:
    """The words of an error object inside a status body (``{message|detail|title|code}`` or text)."""
    if problem is None:
        return None
    if isinstance(problem, dict):
        for name in ("message", "detail", "title", "code"):
            if isinstance(problem.get(name), str):
                return str(problem[name])
        return str(problem)
    return str(problem)
