"""The service side of the soak and the kill tests: the real sandbox as its own process, with a
recording proxy in front of its API and one in front of its signed addresses, and what the sandbox
itself stored, read from its SQLite database (``sandbox.sqlite3`` in its data folder, see
``castdeck/sandbox/db.py``) read-only."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import DEMO_KEY, RunningSandbox, start_sandbox
from tests.soak.proxy import Proxy

__all__ = ["GENERATION_KINDS", "Service", "ServiceRecords", "start_service"]

GENERATION_KINDS = ("episode", "video", "short", "voiceover")
UPLOADED = ("processing", "completed", "error")
"""A file source in one of these states was completed (its bytes verified and taken in)."""


@dataclass
class Service:
    sandbox: RunningSandbox
    api: Proxy
    """In front of the API: the app is given this address (the service's origin, as far as it knows)."""
    signed: Proxy
    """In front of the signed upload and download addresses (``--signed-base-url``)."""

    @property
    def base_url(self) -> str:
        return self.api.url

    @property
    def database(self) -> Path:
        return self.sandbox.data_dir / "sandbox.sqlite3"

    def check(self) -> None:
        """Raise when the sandbox process has ended (nothing the app does could bring it back)."""
        code = self.sandbox.process.poll()
        if code is not None:
            raise RuntimeError(
                f"the sandbox process ended with {code} during the run (a signal: killed from outside?); "
                f"its log ends:\n{self.sandbox.log[-2000:]}"
            )

    def offline(self) -> None:
        """The network goes away: both addresses refuse connections."""
        self.api.down()
        self.signed.down()

    def online(self) -> None:
        self.api.up()
        self.signed.up()

    def records(self) -> ServiceRecords:
        return ServiceRecords(self.database)

    def stop(self) -> None:
        self.api.stop()
        self.signed.stop()
        self.sandbox.stop()


def start_service(data_dir: Path, *args: str, keep_api: bool = False) -> Service:
    """The sandbox (with ``args``) behind two proxies. ``keep_api``: keep every request's record, on
    both proxies (the kill tests read them; the soak keeps only counts and the requests that carried
    credentials, so the test process's memory stays the app's)."""
    api = Proxy("api", secret=DEMO_KEY, keep=keep_api, credentials_expected=True)
    signed = Proxy("signed", secret=DEMO_KEY, keep=keep_api)
    api.start()
    signed.start()
    sandbox = start_sandbox(data_dir, "--signed-base-url", signed.url, *args)
    api.forward_to(sandbox.base_url)
    signed.forward_to(sandbox.base_url)
    return Service(sandbox, api, signed)


@dataclass
class Generation:
    kind: str
    id: str
    seq: int
    text: str
    """The record's public and private JSON, to find a request's token in."""


@dataclass
class ServiceRecords:
    """Read-only views of the sandbox's database."""

    path: Path

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        conn.row_factory = sqlite3.Row
        try:
            yield conn
        finally:
            conn.close()

    def last_seq(self) -> int:
        with self._db() as db:
            row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()
            return int(row[0])

    def generations(self, after_seq: int) -> list[Generation]:
        """Work the service started since ``after_seq``: episodes that generate (not empty drafts),
        videos, shorts and voiceovers."""
        found = []
        with self._db() as db:
            rows = db.execute(
                f"SELECT kind, id, seq, data, meta FROM records WHERE seq > ? AND kind IN "
                f"({','.join('?' * len(GENERATION_KINDS))}) ORDER BY seq",
                (after_seq, *GENERATION_KINDS),
            ).fetchall()
        for row in rows:
            data = json.loads(row["data"])
            if row["kind"] == "episode" and data.get("generation") is None:
                continue
            found.append(Generation(row["kind"], row["id"], row["seq"], row["data"] + row["meta"]))
        return found

    def keys(self) -> dict[str, tuple[str, str, str | None]]:
        """Idempotency key -> (scope, state, resource id) of every keyed write the service took."""
        with self._db() as db:
            rows = db.execute("SELECT scope, key, state, resource_id FROM idempotency").fetchall()
        return {row["key"]: (row["scope"], row["state"], row["resource_id"]) for row in rows}

    def uploads(self, after_seq: int) -> list[dict[str, Any]]:
        """File sources reserved since ``after_seq`` (every state)."""
        with self._db() as db:
            rows = db.execute(
                "SELECT data FROM records WHERE kind = 'source' AND seq > ? ORDER BY seq", (after_seq,)
            ).fetchall()
        sources = [json.loads(row["data"]) for row in rows]
        return [s for s in sources if s.get("type") == "upload"]

    def completed_uploads(self, after_seq: int) -> dict[str, list[dict[str, Any]]]:
        """File name -> its sources whose upload was completed (the bytes taken in)."""
        by_name: dict[str, list[dict[str, Any]]] = {}
        for source in self.uploads(after_seq):
            if source.get("status") in UPLOADED:
                by_name.setdefault(str(source["metadata"].get("file_name")), []).append(source)
        return by_name
