"""Checking a season of scripts at once: 100 scripts of 10,000 characters each.

    uv run python benchmarks/script_batch.py [--scripts 100] [--chars 10000] [--runs 7]

Figures, each run side by side (alternating, the line caches emptied before each, as at the first
check after a start):

* the batch: :func:`castdeck.scripts.batch.check_batch` with a host list (parse, check, resolve
  labels, estimate every script, then the labels to map once for all and the budget);
* one by one: :func:`castdeck.scripts.analyze` on each script, as the editor checks one draft,
  the baseline the batch should not be slower than;
* bare: splitting the same texts into lines, the floor of reading them at all.

Targets: the batch of 100 under 1 s (it runs off the UI thread in the app, but a creator waits for
it); the batch at most 1.1x checking the scripts one by one.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from castdeck.scripts import HostRef, analyze
from castdeck.scripts.batch import check_batch
from castdeck.scripts.estimate import speaking_seconds, word_count
from castdeck.scripts.lines import classify_line

HOSTS = [HostRef(f"h-{name.lower()}", name) for name in ("Alex", "Maya", "Sam", "Ira")]
WORDS = ["tide", "harbour", "swell", "kelp", "current", "river", "bend", "estuary", "salt", "marsh", "light", "keeper", "boat", "net", "morning", "evening", "storm", "calm", "wave", "shore", "island", "channel", "north", "south"]  # fmt: skip
TARGET_SECONDS = 1.0
TARGET_RATIO = 1.1


def make_script(rng: random.Random, chars: int, number: int) -> str:
    """A script of about ``chars`` characters: chapters, turns among four hosts and a guest, some
    delivery tags, as a season's episode is written."""
    parts = [f"# Episode {number}: opening\n"]
    size = len(parts[0])
    speakers = ["Alex", "Maya", "Sam", "Ira", "Guest"]
    turn = 0
    while size < chars:
        if turn and turn % 40 == 0:
            parts.append(f"\n# Part {turn // 40 + 1}\n")
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
        tag = " (laughs)" if rng.random() < 0.05 else ""
        text = f"\n[{speakers[turn % len(speakers)]}]\n{words.capitalize()}{tag}, and then {rng.choice(WORDS)}.\n"
        parts.append(text)
        size += len(text)
        turn += 1
    return "".join(parts)[:chars]


def empty_caches() -> None:
    classify_line.cache_clear()
    speaking_seconds.cache_clear()
    word_count.cache_clear()


def timed(work: Callable[[], object]) -> float:
    empty_caches()
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scripts", type=int, default=100)
    parser.add_argument("--chars", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(7)
    texts = [(f"episode-{n:03}.txt", make_script(rng, args.chars, n)) for n in range(1, args.scripts + 1)]
    sides: dict[str, Callable[[], object]] = {
        "batch (check_batch)": lambda: check_batch(texts, hosts=HOSTS).budget(10_000),
        "one by one (analyze)": lambda: [analyze(text, hosts=HOSTS) for _, text in texts],
        "bare (split into lines)": lambda: [text.splitlines() for _, text in texts],
    }
    for work in sides.values():  # warm up (imports, the regular expressions)
        timed(work)
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.runs):
        for name, work in sides.items():
            times[name].append(timed(work))
    batch = check_batch(texts, hosts=HOSTS)
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.scripts} scripts of {args.chars:,} characters ({sum(len(t) for _, t in texts):,} in all), "
          f"{sum(s.estimate.turns for s in batch.scripts):,} turns; {args.runs} runs each, alternating")  # fmt: skip
    for name, values in times.items():
        print(f"  {name:26} median {medians[name] * 1000:8.1f} ms   min {min(values) * 1000:8.1f} ms   "
              f"per script {medians[name] * 1000 / args.scripts:6.2f} ms")  # fmt: skip
    total = medians["batch (check_batch)"]
    ratio = total / medians["one by one (analyze)"]
    print(
        f"batch: {total:.3f} s (target < {TARGET_SECONDS:.1f} s) -> {'PASS' if total < TARGET_SECONDS else 'OVER'}"
    )
    print(
        f"batch / one by one: {ratio:.2f}x (target <= {TARGET_RATIO}x) -> {'PASS' if ratio <= TARGET_RATIO else 'OVER'}"
    )
    print(f"batch / bare: {total / medians['bare (split into lines)']:.1f}x")
    print(f"the batch holds {batch.credits:,} credits ({batch.seconds / 3600:.1f} h of narration); "
          f"labels to map once: {', '.join(batch.unresolved()) or 'none'}")  # fmt: skip


if __name__ == "__main__":
    main()
