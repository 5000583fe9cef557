"""What every store shares: one SQLite file, a lock around the connection, short transactions, and
a schema version with numbered migrations.

The connection is used from the services' worker thread and the event loop's thread, so every use
holds ``self._lock``; ``self._transaction()`` groups several statements into one atomic write.

Every file carries its schema version in ``PRAGMA user_version``. At open, the migrations newer
than the file's version run in order inside ONE transaction that also sets the new version: they
all happen or none does. A file that already holds data is copied aside first
(``<name>.v<old>.bak``). A file written by a newer Castdeck (a version this code does not know) is
refused with :class:`StoreTooNewError` and left untouched. Version 1 of each store is the schema
files were written with before versions existed (``CREATE ... IF NOT EXISTS``), so such a file
adopts version 1 as it is.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Migration", "SqliteStore", "StoreError", "StoreMigrationError", "StoreTooNewError"]


class StoreError(Exception):
    """A local data file cannot be used as it is."""


class StoreTooNewError(StoreError):
    """The file was written by a newer Castdeck; it was left untouched."""

    def __init__(self, path: Path | None, found: int, known: int) -> None:
        self.path, self.found, self.known = path, found, known
        super().__init__(
            f"{path or 'The database'} was written by a newer Castdeck (schema {found}; this version "
            f"understands up to {known}). Update Castdeck to open it; the file was left as it is."
        )


class StoreMigrationError(StoreError):
    """A migration failed; the file was left at its old version with its data."""


@dataclass(frozen=True)
class Migration:
    """One numbered step: SQL text, or a function of the connection (inside the transaction)."""

    version: int
    name: str
    apply: str | Callable[[sqlite3.Connection], None]


def _run(db: sqlite3.Connection, step: str | Callable[[sqlite3.Connection], None]) -> None:
    if callable(step):
        step(db)
        return
    for statement in step.split(";"):
        if statement.strip():
            db.execute(statement)


class SqliteStore:
    def __init__(
        self,
        path: Path | str,
        migrations: str | Sequence[Migration],
        *,
        synchronous: str = "NORMAL",
    ) -> None:
        if isinstance(migrations, str):
            migrations = [Migration(1, "schema", migrations)]
        self.migrations = sorted(migrations, key=lambda m: m.version)
        self.path = Path(path) if str(path) != ":memory:" else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        try:
            self._check_version()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @property
    def schema_version(self) -> int:
        return self.migrations[-1].version if self.migrations else 0

    def _version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _check_version(self) -> None:
        found = self._version()
        if found > self.schema_version:
            raise StoreTooNewError(self.path, found, self.schema_version)

    def _migrate(self) -> None:
        found = self._version()
        steps = [m for m in self.migrations if m.version > found]
        if not steps:
            return
        has_data = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
        if has_data and self.path is not None:
            backup = self.path.with_name(f"{self.path.name}.v{found}.bak")
            if not backup.exists():
                with contextlib.closing(sqlite3.connect(str(backup))) as copy:
                    self._db.backup(copy)
        current = None
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for current in steps:
                _run(self._db, current.apply)
            self._db.execute(f"PRAGMA user_version = {steps[-1].version}")
            self._db.execute("COMMIT")
        except Exception as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            name = f"{current.version} ({current.name})" if current is not None else "?"
            raise StoreMigrationError(
                f"{self.path or 'The database'}: migration {name} failed ({error}); the file was left at "
                f"schema {found} with its data."
            ) from error

    def _share(self, owner: SqliteStore) -> None:
        """Use ``owner``'s file, connection and lock (tables of one database, written together)."""
        self.path, self.migrations = owner.path, owner.migrations
        self._lock, self._db = owner._lock, owner._db
        self._owner: SqliteStore | None = owner

    def close(self) -> None:
        if getattr(self, "_owner", None) is not None:
            return  # the owner closes the shared connection
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
