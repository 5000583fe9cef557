"""Values a broken or hostile service sends, and a mutator that puts them into valid answers.

:func:`mutated` takes a strategy of valid JSON (from :mod:`tests.fuzz.shapes`) and breaks a few
places of each drawn value: a field dropped, a type swapped (str <-> int, null, list, object), a
huge string (up to 1 MB, rarely), an unknown enum value, HTML and script, unicode oddities (RTL
marks, NUL, lone surrogates, which ``json.dumps`` writes as ``\\ud800`` escapes), negative and huge
numbers, NaN and Infinity (written as the ``NaN``/``Infinity`` literals Python's JSON reads),
nesting deep enough to hit the decoder's recursion limit. :func:`encode` turns the result into the
bytes of a body, sometimes with invalid UTF-8.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from hypothesis import strategies as st

Json = Any

# --- leaves -------------------------------------------------------------------------------------------------


def nested_tables(depth: int) -> str:
    return "<table><tr><td>" * depth + "deep" + "</td></tr></table>" * depth


HTML = st.one_of(
    st.sampled_from(
        [
            "<script>alert('x')</script>",
            "<p>before<script>document.location='http://198.51.100.7/'</script>after</p>",
            '<img src="http://198.51.100.7/pixel.png" alt="tracker">',
            "<img src=http://example.invalid/x.png>",
            '<img src="file:///etc/passwd">',
            '<img src="data:image/png;base64,iVBORw0KGgo=">',
            '<a href="javascript:alert(1)">click me</a>',
            '<a href="http://example.invalid/">a link</a>',
            '<div style="background-image: url(http://example.invalid/bg.png)">styled</div>',
            "<style>body { background: url(http://example.invalid/) }</style>text",
            '<link rel="stylesheet" href="http://example.invalid/a.css">',
            '<iframe src="http://example.invalid/"></iframe><object data="http://x.invalid/"></object>',
            "<svg onload=alert(1)><circle r=5 /></svg>",
            "<p>unclosed <i>italic <b>bold",
            "</p></td></table></html>stray closers",
            "&lt;escaped&gt; &amp;amp; &#0; &#x110000; &#xD800; &unknown; &",
            "<h1>" + "big " * 50 + "</h1><ul>" + "<li>item</li>" * 300 + "</ul>",
            "<b>" * 3000,
            "<div>" * 2000 + "x" + "</div>" * 2000,
            "<table>" + "<tr>" + "<td>cell</td>" * 60 + "</tr>" * 60 + "</table>",
            "<pre>" + "x" * 5000 + "</pre>",
        ]
    ),
    st.integers(1, 64).map(nested_tables),
)

ODD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\u202eevil\u202c",  # right-to-left override
        "\u200f\u200e\u061c",  # RTL, LTR and Arabic letter marks
        "nul\x00inside",
        "\x00",
        "\ud800",  # a lone surrogate: json.dumps writes "\ud800"
        "a\udfffb",
        "\ud83d",
        "\U0001f4a5\U0001f3b5",
        "e" + "\u0301" * 500,  # combining marks piled on one letter
        "\ufeffbom",
        "line\u2028separator\u2029paragraph",
        "tab\tand\r\nnewline\rreturn",
        "\x1b[31mansi\x1b[0m",
        "zero\u200bwidth\u200djoiner",
        "\uffff\ufffe\ufffd",
        "x" * 3000,  # one long word: no place to wrap
        "%s%n%x{0}{{}}",
        "\\u0000 \\ud800",  # escapes written out, not decoded
        "NaN",
        "null",
        "sk_fuzz_secret_key_0123456789",  # an answer that echoes the API key
    ]
)

ENUM_WORDS = st.sampled_from(
    [
        "GENERATING",
        "Published",
        "published ",
        "in review",
        "in_review",
        "archived",
        "deleted",
        "queued",
        "cancelled",
        "unknown",
        "",
        "💥",
        "null",
        "0",
        "x" * 300,
    ]
)

NUMBERS = st.one_of(
    st.sampled_from(
        [
            -1,
            0,
            -0.0,
            1,
            2**31,
            -(2**31) - 1,
            2**63,
            -(2**63) - 1,
            10**30,
            1e308,
            -1e308,
            5e-324,
            0.1,
            float("nan"),
            float("inf"),
            float("-inf"),
            True,
            False,
            "42",
            "4.5",
            "1e400",
        ]
    ),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
)

SMALL_JSON: st.SearchStrategy[Json] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


@functools.cache
def huge_strings(max_size: int) -> st.SearchStrategy[str]:
    """Long strings, built by repetition (drawing a megabyte character by character is too slow).
    Non-ASCII units stay under 70,000 characters: a megabyte of them is a 6 MB escaped body."""
    sizes = [size for size in (300, 5_000, 70_000, 1_000_000) if size <= max_size]

    def build(unit: str, size: int) -> str:
        if not unit.isascii():
            size = min(size, 70_000)
        return (unit * (size // len(unit) + 1))[:size]

    units = st.sampled_from(["a", "word ", "<b>x</b>", "é", "\u202e", "\U0001f3b5", "line\n", "&amp;"])
    return st.builds(build, units, st.sampled_from(sizes))


DEEP_MARK = re.compile(r'"\\u0000DEEP:(\d+):(list|dict)\\u0000"')


def deep(depth: int, kind: str) -> str:
    """A placeholder that :func:`encode` writes as ``depth`` nested arrays or objects (Python's own
    encoder cannot write what its decoder must be shown to refuse)."""
    return f"\x00DEEP:{depth}:{kind}\x00"


def _deep_json(match: re.Match[str]) -> str:
    depth = int(match.group(1))
    if match.group(2) == "list":
        return "[" * depth + '"bottom"' + "]" * depth
    return '{"a":' * depth + '"bottom"' + "}" * depth


DEEP = st.builds(deep, st.sampled_from([40, 400, 5_000]), st.sampled_from(["list", "dict"]))


@functools.cache
def hostile_values(huge_max: int) -> st.SearchStrategy[Json]:
    """Any value that does not belong where it is put."""
    return st.one_of(
        st.none(),
        NUMBERS,
        ODD_TEXT,
        HTML,
        ENUM_WORDS,
        SMALL_JSON,
        st.lists(st.text(max_size=5), max_size=3),
        st.just({}),
        st.just([]),
        huge_strings(huge_max),
        DEEP,
    )


# --- the mutator --------------------------------------------------------------------------------------------

Path = tuple[Any, ...]


def _paths(value: Json, limit: int = 400) -> list[Path]:
    """Places inside ``value`` (dict keys and list indexes), the root excluded, breadth first."""
    found: list[Path] = []
    queue: list[tuple[Path, Json]] = [((), value)]
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        children = (
            node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        )
        for key, child in children:
            found.append((*path, key))
            queue.append(((*path, key), child))
    return found


def _parent(value: Json, path: Path) -> Json:
    for key in path[:-1]:
        value = value[key]
    return value


OPS = st.sampled_from(("drop", "replace", "replace", "replace", "enum", "extra", "duplicate"))
CHANGES = {n: st.integers(0, n) for n in range(6)}
WHOLE = st.integers(0, 40)
KEYS = st.text(max_size=10)


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[Json], *, huge_max: int = 1_000_000,
            max_changes: int = 3) -> Json:  # fmt: skip
    """A valid value with 0..``max_changes`` places broken; sometimes the whole value replaced."""
    value = draw(valid)
    if draw(WHOLE) == 0:
        return draw(hostile_values(huge_max))
    for _ in range(draw(CHANGES[max_changes])):
        paths = _paths(value)
        if not paths:
            break
        path = paths[draw(st.integers(0, len(paths) - 1))]
        parent = _parent(value, path)
        key = path[-1]
        op = draw(OPS)
        if op == "drop":
            del parent[key]
        elif op == "replace":
            parent[key] = draw(hostile_values(huge_max))
        elif op == "enum":
            parent[key] = draw(ENUM_WORDS)
        elif op == "extra" and isinstance(parent, dict):
            parent[draw(KEYS)] = draw(hostile_values(min(huge_max, 5_000)))
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(parent[key])  # the same item twice (a repeated id)
    return value


def encode(value: Json, style: str = "ascii") -> bytes:
    """The body bytes of ``value``: ``ascii`` (escapes, so lone surrogates travel as ``\\udXXX``)
    or ``utf8`` (where a lone surrogate becomes invalid UTF-8 bytes)."""
    text = json.dumps(value, allow_nan=True, ensure_ascii=style == "ascii")
    if "DEEP:" in text:
        text = DEEP_MARK.sub(_deep_json, text)
    return text.encode("utf-8", "surrogatepass")


BODY_STYLES = st.sampled_from(["ascii", "ascii", "ascii", "utf8"])
