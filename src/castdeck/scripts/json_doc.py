"""A JSON reader that remembers where every value starts, so a problem in a structured script can be
reported as ``FILE:LINE:COL`` (Python's ``json`` module gives values without positions).

It reads exactly RFC 8259 JSON (strings through the standard library's own ``scanstring``). Bad
input raises :class:`JsonSyntaxError` with the offset; nothing else escapes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2.6, untyped in typeshed
from typing import Any

__all__ = ["JsonNode", "JsonSyntaxError", "line_column", "read_json"]

MAX_DEPTH = 200

_WS_RE = re.compile(r"[ \t\n\r]*")
_NUMBER_RE = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass
class JsonNode:
    """A value, the offset where it starts, and for objects and arrays their members (objects keep
    each key's offset too; a repeated key keeps the last value, as ``json.loads`` does)."""

    value: Any
    offset: int
    items: list[JsonNode] = field(default_factory=list)
    members: dict[str, JsonNode] = field(default_factory=dict)
    key_offsets: dict[str, int] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        value = self.value
        if isinstance(value, dict):
            return "object"
        if isinstance(value, list):
            return "array"
        if isinstance(value, str):
            return "string"
        if isinstance(value, bool):
            return "boolean"
        if value is None:
            return "null"
        return "number"


def line_column(text: str, offset: int) -> tuple[int, int]:
    """0-based line and column of ``offset`` in ``text`` (lines end at ``\\n``)."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, i: int) -> int:
        m = _WS_RE.match(self.text, i)
        return m.end() if m else i

    def value(self, i: int, depth: int) -> tuple[JsonNode, int]:
        if depth > MAX_DEPTH:
            raise JsonSyntaxError(f"nested more than {MAX_DEPTH} levels deep", i)
        text = self.text
        if i >= len(text):
            raise JsonSyntaxError("expected a value, found the end of the file", i)
        char = text[i]
        if char == "{":
            return self.object(i, depth)
        if char == "[":
            return self.array(i, depth)
        if char == '"':
            return self.string(i)
        for word, value in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i):
                return JsonNode(value, i), i + len(word)
        m = _NUMBER_RE.match(text, i)
        if m:
            literal = m.group(0)
            try:
                number: Any = int(literal) if literal.lstrip("-").isdigit() else float(literal)
            except ValueError:  # more digits than Python converts
                raise JsonSyntaxError("a number with too many digits", i) from None
            return JsonNode(number, i), m.end()
        raise JsonSyntaxError(f"expected a value, found {text[i]!r}", i)

    def string(self, i: int) -> tuple[JsonNode, int]:
        try:
            value, end = scanstring(self.text, i + 1, True)
        except json.JSONDecodeError as error:
            raise JsonSyntaxError(error.msg.lower(), error.pos) from None
        return JsonNode(value, i), end

    def object(self, i: int, depth: int) -> tuple[JsonNode, int]:
        node = JsonNode({}, i)
        i = self.skip(i + 1)
        if self.text.startswith("}", i):
            return node, i + 1
        while True:
            if not self.text.startswith('"', i):
                raise JsonSyntaxError("expected a member name in double quotes", i)
            key_node, i = self.string(i)
            key = key_node.value
            i = self.skip(i)
            if not self.text.startswith(":", i):
                raise JsonSyntaxError("expected ':' after the member name", i)
            child, i = self.value(self.skip(i + 1), depth + 1)
            node.members[key] = child
            node.key_offsets[key] = key_node.offset
            node.value[key] = child.value
            i = self.skip(i)
            if self.text.startswith(",", i):
                i = self.skip(i + 1)
                continue
            if self.text.startswith("}", i):
                return node, i + 1
            raise JsonSyntaxError("expected ',' or '}'", i)

    def array(self, i: int, depth: int) -> tuple[JsonNode, int]:
        node = JsonNode([], i)
        i = self.skip(i + 1)
        if self.text.startswith("]", i):
            return node, i + 1
        while True:
            child, i = self.value(i, depth + 1)
            node.items.append(child)
            node.value.append(child.value)
            i = self.skip(i)
            if self.text.startswith(",", i):
                i = self.skip(i + 1)
                continue
            if self.text.startswith("]", i):
                return node, i + 1
            raise JsonSyntaxError("expected ',' or ']'", i)


def read_json(text: str) -> JsonNode:
    """The JSON value of ``text`` with positions; raises :class:`JsonSyntaxError`."""
    reader = _Reader(text)
    start = reader.skip(1 if text.startswith("\ufeff") else 0)
    node, end = reader.value(start, 0)
    end = reader.skip(end)
    if end != len(text):
        raise JsonSyntaxError("unexpected text after the JSON value", end)
    return node
