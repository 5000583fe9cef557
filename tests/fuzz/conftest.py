"""Hypothesis profiles of the fuzz suite, and the count of cases it ran.

Two profiles are registered here:

- ``fuzz`` (the default for this folder): repeatable (``derandomize``: the same cases on every
  run, so CI and a developer see the same thing), no deadline (the machine is shared and small),
  sized so the whole folder runs in about a minute and a half on two cores;
- ``soak``: ten times as many cases, drawn at random on each run (failures are saved in the
  ``.hypothesis`` database and replayed first next time). Run it by hand:
  ``uv run pytest tests/fuzz --hypothesis-profile soak``.

The profiles reach the fuzz tests only, through :func:`cases`: nothing here loads a profile
globally, so the hypothesis settings of other folders (``tests/unit`` sets its own per test) are
untouched. ``--hypothesis-profile soak`` does load ``soak`` globally, as the hypothesis plugin
always does; that is a manual run of this folder.

At the end of a run the number of cases the fuzz tests ran is printed ("fuzz: 12,345 cases").
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, settings

from tests.fuzz.world import connected  # noqa: F401 - the GUI fuzz tests' session (a fixture)
from tests.gui.conftest import shot  # noqa: F401 - screenshots into artifacts/ (a fixture)

F = TypeVar("F", bound=Callable[..., Any])

BASE_EXAMPLES = 100
"""``max_examples`` of the default profile; a test's share is scaled against it."""

settings.register_profile(
    "fuzz",
    max_examples=BASE_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),  # explicit: the regression examples
)
settings.register_profile(
    "soak",
    parent=settings.get_profile("fuzz"),
    max_examples=BASE_EXAMPLES * 10,
    derandomize=False,
    database=settings.get_profile("default").database,
    phases=tuple(Phase),
)

SOAK_TIMEOUT = 3600
"""Seconds a soak test may take (pytest-timeout's 300 fits the default profile)."""

SLOW_CASES = (HealthCheck.too_slow,)
"""For tests whose single case is slow on purpose (a pane laid out, a loopback server answering)."""


class _Tally:
    profile = "fuzz"
    cases = 0


TALLY = _Tally()


def pytest_configure(config: pytest.Config) -> None:
    chosen = config.getoption("hypothesis_profile", default=None)
    TALLY.profile = "soak" if chosen == "soak" else "fuzz"


def cases(count: int, *, suppress: tuple[HealthCheck, ...] = ()) -> Callable[[F], F]:
    """Settings of a fuzz test: ``count`` cases in the default profile (ten times as many in
    ``soak``), every case counted for the end-of-run line. Apply above ``@given``."""

    def apply(test: F) -> F:
        profile = settings.get_profile(TALLY.profile)
        scaled = max(1, count * profile.max_examples // BASE_EXAMPLES)
        inner = test.hypothesis.inner_test  # type: ignore[attr-defined]
        if inspect.iscoroutinefunction(inner):

            @functools.wraps(inner)
            async def counted_async(*args: Any, **kwargs: Any) -> Any:
                result = await inner(*args, **kwargs)
                TALLY.cases += 1  # a case that ran to its end (not one hypothesis cut short)
                return result

            test.hypothesis.inner_test = counted_async  # type: ignore[attr-defined]
        else:

            @functools.wraps(inner)
            def counted(*args: Any, **kwargs: Any) -> Any:
                result = inner(*args, **kwargs)
                TALLY.cases += 1
                return result

            test.hypothesis.inner_test = counted  # type: ignore[attr-defined]
        chosen = settings(profile, max_examples=scaled, suppress_health_check=suppress)
        if TALLY.profile == "soak":  # ten times the cases may take ten times the default timeout
            test = pytest.mark.timeout(SOAK_TIMEOUT)(test)
        return chosen(test)

    return apply


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TALLY.cases:
        terminalreporter.write_line(f"fuzz: {TALLY.cases:,} cases (hypothesis profile {TALLY.profile})")


@pytest.fixture(autouse=True)
def _lists_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fuzz asks what a pane shows for one hostile answer; a list that reads a failed page again
    (after a pause of seconds) would read a different case's answer and outlive the example. The
    reading again is the soak's regression test's to prove (tests/soak)."""
    monkeypatch.setattr("castdeck.services.listing.READ_AGAIN", 0)
