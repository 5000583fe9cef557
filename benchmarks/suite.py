"""The README's test command, this checkout against a baseline revision, side by side.

    uv run python benchmarks/suite.py --baseline REV [--runs 1]

Each side is a fresh clone (this checkout's HEAD, and REV) with a virtual environment of its own
made before anything is timed; the two suites then run in turn (baseline, this, baseline, this…)
on the quiet machine, each as a newcomer runs it: ``uv run pytest`` in the clone, plus a JUnit
report to read the tests' times from. Printed: each run's wall time, tests passed and failed,
the ratio this/baseline pair by pair, and this side's slowest tests (from its last run).

Target (issue 32): the whole suite under 10 minutes on the 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def clone(revision: str, into: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(into)], check=True)
    subprocess.run(["git", "-C", str(into), "checkout", "--quiet", revision], check=True)
    subprocess.run(["uv", "sync", "--quiet"], cwd=into, check=True)
    return into


def run_suite(checkout: Path, report: Path) -> tuple[float, int, int, str]:
    """Wall seconds, tests passed, tests failed, and the last line pytest printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "CASTDECK_"))}
    started = time.perf_counter()
    done = subprocess.run(
        ["uv", "run", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}"],
        cwd=checkout, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    # (the report is pytest's own, written by this run)
    cases = list(ET.parse(report).iter("testcase")) if report.exists() else []  # noqa: S314
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return seconds, len(cases) - failed, failed, last


def slowest(report: Path, count: int) -> list[tuple[float, str]]:
    tree = ET.parse(report)  # noqa: S314 - pytest's own report of this run
    cases = [
        (float(c.get("time", 0)), f"{c.get('classname')}::{c.get('name')}") for c in tree.iter("testcase")
    ]
    return sorted(cases, reverse=True)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", required=True, help="the revision to compare with")
    parser.add_argument("--runs", type=int, default=1, help="pairs of runs (default 1)")
    parser.add_argument("--slowest", type=int, default=15)
    args = parser.parse_args()
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    with tempfile.TemporaryDirectory(prefix="castdeck-suite-") as temp:
        base = clone(args.baseline, Path(temp) / "baseline")
        this = clone(head.stdout.strip(), Path(temp) / "this")
        print(
            f"baseline {args.baseline} vs this {head.stdout.strip()[:10]}, {args.runs} pair(s), {os.cpu_count()} cores"
        )
        ratios = []
        for pair in range(1, args.runs + 1):
            b = run_suite(base, Path(temp) / f"baseline-{pair}.xml")
            t = run_suite(this, Path(temp) / f"this-{pair}.xml")
            ratios.append(t[0] / b[0])
            for name, (seconds, passed, failed, last) in (("baseline", b), ("this", t)):
                print(
                    f"pair {pair} {name:8} {seconds / 60:6.2f} min  {passed} passed, {failed} failed  | {last}"
                )
            print(f"pair {pair} ratio this/baseline {ratios[-1]:.2f}")
        print(f"median ratio {sorted(ratios)[len(ratios) // 2]:.2f}")
        print("slowest tests of this side (last run, seconds, setup + call + teardown):")
        for seconds, name in slowest(Path(temp) / f"this-{args.runs}.xml", args.slowest):
            print(f"  {seconds:6.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
