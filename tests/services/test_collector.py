"""Full garbage collections wait for a quiet moment (services/collector.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from castdeck.services import collector as collector_module
from castdeck.services.collector import QuietCollector


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def collector(qapp: QApplication, clock: Clock) -> Iterator[QuietCollector]:
    before = gc.get_threshold()
    made = QuietCollector(clock=clock)
    made.start()
    yield made
    made.stop()
    assert gc.get_threshold() == before  # the automatic collector has its full collections back


def full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])


def make_work() -> list[list[object]]:
    """Enough long-lived containers for the automatic collector to want a full collection."""
    kept: list[list[object]] = []
    while gc.get_count()[2] < gc.get_threshold()[1] + 12:
        kept.extend([] for _ in range(1000))
    return kept


def type_a_key(qtbot: QtBot) -> None:
    edit = QLineEdit()
    qtbot.addWidget(edit)
    QTest.keyClick(edit, Qt.Key.Key_A)


def test_a_due_full_collection_waits_while_the_user_types_and_runs_once_it_is_quiet(
    collector: QuietCollector, clock: Clock, qtbot: QtBot
) -> None:
    before = full_collections()
    kept = make_work()
    assert full_collections() == before  # due, but not run by the automatic collector
    assert not collector.waiting
    assert not collector.check()  # due from now: it waits, watching the input
    assert collector.waiting
    clock.now += collector.QUIET_FOR * 0.9
    type_a_key(qtbot)  # the user is busy again
    clock.now += collector.QUIET_FOR / 2
    assert not collector.check()
    assert full_collections() == before
    clock.now += collector.QUIET_FOR / 2
    assert collector.check()  # a quiet moment since the key
    assert (full_collections(), collector.collections, gc.get_count()[2]) == (before + 1, 1, 0)
    assert not collector.waiting  # the input is no longer watched
    assert not collector.check()  # nothing due any more
    del kept


def test_a_full_collection_that_waited_too_long_runs_even_while_the_user_is_busy(
    collector: QuietCollector, clock: Clock, qtbot: QtBot
) -> None:
    kept = make_work()
    type_a_key(qtbot)
    assert not collector.check()  # due from now on
    clock.now += collector.LONGEST_WAIT - 1
    type_a_key(qtbot)
    assert not collector.check()
    clock.now += 2
    type_a_key(qtbot)
    assert collector.check()
    assert collector.collections == 1
    del kept


def test_the_timer_runs_the_checks_once_started(
    collector: QuietCollector, clock: Clock, qtbot: QtBot
) -> None:
    kept = make_work()
    qtbot.waitUntil(lambda: collector.waiting, timeout=5000)
    clock.now += collector.QUIET_FOR + 1
    qtbot.waitUntil(lambda: collector.collections == 1, timeout=5000)
    del kept


def test_a_full_collection_is_followed_by_a_trim(
    collector: QuietCollector, clock: Clock, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    trims: list[int] = []
    monkeypatch.setattr(collector_module, "trim_heap", lambda: bool(trims.append(1)) or True)
    kept = make_work()
    assert not collector.check()
    clock.now += collector.QUIET_FOR
    assert collector.check()
    assert trims == [1]
    del kept
