"""The suite's own rules, checked in a pytest of their own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_what_a_failing_test_held_is_freed_before_the_next_test() -> None:
    """pytest keeps a failing test's exception (``sys.last_value``) until the next test runs; the
    suite lets it go at the failing test's teardown, so its widgets and loop are not freed in the
    middle of the next test (tests/conftest.py, _collect_garbage_between_tests)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-q", "--durations=0",
         str(ROOT / "tests" / "hygiene_probe.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout, done.stdout
    assert "FAILED tests/hygiene_probe.py::test_fails_holding_a_widget_in_a_cycle" in done.stdout
