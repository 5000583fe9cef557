"""Many scripts checked together, as a season is sent: problems by script, the speaker labels
that still need a host across all of them (mapped once for all), and the whole batch's narration
and credits against the balance, with how many of them, in order, the balance covers.

No Qt, no I/O: the Scripts workspace and ``castdeck script check`` hand in the texts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .analysis import analyze
from .estimate import Estimate
from .problems import BOTH, Problem, blocking
from .speakers import HostRef

__all__ = ["Batch", "BatchScript", "Budget", "check_batch", "check_script", "duration_text"]


@dataclass(frozen=True)
class BatchScript:
    """One script of a batch: its name (a file's, a draft's title), its problems, its estimate and
    the labels no host answers to."""

    name: str
    problems: list[Problem]
    estimate: Estimate
    unresolved: tuple[str, ...] = ()

    def blocking(self, action: str = BOTH) -> list[Problem]:
        """The errors that keep ``action`` from being sent ("both": either)."""
        if action == BOTH:
            return [p for p in self.problems if p.is_error]
        return blocking(self.problems, action)

    @property
    def credits(self) -> int:
        return self.estimate.credits


def check_script(
    name: str, text: str, *, hosts: Iterable[HostRef] | None = None, mapping: Mapping[str, str] | None = None
) -> BatchScript:
    """A text script (spec 2.5's import form) checked for the batch."""
    analysis = analyze(text, hosts=hosts, mapping=mapping, check_speakers=hosts is not None)
    unresolved = (
        tuple(label for label, found in analysis.resolutions.items() if found.host_id is None)
        if hosts is not None
        else ()
    )
    return BatchScript(name, analysis.problems, analysis.estimate, unresolved)


@dataclass(frozen=True)
class Budget:
    """The batch's credits against the balance: how many of the sendable scripts, in order, it
    covers, and by how much it falls short of the whole batch."""

    credits: int
    balance: float
    fits: int
    sendable: int

    @property
    def short_by(self) -> int:
        return max(0, self.credits - math.floor(self.balance))

    @property
    def enough(self) -> bool:
        return self.short_by == 0


@dataclass(frozen=True)
class Batch:
    scripts: list[BatchScript]

    @property
    def seconds(self) -> float:
        return sum(script.estimate.seconds for script in self.scripts)

    @property
    def credits(self) -> int:
        """What the whole batch holds: each script's own estimate (each holds its own, rounded up)."""
        return sum(script.credits for script in self.scripts)

    def with_problems(self, action: str = BOTH) -> list[BatchScript]:
        return [script for script in self.scripts if script.blocking(action)]

    def sendable(self, action: str = BOTH) -> list[BatchScript]:
        return [script for script in self.scripts if not script.blocking(action)]

    def unresolved(self) -> dict[str, list[str]]:
        """Each label no host answers to (its first spelling; labels match without case) and the
        scripts that use it, in order: mapped once, it is mapped for all of them."""
        found: dict[str, tuple[str, list[str]]] = {}
        for script in self.scripts:
            for label in script.unresolved:
                _spelled, names = found.setdefault(label.casefold(), (label, []))
                if script.name not in names:
                    names.append(script.name)
        return {spelled: names for spelled, names in found.values()}

    def budget(self, balance: float, action: str = BOTH) -> Budget:
        """The sendable scripts' credits against ``balance``: they go out in order, so those that fit
        are the first ones whose running total stays within it."""
        sendable = self.sendable(action)
        total = sum(script.credits for script in sendable)
        running = 0
        fits = 0
        for script in sendable:
            running += script.credits
            if running > balance:
                break
            fits += 1
        return Budget(total, balance, fits, len(sendable))


def check_batch(
    scripts: Iterable[tuple[str, str]],
    *,
    hosts: Iterable[HostRef] | None = None,
    mapping: Mapping[str, str] | None = None,
) -> Batch:
    """``(name, text)`` scripts checked with one host list and one label mapping for all."""
    known = list(hosts) if hosts is not None else None
    return Batch([check_script(name, text, hosts=known, mapping=mapping) for name, text in scripts])


def duration_text(seconds: float) -> str:
    """``1 h 23 min``, ``7 min``, ``45 s``."""
    if seconds < 60:
        return f"{round(seconds)} s"
    minutes = round(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"
