"""The soak's figures: the steps it ran, what it asked for against what the service did, and the
health of the app (exceptions, Qt warnings, memory, stalls), with the table it prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from castdeck.services.heap import HeapUsage
from tests.soak.creator import Ask
from tests.soak.service import Generation

__all__ = ["GenerationCount", "SoakReport", "StepRecord", "UploadCount", "count_generations", "count_uploads"]


@dataclass
class StepRecord:
    name: str
    started: float
    outcome: str = ""
    failed: bool = False
    seconds: float = 0.0
    widgets: int = 0
    """Widgets that exist after the step and did not before it."""

    def line(self) -> str:
        mark = "FAILED " if self.failed else ""
        return f"{self.started:7.1f}s  {self.name:<26} {self.seconds:5.1f}s  {mark}{self.outcome}"


@dataclass
class GenerationCount:
    asked: int = 0
    started: int = 0
    """Generation records the service created during the run (its database)."""
    once: int = 0
    """Asks the service started exactly once (found by their token, through the app's keys)."""
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    unasked: list[str] = field(default_factory=list)
    """Records the service made that no ask explains."""
    refused_later: list[str] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)
    by_how: dict[str, int] = field(default_factory=dict)

    @property
    def equal(self) -> bool:
        return self.asked == self.started == self.once and not (self.lost or self.duplicated or self.unasked)


@dataclass
class UploadCount:
    asked: int = 0
    completed: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return self.asked == self.completed and not (self.lost or self.duplicated)


def count_generations(
    asks: list[Ask],
    entries: list[tuple[str, str, str, str | None]],
    keys: dict[str, tuple[str, str, str | None]],
    made: list[Generation],
) -> GenerationCount:
    """Each ask's token is found in the outbox entries the app stored (their bodies), their
    idempotency keys at the service, and the resources those keys made; every record the service
    made is then either one ask's, or unasked."""
    count = GenerationCount(asked=len(asks), started=len(made))
    count.by_kind = dict(Counter(a.kind for a in asks))
    count.by_how = dict(Counter(a.how for a in asks))
    explained: set[str] = set()
    for ask in asks:
        mine = [e for e in entries if ask.token in e[1]]
        resources = {keys[key][2] for key, *_ in mine if key in keys and keys[key][2]}
        resources |= {g.id for g in made if ask.token in g.text}
        explained |= resources
        rejected = [e for e in mine if e[2] == "rejected"]
        if len(resources) == 1:
            count.once += 1
        elif not resources and rejected:
            count.refused_later.append(f"{ask.token} ({ask.step}): {rejected[0][3]}")
        elif not resources:
            states = [e[2] for e in mine]
            count.lost.append(f"{ask.token} ({ask.step}, {ask.how}; outbox entries {states})")
        else:
            count.duplicated.append(f"{ask.token} ({ask.step}): {sorted(r or '' for r in resources)}")
    count.unasked = [f"{g.kind} {g.id}" for g in made if g.id not in explained]
    return count


def count_uploads(asked: list[str], completed: dict[str, list[dict[str, Any]]]) -> UploadCount:
    count = UploadCount(asked=len(asked))
    for name in asked:
        found = completed.get(name, [])
        count.completed += len(found)
        if not found:
            count.lost.append(name)
        elif len(found) > 1:
            count.duplicated.append(f"{name}: {[s['id'] for s in found]}")
    return count


MEMORY_GROWTH_AT_MOST = 30.0
"""MiB the app may gain after its warm-up over a 10-minute soak (benchmarks/soak.py)."""


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} MiB"


def _heap(usage: HeapUsage | None) -> str:
    return "-" if usage is None else f"{usage.in_use:.0f}/{usage.free:.0f} MiB ({usage.mapped:.0f} mapped)"


@dataclass
class SoakReport:
    settings: Any
    rss_before: float = 0.0
    rss_panes: float = 0.0
    """After every pane was shown once."""
    rss_warm: float = 0.0
    """After the warm-up: every pane, then one round of every step."""
    rss_end: float = 0.0
    heap_warm: HeapUsage | None = None
    heap_end: HeapUsage | None = None
    sqlite_warm: float | None = None
    """MiB SQLite holds (part of the C heap in use), after warm-up and at the end."""
    sqlite_end: float | None = None
    pictures_warm: float = 0.0
    """MiB of pictures kept in memory (covers, tiles, stills: the app's one budget for them), after
    warm-up and at the end."""
    pictures_end: float = 0.0
    pictures_limit: float = 0.0
    rss_rounds: list[tuple[float, int, int, HeapUsage | None]] = field(default_factory=list)
    """(RSS, widgets, jobs followed, the C heap) after each round of every step (a leak grows round
    after round). Every memory figure is read after a full collection and a trim."""
    widgets_warm: int = 0
    widgets_end: int = 0
    memory_top: list[str] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)
    generations: GenerationCount = field(default_factory=GenerationCount)
    refusals: list[str] = field(default_factory=list)
    shown_and_retried: list[str] = field(default_factory=list)
    uploads: UploadCount = field(default_factory=UploadCount)
    refused_locally: int = 0
    upload_retries: int = 0
    upload_failures: dict[str, int] = field(default_factory=dict)
    resent: tuple[int, int] = (0, 0)
    key_elsewhere: list[str] = field(default_factory=list)
    api_requests: int = 0
    signed_requests: int = 0
    exceptions: list[str] = field(default_factory=list)
    qt_warnings: list[str] = field(default_factory=list)
    ignored_qt: dict[str, int] = field(default_factory=dict)
    stall_ms: float = 0.0
    stall_step: str = "-"
    stalls_over_50ms: int = 0
    stall_by_step: dict[str, float] = field(default_factory=dict)
    longest_stalls: list[tuple[float, str, str]] = field(default_factory=list)
    stalls_by_step: dict[str, int] = field(default_factory=dict)
    drain_seconds: float = 0.0

    @property
    def memory_growth(self) -> float:
        """MiB of resident memory gained after the warm-up."""
        return self.rss_end - self.rss_warm

    def _stall_lines(self) -> list[str]:
        lines = []
        for ms, step, stack in self.longest_stalls:
            lines.append(f"{ms:.0f} ms in {step}:")
            frames = [f.strip() for f in stack.splitlines()[1:] if "qasync" not in f and "/asyncio/" not in f]
            lines += [f"    {frame}" for frame in frames[:6]] or [
                "    (inside Qt: no Python frame above the loop)"
            ]
        return lines

    @property
    def failed_steps(self) -> list[StepRecord]:
        return [s for s in self.steps if s.failed]

    def table(self) -> str:
        g, u, s = self.generations, self.uploads, self.settings
        ran = Counter(step.name for step in self.steps)
        rows = [
            ("run", f"{s.seconds:.0f} s, seed {s.seed}, chaos {s.chaos}, sandbox speed {s.speed:g}"),
            ("steps", f"{len(self.steps)} ({len(self.failed_steps)} failed); drain {self.drain_seconds:.0f} s"),
            ("  errors shown, tried again", str(len(self.shown_and_retried))),
            ("unhandled exceptions", str(len(self.exceptions))),
            ("Qt warnings", f"{len(self.qt_warnings)} (platform noise ignored as pyproject's qt_log_ignore: "
                            f"{sum(self.ignored_qt.values())})"),
            ("generations asked (driver)", f"{g.asked}  {dict(sorted(g.by_kind.items()))}"),
            ("  how the app took them", str(dict(sorted(g.by_how.items())))),
            ("generations started (service)", f"{g.started}"),
            ("  asked and started once", f"{g.once}"),
            ("  lost / duplicated / unasked", f"{len(g.lost)} / {len(g.duplicated)} / {len(g.unasked)}"),
            ("  refused (at once / later)", f"{len(self.refusals)} / {len(g.refused_later)}"),
            ("  equal", "yes" if g.equal else "NO"),
            ("  kept requests sent again", f"{self.resent[0]} requests, {self.resent[1]} resends, each with its key"),
            ("uploads asked (driver)", f"{u.asked} (and {self.refused_locally} refused locally)"),
            ("sources completed (service)", f"{u.completed}  lost {len(u.lost)}, duplicated {len(u.duplicated)}"),
            ("  equal", "yes" if u.equal else "NO"),
            ("  Retry failed pressed", f"{self.upload_retries}; failed rows: {sum(self.upload_failures.values())}"),
            ("API key to another origin", f"{len(self.key_elsewhere)} of {self.signed_requests} requests to signed "
                                          f"addresses ({self.api_requests} to the API)"),
            ("memory (RSS)", f"{self.rss_before:.0f} MiB before the app, {self.rss_panes:.0f} with every pane "
                             f"shown, {self.rss_warm:.0f} after warm-up (and a round of every step), "
                             f"{self.rss_end:.0f} at the end: growth {self.memory_growth:+.1f} MiB "
                             f"(at most {MEMORY_GROWTH_AT_MOST:.0f})"),
            ("  C heap in use / kept free", f"{_heap(self.heap_warm)} after warm-up, {_heap(self.heap_end)} at the end"),
            ("  of it SQLite's", f"{_mib(self.sqlite_warm)} after warm-up, {_mib(self.sqlite_end)} at the end"),
            ("  of it pictures", f"{self.pictures_warm:.1f} MiB after warm-up, {self.pictures_end:.1f} MiB at the end "
                                 f"(their budget: {self.pictures_limit:.1f} MiB)"),
            ("  after each round of all steps", ", ".join(f"{m:.0f} MiB/{w} widgets/{j} jobs/heap {_heap(h)}"
                                                          for m, w, j, h in self.rss_rounds) or "(no round ended)"),
            ("  widgets", f"{self.widgets_warm} after warm-up, {self.widgets_end} at the end"),
            ("longest stall", f"{self.stall_ms:.0f} ms in {self.stall_step} ({self.stalls_over_50ms} over 50 ms)"),
        ]  # fmt: skip
        width = max(len(name) for name, _ in rows)
        lines = ["Soak summary", "=" * 72]
        lines += [f"{name:<{width}}  {value}" for name, value in rows]
        lines.append("steps run: " + ", ".join(f"{name} {n}" for name, n in sorted(ran.items())))
        worst = list(self.stall_by_step.items())[:6]
        lines.append("worst stall by step: " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in worst))
        grown: Counter[str] = Counter()
        for step in self.steps:
            grown[step.name] += step.widgets
        lines.append(
            "widgets added by step (sum over the run): "
            + ", ".join(f"{name} {n:+d}" for name, n in grown.most_common() if n)
        )
        lines.append(
            "stalls over 50 ms by step: " + ", ".join(f"{n} {c}" for n, c in self.stalls_by_step.items())
        )
        for title, items in (
            ("FAILED STEPS", [f"{x.name} at {x.started:.0f} s: {x.outcome}" for x in self.failed_steps]),
            ("ERRORS SHOWN, THEN TRIED AGAIN", self.shown_and_retried),
            ("EXCEPTIONS", self.exceptions), ("QT WARNINGS", self.qt_warnings),
            ("LOST GENERATIONS", g.lost), ("DUPLICATED GENERATIONS", g.duplicated),
            ("UNASKED GENERATIONS", g.unasked), ("REFUSED GENERATIONS", self.refusals + g.refused_later),
            ("UPLOAD FAILURES (before a retry)", [f"{n}x {why}" for why, n in self.upload_failures.items()]),
            ("LOST UPLOADS", u.lost), ("DUPLICATED UPLOADS", u.duplicated),
            ("API KEY SENT ELSEWHERE", self.key_elsewhere),
            ("THE LONGEST STALLS (the loop thread's Python stack, most recent call first)", self._stall_lines()), ("MEMORY GROWTH (tracemalloc)", self.memory_top),
        ):  # fmt: skip
            if items:
                lines.append(f"{title}:")
                lines += [f"  {item}" for item in items]
        return "\n".join(lines)
