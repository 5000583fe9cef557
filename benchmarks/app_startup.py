"""Start-up: process start to the first rows of episodes painted, against a bare PySide6 window
shown by a ten-line script, run side by side (alternating).

    uv run python benchmarks/app_startup.py --runs 9 [--dev-env] [--frozen PATH]

(``--runs 9`` is how it is run for reports; the default is 7.) The sandbox runs already (started
once here). Both sides run offscreen in a fresh process; the app prints "painted N" once the
Episodes table has painted its first rows, the bare script once its window has painted. Target:
the app at most 1.5x the bare window (median of the runs).

Every run but the first starts with the Episodes list in the cache (the first, which warms the file
cache, fills it), as a creator's start does: the first rows are then the early window's, read from
the cache before the rest of the app has loaded (see ``castdeck.startup``). The app also prints
"live N" once the real window has taken the early one's place with the list read from the service;
that time is reported beside ("live", no target; the same as "painted" when no early window shows).

Both sides run in Castdeck as a user installs it: a fresh virtual environment holding the package
and its dependencies at the pinned versions, without the development tools (the dev environment
has httpx's optional command-line extras, which httpx imports at start when present: ~90 ms that
no user pays). ``--dev-env`` measures the development environment instead.

``--frozen PATH`` adds the installed app, PATH being the executable packaging/build.py made
(``dist/castdeck/castdeck``), and ``uv run castdeck`` in this checkout, all four side by side
against the same bare window. Target: the installed app no slower than ``uv run castdeck``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import DEMO_KEY, start_sandbox  # noqa: E402

BARE = """
import sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QLabel
app = QApplication(sys.argv)
window = QMainWindow(); window.setCentralWidget(QLabel("Hello")); window.resize(1280, 800)
class Probe(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self); QTimer.singleShot(0, lambda: (print("painted", flush=True), app.quit()))
        return False
probe = Probe(); window.centralWidget().installEventFilter(probe); window.show(); app.exec()
"""


TARGET = 1.5


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the process start to "painted", and to "live" (the same when it says no "live")."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    painted = live = None
    for line in process.stdout:
        if line.startswith("painted"):
            painted = time.perf_counter() - start
        elif line.startswith("live"):
            live = time.perf_counter() - start
            break
    if painted is None:
        raise RuntimeError(f"{command} never painted: {process.stderr.read() if process.stderr else ''}")
    process.wait(timeout=30)
    return painted, live if live is not None else painted


def product_python(folder: Path) -> str:
    """A virtual environment with Castdeck installed as a user gets it (pinned, no dev tools)."""
    import tomllib

    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["uv"]["constraint-dependencies"]
    constraints = folder / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n")
    venv = folder / "venv"
    subprocess.run(["uv", "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python"))
    subprocess.run(["uv", "pip", "install", "-q", "--python", python, "--compile-bytecode", "-c", str(constraints),
                    str(ROOT)], check=True)  # fmt: skip
    return python


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dev-env", action="store_true", help="measure the development environment")
    parser.add_argument(
        "--frozen", type=Path, default=None, help="the built app's executable (dist/castdeck/castdeck)"
    )
    args = parser.parse_args()
    if args.frozen is not None and not args.frozen.is_file():
        parser.error(
            f"--frozen {args.frozen}: no such executable (build it: uv run python packaging/build.py)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        python = sys.executable if args.dev_env else product_python(Path(tmp))
        sandbox = start_sandbox(Path(tmp) / "sandbox", "--speed", "50")
        try:
            env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": f"{tmp}/xdg",
                   "XDG_CONFIG_HOME": f"{tmp}/config", "CASTDECK_BASE_URL": sandbox.base_url,
                   "CASTDECK_API_KEY": DEMO_KEY, "CASTDECK_STARTUP_PROBE": "Episodes"}  # fmt: skip
            # As on a user's machine, Python keeps compiled bytecode (this workplace turns it off).
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            sides = {
                "bare PySide6 window": [python, "-c", BARE],
                "castdeck, episodes painted": [python, "-m", "castdeck"],
            }
            if args.frozen is not None:
                sides["uv run castdeck (this checkout)"] = ["uv", "run", "--project", str(ROOT), "castdeck"]
                sides["installed app (--frozen)"] = [str(args.frozen.resolve())]
            for command in sides.values():
                timed(command, env)  # warm the file cache once (and fill the app's cache)
            times: dict[str, list[float]] = {name: [] for name in sides}
            lives: dict[str, list[float]] = {name: [] for name in sides}
            for _ in range(args.runs):
                for name, command in sides.items():
                    painted, live = timed(command, env)
                    times[name].append(painted)
                    lives[name].append(live)
        finally:
            sandbox.stop()
    medians = {name: statistics.median(values) for name, values in times.items()}
    bare = medians["bare PySide6 window"]
    where = "development environment" if args.dev_env else "fresh install (pinned, no dev tools)"
    print(f"runs: {args.runs} each, alternating; sandbox already running; castdeck from a {where}")
    print(f"{'':34}{'median s':>10}{'min s':>10}{'max s':>10}{'/ bare':>9}{'live s':>9}{'/ bare':>9}")
    for name, values in times.items():
        live = statistics.median(lives[name])
        print(
            f"{name:34}{medians[name]:10.3f}{min(values):10.3f}{max(values):10.3f}{medians[name] / bare:8.2f}x"
            f"{live:9.3f}{live / bare:8.2f}x"
        )
    ratio = medians["castdeck, episodes painted"] / bare
    verdict = "PASS" if ratio <= TARGET else "OVER"
    print(f"ratio app / bare: {ratio:.2f}x (target <= {TARGET}x) -> {verdict}")
    if args.frozen is not None:
        frozen, uv_run = medians["installed app (--frozen)"], medians["uv run castdeck (this checkout)"]
        verdict = "PASS" if frozen <= uv_run else "OVER"
        print(f"ratio installed / uv run castdeck: {frozen / uv_run:.2f}x (target <= 1.0x) -> {verdict}")


if __name__ == "__main__":
    main()
