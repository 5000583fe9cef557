"""Saving a transcript as a file (subtitles, text by speaker, words with times), off the UI thread.

The Listen window's Export and ``castdeck transcript`` write the same formats
(:func:`castdeck.transcript.export`) through the same atomic writer (:mod:`castdeck.store.atomic`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from castdeck.store.atomic import write_atomic
from castdeck.transcript import Transcript, export

__all__ = ["save_transcript"]


async def save_transcript(path: Path, transcript: Transcript, fmt: str) -> None:
    """Write ``transcript`` as ``fmt`` to ``path`` atomically; ``OSError`` says why it could not."""
    await asyncio.to_thread(lambda: write_atomic(path, export(transcript, fmt).encode("utf-8")))
