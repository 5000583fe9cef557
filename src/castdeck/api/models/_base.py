"""Base classes of the wire contract and the translation of validation errors into per-field errors.

Inputs are strict (unknown fields rejected, every limit a constraint); resources are tolerant (unknown
fields kept, enum-like values kept as plain strings). Cross-field rules raise ``PydanticCustomError`` with a
``field`` entry in the context, relative to the model that raised it; :func:`field_errors` turns every error
into a dotted field path and a human sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Self, TypeVar
from urllib.parse import urlsplit

from pydantic import (
    AnyUrl,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

__all__ = [
    "HTTP_URL_SCHEMA",
    "URI_SCHEMA",
    "WHOLE_NUMBER",
    "FieldError",
    "InputModel",
    "ResourceModel",
    "UpdateModel",
    "any_case",
    "check_http_uri",
    "check_unique",
    "check_uri",
    "field_error",
    "field_errors",
    "http_url_schema",
    "validation_error",
]


def _whole_number(value: Any) -> Any:
    """``30.0`` is the number 30: JSON has one kind of number, and JSON Schema's ``integer`` takes both."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE_NUMBER = BeforeValidator(_whole_number)
"""Put last in ``Annotated[StrictInt, <constraints>, WHOLE_NUMBER]``: an integer input is a JSON number
with no fraction (``30`` or ``30.0``), never a string or a boolean. (Before the constraints, it would
hide them from the JSON Schema: pydantic then writes ``gt`` where ``exclusiveMinimum`` belongs.)"""


class FieldError(BaseModel):
    """One per-field failure: a dotted field path ("" for the whole body) and a human sentence."""

    model_config = ConfigDict(extra="allow")

    field: str
    message: str


class InputModel(BaseModel):
    """A request body or query: unknown fields are rejected and strings are taken as given."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, defer_build=True)


class ResourceModel(BaseModel):
    """A response resource: unknown fields are kept so nothing the service sends is lost."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    # The X-Request-Id of the answer this resource came from (set by the client; not a field).
    _request_id: str | None = PrivateAttr(default=None)


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``null`` alternative (``X | None`` as pydantic describes it)."""
    options = schema.get("anyOf")
    if not isinstance(options, list):
        return schema
    kept = [option for option in options if option != {"type": "null"}]
    rest = {key: value for key, value in schema.items() if key not in ("anyOf", "default")}
    return {**rest, **kept[0]} if len(kept) == 1 else {**rest, "anyOf": kept}


def _describe_refused_nulls(schema: dict[str, Any], model: type[Any]) -> None:
    """The description of an update says what the validator says: ``null`` only where it is allowed."""
    nullable: frozenset[str] = getattr(model, "nullable_fields", frozenset())
    properties = schema.get("properties", {})
    for name, prop in properties.items():
        if name not in nullable:
            properties[name] = _not_null(prop)


class UpdateModel(InputModel):
    """A partial update: only provided fields count; explicit ``null`` only where the field is nullable.

    Use ``model_dump(exclude_unset=True)`` to get the fields to change.
    """

    model_config = ConfigDict(json_schema_extra=_describe_refused_nulls)

    nullable_fields: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _reject_explicit_nulls(self) -> Self:
        for name in sorted(self.model_fields_set):
            if getattr(self, name) is None and name not in self.nullable_fields:
                message = f"{name} cannot be null; omit it to leave it unchanged"
                raise field_error("null_not_allowed", message, name)
        return self


def field_error(rule: str, message: str, field: str) -> PydanticCustomError:
    """A cross-field error naming ``field`` (relative to the model whose validator raises it)."""
    return PydanticCustomError(rule, message, {"field": field})


def validation_error(title: str, errors: Sequence[tuple[str, str, str]], body: object) -> ValidationError:
    """Build a ``ValidationError`` from ``(rule, message, field)`` triples, for parsers outside a model."""
    details: list[InitErrorDetails] = [
        {"type": PydanticCustomError(rule, message, {"field": field}), "loc": (), "input": body}
        for rule, message, field in errors
    ]
    return ValidationError.from_exception_data(title, details)


def _join(parts: Iterable[object]) -> str:
    return ".".join(str(p) for p in parts if str(p) != "")


_MESSAGES: dict[str, str] = {
    "extra_forbidden": "unknown field",
    "missing": "this field is required",
    "model_type": "the request body must be a JSON object",
    "model_attributes_type": "the request body must be a JSON object",
    "json_invalid": "the request body is not valid JSON",
}


def field_errors(exc: ValidationError) -> list[FieldError]:
    """Per-field errors of a validation failure, in the order pydantic reports them."""
    result: list[FieldError] = []
    for err in exc.errors(include_url=False):
        loc = err.get("loc", ())
        ctx = err.get("ctx") or {}
        field = _join([*loc, ctx["field"]]) if "field" in ctx else _join(loc)
        kind = err.get("type", "")
        message = _MESSAGES.get(kind, err.get("msg", "invalid value"))
        if kind in ("model_type", "model_attributes_type") and field:
            message = "must be a JSON object"
        result.append(FieldError(field=field, message=message))
    return result


_URI = TypeAdapter(AnyUrl)

URI_SCHEMA: dict[str, Any] = {"type": "string", "format": "uri"}
"""How :func:`check_uri` is described: an absolute URI."""

_HOST = r"([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*"
_CHAR = r"[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2}"  # RFC 3986 pchar
_REST = rf"(:[0-9]{{1,4}})?(/({_CHAR}|/)*)?(\?({_CHAR}|[/?])*)?(#({_CHAR}|[/?])*)?"
HTTP_URL_SCHEMA: dict[str, Any] = {
    "type": "string",
    "format": "uri",
    "pattern": rf"^[Hh][Tt][Tt][Pp][Ss]?://{_HOST}{_REST}$",
}
"""How :func:`check_http_uri` is described: an http or https URL with a host name, in the plain ASCII
form RFC 3986 gives it. The server accepts more (an IP address, a pasted address with spaces or
accents, which it keeps as given)."""


def any_case(text: str) -> str:
    """``text`` as a pattern that ignores case (JSON Schema patterns have no flags); only dots are escaped,
    as the host names and file extensions given here hold nothing else a pattern treats specially."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else "\\." if c == "." else c for c in text)


def http_url_schema(hosts: Iterable[str]) -> dict[str, Any]:
    """:data:`HTTP_URL_SCHEMA` narrowed to ``hosts`` and their subdomains (host names ignore case)."""
    names = "|".join(any_case(host) for host in sorted(hosts))
    pattern = rf"^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9-]+\.)*({names}){_REST}$"
    return {**HTTP_URL_SCHEMA, "pattern": pattern}


_T = TypeVar("_T")


def check_uri(value: str) -> str:
    """Accept an absolute URI (scheme and remainder); the string is kept as given."""
    try:
        _URI.validate_python(value)
    except ValidationError:
        message = "must be an absolute URI such as https://example.com/image.png"
        raise PydanticCustomError("uri", message) from None
    return value


def check_http_uri(value: str) -> str:
    """Accept an absolute http or https URL with a host; the string is kept as given."""
    check_uri(value)
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise PydanticCustomError("url_scheme", "must be an http or https URL")
    return value


def check_unique(values: list[_T]) -> list[_T]:
    """Reject repeated items of a list."""
    seen: set[Any] = set()
    for item in values:
        if item in seen:
            message = "items must be unique; {value} is repeated"
            raise PydanticCustomError("unique_items", message, {"value": str(item)})
        seen.add(item)
    return values
