"""The soak's schedule: rounds of every step by weight, and ``--only`` for finding what grows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from tests.soak.driver import _schedule
from tests.soak.steps import STEPS, Step


def rounds(schedule: Iterator[Step | None], count: int) -> list[Counter[str]]:
    taken: list[Counter[str]] = []
    current: Counter[str] = Counter()
    while len(taken) < count:
        step = next(schedule)
        if step is None:
            taken.append(current)
            current = Counter()
        else:
            current[step.__name__] += 1
    return taken


def test_every_round_holds_every_step_as_often_as_its_weight() -> None:
    weights = Counter({step.__name__: weight for step, weight in STEPS})
    assert rounds(_schedule(7), 3) == [weights, weights, weights]


def test_with_only_the_rounds_after_the_warm_up_hold_just_the_steps_named() -> None:
    weights = Counter({step.__name__: weight for step, weight in STEPS})
    named = ("publish", "listen_and_export")
    first, *later = rounds(_schedule(7, named), 4)
    assert first == weights
    assert later == [Counter({name: weights[name] for name in named})] * 3


def test_the_order_is_seeded_and_only_leaves_the_warm_up_round_as_it_was() -> None:
    def names(schedule: Iterator[Step | None], count: int) -> list[str | None]:
        return [None if step is None else step.__name__ for step in (next(schedule) for _ in range(count))]

    length = sum(weight for _, weight in STEPS) + 1
    assert names(_schedule(7), 3 * length) == names(_schedule(7), 3 * length)
    assert names(_schedule(7, ("publish",)), length) == names(_schedule(7), length)
    assert names(_schedule(7), length) != names(_schedule(8), length)
