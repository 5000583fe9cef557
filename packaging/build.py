"""Build the Castdeck desktop app for this operating system.

    uv run python packaging/build.py [--dist DIR] [--work DIR]

1. A build environment (WORK/env): a virtual environment with only the app's dependencies, at the
   versions pinned in pyproject.toml, and PyInstaller. The development tools (pytest, mypy,
   hypothesis, ...) are not in it, so PyInstaller cannot find them and pack them.
2. The icons, drawn from resources/castdeck.svg, and the platform metadata (WORK/meta).
3. PyInstaller with packaging/castdeck.spec: the one-folder app DIST/castdeck
   (macOS: DIST/Castdeck.app). On Linux, the symbol tables left in its libraries are stripped
   (bundle_strip.py).
4. The check (bundle_check.py): every module the app imports is inside, every library finds the Qt
   and FFmpeg libraries it links, the speech data, certificates and Qt plugins are there, the
   unused Qt modules are not. The build fails otherwise.
5. What a creator downloads: Linux: DIST/castdeck-VERSION-linux-ARCH.tar.gz (the folder with
   castdeck.desktop, icons and install.sh), and an AppImage when `appimagetool` is on PATH (or
   named by $APPIMAGETOOL); Windows: a .zip of the folder; macOS: a .zip of Castdeck.app.
6. A size report per part (Qt, FFmpeg, eSpeak NG, Python, ...) in DIST/size-report.txt.

Defaults: DIST is dist/ and WORK is build/ in the checkout; both stay out of git.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bundle_check  # noqa: E402
import bundle_icons  # noqa: E402
import bundle_linux  # noqa: E402
import bundle_meta as meta  # noqa: E402
import bundle_sizes  # noqa: E402
import bundle_strip  # noqa: E402


class BuildError(RuntimeError):
    """The build cannot go on; the message says why."""


def arch() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}.get(machine, machine)


def os_name() -> str:
    return {"win32": "windows", "darwin": "macos"}.get(sys.platform, "linux")


def run(command: list[str | Path], *, log: Path | None = None, env: dict[str, str] | None = None) -> None:
    """Run a step's command; its output goes to ``log`` (shown when it fails) or to the console."""
    text = [str(part) for part in command]
    if log is None:
        result = subprocess.run(text, env=env, check=False)
    else:
        with log.open("w", encoding="utf-8") as out:
            result = subprocess.run(text, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if result.returncode != 0:
        tail = ""
        if log is not None:
            tail = "\n" + "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-40:])
        raise BuildError(f"{text[0]} {' '.join(text[1:3])} ... failed (exit {result.returncode}){tail}")


# --- 1. the build environment ----------------------------------------------------------------------------


def uv_executable() -> str:
    uv = os.environ.get("UV") or shutil.which("uv")
    if not uv:
        raise BuildError("uv is needed to make the build environment (https://docs.astral.sh/uv/)")
    return uv


def build_environment(work: Path) -> Path:
    """WORK/env with the app's dependencies at their pinned versions and PyInstaller; its Python."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = pyproject["tool"]["uv"]["constraint-dependencies"]
    constraints = work / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
    env = work / "env"
    python = env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    uv = uv_executable()
    if not python.exists():
        run([uv, "venv", "--quiet", "--python", sys.executable, env])
    # The project's own dependencies (not the project: PyInstaller reads it from src/) and the
    # pinned PyInstaller; an unchanged environment is checked, not reinstalled.
    run([uv, "pip", "install", "--quiet", "--python", python, "-c", constraints, "-r", ROOT / "pyproject.toml",
         "pyinstaller", "pyinstaller-hooks-contrib"])  # fmt: skip
    return python


# --- 2. icons and metadata -------------------------------------------------------------------------------


def platform_metadata(work: Path, version: str) -> tuple[Path, Path]:
    """The icons and the Windows version resource (made and checked on every OS: cheap, and a
    mistake in the Windows or macOS metadata shows on Linux too). Returns (icons, version file)."""
    icons = work / "meta" / "icons"
    bundle_icons.make_icons(ROOT / "resources" / "castdeck.svg", icons)
    version_file = work / "meta" / "version-info.txt"
    version_file.write_text(meta.windows_version_file(version), encoding="utf-8")
    bundle_check.check_version_file(version_file, version)
    bundle_check.check_info_plist(meta.info_plist(version))
    return icons, version_file


# --- 3. PyInstaller --------------------------------------------------------------------------------------


def pyinstaller(python: Path, dist: Path, work: Path, icons: Path, version_file: Path) -> None:
    env = {**os.environ, "PYTHONNOUSERSITE": "1"}
    env.pop("PYTHONPATH", None)
    run([python, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath", dist,
         "--workpath", work / "pyinstaller", HERE / "castdeck.spec", "--", "--icons", icons,
         "--version-file", version_file], log=work / "pyinstaller.log", env=env)  # fmt: skip


def app_folder(dist: Path) -> Path:
    """The folder whose contents are the app (the .app bundle on macOS)."""
    return dist / f"{meta.APP_NAME}.app" if sys.platform == "darwin" else dist / meta.EXECUTABLE


# --- 5. archives -----------------------------------------------------------------------------------------


def archives(dist: Path, work: Path, version: str, icons: Path, compression: int) -> list[Path]:
    base = f"{meta.EXECUTABLE}-{version}-{os_name()}-{arch()}"
    made: list[Path] = []
    if sys.platform == "darwin":
        target = dist / f"{base}.zip"
        target.unlink(missing_ok=True)
        # ditto keeps the bundle's symbolic links (a plain zip would copy what they point at)
        run(["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", app_folder(dist), target])
        made.append(target)
    elif sys.platform == "win32":
        target = dist / f"{base}.zip"
        target.unlink(missing_ok=True)
        made.append(Path(shutil.make_archive(str(dist / base), "zip", dist, meta.EXECUTABLE)))
    else:
        folder = app_folder(dist)
        bundle_linux.add_desktop_integration(folder, icons)
        made.append(bundle_linux.tarball(folder, dist / f"{base}.tar.gz", compression))
        tool = os.environ.get("APPIMAGETOOL") or shutil.which("appimagetool")
        if tool:
            target = dist / f"{meta.APP_NAME}-{version}-{arch()}.AppImage"
            appdir = bundle_linux.appdir(folder, work / "AppDir", icons)
            run([tool, "--no-appstream", appdir, target], log=work / "appimagetool.log",
                env={**os.environ, "ARCH": platform.machine()})  # fmt: skip
            made.append(target)
        else:
            print("AppImage: skipped (appimagetool is not on PATH; set APPIMAGETOOL to use another path)")
    return made


# --- the whole build -------------------------------------------------------------------------------------


@contextmanager
def step(name: str, times: dict[str, float]) -> Iterator[None]:
    print(f"== {name}", flush=True)
    start = time.perf_counter()
    yield
    times[name] = time.perf_counter() - start
    print(f"   {times[name]:.1f} s", flush=True)


def build(
    dist: Path, work: Path, say: Callable[[str], None] = print, *,
    compression: int = bundle_linux.RELEASE_COMPRESSION,
) -> Path:  # fmt: skip
    """Build, check and archive the app; returns the app folder. ``compression``: the gzip level
    of the Linux download (the release's by default)."""
    dist, work = dist.resolve(), work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    dist.mkdir(parents=True, exist_ok=True)
    version = meta.version()
    times: dict[str, float] = {}
    started = time.perf_counter()
    with step("build environment (pinned dependencies and PyInstaller)", times):
        python = build_environment(work)
    with step("icons and platform metadata", times):
        icons, version_file = platform_metadata(work, version)
    with step("PyInstaller", times):
        pyinstaller(python, dist, work, icons, version_file)
    folder = app_folder(dist)
    if sys.platform.startswith("linux"):
        with step("strip symbol tables", times):
            before, after, kept = bundle_strip.strip_bundle(folder / "_internal")
            say(
                f"   {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB"
                + "".join(f"\n   not stripped: {k}" for k in kept)
            )
    with step("check the bundle", times):
        problems = bundle_check.check_bundle(folder, ROOT / "src" / "castdeck")
        if problems:
            raise BuildError("the bundle is incomplete:\n  " + "\n  ".join(problems))
    with step("archives", times):
        made = archives(dist, work, version, icons, compression)
    total = time.perf_counter() - started
    report = bundle_sizes.report(folder, made)
    report += "\nbuild time: " + f"{total:.0f} s (" + ", ".join(f"{name.split(' (')[0]} {secs:.0f} s" for name, secs in times.items()) + ")\n"  # fmt: skip
    (dist / "size-report.txt").write_text(report, encoding="utf-8")
    say(report)
    say(f"The app: {folder}")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py", description="Build the Castdeck app for this OS.")
    parser.add_argument(
        "--dist", type=Path, default=ROOT / "dist", help="where the app lands (default dist/)"
    )
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="build files (default build/)")
    parser.add_argument(
        "--compression", type=int, choices=range(1, 10), default=bundle_linux.RELEASE_COMPRESSION,
        metavar="1-9", help=f"gzip level of the Linux download (default {bundle_linux.RELEASE_COMPRESSION})",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        build(args.dist, args.work, compression=args.compression)
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
