"""The installed app: packaging/build.py builds it once per test session into a temporary folder,
and its download (the .tar.gz) is unpacked elsewhere, as a creator unpacks it.

Building takes about a minute (PyInstaller's analysis, the archive); a session builds once and
every test of the installed app uses that build. Nothing is reused across sessions, so a test
never runs an app built from older code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"


@dataclass(frozen=True)
class DownloadedApp:
    folder: Path  # the unpacked castdeck/ folder
    archive: Path
    build_seconds: float
    size_report: str

    @property
    def executable(self) -> Path:
        return self.folder / "castdeck"


@pytest.fixture(scope="session")
def downloaded_app(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> DownloadedApp:
    """The app built once for the whole run: the suite's workers (pytest-xdist) share one build,
    made by whichever asks first while the others wait on a lock; the tests only read it."""
    import fcntl  # the built app's tests run on Linux only

    shared = (
        tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    )
    place = shared / "bundle"
    with (shared / "bundle.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            built = place / "built.json"
            if not built.exists():
                seconds, report = _build(place)
                built.write_text(json.dumps({"seconds": seconds, "report": report}), encoding="utf-8")
            done = json.loads(built.read_text(encoding="utf-8"))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    archives = sorted((place / "dist").glob("castdeck-*-linux-*.tar.gz"))
    return DownloadedApp(place / "Downloads" / "castdeck", archives[0], done["seconds"], done["report"])


def _build(place: Path) -> tuple[float, str]:
    """Build the app into ``place`` and unpack its download there, as a creator does."""
    place.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(place / "dist"),
         "--work", str(place / "work"), "--compression", "1"],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    assert result.returncode == 0, f"build failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    archives = sorted((place / "dist").glob("castdeck-*-linux-*.tar.gz"))
    assert len(archives) == 1, sorted(p.name for p in (place / "dist").iterdir())
    downloads = place / "Downloads"
    with tarfile.open(archives[0]) as archive:
        archive.extractall(downloads, filter="tar")  # links and modes as packed
    report = (place / "dist" / "size-report.txt").read_text(encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "bundle-size-report.txt").write_text(
        report + f"build.py as run by the test: {seconds:.0f} s\n", encoding="utf-8"
    )
    return seconds, report
