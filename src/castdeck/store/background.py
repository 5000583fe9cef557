"""One database for the background work of every profile: tracked jobs and the outbox.

They live in one file so that the hand-over "the service accepted the write" -> "its job is
tracked" is one transaction (:meth:`OutboxStore.mark_sent` with ``job=``): no crash can leave a
sent entry without its job, and no repair pass is needed at start-up.

Files of earlier versions kept jobs and the outbox apart (``jobs.sqlite3``, ``outbox.sqlite3``).
Given ``legacy_dir``, a new database takes their rows once, in one transaction, and the old files
are renamed ``*.imported`` (kept, never deleted). If that fails nothing is renamed and the new
database holds none of it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from . import jobs as jobs_module
from . import outbox as outbox_module
from .jobs import JobStore
from .outbox import OutboxStore
from .sqlite import Migration, SqliteStore, StoreMigrationError

__all__ = ["LEGACY_FILES", "BackgroundStore"]

MIGRATIONS = [Migration(1, "jobs and outbox", jobs_module.SCHEMA + outbox_module.SCHEMA)]
LEGACY_FILES = {"jobs": "jobs.sqlite3", "outbox": "outbox.sqlite3"}


class BackgroundStore(SqliteStore):
    def __init__(self, path: Path | str, *, legacy_dir: Path | None = None) -> None:
        super().__init__(path, MIGRATIONS, synchronous="FULL")
        self.jobs = JobStore(shared=self)
        self.outbox = OutboxStore(shared=self, jobs=self.jobs)
        if legacy_dir is not None:
            self._import_legacy(legacy_dir)

    def _empty(self) -> bool:
        return all(
            self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0 for table in LEGACY_FILES
        )

    def _import_legacy(self, folder: Path) -> None:
        found = {table: folder / name for table, name in LEGACY_FILES.items() if (folder / name).exists()}
        if not found or not self._empty():
            return
        # Bring each old file to the current schema of its own store first (a backup is kept).
        for table, path in found.items():
            store = JobStore(path) if table == "jobs" else OutboxStore(path)
            store.close()
        with self._lock:
            try:
                for table, path in found.items():
                    self._db.execute("ATTACH DATABASE ? AS legacy", (str(path),))
                    try:
                        with self._transaction():
                            self._db.execute(
                                f"INSERT OR IGNORE INTO main.{table} SELECT * FROM legacy.{table}"
                            )
                    finally:
                        self._db.execute("DETACH DATABASE legacy")
            except sqlite3.Error as error:
                with contextlib.suppress(sqlite3.Error), self._transaction():
                    for table in LEGACY_FILES:
                        self._db.execute(f"DELETE FROM main.{table}")
                raise StoreMigrationError(
                    f"Could not bring the jobs and outbox of {folder} into {self.path} ({error}); "
                    "the old files were left as they are."
                ) from error
        for path in found.values():
            for suffix in ("", "-wal", "-shm"):
                old = path.with_name(path.name + suffix)
                if old.exists():
                    old.rename(old.with_name(old.name + ".imported"))
