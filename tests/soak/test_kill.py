"""SIGKILL at the worst moments, then a restart on the same data (the app as its own process against
a sandbox that survives; tests/soak/kills.py): each generation exists once, and the upload queue
finishes without sending a finished file again. Killing while typing is
tests/gui/test_scripts_recovery.py (benchmarks/soak.py runs all three and prints each outcome)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.soak.kills import kill_during_batch, kill_during_generate, kill_during_upload

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="SIGKILL is POSIX; Windows has TerminateProcess"
)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("held", ["answer", "acceptance"])
def test_a_generation_killed_in_flight_exists_once_after_the_restart(tmp_path: Path, held: str) -> None:
    """``answer``: the service made the episode and its answer is held on the way back when the app
    dies. ``acceptance``: the service holds the acceptance unresolved (``--accept-hold``)."""
    outcome = kill_during_generate(tmp_path, held)
    print("\n" + outcome.text())
    facts = outcome.facts
    assert len(facts["episodes"]) == 1  # the service made one episode
    assert len(facts["keys"]) == 1  # every send of the request carried the same key
    (episode,) = facts["episodes"]
    assert facts["entries"] == [("sent", 2, episode)]  # sent again once at the start, and followed
    if held == "answer":
        assert facts["posts"] == [(202, False), (202, True)]  # the resend replayed the first answer
    else:
        assert facts["posts"] == [(202, False), (409, False)]  # still accepting: followed, not started again
    assert outcome.ok


@pytest.mark.timeout(600)
def test_an_upload_queue_killed_mid_file_finishes_without_sending_a_finished_file_again(
    tmp_path: Path,
) -> None:
    outcome = kill_during_upload(tmp_path)
    print("\n" + outcome.text())
    facts = outcome.facts
    assert set(facts["states"].values()) == {"done"}
    assert set(facts["completed"].values()) == {1}  # one completed source per file, no duplicate
    sends = facts["sends"]
    assert sends[facts["finished_first"]] == [(True, 200)]  # finished before the kill: never sent again
    for name, puts in sends.items():
        assert [p for p in puts if p == (True, 200)] == [(True, 200)], name  # one successful PUT each
    half_sent = [name for name, puts in sends.items() if (False, None) in puts]
    assert len(half_sent) == 1 and sends[half_sent[0]] == [(False, None), (True, 200)]
    assert outcome.ok


@pytest.mark.timeout(600)
def test_a_batch_cut_off_and_killed_midway_ends_with_one_episode_per_draft_in_order(tmp_path: Path) -> None:
    """Twelve scripts, the line cut after four were accepted, the app killed while offline: after
    the restart the podcast holds twelve episodes, titled and ordered as the drafts (on the sandbox)."""
    outcome = kill_during_batch(tmp_path)
    print("\n" + outcome.text())
    facts = outcome.facts
    assert facts["accepted_before_kill"] >= 4
    assert facts["titles"] == facts["expected"]  # twelve, each once, in the drafts' order, with their titles
    assert facts["keys"] == 12  # each script its own key; none sent under a second one
    ((summary, episodes),) = facts["batches"]
    assert summary == "12 of 12 accepted, 12 finished"
    assert episodes == facts["episodes"]  # each draft's episode is the one the podcast holds in its place
    assert outcome.ok
