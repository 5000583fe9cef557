"""Source jobs: extract an uploaded or linked source's text and metadata, off the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

from .clock import CLOCK
from .db import Record
from .extract import process_source
from .jobs_base import JobBase

__all__ = ["SourceJobs"]


class SourceJobs(JobBase):
    """The runner's source-processing jobs."""

    # sources --------------------------------------------------------------------------------------------------------
    async def _source(self, job_id: str, spec: dict[str, Any]) -> None:
        source_id = spec["source_id"]
        await CLOCK.sleep(self.settings.scaled(3))
        record = self.db.get("source", source_id)
        if record is None:
            self.db.finish_job(job_id)
            return
        outcome = await asyncio.to_thread(
            process_source, record, self.sandbox.file_path(f"uploads/{record.id}")
        )

        def apply(rec: Record) -> None:
            error, metadata, text = outcome
            rec.data["status"] = "error" if error else "completed"
            rec.data["error_message"] = error
            merged = dict(rec.data.get("metadata") or {})
            merged.update(metadata)
            rec.data["metadata"] = merged
            if text is not None:
                rec.meta["text"] = text

        with self.db.transaction():
            self._update("source", source_id, apply)
            self.db.finish_job(job_id)
