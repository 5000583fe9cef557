"""Helpers of the media preview tests: the media panes at screenshot size, finished items of the
sandbox whose file can be downloaded, and the sandbox's own record of a file (to make it answer
``preparing`` for as long as a test needs, as it does while a file is still being rendered)."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from contextlib import closing
from typing import Any

from pytestqt.qtbot import QtBot

from castdeck.api.models import MediaJob
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.panes.media import MediaPane
from tests import runner as work
from tests.conftest import DEMO_KEY, RunningSandbox, wait_for
from tests.gui.conftest import until

TIDAL = "How Tidal Power Works"  # a seeded finished video (the sandbox renders its file after starting)


async def open_media_pane(
    qtbot: QtBot, session: Session, background: Background, cls: type[MediaPane]
) -> MediaPane:
    pane = cls(session, background)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    await until(lambda: pane.model.rowCount() > 0)
    await pane.model.wait_idle()
    while pane.model.canFetchMore():
        pane.model.fetchMore()
        await pane.model.wait_idle()
    return pane


def item_titled(pane: MediaPane, title: str) -> MediaJob:
    return next(job for job in pane.model.items if job.title == title)


async def select(pane: MediaPane, job_id: str) -> None:
    assert pane.select_id(job_id), job_id
    await until(lambda: pane.current is not None and str(pane.current.id) == job_id)


def downloadable(sandbox: RunningSandbox, collection: str, title: str) -> dict[str, Any]:
    """The seeded finished item called ``title``, once the sandbox offers its file."""
    api = sandbox.client(DEMO_KEY)
    items = api.get(f"/v1/{collection}", params={"limit": 100}).json()["data"]
    item: dict[str, Any] = next(i for i in items if i["title"] == title)

    def offered() -> bool:
        answer = api.get(f"/v1/{collection}/{item['id']}/download").json()["data"]
        return bool(answer["delivery"]["kind"] == "available")

    wait_for(offered, timeout=120)
    return item


def finished_video(sandbox: RunningSandbox, prompt: str) -> dict[str, Any]:
    """A video of the test's own, generated to its end, whose file can be downloaded."""
    api = sandbox.client(DEMO_KEY)
    made = api.post(
        "/v1/videos", json={"prompt": f"{prompt} {uuid.uuid4().hex[:8]}"},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )  # fmt: skip
    assert made.status_code == 202, made.text
    video_id = made.json()["data"]["id"]

    def offered() -> dict[str, Any] | None:
        answer = api.get(f"/v1/videos/{video_id}/download").json()["data"]
        if answer["delivery"]["kind"] != "available":
            return None
        data: dict[str, Any] = api.get(f"/v1/videos/{video_id}").json()["data"]
        return data

    return wait_for(offered, timeout=180)  # type: ignore[no-any-return]


def set_file_record(sandbox: RunningSandbox, kind: str, media_id: str, **changes: Any) -> None:
    """Change what the sandbox keeps about an item's file (``ready_at``: until when it is still
    being prepared, ``preparing_reason``). The sandbox reads the record anew for every request."""
    with closing(sqlite3.connect(sandbox.data_dir / "sandbox.sqlite3", timeout=30)) as db:
        (meta,) = db.execute(
            "SELECT meta FROM records WHERE kind = ? AND id = ?", (kind, media_id)
        ).fetchone()
        kept = json.loads(meta)
        kept.update(changes)
        db.execute(
            "UPDATE records SET meta = ? WHERE kind = ? AND id = ?", (json.dumps(kept), kind, media_id)
        )
        db.commit()


def hold_preparing(sandbox: RunningSandbox, media_id: str, reason: str = "ingest") -> None:
    set_file_record(sandbox, "video", media_id, ready_at=time.time() + 3600, preparing_reason=reason)


def release_preparing(sandbox: RunningSandbox, media_id: str) -> None:
    set_file_record(sandbox, "video", media_id, ready_at=0)


async def work_done(name: str, timeout: float = 60.0) -> None:
    """Until no task of this name runs (what the test started has ended, whichever way)."""
    await until(lambda: not [t for t in work.pending() if t.get_name() == name], timeout=timeout)


async def quiet_but_reconnecting(timeout: float = 30.0) -> None:
    """Until nothing runs but the session's probe for the service (offline, it keeps trying)."""
    await until(
        lambda: {t.get_name() for t in work.pending(followers=False)} <= {"reconnect"}, timeout=timeout
    )
