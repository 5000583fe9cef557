"""``client.episodes.timestamps`` reads both word shapes: the spec's ``{start, end, speaker, text}``
with ``speakers``, and the older ``{word, start, end}`` (also as a bare list under ``data``).
The older shapes are made by changing the sandbox's real answer on the way back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from castdeck.api import Client
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.helpers import Line
from tests.tls import SHARED_TLS


async def first_with_audio(client: Client, timeout: float = 90.0) -> str:
    """A seeded episode once the sandbox has made its audio (seeding makes it in the background)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        async for episode in client.episodes.list(limit=100):
            if episode.audio_url:
                return str(episode.id)
        await asyncio.sleep(0.1)
    raise AssertionError(f"no episode with audio after {timeout} s")


def older(words: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"word": w["text"], "start": w["start"], "end": w["end"]} for w in words]


SHAPES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "older words in an object": lambda data: {
        "episode_id": data["episode_id"],
        "words": older(data["words"]),
    },
    "a bare list of older words": lambda data: older(data["words"]),
    "no episode_id": lambda data: {"speakers": data["speakers"], "words": data["words"]},
}


@pytest.mark.asyncio
@pytest.mark.parametrize("shape", list(SHAPES))
async def test_both_word_shapes_are_read(sandbox: RunningSandbox, shape: str) -> None:
    line = Line()
    async with Client(sandbox.base_url, DEMO_KEY, http_transport=line) as client:
        episode_id = await first_with_audio(client)
        async with httpx.AsyncClient(
            base_url=sandbox.base_url, headers={"Authorization": f"Bearer {DEMO_KEY}"}, verify=SHARED_TLS
        ) as raw:
            truth = (await raw.get(f"/v1/episodes/{episode_id}/timestamps")).json()["data"]
        line.change_answers(
            "GET", f"/v1/episodes/{episode_id}/timestamps", lambda body: {"data": SHAPES[shape](body["data"])}
        )
        stamps = await client.episodes.timestamps(episode_id)
    assert stamps.episode_id == episode_id
    assert [(w.text, w.start, w.end) for w in stamps.words] == [
        (w["text"], w["start"], w["end"]) for w in truth["words"]
    ]
    if shape == "no episode_id":
        assert [w.speaker for w in stamps.words] == [w["speaker"] for w in truth["words"]]
    else:
        assert {w.speaker for w in stamps.words} == {None}
