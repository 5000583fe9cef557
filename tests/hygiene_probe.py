"""Not collected by the suite (no ``test_`` prefix): run by tests/unit/test_suite_hygiene.py in a
pytest of its own, to show that what a failing test held is freed before the next test runs."""

import weakref

from PySide6.QtWidgets import QApplication, QWidget

KEPT: list[weakref.ref[QWidget]] = []


def test_fails_holding_a_widget_in_a_cycle(qapp: QApplication) -> None:
    widget = QWidget()
    holder: dict[str, object] = {"widget": widget}
    holder["itself"] = holder  # only the cyclic collector frees this
    KEPT.append(weakref.ref(widget))
    raise AssertionError("failing on purpose, with the widget in this frame")


def test_the_next_test_starts_with_it_freed() -> None:
    assert KEPT and KEPT[0]() is None
