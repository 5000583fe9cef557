"""``FormDialog``: the base of every create and edit dialog.

A subclass adds its fields with :meth:`FormDialog.add_field`, says how to build the request body
(:meth:`FormDialog.collect`) and which input model checks it (:meth:`FormDialog.validate`), and
gives the async ``submit`` that sends it. The dialog validates as the user types (inline messages
under each field, counters against the limits), keeps the submit button disabled while anything
is wrong, maps a server 400's field errors onto the same fields, shows any other failure in its
banner with the request id, and closes only when the service accepted the request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.errors import ApiError, CastdeckError, InputValidationError
from castdeck.api.models import FieldError, field_errors
from castdeck.services.tasks import TaskScope

from .accessible import shows_value
from .palette import tone
from .screen_fit import LAPTOP, TITLE_BAR, FittedDialog, fitted_height, submit_on_keys
from .widgets import Banner

__all__ = ["TALLEST", "FieldRow", "FormDialog", "text_of"]

TALLEST = LAPTOP.height() - TITLE_BAR - 8
"""The tallest a form grows by itself: within a laptop's 1280×720 with a title bar above it."""


def text_of(widget: QWidget) -> str:
    if isinstance(widget, QLineEdit):
        return widget.text()
    if isinstance(widget, QPlainTextEdit):
        return widget.toPlainText()
    if isinstance(widget, QTextEdit):
        return widget.toPlainText()
    return ""


class FieldRow:
    """One field: its widget, the inline error under it and an optional ``n / max`` counter."""

    def __init__(self, name: str, label: str, widget: QWidget, error: QLabel, counter: QLabel | None,
                 limit: tuple[int, int] | None) -> None:  # fmt: skip
        self.name = name
        self.label = label
        self.widget = widget
        self.error = error
        self.counter = counter
        self.limit = limit
        self.touched = False

    def set_error(self, message: str | None) -> None:
        self.error.setText(message or "")
        self.error.setVisible(bool(message))

    def update_counter(self) -> None:
        if self.counter is None or self.limit is None:
            return
        length = len(text_of(self.widget))
        low, high = self.limit
        self.counter.setText(
            f"{length:,} / {high:,}" + (f" (at least {low:,})" if low > 1 and length < low else "")
        )
        over = length > high or (length < low and length > 0)
        self.counter.setStyleSheet(f"color: {tone('problem')};" if over else "color: palette(mid);")


class _FormArea(QScrollArea):
    """The fields, scrolled when the screen is too small for them all (the buttons below stay
    visible). It asks for the whole height of its fields, and needs only a few lines."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fields = QWidget(self)
        self.fields.setObjectName("form_fields")
        self.setWidget(self.fields)

    def sizeHint(self) -> QSize:
        hint = self.fields.sizeHint()
        width = max(self.viewport().width(), hint.width())
        layout = self.fields.layout()
        if layout is not None and layout.hasHeightForWidth():
            hint.setHeight(layout.totalHeightForWidth(width))
        return hint

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fields.minimumSizeHint().width(), 4 * self.fontMetrics().height())


class FormDialog(FittedDialog):
    """Subclasses implement :meth:`collect` and :meth:`validate`, and are given ``submit``.

    Its fields scroll in :attr:`area` when the screen is too small for them all; the banner above
    and the buttons below stay in view. Ctrl+Enter submits (or says what to fix first)."""

    def __init__(
        self,
        title: str,
        submit: Callable[[Any], Awaitable[Any]],
        *,
        submit_label: str = "Save",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.work = TaskScope(self)
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        self.setMinimumWidth(560)
        self._submit = submit
        self.rows: dict[str, FieldRow] = {}
        self.result_value: Any = None
        self._submitting = False
        self._tried = False
        self._sending: asyncio.Task[None] | None = None

        outer = QVBoxLayout(self)
        self.banner = Banner(self)
        self.banner.installEventFilter(self)  # a message shown or changed: grow to show it whole
        outer.addWidget(self.banner)
        self.area = _FormArea(self)
        self.form = QFormLayout(self.area.fields)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        outer.addWidget(self.area, 1)
        bottom = QHBoxLayout()
        self.problem = QLabel(self)
        shows_value(self.problem, "What to fix")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: palette(mid);")
        bottom.addWidget(self.problem, 1)
        self.buttons = QDialogButtonBox(self)
        self.submit_button = QPushButton(submit_label, self)
        self.submit_button.setAccessibleName(submit_label)
        self.submit_button.setDefault(True)
        self.buttons.addButton(self.submit_button, QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.setAccessibleName("Cancel")
        self.submit_button.clicked.connect(self.try_submit)
        cancel.clicked.connect(self.reject)
        bottom.addWidget(self.buttons)
        outer.addLayout(bottom)
        submit_on_keys(self, self.try_submit)

    # --- building ------------------------------------------------------------------------------------------

    def add_field(
        self,
        name: str,
        label: str,
        widget: QWidget,
        *,
        limit: tuple[int, int] | None = None,
        hint: str | None = None,
    ) -> FieldRow:
        holder = QWidget(self)
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(widget)
        counter = None
        if limit is not None:
            counter = QLabel(holder)
            counter.setAlignment(Qt.AlignmentFlag.AlignRight)
            shows_value(counter, f"{label} length")
            column.addWidget(counter)
        if hint:
            hint_label = QLabel(hint, holder)
            hint_label.setWordWrap(True)
            hint_label.setStyleSheet("color: palette(mid);")
            column.addWidget(hint_label)
        error = QLabel(holder)
        error.setWordWrap(True)
        error.setStyleSheet(f"color: {tone('problem')};")
        shows_value(error, f"{label} error")
        error.hide()
        column.addWidget(error)
        widget.setAccessibleName(label)
        self.form.addRow(label, holder)
        row = FieldRow(name, label, widget, error, counter, limit)
        self.rows[name] = row
        self._watch(row)
        row.update_counter()
        return row

    def _watch(self, row: FieldRow) -> None:
        widget = row.widget

        def changed(*_: object) -> None:
            row.touched = True
            row.update_counter()
            self.revalidate()

        if isinstance(widget, (QLineEdit, QPlainTextEdit | QTextEdit)):
            widget.textChanged.connect(changed)
        elif isinstance(widget, QComboBox):
            widget.currentIndexChanged.connect(changed)
            widget.editTextChanged.connect(changed)
        elif isinstance(widget, QDateTimeEdit):
            widget.dateTimeChanged.connect(changed)
        elif isinstance(widget, QAbstractSpinBox):
            widget.valueChanged.connect(changed)  # type: ignore[attr-defined]
        elif isinstance(widget, QAbstractButton | QCheckBox):
            widget.toggled.connect(changed)
        elif isinstance(widget, QListWidget):
            widget.itemChanged.connect(changed)
            widget.itemSelectionChanged.connect(changed)
        elif hasattr(widget, "changed"):
            widget.changed.connect(changed)

    # --- for subclasses ------------------------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        """The request body from the fields (only what the user gives)."""
        raise NotImplementedError

    def validate(self, body: dict[str, Any]) -> Any:
        """Check ``body`` with the input model; returns what ``submit`` takes. Raises ``ValidationError``."""
        raise NotImplementedError

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        """Rules the input model cannot see (for example, a balance too low)."""
        return []

    # --- validation ----------------------------------------------------------------------------------------

    def check(self) -> tuple[Any, list[FieldError]]:
        try:
            body = self.collect()
        except ValueError as error:  # a field that cannot be read (such as an unparsable number)
            return None, [FieldError(field="", message=str(error))]
        errors = list(self.extra_errors(body))
        try:
            value = self.validate(body)
        except ValidationError as exc:
            return None, field_errors(exc) + errors
        except InputValidationError as exc:
            return None, list(exc.errors) + errors
        return (value if not errors else None), errors

    def revalidate(self) -> bool:
        value, errors = self.check()
        self.show_errors(errors, only_touched=not self._tried)
        ok = value is not None and not errors
        self.submit_button.setEnabled(ok and not self._submitting)
        self.problem.setText(
            "" if ok else f"To {self.submit_button.text().lower()}: {self._first_problem(errors)}"
        )
        return ok

    def _first_problem(self, errors: list[FieldError]) -> str:
        if not errors:
            return "complete the form"
        error = errors[0]
        row = self.row_for(error.field)
        if row is None and not error.field:
            return error.message
        return f"{row.label if row else error.field} — {error.message}"

    def row_for(self, field: str) -> FieldRow | None:
        """The row an error path belongs to: ``host_ids.2`` → ``host_ids``, ``options.x`` → ``options.x``."""
        if field in self.rows:
            return self.rows[field]
        parts = field.split(".")
        for end in range(len(parts) - 1, 0, -1):
            candidate = ".".join(parts[:end])
            if candidate in self.rows:
                return self.rows[candidate]
        return None

    def show_errors(self, errors: list[FieldError], *, only_touched: bool = False) -> list[FieldError]:
        """Put each error under its field; returns those that belong to no field."""
        by_row: dict[str, list[str]] = {}
        unplaced: list[FieldError] = []
        for error in errors:
            row = self.row_for(error.field)
            if row is None:
                unplaced.append(error)
            else:
                by_row.setdefault(row.name, []).append(error.message)
        for name, row in self.rows.items():
            messages = by_row.get(name)
            shown = messages if messages and (row.touched or not only_touched) else None
            row.set_error("; ".join(dict.fromkeys(shown)) if shown else None)
        QTimer.singleShot(0, self, self.fit_height)  # the dialog as context: never run once it is deleted
        return unplaced

    def wanted_height(self) -> int:
        """The height that shows the banner's message and every visible field without scrolling."""
        layout = self.layout()
        if layout is None:
            return self.height()
        self.form.invalidate()
        layout.invalidate()
        layout.activate()
        wanted = layout.sizeHint().height()
        if layout.hasHeightForWidth():  # wrapped text (the banner's message) at the width it has
            wanted = max(wanted, layout.totalHeightForWidth(self.width()))
        return max(wanted, layout.minimumSize().height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.banner and event.type() in (QEvent.Type.Show, QEvent.Type.LayoutRequest):
            QTimer.singleShot(0, self, self.fit_height)
        return super().eventFilter(watched, event)

    def fit_to_fields(self, width: int | None = None, *, at_least: int = 0) -> None:
        """As tall as the visible fields need (no gap where hidden rows were; ``at_least`` for room
        to write), at most :data:`TALLEST` and what the screen has; beyond that the fields scroll."""
        wanted = min(max(self.wanted_height(), at_least), TALLEST)
        self.resize(self.width() if width is None else width, fitted_height(self, wanted))

    def fit_height(self) -> None:
        """Grow (never shrink) so inline messages never squeeze the rows together, as far as
        :data:`TALLEST` and the screen allow; beyond that the fields scroll."""
        needed = fitted_height(self, min(self.wanted_height(), TALLEST))
        if needed > self.height():
            self.resize(self.width(), needed)

    # --- submitting ----------------------------------------------------------------------------------------

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.revalidate()

    def try_submit(self) -> None:
        self._tried = True
        if self._submitting:
            return
        value, errors = self.check()
        unplaced = self.show_errors(errors)
        if value is None or errors:
            if unplaced:
                self.banner.show_message(
                    "; ".join(f"{e.field or 'input'}: {e.message}" for e in unplaced), kind="error"
                )
            self.submit_button.setEnabled(False)
            return
        self._sending = self.work.start(self._send(value), name=f"submit {self.windowTitle()}")

    async def _send(self, value: Any) -> None:
        self._submitting = True
        self.submit_button.setEnabled(False)
        self.banner.show_message("Sending…", kind="info")
        try:
            self.result_value = await self._submit(value)
        except (ApiError, InputValidationError) as error:
            fields = list(error.errors)
            unplaced = self.show_errors(fields) if fields else []
            if fields and not unplaced:
                self.banner.show_message(
                    "The service did not accept some fields; see the messages below them.",
                    kind="error", request_id=getattr(error, "request_id", None),
                )  # fmt: skip
            else:
                self.banner.show_error(error)
            return
        except CastdeckError as error:
            self.banner.show_error(error)
            return
        finally:
            self._submitting = False
            self.submit_button.setEnabled(True)
        self.banner.hide()
        self.accept()

    async def wait_sent(self) -> None:
        """Until the request in flight has been answered (tests)."""
        if self._sending is not None:
            await asyncio.wait({self._sending})

    def set_writable(self, reason: str | None) -> None:
        """Disable submitting with a reason (offline) or enable it again."""
        if reason:
            self.banner.show_message(reason, kind="offline")
            self.submit_button.setEnabled(False)
            self.submit_button.setToolTip(reason)
        else:
            self.submit_button.setToolTip("")
            if self.banner.kind == "offline":
                self.banner.hide()
            self.revalidate()


def model_body(model: type[BaseModel], body: dict[str, Any]) -> BaseModel:
    """Validate ``body`` against ``model`` (raises ``ValidationError``)."""
    return model.model_validate(body)
