"""Soak: the real app through scripted creator use against a sandbox that fails a fifth of its
requests, then killed with SIGKILL during a generate, an upload and while typing a script.

    uv run python benchmarks/soak.py [--minutes 10] [--seed N] [--chaos 0.2] [--trace-memory] [--no-kills]
                                     [--only STEP,STEP...]

It prints each step as it runs, then a summary table: unhandled exceptions and Qt warnings (0
allowed), generations asked (counted by the driver) against generations the service started
(counted in its database after a drain), uploads asked against sources completed, requests that
carried the API key anywhere but the service's origin, memory growth after warm-up (every pane
shown, then one round of every step; at most 30 MiB), and the longest event-loop stall with the
step it happened in. Then the three kills, each with its outcome.

``--only`` finds which kind of use grows memory: after the warm-up round, only the steps named
(tests/soak/steps.py) are repeated, and the per-round figures show what each round of them adds
(``--chaos 0 --no-kills`` keeps the app online, so that every step does its work).

The driver is tests/soak/driver.py (tests/soak/test_soak.py runs it for 60 s in the suite); the
kills are tests/soak/kills.py (tests/soak/test_kill.py and tests/gui/test_scripts_recovery.py).
The exit status is 0 when every figure that must hold did.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402
from tests.soak.driver import SoakReport, SoakSettings, run_soak  # noqa: E402
from tests.soak.report import MEMORY_GROWTH_AT_MOST  # noqa: E402
from tests.soak.steps import step_names  # noqa: E402

from castdeck.services.event_loop import new_event_loop  # noqa: E402
from castdeck.services.heap import tune_heap  # noqa: E402


def healthy(report: SoakReport) -> bool:
    return (
        not report.exceptions
        and not report.qt_warnings
        and not report.failed_steps
        and not report.key_elsewhere
        and report.generations.equal
        and report.uploads.equal
        and report.memory_growth <= MEMORY_GROWTH_AT_MOST
    )


def pyav_loaded(when: str) -> bool:
    """PyAV (``av``) must never be loaded in this process: it bundles its own FFmpeg, and QtMultimedia's
    FFmpeg plays media here (two FFmpeg builds in one process are kept out). Says so when it is."""
    if "av" not in sys.modules:
        return False
    print(
        f"PyAV (the 'av' module) is loaded in the soak process {when}: it must not be (two FFmpeg builds "
        "in one process are kept out); make media with PyAV in a child process (tests/media_child.py)",
        flush=True,
    )
    return True


def main() -> int:
    faulthandler.enable()  # a crash says where it happened
    tune_heap()  # as the app's entry point does first (castdeck.__main__)
    if pyav_loaded("at the start"):
        return 2
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chaos", type=float, default=0.2)
    parser.add_argument("--trace-memory", action="store_true", help="tracemalloc: what grew, by line")
    parser.add_argument("--no-kills", action="store_true", help="skip the three SIGKILL scenarios")
    parser.add_argument("--only", default="", help="after the warm-up, only these steps (comma-separated)")
    args = parser.parse_args()
    only = tuple(name for name in args.only.split(",") if name)
    unknown = sorted(set(only) - set(step_names()))
    if unknown:
        print(
            f"soak: no such step: {', '.join(unknown)} (the steps: {', '.join(step_names())})",
            file=sys.stderr,
        )
        return 2
    settings = SoakSettings(
        seconds=args.minutes * 60, seed=args.seed, chaos=args.chaos, trace_memory=args.trace_memory,
        only=only,
        say=lambda line: print(line, flush=True),
    )  # fmt: skip
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory(prefix="castdeck-soak-") as folder:
        with asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner:
            report = runner.run(run_soak(settings, Path(folder) / "soak"))
        print()
        print(report.table(), flush=True)
        ok = healthy(report)
        if not args.no_kills:
            from tests.soak.kills import kill_during_generate, kill_during_upload, kill_while_typing

            print("\nKills (SIGKILL, then a restart on the same data)", flush=True)
            kills = {
                "generate-answer": lambda root: kill_during_generate(root, "answer"),
                "generate-acceptance": lambda root: kill_during_generate(root, "acceptance"),
                "upload": kill_during_upload,
                "typing": kill_while_typing,
            }
            for name, scenario in kills.items():
                outcome = scenario(Path(folder) / f"kill-{name}")
                print(outcome.text(), flush=True)
                ok = ok and outcome.ok
    print("\nall figures hold" if ok else "\nSOME FIGURES DO NOT HOLD", flush=True)
    if pyav_loaded("at the end"):
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
