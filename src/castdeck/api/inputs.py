"""Inputs before they are sent: built from keyword arguments or a model, checked against every rule
of the wire contract (nothing is sent when a rule is broken), and turned into a JSON body."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import InputValidationError
from .models import FieldError

__all__ = ["body_of", "build_input", "check_id", "check_uuid", "parse_input"]

M = TypeVar("M", bound=BaseModel)


def build_input(model: type[M], given: M | None, fields: dict[str, Any]) -> M:
    """The input model from either a model instance or keyword arguments; rules broken raise
    :class:`InputValidationError` before any request."""
    if given is not None:
        if fields:
            raise TypeError("pass either an input model or keyword arguments, not both")
        if not isinstance(given, model):
            raise TypeError(f"expected {model.__name__}, got {type(given).__name__}")
        return given
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise InputValidationError.from_pydantic(exc) from None


def parse_input(
    parser: Callable[[Any], M],
    given: M | None,
    fields: dict[str, Any],
    allowed: tuple[type[BaseModel], ...] = (),
) -> M:
    """Like :func:`build_input` for inputs with several shapes (a parser function picks the model);
    a given model must be one of ``allowed`` (so a Video input is never sent as a Short)."""
    if given is not None:
        if fields:
            raise TypeError("pass either an input model or keyword arguments, not both")
        if allowed and not isinstance(given, allowed):
            names = " or ".join(t.__name__ for t in allowed)
            raise TypeError(f"expected {names}, got {type(given).__name__}")
        return given
    try:
        return parser(fields)
    except ValidationError as exc:
        raise InputValidationError.from_pydantic(exc) from None


def body_of(payload: BaseModel, *, partial: bool = False) -> dict[str, Any]:
    """The JSON body of an input: only the fields the caller set (the service applies defaults)."""
    return payload.model_dump(mode="json", exclude_unset=True, exclude_none=not partial)


def check_id(value: object, name: str) -> str:
    """A path id: a non-empty string without separators (checked locally, before any request)."""
    text = str(value)
    if not text or any(c in text for c in "/?#\\") or not text.isprintable() or text != text.strip():
        raise InputValidationError([_field(name, "must be a non-empty id without '/', '?' or '#'")])
    return text


def check_uuid(value: object, name: str) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise InputValidationError([_field(name, "must be a UUID")]) from None


def _field(name: str, message: str) -> Any:
    return FieldError(field=name, message=message)
