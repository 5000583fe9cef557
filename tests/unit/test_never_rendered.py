"""Which episodes the service will refuse to publish for want of a render (spec 2.4)."""

from __future__ import annotations

from typing import Any

import pytest

from castdeck.api.models import Episode
from castdeck.services.publish import never_rendered


def episode(**fields: Any) -> Episode:
    return Episode.model_validate({"id": "3f0c1a52-0000-4000-8000-000000000001", **fields})


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ({"status": "draft"}, True),  # an empty draft: nothing written, nothing rendered
        ({"status": "draft", "generation": {"state": "completed"}, "rendered": False}, True),
        ({"status": "draft", "generation": {"state": "failed"}, "rendered": False}, True),
        ({"status": "draft", "generation": {"state": "completed"}, "rendered": True}, False),
        # a service that does not say: the rendered video, which only rendering makes, tells
        ({"status": "draft", "generation": {"state": "completed"}, "video_url": None}, True),
        ({"status": "draft", "generation": {"state": "completed"}, "video_url": "https://x/v.mp4"}, False),
        # still generating: publishing waits for it instead (the pane offers it)
        ({"status": "draft", "generation": {"state": "generating"}, "rendered": False}, False),
        ({"status": "published", "rendered": False}, False),
        ({"status": "scheduled"}, False),
    ],
)
def test_never_rendered(fields: dict[str, Any], refused: bool) -> None:
    assert never_rendered(episode(**fields)) is refused
