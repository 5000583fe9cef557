"""What every store shares: one SQLite file, a lock around the connection, short transactions.

The connection is used from the services' worker thread and the event loop's thread, so every use
holds ``self._lock``; ``self._transaction()`` groups several statements into one atomic write.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SqliteStore"]


class SqliteStore:
    def __init__(self, path: Path | str, schema: str, *, synchronous: str = "NORMAL") -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.executescript(schema)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def limit_size(self, extra_pages: int | None) -> None:
        """Let the file grow by at most ``extra_pages`` pages from now (``None``: no limit again).
        Past it, SQLite answers "database or disk is full", as on a full disk (fault tests)."""
        with self._lock:
            if extra_pages is None:
                self._db.execute("PRAGMA max_page_count = 1073741823")
            else:
                pages = int(self._db.execute("PRAGMA page_count").fetchone()[0])
                self._db.execute(f"PRAGMA max_page_count = {pages + int(extra_pages)}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One atomic write (the caller holds the lock)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            # SQLite may have rolled back already (a full disk does): keep the real error.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
