"""A season of drafts sent to one podcast against the real sandbox: in order, each exactly once
under its own key, titled as its draft; refused locally when the balance cannot hold it; a refusal
that keeps its draft while the batch goes on; and a batch cut short by a lost connection and a quit
that ends, after the restart, with exactly one episode per draft."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from castdeck.services.background import Background
from castdeck.services.batch_sending import BATCH, BatchProgress, OverBalance
from castdeck.store.cache import Cache
from castdeck.store.drafts import Draft
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, until
from tests.services.test_script_sending import all_quiet, hosts_of, podcast, restarted


def season(count: int, token: str) -> list[str]:
    """``count`` short scripts, each titled by its chapter line (its draft's name)."""
    return [
        f"# {token} part {n}\n[Alex]\nWelcome to part {n} of the tides.\n\n[Priya]\nThe water turns at {n}.\n"
        for n in range(1, count + 1)
    ]


async def drafts_of(background: Background, texts: list[str]) -> list[Draft]:
    return [await background.drafts.create(text) for text in texts]


async def episodes_oldest_first(on_line: OnLine, podcast_id: str) -> list[tuple[str, str | None]]:
    listed = [e async for e in on_line.session.client.episodes.list(podcast_id=podcast_id, limit=100)]
    return [(str(e.id), e.title) for e in reversed(listed)]  # the service lists newest first


def ended(background: Background, batch_id: str) -> BatchProgress | None:
    progress = background.batches.batch(batch_id)
    return progress if progress is not None and progress.ended else None


@pytest.mark.asyncio
async def test_a_batch_goes_out_in_order_once_each_with_the_drafts_titles(on_line: OnLine) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    token = uuid.uuid4().hex[:6]
    drafts = await drafts_of(background, season(5, token))
    seen: list[str] = []
    background.batches.changed.connect(lambda p: seen.append(p.summary()))
    progress = await background.batches.send(
        [d.id for d in drafts], "import", podcast_id=show.id, render=False, hosts=hosts, balance=None
    )
    assert [item.title for item in progress.items] == [f"{token} part {n}" for n in range(1, 6)]
    done = await until(lambda: ended(background, progress.id), timeout=120)
    assert done.summary() == "5 of 5 accepted, 5 finished"
    await until(
        lambda: all(not (background.drafts.store.get(d.id) or d).options.get("title_owed") for d in drafts)
    )
    episodes = await episodes_oldest_first(on_line, show.id)
    assert [title for _id, title in episodes] == [f"{token} part {n}" for n in range(1, 6)]
    assert [item.episode_id for item in done.items] == [episode_id for episode_id, _t in episodes]
    posts = line.to("POST", "/v1/episodes/import")
    assert [s.status for s in posts] == [202] * 5
    assert len({s.idempotency_key for s in posts}) == 5  # each its own key
    assert "0 of 5 accepted" in seen[0] and any(s.startswith("3 of 5 accepted") for s in seen)
    await all_quiet(background)


@pytest.mark.asyncio
async def test_a_batch_over_the_balance_is_refused_before_anything_is_sent(on_line: OnLine) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    drafts = await drafts_of(background, season(4, uuid.uuid4().hex[:6]))
    plan = background.batches.plan(
        [await background.drafts.get(d.id) or d for d in drafts], "import", podcast_id=show.id, render=False,
        hosts=hosts, balance=0,
    )  # fmt: skip
    each = [script.credits for script in plan.ready]
    balance = each[0] + each[1] + each[2] // 2  # two fit, the third does not
    with pytest.raises(OverBalance) as refused:
        await background.batches.send(
            [d.id for d in drafts], "import", podcast_id=show.id, render=False, hosts=hosts, balance=balance
        )
    message = str(refused.value)
    assert f"{sum(each) - balance:,} more than the balance of {balance:,}" in message
    assert "the first 2 (" in message and f"{each[0] + each[1]:,} credits) fit" in message
    assert refused.value.plan.fits == 2
    assert line.to("POST", "/v1/episodes/import") == []
    assert [(await background.drafts.get(d.id) or d).state for d in drafts] == ["draft"] * 4


@pytest.mark.asyncio
async def test_a_refused_script_keeps_its_draft_and_the_batch_goes_on(on_line: OnLine) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    token = uuid.uuid4().hex[:6]
    texts = season(3, token)
    texts[1] = f"# {token} part 2\n[Alex]\nHello.\n[Nobody Known]\nA voice no host has.\n"
    drafts = await drafts_of(background, texts)
    # the hosts are not known (as offline): the service is the one to refuse the unknown label
    progress = await background.batches.send(
        [d.id for d in drafts], "import", podcast_id=show.id, render=False, hosts=None, balance=None
    )
    done = await until(lambda: ended(background, progress.id), timeout=120)
    assert done.summary() == "2 of 3 accepted, 2 finished, 1 refused"
    refused = done.items[1]
    assert refused.state == "refused" and "Nobody Known" in (refused.message or "")
    kept = await background.drafts.get(drafts[1].id)
    assert kept is not None and kept.text == texts[1] and kept.state == "draft"
    assert [title for _i, title in await episodes_oldest_first(on_line, show.id)] == [
        f"{token} part 1",
        f"{token} part 3",
    ]
    # corrected and sent alone, it counts in its batch
    fixed = texts[1].replace("Nobody Known", "Priya")
    await background.drafts.update(drafts[1].id, mapping={})
    background.drafts.edit(drafts[1].id, fixed, words=8, minutes=0.1, title=f"{token} part 2")
    await background.scripts.send(drafts[1].id, "import", podcast_id=show.id, render=False, hosts=hosts)
    again = await until(
        lambda: (p := background.batches.batch(progress.id)) and p.accepted == 3 and p, timeout=120
    )
    assert again.items[1].state in ("accepted", "finished")
    assert len(line.to("POST", "/v1/episodes/import")) == 4
    await all_quiet(background)


@pytest.mark.asyncio
async def test_a_batch_cut_off_and_quit_midway_ends_with_one_episode_per_draft(
    sandbox: RunningSandbox, on_line: OnLine, cache: Cache, tmp_path: Path
) -> None:
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    token = uuid.uuid4().hex[:6]
    drafts = await drafts_of(background, season(12, token))
    # the fifth import reaches the service, its answer is lost, and the line stays down
    accepted: list[str] = []

    def answered(entry: object, _accepted: object) -> None:
        accepted.append(str(entry))
        if len(accepted) == 4:  # before the fifth is sent (each waits for the one before)
            line.lose_answer("POST", "/v1/episodes/import", then_down=True)

    background.outbox.accepted.connect(answered)
    progress = await background.batches.send(
        [d.id for d in drafts], "import", podcast_id=show.id, render=False, hosts=hosts, balance=None
    )
    await until(lambda: any(s.fault == "lost answer" for s in line.to("POST", "/v1/episodes/import")))
    cut = background.batches.batch(progress.id)
    assert cut is not None and cut.accepted == 4 and not cut.ended
    await background.close()  # the app quits with the line down
    line.up()
    async with restarted(sandbox, cache, line, tmp_path) as (_session, again):
        done = await until(lambda: ended(again, progress.id), timeout=180)
        assert done.summary() == "12 of 12 accepted, 12 finished"
        await until(lambda: all(TITLE not in (again.drafts.store.get(d.id) or d).options for d in drafts))
        episodes = await episodes_oldest_first(on_line, show.id)
        assert [title for _i, title in episodes] == [f"{token} part {n}" for n in range(1, 13)]
        posts = line.to("POST", "/v1/episodes/import")
        assert len({s.idempotency_key for s in posts}) == 12  # the lost one was resent under its own key
        (lost,) = [s for s in posts if s.fault == "lost answer"]
        # resent under that key once the line is back (a resend racing the reconnection's own is
        # answered by the service with the same episode)
        assert {s.status for s in posts if s.idempotency_key == lost.idempotency_key and s.status} == {202}
        assert all((again.drafts.store.get(d.id) or d).options[BATCH]["id"] == progress.id for d in drafts)
        await all_quiet(again)


TITLE = "title_owed"


@pytest.mark.asyncio
async def test_a_generated_batch_stopped_midway_goes_on_after_a_restart_without_the_hosts(
    sandbox: RunningSandbox, on_line: OnLine, cache: Cache, tmp_path: Path
) -> None:
    """Generate needs every label's host: the plan pins the hosts the check found (by name here),
    so the drafts whose turn comes after a restart go out before any host list is read again."""
    background, line = on_line.background, on_line.line
    show, hosts = await podcast(on_line), await hosts_of(on_line)
    token = uuid.uuid4().hex[:6]
    names = [h.name for h in hosts[:2]]
    texts = [
        f"# {token} part {n}\n[{names[0]}]\nPart {n} begins.\n\n[{names[1]}]\nAnd ends.\n" for n in (1, 2, 3)
    ]
    drafts = await drafts_of(background, texts)
    line.hold_requests("POST", "/v1/episodes/generate")  # the first waits on the line: nothing is answered
    progress = await background.batches.send(
        [d.id for d in drafts], "generate", podcast_id=show.id, render=False, hosts=hosts, balance=None
    )
    stored = [background.drafts.store.get(d.id) for d in drafts]
    assert all(d is not None and set(d.mapping) == set(names) for d in stored)  # the hosts pinned
    await until(lambda: line.holding.is_set())
    await background.close()  # quit with the first request on the line
    line.release()
    async with restarted(sandbox, cache, line, tmp_path) as (_session, again):
        done = await until(lambda: ended(again, progress.id), timeout=180)
        assert done.summary() == "3 of 3 accepted, 3 finished"
        await until(lambda: all(TITLE not in (again.drafts.store.get(d.id) or d).options for d in drafts))
        assert [t for _i, t in await episodes_oldest_first(on_line, show.id)] == [
            f"{token} part {n}" for n in (1, 2, 3)
        ]
        posts = line.to("POST", "/v1/episodes/generate")
        assert len({s.idempotency_key for s in posts}) == 3
        await all_quiet(again)
