"""The drafts service: autosave within its promise, recovery after a run that never ended, files
opened and saved atomically without overwriting changes made elsewhere, and a full disk."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from castdeck.scripts import HostRef
from castdeck.services import drafts as drafts_module
from castdeck.services.drafts import Drafts, FileChangedError
from castdeck.store.script_files import ScriptFileError
from tests.gui.conftest import until
from tests.runner import RUNTIME


class Monotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def drafts(tmp_path: Path) -> AsyncIterator[Drafts]:
    opened = Drafts(tmp_path / "drafts", runtime=RUNTIME)
    yield opened
    await opened.close()


def edit(drafts: Drafts, draft_id: str, text: str) -> None:
    drafts.edit(draft_id, text, words=len(text.split()), minutes=0.0, title="T")


@pytest.mark.asyncio
async def test_changes_are_saved_by_themselves_within_the_promise(
    drafts: Drafts, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Monotonic()
    monkeypatch.setattr(drafts_module.time, "monotonic", clock)
    draft = await drafts.create("[Alex]\nHi.\n")
    saved: list[int] = []
    drafts.saved.connect(lambda d: saved.append(d.revision))
    edit(drafts, draft.id, "[Alex]\nHi there.\n")
    assert 0 < drafts._timer.remainingTime() <= round(drafts.idle * 1000)
    # typing goes on: the save is never pushed later than the first change plus the longest wait
    clock.now += 1.2
    edit(drafts, draft.id, "[Alex]\nHi there, all.\n")
    assert drafts._timer.remainingTime() <= round((drafts.longest - 1.2) * 1000)
    assert drafts.longest + 0.5 <= 2.0  # the promise: within 2 s, with room for the write itself
    assert (await drafts.get(draft.id)).text == "[Alex]\nHi there, all.\n"  # unsaved text is not hidden
    await until(lambda: saved)
    assert saved == [2] and not drafts.unsaved
    stored = drafts.store.get(draft.id)
    assert stored is not None and stored.text == "[Alex]\nHi there, all.\n"


@pytest.mark.asyncio
async def test_a_run_that_never_ended_is_offered_at_the_next_start(tmp_path: Path) -> None:
    first = Drafts(tmp_path / "drafts", runtime=RUNTIME)
    draft = await first.create("[Alex]\nHi.\n")
    await first.set_open(draft.id)
    edit(first, draft.id, "[Alex]\nHi, typed just before the crash.\n")
    await first.flush()
    # the next start: the first run's process is gone (it never closed)
    second = Drafts(tmp_path / "drafts", alive=lambda pid: False, runtime=RUNTIME)
    assert [(r.draft_id, r.title) for r in second.recovered] == [(draft.id, "T")]
    recovered = await second.get(draft.id)
    assert recovered is not None and recovered.text == "[Alex]\nHi, typed just before the crash.\n"
    # offered once: the run is settled now
    third = Drafts(tmp_path / "drafts", alive=lambda pid: False, runtime=RUNTIME)
    assert third.recovered == []
    # a run that closed is never offered, nor one whose process still runs
    await first.close()
    fourth = Drafts(tmp_path / "drafts", alive=lambda pid: True, runtime=RUNTIME)
    assert fourth.recovered == []
    for opened in (second, third, fourth):
        await opened.close()


@pytest.mark.asyncio
async def test_text_files_open_and_save_atomically(drafts: Drafts, tmp_path: Path) -> None:
    path = tmp_path / "episode.md"
    path.write_text("# Opening\n[Alex]\nHi.\n", encoding="utf-8")
    draft, notes = await drafts.open_file(path)
    assert (draft.title, draft.text, notes) == ("episode.md", "# Opening\n[Alex]\nHi.\n", [])
    again, _ = await drafts.open_file(path)
    assert again.id == draft.id  # the same unchanged file: the same draft
    edit(drafts, draft.id, "# Opening\n[Alex]\nHi, edited.\n")
    await drafts.save_file(draft.id)
    assert path.read_text(encoding="utf-8") == "# Opening\n[Alex]\nHi, edited.\n"
    # someone else changes the file: it is not silently overwritten
    path.write_text("# Opening\n[Alex]\nChanged in another editor.\n", encoding="utf-8")
    assert await drafts.file_changed(draft.id)
    edit(drafts, draft.id, "# Opening\n[Alex]\nMine.\n")
    with pytest.raises(FileChangedError):
        await drafts.save_file(draft.id)
    assert path.read_text(encoding="utf-8") == "# Opening\n[Alex]\nChanged in another editor.\n"
    await drafts.save_file(draft.id, overwrite=True)
    assert path.read_text(encoding="utf-8") == "# Opening\n[Alex]\nMine.\n"
    assert not await drafts.file_changed(draft.id)


@pytest.mark.asyncio
async def test_structured_files_open_as_text_and_save_back(drafts: Drafts, tmp_path: Path) -> None:
    source = tmp_path / "script.json"
    source.write_text(json.dumps({"chapters": [{"title": "One", "segments": [
        {"host_id": "a1", "text": "Hi."}, {"host_id": "m1", "text": "Hello."}]}]}))  # fmt: skip
    hosts = [HostRef("a1", "Alex Rivera"), HostRef("m1", "Maya Chen")]
    draft, notes = await drafts.open_file(source, hosts)
    assert draft.text == "# One\n\n[Alex Rivera]\nHi.\n\n[Maya Chen]\nHello.\n" and notes == []
    assert draft.mapping == {"Alex Rivera": "a1", "Maya Chen": "m1"}
    out = tmp_path / "again.json"
    await drafts.save_file(draft.id, out)
    assert json.loads(out.read_text()) == json.loads(source.read_text())
    edit(drafts, draft.id, draft.text + "\n[Sam]\nWho am I?\n")
    with pytest.raises(ScriptFileError, match="not mapped: Sam"):
        await drafts.save_file(draft.id, tmp_path / "third.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"chapters": 5}')
    with pytest.raises(ScriptFileError, match="not a structured script"):
        await drafts.open_file(bad)
    with pytest.raises(ScriptFileError, match=r"opens \.txt, \.md and \.json"):
        await drafts.open_file(tmp_path / "notes.docx")


@pytest.mark.asyncio
async def test_a_full_disk_keeps_the_text_and_tries_again(drafts: Drafts) -> None:
    draft = await drafts.create("[Alex]\nHi.\n")
    failures: list[str] = []
    drafts.saveFailed.connect(lambda _id, message: failures.append(message))
    drafts.store.limit_size(0)
    edit(drafts, draft.id, "[Alex]\nHi.\n" + "A long line. " * 2000)
    await until(lambda: failures)
    assert "Could not save the draft" in failures[0] and drafts.unsaved
    with pytest.raises(OSError, match="could not be saved"):
        await drafts.flush()
    drafts.store.limit_size(None)
    await drafts.flush()
    stored = drafts.store.get(draft.id)
    assert stored is not None and stored.text.endswith("A long line. ")
