"""Service HTML made safe and cheap to show: :func:`safe_html` keeps the markup of text (paragraphs,
emphasis, lists, headings, links, small tables) and drops everything else.

Descriptions and backstories come from the service as plain text or HTML (spec 2.2, 2.6), and the
service passes on what creators pasted. Qt's rich text runs no scripts, but it lays out whatever it
is given: a description of tables nested fifty deep takes minutes (each level lays its cells out
again), a ``font-size`` of a million pixels or a megabyte of text freezes the window, and an
``<img src=http://...>`` asks for a remote resource. So, before any widget sees it:

- only the tags of :data:`KEPT` stay, without attributes (a link keeps an http, https or mailto
  ``href``; a cell keeps a small ``colspan``/``rowspan``); ``script``, ``style`` and the other
  tags of :data:`DROPPED_WITH_CONTENT` go with their content; any other tag goes, its text stays
  (an image leaves its ``alt`` text);
- tables nest at most :data:`MAX_TABLE_DEPTH` deep (deeper ones are read as text) and tags at most
  :data:`MAX_DEPTH` deep;
- the text is clipped to :data:`TEXT_LIMIT` characters, with an ellipsis.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

__all__ = ["MAX_DEPTH", "MAX_TABLE_DEPTH", "TEXT_LIMIT", "clip_text", "looks_like_html", "safe_html"]

TEXT_LIMIT = 20_000
"""Characters of text shown at most (a long description is several pages)."""
SOURCE_LIMIT = 200_000
"""Characters of markup read at most: what lies beyond cannot be within the text limit anyway
unless it is all tags, and parsing a megabyte of tags costs seconds."""
MAX_DEPTH = 24
MAX_TABLE_DEPTH = 3

KEPT = frozenset({
    "a", "p", "br", "b", "strong", "i", "em", "u", "s", "strike", "sub", "sup", "small", "big", "code",
    "pre", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "span", "div", "table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th",
})  # fmt: skip
VOID = frozenset({"br", "hr"})
TABLE_PARTS = frozenset({"table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th"})
DROPPED_WITH_CONTENT = frozenset({
    "script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math", "head",
    "title", "textarea", "select",
})  # fmt: skip
LINK_SCHEMES = ("http://", "https://", "mailto:")
_SPAN = re.compile("[0-9]{1,9}")


def looks_like_html(text: str) -> bool:
    """Whether service text is meant as HTML (plain text never holds both angle brackets)."""
    return "<" in text and ">" in text


def clip_text(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def safe_html(text: str, *, limit: int = TEXT_LIMIT) -> str:
    """``text`` (HTML from the service) rebuilt from the kept tags only; see the module's rules."""
    builder = _Builder(limit)
    builder.feed(text[:SOURCE_LIMIT])
    builder.close()
    return builder.result()


class _Builder(HTMLParser):
    def __init__(self, limit: int) -> None:
        super().__init__(convert_charrefs=True)
        self.limit = limit
        self.out: list[str] = []
        self.open: list[str] = []  # kept tags now open, innermost last
        self.tables = 0  # kept tables open
        self.tables_read: list[bool] = []  # every table open in the source: kept or read as text
        self.skipping: list[str] = []  # tags whose content is dropped, innermost last
        self.length = 0
        self.full = False

    def result(self) -> str:
        return "".join(self.out) + "".join(f"</{tag}>" for tag in reversed(self.open))

    # --- tags ---------------------------------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.full:
            return
        if tag in DROPPED_WITH_CONTENT:
            self.skipping.append(tag)
            return
        if self.skipping:
            return
        if tag == "img":
            alt = dict(attrs).get("alt")
            if alt and alt.strip():
                self.handle_data(f"[{alt.strip()}]")
            return
        room = tag in KEPT and len(self.open) < MAX_DEPTH
        if tag == "table":
            kept = room and self.tables < MAX_TABLE_DEPTH
            self.tables_read.append(kept)
            if not kept:
                self.handle_data(" ")
                return
        elif tag in TABLE_PARTS and not (self.tables_read and self.tables_read[-1]):
            self.handle_data(" ")  # a part of a table read as text
            return
        if not room:
            return
        self.out.append(f"<{tag}{self._attributes(tag, attrs)}>")
        if tag not in VOID:
            self.open.append(tag)
            if tag == "table":
                self.tables += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID or tag == "img":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        if tag == "table":
            if not self.tables_read or not self.tables_read.pop():
                return  # a stray closer, or the end of a table read as text
        elif tag in TABLE_PARTS and not (self.tables_read and self.tables_read[-1]):
            return
        if tag not in self.open:
            return  # a stray closer, or the closer of a tag that was not kept
        while self.open:
            closed = self.open.pop()
            self.out.append(f"</{closed}>")
            if closed == "table":
                self.tables -= 1
            if closed == tag:
                return

    @staticmethod
    def _attributes(tag: str, attrs: list[tuple[str, str | None]]) -> str:
        kept: list[str] = []
        for name, value in attrs:
            if value is None:
                continue
            if tag == "a" and name == "href" and value.strip().lower().startswith(LINK_SCHEMES):
                kept.append(f' href="{html.escape(value.strip(), quote=True)}"')
            elif tag in ("td", "th") and name in ("colspan", "rowspan") and _SPAN.fullmatch(value.strip()):
                kept.append(f' {name}="{min(int(value.strip()), 20)}"')
        return "".join(kept)

    # --- text ---------------------------------------------------------------------------------------------

    def handle_data(self, data: str) -> None:
        if self.full or self.skipping or not data:
            return
        room = self.limit - self.length
        if len(data) >= room:
            data = data[: max(room - 1, 0)] + "…"
            self.full = True
        self.length += len(data)
        self.out.append(html.escape(data, quote=False))
