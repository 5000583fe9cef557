"""PySide's Python classes for Qt's QObject subclasses, made once at a quiet moment.

PySide (6.11) makes its Python classes, and their enums, lazily. The first time Qt hands Python an
object of a class PySide does not wrap (a line edit's internal text control, ``QWidgetLineControl``),
PySide looks for the nearest class it does wrap by walking every QObject subclass it knows, making
each one's Python class and enums on the way: 70 to 110 enums, 20 to 30 ms on the UI thread, in
whatever turn of the event loop that happens to be.

In the app that turn came from the quiet collector's event filter (``services/collector.py``): it
sees every object's events, so it met such an object the first time a full collection waited, in
the middle of paging the Episodes list (``benchmarks/episodes_scale.py``) or under the load of
``benchmarks/background_load.py``. :func:`resolve_object_types` makes the walk happen at start-up,
where ``castdeck.app_process.settle_startup_objects`` already takes one long turn on purpose.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit

__all__ = ["resolve_object_types"]


def resolve_object_types() -> None:
    """Hand Python one object of a class PySide does not wrap, so that PySide makes the classes of
    every QObject subclass now (a QLineEdit's children include its internal text control). Needs the
    QApplication."""
    probe = QLineEdit()
    probe.children()
    del probe
