"""Import and generate from a draft through the outbox, against the real sandbox: exactly once, a
refusal that keeps the draft and names what to fix, and spec 4.2's idempotency key reuse or renewal."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from castdeck.api.models import Podcast
from castdeck.scripts import HostRef
from castdeck.services.background import Background
from castdeck.services.script_sending import TITLE_OWED, NotReady, Refusal
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from castdeck.store.drafts import Draft
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import new_podcast, session_through
from tests.helpers import Line

SCRIPT = "# Slack water\n[Alex]\nWelcome back to the show.\n\n[Priya]\nToday: the pause between tides.\n"


async def hosts_of(on_line: OnLine) -> list[HostRef]:
    return [HostRef(h.id, h.name or h.id) async for h in on_line.session.client.hosts.list(limit=100)]


async def podcast(on_line: OnLine) -> Podcast:
    return await new_podcast(on_line.session, f"Scripts {uuid.uuid4().hex[:6]}")


async def settled(background: Background, draft_id: str, state: str) -> Draft:
    """The draft once it reaches ``state`` (read from the drafts file)."""

    def reached() -> Draft | None:
        draft = background.drafts.store.get(draft_id)
        return draft if draft is not None and draft.state == state else None

    found: Draft = await until(reached)
    return found


async def all_quiet(background: Background, *, titles: bool = True) -> None:
    """The end of a test that had an episode accepted: its job is followed to its end (each poll's
    answer is stored by a task of its own) and the draft's title given, then nothing runs."""
    await until(lambda: background.jobs.following == 0, timeout=60)

    def owed() -> list[str]:
        return [d.id for d in background.drafts.store.list_drafts() if TITLE_OWED in d.options]

    if titles:  # (not where the test keeps a title owed on purpose)
        await until(lambda: not owed(), timeout=60)
    await quiet()


@contextlib.asynccontextmanager
async def restarted(
    sandbox: RunningSandbox, cache: Cache, line: Line, tmp_path: Path
) -> AsyncIterator[tuple[Session, Background]]:
    """The app started again on the same folders, its requests on the same line; closed at the end."""
    session = await session_through(sandbox.base_url, cache, line)
    again = Background(session, tmp_path / "background", drafts_dir=tmp_path / "drafts")
    try:
        again.start()
        yield session, again
    finally:
        await again.close()
        await session.close()


async def episodes_of(on_line: OnLine, podcast_id: str) -> list[str]:
    return [str(e.id) async for e in on_line.session.client.episodes.list(podcast_id=podcast_id)]


@pytest.mark.asyncio
async def test_an_import_goes_out_once_and_the_draft_links_its_episode(on_line: OnLine) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create(SCRIPT)
    queued = await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    assert queued.state == "queued" and queued.outbox_entry
    done = await settled(background, draft.id, "imported")
    assert done.episode_id == (await episodes_of(on_line, show.id))[0]
    assert [s.status for s in line.to("POST", "/v1/episodes/import")] == [202]
    assert [s.reason for s in await background.drafts.history(draft.id)] == ["before_import"]
    # the episode carries the draft's title, given once, not its first spoken words
    await until(lambda: TITLE_OWED not in (background.drafts.store.get(draft.id) or done).options)
    assert draft.title == "Slack water"
    assert (await on_line.session.client.episodes.get(done.episode_id)).title == "Slack water"
    assert [s.status for s in line.to("PATCH", f"/v1/episodes/{done.episode_id}")] == [200]
    await all_quiet(background)


@pytest.mark.asyncio
async def test_a_title_the_service_could_not_take_is_given_at_the_next_start(
    sandbox: RunningSandbox, on_line: OnLine, cache, tmp_path: Path
) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create(
        "# Why rivers bend\n[Alex]\nWelcome back.\n[Priya]\nWater is lazy.\n"
    )
    line.fail_next("PATCH", "", 503)  # the title's request fails once (it is not repeated by itself)
    await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    done = await settled(background, draft.id, "imported")
    await until(lambda: line.to("PATCH"))
    await all_quiet(background, titles=False)  # the title stays owed: that is the point
    assert (background.drafts.store.get(draft.id) or done).options.get(TITLE_OWED) is True  # still owed
    await background.close()
    # started again: what is owed is given once the outbox's first round is done
    async with restarted(sandbox, cache, line, tmp_path) as (session, again):
        await until(lambda: TITLE_OWED not in (again.drafts.store.get(draft.id) or done).options)
        assert (await session.client.episodes.get(done.episode_id or "")).title == "Why rivers bend"
        assert [s.status for s in line.to("PATCH", f"/v1/episodes/{done.episode_id}")] == [503, 200]
        assert len(await episodes_of(on_line, show.id)) == 1
        await all_quiet(again)


@pytest.mark.asyncio
async def test_unresolved_speakers_keep_the_draft_and_the_fixed_import_reuses_the_key(
    on_line: OnLine,
) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    text = "[Alex]\nHello.\n[The Narrator]\nOnce upon a tide.\n"
    draft = await background.drafts.create(text)
    # the hosts are not known here (as offline), so the service is the one to say it
    refusals: list[Refusal] = []
    background.scripts.refused.connect(refusals.append)
    await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=None)
    await until(lambda: refusals)
    (refusal,) = refusals
    assert (
        refusal.speakers == ["The Narrator"]
        and refusal.status == 422
        and refusal.reason == "unresolved_speakers"
    )
    assert refusal.reuse_key  # spec 4.2: the service said recovery.idempotency_key = reuse
    kept = await background.drafts.get(draft.id)
    assert kept is not None and (kept.state, kept.text) == ("draft", text)
    assert kept.problem is not None and kept.problem["speakers"] == ["The Narrator"]
    first_key = line.to("POST", "/v1/episodes/import")[0].idempotency_key
    assert kept.retry_key == first_key
    # the local check names the label too, once the hosts are known
    with pytest.raises(NotReady) as not_ready:
        background.scripts.check(kept, "import", podcast_id=show.id, render=False, hosts=hosts)
    assert not_ready.value.labels == ["The Narrator"]
    oliver = next(h for h in hosts if h.name == "Oliver Grant")
    await background.drafts.update(draft.id, mapping={"The Narrator": oliver.id})
    await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    done = await settled(background, draft.id, "imported")
    sent = line.to("POST", "/v1/episodes/import")
    assert [s.status for s in sent] == [422, 202]
    assert sent[1].idempotency_key == first_key  # the corrected input under the same key
    assert done.episode_id and done.retry_key is None
    await all_quiet(background)


@pytest.mark.asyncio
async def test_content_the_speech_provider_rejects_is_said_and_the_draft_stays(on_line: OnLine) -> None:
    background = on_line.background
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create("[Alex]\nThis line [sandbox:reject] will not do.\n")
    refusals: list[Refusal] = []
    background.scripts.refused.connect(refusals.append)
    await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    await until(lambda: refusals)
    assert refusals[0].status == 422 and "speech provider rejected" in refusals[0].message
    kept = await background.drafts.get(draft.id)
    assert kept is not None and kept.state == "draft" and "[sandbox:reject]" in kept.text
    assert await episodes_of(on_line, show.id) == []
    await quiet()


@pytest.mark.asyncio
async def test_a_409_under_a_used_key_makes_the_next_attempt_use_a_new_key(on_line: OnLine) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    first = await background.drafts.create(SCRIPT)
    await background.scripts.send(first.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    await settled(background, first.id, "imported")
    used = line.to("POST", "/v1/episodes/import")[0].idempotency_key
    # a draft told to reuse a key the service already holds for other input
    other = await background.drafts.create("[Alex]\nSomething else entirely.\n")
    await background.drafts.update(other.id, retry_key=used, retry_kind="episode_import")
    refusals: list[Refusal] = []
    background.scripts.refused.connect(refusals.append)
    await background.scripts.send(other.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    await until(lambda: refusals)
    assert refusals[0].status == 409 and not refusals[0].reuse_key  # recovery.idempotency_key = new
    kept = await background.drafts.get(other.id)
    assert kept is not None and kept.retry_key is None and kept.state == "draft"
    await background.scripts.send(other.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    await settled(background, other.id, "imported")
    sent = line.to("POST", "/v1/episodes/import")
    assert [s.status for s in sent] == [202, 409, 202]
    assert sent[1].idempotency_key == used and sent[2].idempotency_key not in (used, None)
    assert len(await episodes_of(on_line, show.id)) == 2
    # the two imports' jobs are still polled and each answer is stored by a task of its own: wait
    # until they end, else a poll answered after quiet() leaves a task running at teardown
    await until(lambda: background.jobs.following == 0)
    await quiet()


@pytest.mark.asyncio
async def test_generate_from_a_script_sends_the_structured_form(on_line: OnLine) -> None:
    background = on_line.background
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create(SCRIPT + "# Second\n[Maya]\nAnd the moon.\n")
    with pytest.raises(NotReady, match="Choose the podcast"):
        background.scripts.check(draft, "generate", podcast_id=None, render=False, hosts=hosts)
    await background.scripts.send(draft.id, "generate", podcast_id=show.id, render=True, hosts=hosts)
    done = await settled(background, draft.id, "generated")
    assert done.episode_id is not None
    given = await until(
        lambda: (d := background.drafts.store.get(draft.id)) and TITLE_OWED not in d.options and d
    )
    assert given.options == {"podcast_id": show.id, "render": True}
    episode = await on_line.session.client.episodes.get(done.episode_id)
    assert episode.title == "Slack water"  # the draft's, not the script's first words
    by_name = {h.name: h.id for h in hosts}
    assert set(episode.host_ids or []) == {
        by_name["Alex Rivera"],
        by_name["Priya Natarajan"],
        by_name["Dr. Maya Chen"],
    }
    await all_quiet(background)


@pytest.mark.asyncio
async def test_queued_offline_then_sent_once_on_reconnect(on_line: OnLine) -> None:
    background, line, session = on_line.background, on_line.line, on_line.session
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create(SCRIPT)
    line.down()
    queued = await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    await until(lambda: line.to("POST", "/v1/episodes/import") and not session.online)
    entry = background.outbox.get(queued.outbox_entry or "")
    assert entry is not None and entry.unsent
    assert (await background.drafts.get(draft.id)).state == "queued"
    line.up()  # the session's probe reconnects; the outbox sends what waited
    await settled(background, draft.id, "imported")
    sent = line.to("POST", "/v1/episodes/import")
    assert [s.fault for s in sent] == ["down", None] and sent[-1].status == 202
    assert len({s.idempotency_key for s in sent}) == 1
    assert len(await episodes_of(on_line, show.id)) == 1
    await all_quiet(background)


@pytest.mark.asyncio
async def test_a_queued_draft_is_settled_after_a_restart(
    sandbox: RunningSandbox, on_line: OnLine, cache, tmp_path: Path
) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create(SCRIPT)
    line.down()
    queued = await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    # the attempt failed and was recorded: the request waits in the outbox with its key
    await until(
        lambda: (e := background.outbox.get(queued.outbox_entry or "")) and e.attempts == 1 and e.unsent
    )
    await background.close()  # the app quits with the request unanswered
    line.up()
    # started again: the queued draft is followed, the outbox sends the request with its key
    async with restarted(sandbox, cache, line, tmp_path) as (_session, again):
        await settled(again, draft.id, "imported")
        assert [s.status for s in line.to("POST", "/v1/episodes/import")] == [None, 202]
        assert len(await episodes_of(on_line, show.id)) == 1
        await all_quiet(again)


@pytest.mark.asyncio
async def test_an_answer_arriving_while_the_app_closes_is_settled_at_the_next_start(
    sandbox: RunningSandbox, on_line: OnLine, cache, tmp_path: Path
) -> None:
    """The soak's quit found a request answered after the drafts had closed: settling its draft
    asked the closed drafts thread for a write ("cannot schedule new futures after shutdown")."""
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    draft = await background.drafts.create(SCRIPT)
    line.down()
    queued = await background.scripts.send(draft.id, "import", podcast_id=show.id, render=False, hosts=hosts)
    entry_id = queued.outbox_entry or ""
    await until(lambda: (e := background.outbox.get(entry_id)) and e.attempts == 1 and e.unsent)
    await background.scripts.close()  # the app is closing: the drafts close next
    await background.drafts.close()
    line.up()
    flushing = background.outbox.flush()  # the request is answered while the rest still closes
    assert flushing is not None
    await flushing
    assert background.outbox.get(entry_id).state == "sent"  # type: ignore[union-attr]
    await background.close()
    # started again: the queued draft hears how its request ended
    async with restarted(sandbox, cache, line, tmp_path) as (_session, again):
        done = await settled(again, draft.id, "imported")
        assert done.episode_id == (await episodes_of(on_line, show.id))[0]
        assert [s.status for s in line.to("POST", "/v1/episodes/import")] == [None, 202]
        await all_quiet(again)


def test_a_script_request_is_named_on_its_card_by_its_first_chapter() -> None:
    from castdeck.services.outbox_names import title_of
    from castdeck.store.outbox import OutboxStore

    imported = OutboxStore.new_entry("p", "episode_import", {"podcast_id": "x", "script": SCRIPT}, "k1")
    generated = OutboxStore.new_entry(
        "p", "episode_generate",
        {"podcast_id": "x", "script": {"chapters": [{"title": "Harbour", "segments": []}]}}, "k2",
    )  # fmt: skip
    untitled = OutboxStore.new_entry("p", "episode_import", {"podcast_id": "x", "script": "[A]\nhi"}, "k3")
    assert [title_of(e) for e in (imported, generated, untitled)] == [
        "Episode: Slack water", "Episode: Harbour", "New episode",
    ]  # fmt: skip
