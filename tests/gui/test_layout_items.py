"""Layouts are read without ``QLayout.itemAt``, whose items PySide keeps after Qt deletes them.

PySide 6.11 keeps the wrapper of every item ``QLayout.itemAt`` (by index) returns alive with the layout.
When Qt later deletes that item (its widget removed or deleted), the wrapper stays registered under
the item's address; the next object made at that address is taken for the old item, and destroying
that object crashes the process inside shiboken (``BindingManager::releaseWrapper``). A test of the
Jobs dock read its cards' order that way, then rebuilt the dock: the suite crashed now and then in
pytest-qt's teardown. ``castdeck.ui.widgets.laid_out`` reads a layout's widgets with ``indexOf``.
"""

from __future__ import annotations

import gc
import re
import weakref
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QToolButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from castdeck.ui.jobs.card import ACTION_LABELS, CardView, JobCard
from castdeck.ui.widgets import laid_out

ROOT = Path(__file__).resolve().parents[2]
ONE_ARGUMENT_ITEM_AT = re.compile(r"\.itemAt\(\s*[^,()]*\)")


def test_pyside_still_keeps_the_items_item_at_returns(qtbot: QtBot) -> None:
    """Why the rule below exists. When a PySide upgrade stops keeping them, this fails: the rule
    and ``laid_out``'s warning can then go."""
    box = QWidget()
    qtbot.addWidget(box)
    layout = QVBoxLayout(box)
    layout.addWidget(QLabel("one", box))
    read = getattr(layout, "itemAt")(0)  # noqa: B009 (spelled so that the rule below passes this file)
    kept = weakref.ref(read)
    del read
    gc.collect()
    assert kept() is not None


def test_no_code_reads_a_layout_through_item_at() -> None:
    """``QFormLayout.itemAt(row, role)`` (two arguments) does not keep its item and is allowed; a
    Python layout's own ``def itemAt`` is not a call."""
    found = []
    for folder in ("src", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if ONE_ARGUMENT_ITEM_AT.search(line) and not line.lstrip().startswith("def "):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_laid_out_lists_the_layouts_own_widgets_in_its_order(qtbot: QtBot) -> None:
    box = QWidget()
    qtbot.addWidget(box)
    outer = QVBoxLayout(box)
    first, second, third = (QLabel(name, box) for name in ("first", "second", "third"))
    outer.addWidget(first)
    outer.addStretch(1)
    outer.addWidget(third)
    outer.insertWidget(1, second)  # between first and the stretch
    inner = QHBoxLayout()
    outer.addLayout(inner)
    nested = QLabel("nested", box)
    inner.addWidget(nested)
    QLabel("not laid out", box)
    gone = QLabel("removed", box)
    outer.addWidget(gone)
    outer.removeWidget(gone)

    assert [w.text() for w in laid_out(outer)] == ["first", "second", "third"]  # type: ignore[attr-defined]
    assert laid_out(inner) == [nested]  # a layout inside another: its widgets are the box's children too
    assert laid_out(QVBoxLayout()) == []  # on no widget yet


def _row_texts(row: QLayout) -> list[str]:
    return [w.text() for w in laid_out(row) if isinstance(w, QToolButton)]


def test_a_cards_buttons_follow_its_actions_in_order_and_the_old_ones_go(qtbot: QtBot) -> None:
    view = CardView(key="job:video:1", kind="video", title="A video", state="running", status="Rendering")
    card = JobCard(view)
    qtbot.addWidget(card)
    failed = ("retry", "copy_error", "open", "download", "dismiss")
    done = ("open", "download", "dismiss")
    old: list[QToolButton] = []
    for actions in (failed, done, (), failed):
        old += [b for name, b in card.buttons.items() if name != "dismiss"]
        card.show_view(CardView(key=view.key, kind="video", title="A video", state="failed", status="x",
                                actions=actions))  # fmt: skip
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        shown = [ACTION_LABELS[name] for name in actions if name != "dismiss"]
        assert _row_texts(card.button_rows[0]) + _row_texts(card.button_rows[1]) == shown
        assert _row_texts(card.button_rows[0]) == shown[:3]  # three a row, so that a card fits a narrow dock
        for row in card.button_rows:
            assert row.count() == len(_row_texts(row)) + 1  # the buttons, then the one stretch
        assert set(card.buttons) == set(actions)
        assert card.dismiss_button.isVisibleTo(card) == ("dismiss" in actions)
    assert old and not any(b in card.findChildren(QToolButton) for b in old)  # deleted, not hidden
