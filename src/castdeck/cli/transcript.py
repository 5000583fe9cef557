"""``castdeck transcript EPISODE_ID --format srt|vtt|txt|json [-o FILE] [--profile NAME]``

Exports an episode's transcript, built from its word timestamps exactly as the app's Listen
window exports it. The connection is ``CASTDECK_BASE_URL`` and ``CASTDECK_API_KEY`` when both
are set, else the saved profile (``--profile`` or the one used last) with its key from
``CASTDECK_API_KEY`` or the OS keychain.

Exit status: 0 written; 1 the episode cannot give a transcript (unknown, or no audio yet);
2 cannot run (no connection, a refused key, a file that cannot be written, bad arguments).
Nothing is written unless the whole export succeeded.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from castdeck.api import (
    APIConnectionError,
    CastdeckError,
    Client,
    ForbiddenError,
    NotFoundError,
    UnauthorizedError,
)
from castdeck.services.messages import error_text
from castdeck.store.atomic import write_atomic
from castdeck.transcript import FORMATS, export, normalise

from .connection import Problem, connection

__all__ = ["main"]

PROG = "castdeck transcript"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Export an episode's transcript (subtitles, text or JSON) from its word timestamps.",
    )
    parser.add_argument("episode_id", metavar="EPISODE_ID", help="the episode's id")
    parser.add_argument(
        "--format", "-f", choices=FORMATS, default="srt", help="srt, vtt, txt or json (default srt)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument("--profile", metavar="NAME", help="a saved profile (default: the one used last)")
    return parser


async def _fetch(base_url: str, key: str, episode_id: str, fmt: str) -> str:
    async with Client(base_url, key, timeout=30.0, max_retries=2) as client:
        try:
            episode = await client.episodes.get(episode_id)
        except NotFoundError:
            raise Problem(f"episode {episode_id} not found", 1) from None
        if not episode.audio_url:
            title = f" “{episode.title}”" if episode.title else ""
            raise Problem(f"episode {episode_id}{title} has no audio yet, so it has no transcript", 1)
        try:
            stamps = await client.episodes.timestamps(episode_id)
        except NotFoundError:
            raise Problem(f"episode {episode_id} has no word timestamps yet", 1) from None
    transcript = normalise(stamps.model_dump(mode="json"), episode_id)
    if not transcript.words:
        raise Problem(f"episode {episode_id} has no words in its timestamps", 1)
    return export(transcript, fmt)


def _write(path: Path, text: str) -> None:
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as error:
        raise Problem(f"cannot write {path}: {error.strerror or error}", 2) from None


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed by argparse
        return int(stop.code or 0)
    try:
        base_url, key = connection(args.profile)
        try:
            text = asyncio.run(_fetch(base_url, key, args.episode_id, args.format))
        except ValueError as error:  # an id that is not a UUID, refused before any request
            raise Problem(str(error), 1) from None
        except (UnauthorizedError, ForbiddenError) as error:
            raise Problem(f"the service refused the API key: {error_text(error)}", 2) from None
        except APIConnectionError as error:
            raise Problem(f"cannot reach the service at {base_url}: {error}", 2) from None
        except CastdeckError as error:
            raise Problem(error_text(error), 2) from None
        if args.output:
            _write(Path(args.output), text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except Problem as problem:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return problem.code
    return 0
