"""A batch of drafts as checked and as it goes: the plan (what each script would send or why it is
left out, and the whole batch against the balance) and the progress a sent batch has made, for
its card. Plain data, no Qt: :mod:`castdeck.services.batch_sending` makes and keeps them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from castdeck.scripts import parse_text
from castdeck.scripts.batch import duration_text
from castdeck.scripts.lines import label_key
from castdeck.store.drafts import DRAFT, Draft

from .script_sending import NotReady

__all__ = [
    "ACCEPTED",
    "BATCH",
    "FAILED",
    "FINISHED",
    "REFUSED",
    "REMOVED",
    "SENDING",
    "WAITING",
    "BatchItem",
    "BatchPlan",
    "BatchProgress",
    "OverBalance",
    "PlannedScript",
    "batch_of",
    "mapped_for_all",
]

BATCH = "batch"
"""In a draft's options: ``{"id", "index", "size", "outcome"?}``, the batch it was sent in."""

WAITING, SENDING, ACCEPTED, FINISHED, FAILED, REFUSED, REMOVED = (
    "waiting", "sending", "accepted", "finished", "failed", "refused", "removed",
)  # fmt: skip


@dataclass(frozen=True)
class PlannedScript:
    """One draft of a batch as checked: what it would send, or why it is held back."""

    draft: Draft
    body: dict[str, Any] | None
    problem: str | None
    labels: tuple[str, ...]
    """Labels no host answers to (mapped once for the batch, they are mapped for every script)."""
    seconds: float
    credits: int
    resolved: dict[str, str] = field(default_factory=dict)
    """Every label's host as the check found it (by the mapping or by name): pinned on the draft
    when it is generated, so that its turn needs no host list."""
    details: tuple[str, ...] = ()
    """Every problem that keeps it back, one a line (``Line 3, column 1: ...``)."""

    @property
    def ready(self) -> bool:
        return self.body is not None

    @property
    def waits_for_hosts(self) -> bool:
        """Left out only until its labels have hosts (the check names unknown labels first)."""
        return not self.ready and bool(self.labels) and self.draft.state == DRAFT


@dataclass(frozen=True)
class BatchPlan:
    """The drafts checked together, in their order, and what the ready ones hold against the balance."""

    action: str
    podcast_id: str | None
    render: bool
    scripts: list[PlannedScript]
    balance: float | None

    @property
    def ready(self) -> list[PlannedScript]:
        return [script for script in self.scripts if script.ready]

    @property
    def held(self) -> list[PlannedScript]:
        return [script for script in self.scripts if not script.ready]

    @property
    def credits(self) -> int:
        """What the scripts that would be sent hold, each its own estimate."""
        return sum(script.credits for script in self.ready)

    @property
    def seconds(self) -> float:
        return sum(script.seconds for script in self.ready)

    @property
    def short_by(self) -> int:
        """Credits the balance lacks for every ready script (0: it holds them all, or is unknown)."""
        if self.balance is None:
            return 0
        return max(0, self.credits - math.floor(self.balance))

    @property
    def fits(self) -> int:
        """How many of the ready scripts, in order, the balance holds (all when it is unknown)."""
        if self.balance is None:
            return len(self.ready)
        running = 0
        for count, script in enumerate(self.ready):
            running += script.credits
            if running > self.balance:
                return count
        return len(self.ready)

    def unresolved(self) -> dict[str, list[str]]:
        """Each label no host answers to (as first spelled) and the drafts that use it, in order."""
        found: dict[str, tuple[str, list[str]]] = {}
        for script in self.scripts:
            for label in script.labels:
                _spelled, names = found.setdefault(label_key(label), (label, []))
                if script.draft.title not in names:
                    names.append(script.draft.title)
        return {spelled: names for spelled, names in found.values()}

    def budget_text(self) -> str:
        """What the batch holds, against the balance when it is known."""
        ready = self.ready
        text = (f"{len(ready)} script{'s' * (len(ready) != 1)}: {duration_text(self.seconds)} of narration, "
                f"about {self.credits:,} credits")  # fmt: skip
        if self.balance is None:
            return text + " (the balance is not known now)."
        balance = math.floor(self.balance)
        if not self.short_by:
            return text + f" of the balance of {balance:,}."
        fits = self.fits
        first = sum(script.credits for script in ready[:fits])
        which = (f"the first {fits} ({', '.join(s.draft.title for s in ready[:fits][:3])}"
                 f"{', …' if fits > 3 else ''}: {first:,} credits) fit" if fits else "not even the first fits")  # fmt: skip
        return (text + f": {self.short_by:,} more than the balance of {balance:,}. Of the scripts in order, "
                f"{which}.")  # fmt: skip


class OverBalance(NotReady):
    """The batch holds more credits than the balance: nothing was sent."""

    def __init__(self, plan: BatchPlan) -> None:
        super().__init__("Not sent: " + plan.budget_text())
        self.plan = plan


@dataclass(frozen=True)
class BatchItem:
    """One draft of a sent batch, as it stands."""

    draft_id: str
    title: str
    index: int
    state: str
    """waiting (its turn has not come), sending (its write is in the outbox), accepted, finished,
    failed (its generation failed), refused (the service, or a check at its turn, said no), removed."""
    episode_id: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class BatchProgress:
    """A sent batch: its drafts in order and how far each has come."""

    id: str
    action: str
    podcast_id: str | None
    items: tuple[BatchItem, ...] = field(default_factory=tuple)

    def count(self, *states: str) -> int:
        return sum(1 for item in self.items if item.state in states)

    @property
    def size(self) -> int:
        return len(self.items)

    @property
    def accepted(self) -> int:
        return self.count(ACCEPTED, FINISHED, FAILED)

    @property
    def ended(self) -> bool:
        """Nothing more will happen by itself: every draft was answered and every generation ended."""
        return not self.count(WAITING, SENDING, ACCEPTED)

    def summary(self) -> str:
        """``7 of 12 accepted, 3 finished, 1 refused``."""
        parts = [f"{self.accepted} of {self.size} accepted"]
        for state, word in (
            (FINISHED, "finished"),
            (FAILED, "failed"),
            (REFUSED, "refused"),
            (REMOVED, "deleted"),
        ):
            if self.count(state):
                parts.append(f"{self.count(state)} {word}")
        return ", ".join(parts)

    @property
    def title(self) -> str:
        verb = "Import" if self.action == "import" else "Generation"
        return f"{verb} of {self.size} script{'s' * (self.size != 1)}"


def batch_of(draft: Draft) -> dict[str, Any] | None:
    """The batch a draft was sent in (its options' ``batch``), or None."""
    batch = draft.options.get(BATCH)
    return batch if isinstance(batch, dict) and isinstance(batch.get("id"), str) else None


def mapped_for_all(drafts: list[Draft], shared: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Each draft that uses a label of ``shared`` (label -> host id, chosen once for a batch), with
    that label's host in its mapping: the changes to write."""
    keys = {label_key(label): (label, host) for label, host in shared.items()}
    changes: list[tuple[str, dict[str, Any]]] = []
    for draft in drafts:
        used = {label_key(label) for label in parse_text(draft.text).labels} & keys.keys()
        if used:
            mapping = {k: v for k, v in draft.mapping.items() if label_key(k) not in used}
            mapping.update(dict(keys[key] for key in used))
            changes.append((draft.id, {"mapping": mapping}))
    return changes
