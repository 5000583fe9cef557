"""One look at a text script: parsed, checked and estimated together (the editor and the command line)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .estimate import Estimate, estimate
from .problems import Problem, blocking, check_text
from .speakers import HostRef, Resolution, resolve
from .text_form import ParsedScript, parse_text

__all__ = ["Analysis", "analyze"]


@dataclass(frozen=True)
class Analysis:
    script: ParsedScript
    problems: list[Problem]
    estimate: Estimate
    resolutions: dict[str, Resolution]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.is_error]

    def blocking(self, action: str) -> list[Problem]:
        """The errors that keep ``action`` ("import" or "generate") from being sent."""
        return blocking(self.problems, action)


def analyze(
    text: str,
    *,
    hosts: Iterable[HostRef] | None = None,
    mapping: Mapping[str, str] | None = None,
    check_speakers: bool = True,
) -> Analysis:
    known = list(hosts) if hosts is not None else None
    script = parse_text(text)
    problems = check_text(script, hosts=known, mapping=mapping, check_speakers=check_speakers)
    return Analysis(script, problems, estimate(script), resolve(script.labels, known, mapping or {}))
