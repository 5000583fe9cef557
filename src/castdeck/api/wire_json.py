"""Reading the service's JSON: only what JSON allows, as text every layer can hold.

:func:`loads` is ``json.loads`` with two differences, both about things a broken service (or a
proxy in front of it) sends that Python's reader accepts but nothing after it can use:

- ``NaN``, ``Infinity`` and ``-Infinity`` are refused (RFC 8259 section 6 does not permit them),
  and so is a number that does not fit a double (``1e400``, an integer of 400 digits): code that
  formats, sorts or rounds a number must not meet one it cannot convert;
- a lone UTF-16 surrogate, written as an escape (``"\\ud800"``) or as raw bytes (``ED A0 80``,
  which Python's reader accepts), becomes U+FFFD: such a string cannot be encoded as UTF-8, so
  the cache, the log and Qt would each fail on it later;
- arrays and objects nested deeper than :data:`MAX_DEPTH` are refused: no shape of the interface
  nests more than a few levels, and a value 255 deep can no longer be serialized by pydantic (the
  cache stores every model it reads), nor printed near Python's recursion limit.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["MAX_DEPTH", "NotJson", "loads"]

MAX_DEPTH = 64


class NotJson(ValueError):
    """The body is not JSON the client reads (see the module's rules)."""


def _constant(name: str) -> Any:
    raise NotJson(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotJson(f"the number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    value = int(text)  # more than 4300 digits raises ValueError
    try:
        float(value)
    except OverflowError:
        raise NotJson(f"the number {text[:40]}… is out of range") from None
    return value


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
"""A surrogate written as an escape, or as the bytes UTF-8 never holds (which ``json.loads``
decodes anyway: it reads bytes with the ``surrogatepass`` handler)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def loads(content: bytes | str) -> Any:
    """The JSON value of ``content``; raises ``ValueError`` (``json.JSONDecodeError``,
    :class:`NotJson`, ``UnicodeDecodeError``) or ``RecursionError`` for anything else."""
    value = json.loads(content, parse_constant=_constant, parse_float=_float, parse_int=_int)
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _nesting(raw) > MAX_DEPTH:
        raise NotJson(f"the answer nests deeper than {MAX_DEPTH} levels")
    if _SURROGATE_ESCAPE.search(raw):  # pairs decode to one character; only lone halves remain
        value = _without_surrogates(value)
    return value


_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _nesting(raw: bytes) -> int:
    """How deep the arrays and objects of ``raw`` (JSON ``json.loads`` accepted) nest, counted up to
    one past :data:`MAX_DEPTH`. Each pass of the regular expressions removes the innermost level:
    a page of a hundred episodes takes a few passes in C, where walking its parsed value took a
    millisecond on the UI thread."""
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", raw))
    depth = 0
    while brackets and depth <= MAX_DEPTH:
        brackets, removed = _INNERMOST.subn(b"", brackets)
        if not removed:  # not balanced: json.loads would have refused it
            break
        depth += 1
    return depth


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    return value
