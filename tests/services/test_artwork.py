"""Pictures kept for offline use: fetched once however many ask together, never with the API key,
checked to be pictures, and read from this computer when the service cannot be reached."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from castdeck.api.models import Podcast
from castdeck.services.artwork import Artwork, PictureUnavailable, picture_key, sniff_picture
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from tests.conftest import RunningSandbox
from tests.gui.conftest import settle
from tests.gui.helpers import session_through
from tests.helpers import Line


async def a_cover(session: Session) -> str:
    async for podcast in session.client.podcasts.list(limit=100):
        if isinstance(podcast, Podcast) and podcast.image_url:
            return podcast.image_url
    raise AssertionError("the sandbox seeds podcast covers")


def test_a_picture_is_known_by_its_address_without_the_signature() -> None:
    assert picture_key("https://cdn.example/a/cover.jpg?X-Sig=1&exp=2") == picture_key(
        "https://cdn.example/a/cover.jpg?X-Sig=9&exp=7"
    )
    assert picture_key("https://cdn.example/a/cover.jpg") != picture_key("https://cdn.example/b/cover.jpg")
    assert sniff_picture(b"\x89PNG\r\n\x1a\n....") == "png"
    assert sniff_picture(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "webp"
    assert sniff_picture(b"\xff\xd8\xff\xe0") == "jpg"
    assert sniff_picture(b'{"openapi": "3.1.0"}') is None


@pytest.mark.asyncio
async def test_many_asks_fetch_once_without_the_key_and_offline_reads_the_kept_file(
    sandbox: RunningSandbox, cache: Cache, tmp_path: Path
) -> None:
    line = Line()
    session = await session_through(sandbox.base_url, cache, line, signed_too=True)
    try:
        artwork = Artwork(session, tmp_path / "pictures")
        url = await a_cover(session)
        paths = await asyncio.gather(*(artwork.fetch(url) for _ in range(6)))
        assert len(set(paths)) == 1 and paths[0].read_bytes()[:3] == b"\xff\xd8\xff"
        sent = line.to("GET", "/cover.jpg")
        assert len(sent) == 1 and artwork.fetches == 1

        line.down()
        session.went_offline("test: the network is down")
        again = Artwork(session, tmp_path / "pictures")  # a later start: only the files remain
        assert await again.fetch(url) == paths[0]
        assert len(line.to("GET", "/cover.jpg")) == 1
        with pytest.raises(PictureUnavailable, match="Offline"):
            await again.fetch(url.replace("cover.jpg", "other.jpg"))
        with pytest.raises(PictureUnavailable, match="not a web address"):
            await again.fetch("file:///etc/passwd")
    finally:
        line.up()
        await settle()
        await session.close()


@pytest.mark.asyncio
async def test_a_file_that_is_no_picture_is_not_kept(
    sandbox: RunningSandbox, session: Session, tmp_path: Path
) -> None:
    artwork = Artwork(session, tmp_path / "pictures")
    with pytest.raises(PictureUnavailable, match="does not hold a picture"):
        await artwork.fetch(f"{sandbox.base_url}/openapi.json")
    assert list((tmp_path / "pictures").iterdir()) == []


@pytest.mark.asyncio
async def test_askers_cancelled_together_all_stop_and_none_fetches_again(
    sandbox: RunningSandbox, cache: Cache, tmp_path: Path
) -> None:
    """A pane closing cancels every ask for a cover at once (the one fetching and those that joined
    it): each ends cancelled; none takes the shared fetch's end for "fetch it yourself"."""
    line = Line()
    session = await session_through(sandbox.base_url, cache, line, signed_too=True)
    try:
        artwork = Artwork(session, tmp_path / "pictures")
        url = await a_cover(session)
        path = urlsplit(url).path
        line.hold_requests("GET", path)
        asks = [asyncio.ensure_future(artwork.fetch(url)) for _ in range(3)]
        await asyncio.wait_for(line.holding.wait(), 30)
        for ask in asks:
            ask.cancel()
        line.release()
        ends = await asyncio.gather(*asks, return_exceptions=True)
        assert [type(end) for end in ends] == [asyncio.CancelledError] * 3
        await settle()
        assert line.to("GET", path) == []  # the held fetch was cancelled on the way; no other began
        assert not (tmp_path / "pictures").exists() or list((tmp_path / "pictures").iterdir()) == []
    finally:
        line.up()
        line.release()
        await settle()
        await session.close()
