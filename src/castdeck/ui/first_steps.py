"""The "first steps" strip the main window shows after the first-run welcome: meet (or create) the
hosts, create a podcast, generate the first episode. Each step is a button that goes there; a step
is ticked once the user has done it, and "Dismiss" hides the strip for good.

What counts as done: on the sandbox (whose demo studio already has hosts, podcasts and episodes)
having opened the Hosts pane, then the Podcasts pane, then an episode generated (its generation
finished: while it runs the step says it has started, never that it is done); on an account, a
host, a podcast, an episode existing on the service (one short read each, while online), or the
same actions. Ticked steps are remembered in the settings (``Settings.steps_done``).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Literal

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.services import catalog
from castdeck.services.jobs import JobTracker
from castdeck.services.session import ConnectionState, Session
from castdeck.services.settings import Settings
from castdeck.services.tasks import TaskScope
from castdeck.store.jobs import Job

from .icons import icon
from .welcome import Glyph

__all__ = ["STEPS", "FirstSteps"]

log = logging.getLogger(__name__)

STEPS = ("hosts", "podcast", "episode")
PANES = {"hosts": "Hosts", "podcast": "Podcasts", "episode": "Episodes"}
"""The pane each step goes to (and, on the sandbox, whose opening ticks it)."""
COLLECTION_OF_STEP: dict[str, Literal["hosts", "podcasts", "episodes"]] = {
    "hosts": "hosts", "podcast": "podcasts", "episode": "episodes",
}  # fmt: skip
"""The list whose first item means the step was made."""

TEXTS = {
    # step: (on the sandbox, on an account)
    "hosts": ("Meet the demo hosts", "Create a host"),
    "podcast": ("Pick or create a podcast", "Create a podcast"),
    "episode": ("Generate your first episode", "Generate your first episode"),
}
STEP_ICONS = {"hosts": "hosts", "podcast": "podcasts", "episode": "episodes"}
STARTED = "started; ticked once the episode is ready"
"""What the last step says while the first generation runs (it is ticked once it is ready)."""


class FirstSteps(QFrame):
    """The strip. ``stepRequested(step)`` asks the window to go there (``STEPS``)."""

    stepRequested = Signal(str)
    dismissed = Signal()

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setObjectName("first_steps")
        self.setAccessibleName("First steps")
        self.setStyleSheet(
            "QFrame#first_steps { border: 1px solid palette(mid); border-radius: 4px; margin: 6px 8px 2px 8px; }"
        )
        self.session: Session | None = None
        self.done: set[str] = set()
        self.started: set[str] = set()
        """Steps begun but not finished (a generation that runs): said, not ticked."""
        self._jobs: JobTracker | None = None
        self._scope = TaskScope(self)
        self._checking = False
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(8)
        mark = Glyph("welcome", 20, self)
        mark.setAccessibleName("First steps")
        self.mark = mark
        self.title = QLabel("First steps", self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        layout.addWidget(mark)
        layout.addWidget(self.title)
        self.buttons: dict[str, QPushButton] = {}
        for number, step in enumerate(STEPS, start=1):
            button = QPushButton(self)
            button.setObjectName(f"first_step_{step}")
            button.setIconSize(QSize(18, 18))
            button.clicked.connect(lambda _checked=False, s=step: self.stepRequested.emit(s))
            button.setProperty("number", number)
            self.buttons[step] = button
            layout.addWidget(button)
        layout.addStretch(1)
        self.dismiss_button = QPushButton("Dismiss", self)
        self.dismiss_button.setAccessibleName("Dismiss the first steps")
        self.dismiss_button.setToolTip("Hide the first steps for good")
        self.dismiss_button.clicked.connect(self.dismiss)
        layout.addWidget(self.dismiss_button)
        self.done = {step for step in self.settings.steps_done if step in STEPS}
        self._update()
        self.hide()

    @property
    def sandbox(self) -> bool:
        return self.session is not None and self.session.profile.sandbox

    def bind(self, session: Session) -> None:
        """Follow ``session`` (the texts and what counts as done depend on it being the sandbox)."""
        if self.session is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                self.session.stateChanged.disconnect(self._state_changed)
        self.session = session
        session.stateChanged.connect(self._state_changed)
        self._update()
        self.check()

    # --- what is done ---------------------------------------------------------------------------------------

    def mark_done(self, step: str) -> None:
        if step not in STEPS or step in self.done:
            return
        self.done.add(step)
        self.settings.set_steps_done(s for s in STEPS if s in self.done)
        self._update()

    def pane_shown(self, title: str) -> None:
        """The window switched to ``title``: on the sandbox, opening Hosts or Podcasts ticks its step;
        on an account, the service is asked again (something may have been created meanwhile)."""
        if self.isHidden():
            return
        if self.sandbox:
            for step in ("hosts", "podcast"):
                if PANES[step] == title:
                    self.mark_done(step)
        else:
            self.check()

    def generation_started(self) -> None:
        """A generation was sent: the step says so; it is ticked once an episode is ready."""
        if "episode" not in self.done:
            self.started.add("episode")
            self._update()

    def follow(self, jobs: JobTracker | None) -> None:
        """Hear of the generations ``jobs`` follows: the first one that finishes ticks the last step."""
        if self._jobs is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                self._jobs.jobFinished.disconnect(self._job_finished)
        self._jobs = jobs
        if jobs is not None:
            jobs.jobFinished.connect(self._job_finished)

    def _job_finished(self, job: Job) -> None:
        if job.kind != "episode":
            return
        if job.state == "completed":
            self.started.discard("episode")
            self.mark_done("episode")
        elif "episode" in self.started:  # it failed: the step is not done, and no longer running
            self.started.discard("episode")
            self._update()

    def check(self) -> None:
        """On an account, while online and shown: one short read per step not yet ticked."""
        session = self.session
        if (
            session is None or self.sandbox or self.isHidden() or self._checking
            or session.state is not ConnectionState.ONLINE or self.done >= set(STEPS)
        ):  # fmt: skip
            return
        self._checking = True
        self._scope.start(self._check(session), on_error=self._check_failed, name="first steps check")

    async def _check(self, session: Session) -> None:
        try:
            for step in STEPS:
                if step not in self.done and await catalog.has_any(session, COLLECTION_OF_STEP[step]):
                    self.mark_done(step)
        finally:
            self._checking = False

    def _check_failed(self, error: CastdeckError) -> None:
        log.info("first steps: could not read the studio (%s)", type(error).__name__)

    def _state_changed(self, _state: str) -> None:
        self.check()

    # --- showing --------------------------------------------------------------------------------------------

    def offer(self) -> bool:
        """Show the strip unless it was dismissed; True when shown."""
        if self.settings.guide_dismissed:
            self.hide()
            return False
        self.show()
        self.check()
        return True

    def dismiss(self) -> None:
        self.settings.dismiss_guide()
        self.hide()
        self._scope.close()  # a read in flight ends here; nothing starts after
        self.dismissed.emit()

    def _update(self) -> None:
        sandbox = self.sandbox
        for step, button in self.buttons.items():
            number = button.property("number")
            text = TEXTS[step][0 if sandbox else 1]
            done = step in self.done
            started = not done and step in self.started
            button.setText(f"{number}. {text}" + (" (started)" if started else ""))
            button.setIcon(icon("done" if done else STEP_ICONS[step]))
            button.setAccessibleName(f"Step {number}: {text}")
            if done:
                state, tip = "done", f"{text} (done)"
            elif started:
                state, tip = STARTED, f"{text} (started: ticked once the episode is ready)"
            else:
                state, tip = "not done yet", text
            button.setAccessibleDescription(state)
            button.setToolTip(tip)
        finished = self.done >= set(STEPS)
        self.title.setText("First steps — all done" if finished else "First steps")
        self.title.setAlignment(Qt.AlignmentFlag.AlignVCenter)
