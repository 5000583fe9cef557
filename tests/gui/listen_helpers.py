"""A short narrated episode of the test sandbox (two hosts, a few hundred words, real speech) and
ways to open it in the Listen window."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from castdeck.ui.listen.listen_window import ListenWindow
from tests.conftest import DEMO_KEY, RunningSandbox, wait_for
from tests.gui.conftest import until
from tests.tls import SHARED_TLS

LINES = [
    "Welcome to the tide lab. Today we listen to the sea and count its breaths, slowly and carefully.",
    "Thanks for having me. The tide rises twice a day because the moon pulls the water towards it.",
    "And the sun helps a little too. When both pull together we get spring tides, the highest of all.",
    "Neap tides come when they pull at right angles. The range is smaller and the harbour stays calm.",
    "Tidal power turns that rhythm into electricity. Turbines sit in narrow channels where water runs fast.",
    "Barrages hold water behind a wall and release it through turbines when the level outside has fallen.",
    "Lagoons work the same way but enclose a bay instead of a whole estuary, which is kinder to birds.",
    "Fish swim past slow turbines without harm in most studies, though the question is still open.",
    "The best sites are few, but their power is as predictable as the calendar, which grid planners love.",
    "That is all for today. Thank you for listening, and see you at the next high tide.",
]


def generate_spoken_episode(sandbox: RunningSandbox, title: str) -> dict[str, Any]:
    """Generate (script mode, no render) a narrated episode with two new hosts; wait for its audio."""
    api = sandbox.client(DEMO_KEY)
    hosts = []
    for name, voice in (("Mara Lowe", 1002), ("Ivo Strand", 1003)):
        made = api.post(
            "/v1/hosts", json={"name": name, "backstory": "Talks about tides.", "voice_id": voice}
        )
        assert made.status_code == 201, made.text
        hosts.append(made.json()["data"]["id"])
    podcast = api.post("/v1/podcasts", json={"title": f"{title} podcast", "host_ids": hosts})
    assert podcast.status_code == 201, podcast.text
    segments = [{"host_id": hosts[i % 2], "text": text} for i, text in enumerate(LINES)]
    accepted = api.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast.json()["data"]["id"],
            "script": {"chapters": [{"title": title, "segments": segments}]},
        },
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    assert accepted.status_code == 202, accepted.text
    episode_id = accepted.json()["data"]["id"]

    def ready() -> dict[str, Any] | None:
        data: dict[str, Any] = api.get(f"/v1/episodes/{episode_id}").json()["data"]
        return data if data["audio_url"] else None

    return wait_for(ready, timeout=120)  # type: ignore[no-any-return]


def server_words(sandbox: RunningSandbox, episode_id: str) -> dict[str, Any]:
    """The word timestamps as the service sends them (read with plain HTTP: the ground truth)."""
    response = httpx.get(
        f"{sandbox.base_url}/v1/episodes/{episode_id}/timestamps",
        headers={"Authorization": f"Bearer {DEMO_KEY}"},
        timeout=30,
        verify=SHARED_TLS,
    )
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def loaded(window: ListenWindow) -> ListenWindow:
    """Until the window shows its episode with the audio ready to play."""
    await until(lambda: window.loaded is not None or window.banner.isVisible())
    assert window.loaded is not None, window.banner.text
    await until(lambda: window.playback.duration > 0)
    return window
