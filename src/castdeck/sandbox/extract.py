"""What processing a source finds: text to write from, page and image counts, or why it failed.

The sandbox works offline, so url and youtube sources are not fetched; their title and address
stand in for their text.
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from pathlib import Path
from typing import Any

from .clock import CLOCK
from .db import Record
from .service import plain_text

TEXT_MIME_PREFIXES = ("text/", "application/json")
MAX_VISUALS = 50


def process_source(record: Record, path: Path) -> tuple[str | None, dict[str, Any], str | None]:
    """(error message or None, metadata additions, extracted text) of a source; ``path`` is its upload.

    Blocking file work: call it in a thread.
    """
    kind = record.data.get("type")
    if kind in ("url", "youtube"):
        url = str(record.meta.get("url", ""))
        host = re.sub(r"^[a-z]+://", "", url).split("/")[0].split(":")[0].lower()
        if host.endswith((".invalid", ".test")) or host in ("localhost", "127.0.0.1"):
            return f"The address {url} could not be fetched.", {}, None
        note = "The sandbox works offline: the page was not fetched; its title and address are used."
        return None, {"fetched": False, "note": note}, f"{record.data.get('title') or ''}. {url}"
    if kind == "text":
        content = str(record.meta.get("text", ""))
        return None, {"characters": len(content), "words": len(content.split())}, content
    metadata = record.data.get("metadata") or {}
    mime = str(metadata.get("mime_type", ""))
    if not path.exists():
        return "The uploaded file is missing.", {}, None
    text: str | None = None
    visuals = 0
    if mime.startswith(TEXT_MIME_PREFIXES):
        raw = path.read_bytes()[:1_000_000]
        text = raw.decode("utf-8", errors="replace")
        if mime == "text/html":
            text = plain_text(text)
    elif mime.startswith("image/"):
        visuals = 1
    elif mime == "application/pdf":
        data = path.read_bytes()
        visuals = max(1, len(re.findall(rb"/Type\s*/Page(?!s)", data)))
        text = " ".join(m.decode("latin-1") for m in re.findall(rb"\(([^()\\]{3,200})\)\s*Tj", data)) or None
    elif mime.startswith(("application/vnd.openxmlformats", "application/vnd.oasis")) or mime.lower() == (
        "application/vnd.ms-powerpoint.presentation.macroenabled.12"
    ):
        with contextlib.suppress(zipfile.BadZipFile, OSError, KeyError), zipfile.ZipFile(path) as archive:
            visuals = sum(1 for n in archive.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n))
            if not visuals and mime.startswith("application/vnd.oasis"):
                # OpenDocument keeps every page (slide) as a draw:page element of content.xml
                visuals = len(re.findall(rb"<draw:page[\s>]", archive.read("content.xml")))
    elif mime in ("application/vnd.ms-powerpoint", "application/vnd.apple.keynote"):
        visuals = 1
    added: dict[str, Any] = {"processed_at": CLOCK.now().isoformat()}
    if text is not None:
        added["words"] = len(text.split())
    if metadata.get("prepare_visuals"):
        visuals = max(visuals, 1)
        added["visual_count"] = visuals
        if visuals > 50:
            return (
                f"The file holds {visuals} pages or images; a visual source holds at most 50.",
                added,
                text,
            )
    return None, added, text
