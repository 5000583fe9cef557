"""``castdeck-sandbox``: run the embedded local service.

    castdeck-sandbox --host 127.0.0.1 --port PORT --data DIR [--speed FACTOR] [--rate-limit N]
                     [--chaos P] [--chaos-seed S] [--accept-hold SECONDS]
                     [--accept-hold-stage {created,received}] [--signed-base-url URL]

The first line of stdout is ``listening on URL`` as soon as the socket accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import socket
from dataclasses import replace
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import uvicorn

from .config import Settings
from .render_cache import ENV


def _positive(value: str) -> float:
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise argparse.ArgumentTypeError("must be a finite number greater than 0")
    return number


def _port(value: str) -> int:
    number = int(value)
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError("must be between 0 and 65535")
    return number


def _count(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def _seconds(value: str) -> float:
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise argparse.ArgumentTypeError("must be a finite number of seconds, 0 or more")
    return number


def _http_origin(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise argparse.ArgumentTypeError("must be an http(s) origin such as http://127.0.0.1:8081")
    if parts.query or parts.fragment:
        raise argparse.ArgumentTypeError("must be an origin without a query or fragment")
    return value.rstrip("/")


def _probability(value: str) -> float:
    number = float(value)
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return number


def parse_args(argv: list[str] | None = None) -> tuple[Settings, str]:
    parser = argparse.ArgumentParser(
        prog="castdeck-sandbox",
        description="The Castdeck sandbox: a local implementation of the generation service's whole interface.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=0, help="port; 0 picks a free one (default 0)")
    parser.add_argument("--data", type=Path, required=True, help="data folder: database and media files")
    parser.add_argument(
        "--speed", type=_positive, default=1.0, help="scale of simulated work time (default 1)"
    )
    parser.add_argument(
        "--rate-limit", type=int, default=0, help="requests per minute per organization; 0 = off"
    )
    parser.add_argument("--chaos", type=_probability, default=0.0, help="fraction of /v1 requests that fail")
    parser.add_argument("--chaos-seed", type=int, default=None, help="seed that makes --chaos repeatable")
    parser.add_argument("--workers", type=_count, default=1, help="speech worker processes (default 1)")
    parser.add_argument(
        "--no-seed-media", action="store_true", help="seed records but skip their audio and video"
    )
    parser.add_argument(
        "--upload-slot-lifetime",
        type=_count,
        default=7200,
        help="seconds an upload slot lives (default 7200)",
    )
    parser.add_argument(
        "--idempotency-window",
        type=_count,
        default=86_400,
        help="seconds an idempotency key is kept (default 86400)",
    )
    parser.add_argument(
        "--accept-hold",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="keep each keyed generation write unresolved up to SECONDS before answering; a resend "
        "under the key meanwhile gets 409 poll_content and ends the hold (default 0: off)",
    )
    parser.add_argument(
        "--accept-hold-stage",
        choices=["created", "received"],
        default="created",
        help="during --accept-hold: 'created' = the resource exists and the 409 names it; "
        "'received' = nothing exists yet, the 409 names no resource (default created)",
    )
    parser.add_argument(
        "--signed-base-url",
        type=_http_origin,
        default=None,
        metavar="URL",
        help="the origin signed upload and download addresses name, such as a proxy in front of this "
        "sandbox that forwards /files/ and /uploads/ to it (default: the sandbox's own address)",
    )
    parser.add_argument(
        "--test-clock",
        action="store_true",
        help='let POST /_sandbox/clock {"advance_seconds": N} move this sandbox\'s time N seconds ahead '
        "(expiries, windows, schedules and work floors come due at once): for tests",
    )
    parser.add_argument(
        "--render-cache",
        type=Path,
        default=os.environ.get(ENV) or None,
        metavar="DIR",
        help="a folder of earlier renders: a render whose input is there is copied, not done again; "
        f"sandboxes may share one (default: ${ENV}, else none)",
    )
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="stop when standard input closes (the launching process ended): for launchers and tests",
    )
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    args = parser.parse_args(argv)
    if args.rate_limit < 0:
        parser.error("--rate-limit must be 0 or more")
    if args.data.exists() and not args.data.is_dir():
        parser.error(f"--data {args.data} exists and is not a folder")
    return Settings(
        host=args.host,
        port=args.port,
        data_dir=args.data,
        speed=args.speed,
        rate_limit=args.rate_limit,
        chaos=args.chaos,
        chaos_seed=args.chaos_seed,
        workers=args.workers,
        seed_media=not args.no_seed_media,
        exit_with_parent=args.exit_with_parent,
        upload_slot_lifetime=args.upload_slot_lifetime,
        idempotency_window=args.idempotency_window,
        accept_hold=args.accept_hold,
        accept_hold_stage=args.accept_hold_stage,
        signed_base_url=args.signed_base_url,
        test_clock=args.test_clock,
        render_cache=args.render_cache,
    ), args.log_level


async def serve(settings: Settings, log_level: str = "warning") -> None:
    from .app import build_app
    from .db import Database
    from .seed import seed_if_empty
    from .service import Sandbox

    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SystemExit(f"castdeck-sandbox: error: cannot use --data {settings.data_dir}: {exc}") from None
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    # IPPROTO_TCP (not 0) so that asyncio sets TCP_NODELAY on accepted connections; without it
    # Nagle's algorithm holds every small answer for the client's delayed ACK (~40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        raise SystemExit(
            f"castdeck-sandbox: error: cannot listen on {settings.host}:{settings.port}: {exc}"
        ) from None
    sock.listen(128)
    port = sock.getsockname()[1]
    settings = replace(settings, port=port)
    db = Database(settings.data_dir / "sandbox.sqlite3")
    sandbox = Sandbox(settings, db)
    seed_if_empty(sandbox)
    app = build_app(sandbox)
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=3,
        http=_http_protocol(),
        proxy_headers=False,
        server_header=False,
    )
    server = uvicorn.Server(config)
    if settings.exit_with_parent:
        _stop_when_stdin_closes(server)
    print(f"listening on {sandbox.base_url}", flush=True)
    try:
        await server.serve(sockets=[sock])
    finally:
        db.close()


def _stop_when_stdin_closes(server: uvicorn.Server) -> None:
    """The launcher keeps our standard input open; when it ends (even killed) the pipe closes."""
    import sys
    import threading

    def watch() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        server.should_exit = True

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _http_protocol() -> type[asyncio.Protocol] | Literal["h11"]:
    """httptools where it is installed (large uploads stream at disk speed), else h11."""
    try:
        from .http_protocol import ProblemHttpToolsProtocol
    except ImportError:
        return "h11"
    return ProblemHttpToolsProtocol


def main(argv: list[str] | None = None) -> None:
    settings, log_level = parse_args(argv)
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, log_level))


if __name__ == "__main__":
    main()
