"""Small SRT and WebVTT readers written from the formats' descriptions, independent of
``castdeck.transcript`` (nothing is shared with the code that writes the files), for the tests."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_SRT_TIME = r"(\d{2,}):([0-5]\d):([0-5]\d),(\d{3})"
_VTT_TIME = r"(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})"


@dataclass
class ParsedCue:
    start: float
    end: float
    lines: list[str]
    voice: str | None = None

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def _seconds(h: str | None, m: str, s: str, ms: str) -> float:
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def parse_srt(text: str) -> list[ParsedCue]:
    """SubRip: blocks separated by blank lines: a counter, ``start --> end``, then text lines."""
    cues: list[ParsedCue] = []
    blocks = [b for b in re.split(r"\r?\n\s*\r?\n", text.strip()) if b.strip()]
    for expected, block in enumerate(blocks, 1):
        lines = block.splitlines()
        if lines[0].strip() != str(expected):
            raise ValueError(f"cue {expected}: counter is {lines[0]!r}")
        match = re.fullmatch(rf"{_SRT_TIME} --> {_SRT_TIME}", lines[1].strip())
        if match is None:
            raise ValueError(f"cue {expected}: bad timing line {lines[1]!r}")
        g = match.groups()
        body = lines[2:]
        if not body or any(not line.strip() for line in body):
            raise ValueError(f"cue {expected}: no text")
        cues.append(ParsedCue(_seconds(*g[:4]), _seconds(*g[4:]), body))
    return cues


def parse_vtt(text: str) -> list[ParsedCue]:
    """WebVTT: the ``WEBVTT`` signature, then cues (optional identifier, timing line, payload);
    ``<v Name>`` voice spans are read, other tags dropped, character references decoded."""
    lines = text.splitlines()
    if not lines or not re.fullmatch(r"\ufeff?WEBVTT([ \t].*)?", lines[0]):
        raise ValueError("missing WEBVTT signature")
    cues: list[ParsedCue] = []
    blocks = re.split(r"\n\s*\n", "\n".join(lines[1:]).strip())
    for block in blocks:
        rows = block.splitlines()
        if not rows or rows[0].startswith(("NOTE", "STYLE", "REGION")):
            continue
        if "-->" not in rows[0]:
            rows = rows[1:]  # an identifier
        match = re.match(rf"{_VTT_TIME}[ \t]+-->[ \t]+{_VTT_TIME}", rows[0].strip())
        if match is None:
            raise ValueError(f"bad timing line {rows[0]!r}")
        g = match.groups()
        voice = None
        payload: list[str] = []
        if any("-->" in row for row in rows[1:]):
            raise ValueError("a payload line contains -->")
        for row in rows[1:]:
            found = re.match(r"<v(?:\.[^ \t>]+)*[ \t]+([^>]+)>", row)
            if found:
                voice = voice or found.group(1).strip()
            payload.append(html.unescape(re.sub(r"<[^>]*>", "", row)))
        cues.append(ParsedCue(_seconds(*g[:4]), _seconds(*g[4:]), payload, voice))
    return cues
