"""The request bodies a script becomes: an import (spec 2.5) or a generate in script mode (spec 2.4).

Plain dicts, checked by the caller with the wire models (``EpisodeImportInput``,
``EpisodeGenerateInput``) before they go into the outbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .speakers import speaker_characters
from .structured import StructuredScript
from .text_form import ParsedScript

__all__ = ["generate_body", "import_body"]


def import_body(
    script: ParsedScript, mapping: Mapping[str, str], *, podcast_id: str, render: bool
) -> dict[str, Any]:
    """``POST /v1/episodes/import``: the text as written, and the mapping of the labels it uses as
    ``speaker_characters`` (unmapped labels still match host names at the service)."""
    body: dict[str, Any] = {"podcast_id": podcast_id, "script": script.text}
    characters = speaker_characters(script.labels, mapping)
    if characters:
        body["speaker_characters"] = characters
    body["render"] = render
    return body


def generate_body(script: StructuredScript, *, podcast_id: str, render: bool) -> dict[str, Any]:
    """``POST /v1/episodes/generate`` in script mode: the structured script and its hosts (every
    segment's host is listed in ``host_ids``). No segment ``speed`` is ever sent."""
    return {
        "podcast_id": podcast_id,
        "script": script.to_dict(),
        "host_ids": script.host_ids,
        "render": render,
    }
