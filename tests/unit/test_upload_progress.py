"""The upload queue's speed figures: smoothed while bytes move, unknown once they stop moving."""

from __future__ import annotations

import pytest

from castdeck.services.upload_progress import STALLED_AFTER, SpeedMeter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_stalled_transfer_claims_no_speed() -> None:
    clock = Clock()
    meter = SpeedMeter(clock)
    assert meter.speed is None  # nothing sent yet: not known
    meter.note(0)
    for sent in (1_000_000, 2_000_000, 3_000_000):
        clock.now += 0.5
        meter.note(sent)
    assert meter.speed == pytest.approx(2_000_000, rel=0.01)  # two megabytes a second
    clock.now += STALLED_AFTER - 0.1
    assert meter.speed is not None  # a pause between reports is not a stall
    clock.now += 0.2
    assert meter.speed is None  # no byte for longer: no speed (and so no time left) is claimed
    clock.now += 0.5
    meter.note(3_500_000)  # moving again
    assert meter.speed is not None and meter.speed > 0
