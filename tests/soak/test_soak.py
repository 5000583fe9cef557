"""Forty steps of scripted creator use of the real app against a sandbox that fails a fifth of its
requests (``--chaos 0.2``), then the figures (benchmarks/soak.py runs the same driver for minutes).
A count of steps, not a time: the same work on any machine, however fast or busy.

The stall and the memory growth are printed, not asserted (timing does not go into tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.conftest import ARTIFACTS
from tests.soak.driver import SoakSettings, run_soak

SEED = 7
STEPS = 40


@pytest.mark.asyncio
@pytest.mark.timeout(900)
async def test_forty_steps_of_creator_use_under_chaos_lose_and_repeat_nothing(
    qtbot: QtBot, tmp_path: Path
) -> None:
    settings = SoakSettings(steps=STEPS, seed=SEED, chaos=0.2, screenshot=ARTIFACTS / "soak-end.png")
    report = await run_soak(settings, tmp_path / "soak")
    print("\n" + report.table())

    assert report.exceptions == []
    assert report.qt_warnings == []
    assert [f"{s.name}: {s.outcome}" for s in report.failed_steps] == []
    # every generation the driver asked for was started once on the service: none lost, none twice
    generations = report.generations
    assert generations.asked >= 5
    assert (generations.lost, generations.duplicated, generations.unasked) == ([], [], [])
    assert report.refusals + generations.refused_later == []
    assert generations.started == generations.asked == generations.once
    # every file the driver dropped was taken in once
    uploads = report.uploads
    assert uploads.asked >= 2
    assert (uploads.lost, uploads.duplicated) == ([], [])
    assert uploads.completed == uploads.asked
    # the API key went to the service's origin only, never to a signed address
    assert report.signed_requests > 0
    assert report.key_elsewhere == []
