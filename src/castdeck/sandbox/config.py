"""Command-line settings of the sandbox."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEMO_KEY = "sk_sandbox_demo"
OTHER_KEY = "sk_sandbox_other"
FREE_KEY = "sk_sandbox_free"

# A documented phrase: put it in a prompt, a script segment, imported text, a Video or Short
# prompt or a Voiceover direction and that generation fails on purpose during narration.
FAIL_PHRASE = "[sandbox:fail]"
# In imported script text it makes the (simulated) speech provider reject the content: 422.
REJECT_PHRASE = "[sandbox:reject]"


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 0
    data_dir: Path = Path("sandbox-data")
    speed: float = 1.0
    rate_limit: int = 0
    chaos: float = 0.0
    chaos_seed: int | None = None
    workers: int = 1
    seed_media: bool = True
    exit_with_parent: bool = False
    # The spec's values; tests and demos shorten them to show expiry without waiting hours.
    upload_slot_lifetime: int = 7200
    idempotency_window: int = 86_400
    # Seconds a keyed generation write stays unresolved before it is answered (0 = off; real
    # seconds, not scaled by speed), and how far it got meanwhile: "created" or "received".
    accept_hold: float = 0.0
    accept_hold_stage: str = "created"
    # The origin signed upload and download addresses name (default: the sandbox's own), so that a
    # proxy in front of them (tests: one that records every request) sees them all.
    signed_base_url: str | None = None
    # Tests move the sandbox's time forward (POST /_sandbox/clock) instead of waiting for it.
    test_clock: bool = False
    # A folder of earlier renders, shared by the sandboxes that name it (``render_cache``).
    render_cache: Path | None = None

    def scaled(self, seconds: float) -> float:
        """Simulated work time at this speed."""
        return seconds / self.speed
