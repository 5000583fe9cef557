"""What a job's end says where there is no tray: one sentence, not a title and a text run together
("Voiceover finished: “Walk through…” has finished.")."""

from __future__ import annotations

from castdeck.store.jobs import Job
from castdeck.ui.jobs.notifier import Notification, job_notification


def test_a_finished_job_reads_as_one_sentence() -> None:
    note = job_notification(Job("Sandbox", "video", "v1", title="Tide clocks", state="completed"))
    assert (note.title, note.text) == (
        "Video finished",
        "“Tide clocks” has finished.",
    )  # the tray's two parts
    assert note.one_line == "Video “Tide clocks” has finished."
    source = job_notification(Job("Sandbox", "source", "s1", title="Handout.pdf", state="completed"))
    assert source.one_line == "Source “Handout.pdf” is ready to use."
    untitled = job_notification(Job("Sandbox", "short", "s2", state="completed"))
    assert untitled.one_line == "Short has finished."


def test_a_failed_job_says_what_failed_and_why() -> None:
    note = job_notification(
        Job("Sandbox", "episode", "e1", title="Storm season", state="failed", error="no credits")
    )
    assert note.failed and note.title == "Episode failed"
    assert note.one_line == "Episode “Storm season” failed: no credits"
    assert (
        job_notification(Job("Sandbox", "video", "v2", state="failed")).one_line
        == "Video failed: no reason given"
    )


def test_a_note_without_its_own_line_joins_its_title_and_text() -> None:
    assert Notification("Not started", "“Tides”: refused", True).one_line == "Not started: “Tides”: refused"
