"""The Linux system libraries and programs Castdeck needs: which are missing, and how to install them.

PySide6's wheels carry Qt, but Qt loads a few libraries from the system: EGL, xkbcommon, fontconfig,
D-Bus, the ``libxcb-*`` set for real windows, and PulseAudio's client library, which QtMultimedia
(the audio player) needs to be imported at all. The test of the built app also runs it on a real X
server with a sound server and drives it with xdotool.

Everything is looked for by what the program loads or runs (a library's soname in the linker's
cache, a program on ``PATH``, a font file), so any distribution answers; the package names are
known for Debian/Ubuntu (apt) and Fedora (dnf).

Used by the app, to say in place which package gives the audio player (:func:`install_hint`), and
by the test suite: ``tests/conftest.py`` calls :func:`ensure` before anything imports Qt, so the
README's test command sets up a fresh machine by itself (as root, else with ``sudo -n``), or stops
at once with the packages missing and the one command that installs them. Alone::

    python -m castdeck.system_packages [--install] [--for app|player|tests ...]

exits 0 when nothing is missing (or all of it was installed), 1 when something is missing, 2 when
it cannot install what is missing.

Standard library only: no Qt (it may be what is missing), and nothing of the rest of the app.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "GROUPS",
    "NEEDS",
    "CannotInstall",
    "Need",
    "Probe",
    "ensure",
    "hint_for_error",
    "install_command",
    "install_hint",
    "main",
    "missing",
]

Group = Literal["app", "player", "tests"]
GROUPS: tuple[Group, ...] = ("app", "player", "tests")
"""``app``: Qt itself (offscreen and real windows); ``player``: QtMultimedia; ``tests``: what the
test of the built app runs (an X server, a sound server, xdotool, desktop-file-validate, strip)."""


@dataclass(frozen=True)
class Need:
    """One thing the system must provide: a library (by soname), a program or a font."""

    name: str
    kind: Literal["library", "program", "font"]
    debian: str
    fedora: str
    group: Group
    why: str = ""


def _libraries(group: Group, why: str, *rows: tuple[str, str, str]) -> list[Need]:
    return [Need(soname, "library", debian, fedora, group, why) for soname, debian, fedora in rows]


NEEDS: tuple[Need, ...] = (
    *_libraries(
        "app",
        "Qt",
        ("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
        ("libEGL.so.1", "libegl1", "libglvnd-egl"),
        ("libGL.so.1", "libgl1", "libglvnd-glx"),
        ("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
        ("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
        ("libfreetype.so.6", "libfreetype6", "freetype"),
        ("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
    ),
    Need("a TrueType font", "font", "fonts-dejavu-core", "dejavu-sans-fonts", "app", "Qt's text"),
    *_libraries(
        "app",
        "Qt's windows (xcb)",
        ("libX11.so.6", "libx11-6", "libX11"),
        ("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
        ("libxcb.so.1", "libxcb1", "libxcb"),
        ("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
        ("libxcb-glx.so.0", "libxcb-glx0", "libxcb"),
        ("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
        ("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
        ("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
        ("libxcb-render.so.0", "libxcb-render0", "libxcb"),
        ("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
        ("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
        ("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
        ("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
        ("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
        ("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
        ("libxcb-xinerama.so.0", "libxcb-xinerama0", "libxcb"),
        ("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    ),
    Need(
        "libpulse.so.0", "library", "libpulse0", "pulseaudio-libs", "player", "QtMultimedia, the audio player"
    ),
    Need("Xvfb", "program", "xvfb", "xorg-x11-server-Xvfb", "tests", "an X server for the built app"),
    Need("xdotool", "program", "xdotool", "xdotool", "tests", "keys and windows of the built app"),
    Need("xwininfo", "program", "x11-utils", "xwininfo", "tests", "windows of the built app"),
    Need(
        "pulseaudio", "program", "pulseaudio", "pulseaudio", "tests", "a sound server with a virtual speaker"
    ),
    Need("pactl", "program", "pulseaudio-utils", "pulseaudio-utils", "tests", "the sound server's streams"),
    Need(
        "parec", "program", "pulseaudio-utils", "pulseaudio-utils", "tests", "recording the virtual speaker"
    ),
    Need(
        "desktop-file-validate",
        "program",
        "desktop-file-utils",
        "desktop-file-utils",
        "tests",
        "the .desktop file",
    ),
    Need("strip", "program", "binutils", "binutils", "tests", "the app's build"),
)


Manager = Literal["apt", "dnf"]


@dataclass
class Probe:
    """What this machine has: asked once, then kept. Every part can be replaced (tests do)."""

    system: str = ""
    libraries: frozenset[str] | None = None
    which: Callable[[str], str | None] = shutil.which
    font_folders: tuple[Path, ...] = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
    os_release: Path = Path("/etc/os-release")

    def __post_init__(self) -> None:
        self.system = self.system or platform.system()

    def has(self, need: Need) -> bool:
        if need.kind == "program":
            return self.which(need.name) is not None
        if need.kind == "font":
            return any(_has_font(folder) for folder in self.font_folders)
        if self.libraries is None:
            self.libraries = _linker_cache()
        return need.name in self.libraries

    def manager(self) -> Manager | None:
        """The package manager whose names we know, from ``/etc/os-release``'s ID and ID_LIKE."""
        try:
            text = self.os_release.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        ids: set[str] = set()
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key in ("ID", "ID_LIKE"):
                ids.update(value.strip().strip("\"'").lower().split())
        if ids & {"debian", "ubuntu"}:
            return "apt"
        if ids & {"fedora", "rhel", "centos"}:
            return "dnf"
        return None


def _has_font(folder: Path) -> bool:
    for _root, _dirs, files in os.walk(folder):
        if any(name.lower().endswith((".ttf", ".otf", ".ttc")) for name in files):
            return True
    return False


_ARCH_FLAGS = {"x86_64": "x86-64", "aarch64": "AArch64", "arm64": "AArch64"}


def _linker_cache() -> frozenset[str]:
    """The sonames the dynamic linker finds (``ldconfig -p``), for this machine's architecture."""
    ldconfig = next(
        (
            p
            for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig", shutil.which("ldconfig"))
            if p and os.path.exists(p)
        ),
        None,
    )
    if ldconfig is None:
        return frozenset()
    try:
        # the system's own ldconfig, by its absolute path
        listing = subprocess.run(  # noqa: S603
            [ldconfig, "-p"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    flag = _ARCH_FLAGS.get(platform.machine())
    names = set()
    for line in listing.splitlines()[1:]:
        soname, _, rest = line.strip().partition(" ")
        if soname and (flag is None or flag in rest):
            names.add(soname)
    return frozenset(names)


def missing(groups: Iterable[Group] = GROUPS, probe: Probe | None = None) -> list[Need]:
    """What is missing for these groups; nothing outside Linux (the wheels carry what Qt needs)."""
    probe = probe or Probe()
    if probe.system != "Linux":
        return []
    wanted = set(groups)
    return [need for need in NEEDS if need.group in wanted and not probe.has(need)]


def _packages(needs: Iterable[Need], manager: Manager | None) -> list[str]:
    names = [need.fedora if manager == "dnf" else need.debian for need in needs]
    return list(dict.fromkeys(names))


def install_command(needs: Sequence[Need], probe: Probe | None = None) -> str:
    """The one command a person runs to install ``needs`` (Debian's names where the system is unknown)."""
    probe = probe or Probe()
    manager = probe.manager()
    packages = " ".join(_packages(needs, manager))
    if manager == "dnf":
        return f"sudo dnf install -y {packages}"
    return f"sudo apt-get install -y {packages}"


def install_hint(groups: Iterable[Group], probe: Probe | None = None) -> str:
    """One sentence for the app: what these groups load from the system, and the command that
    installs it (nothing is probed but ``/etc/os-release``: this runs on the UI thread)."""
    probe = probe or Probe()
    if probe.system != "Linux":
        return "Reinstall Castdeck: a part of Qt that it ships is missing."
    wanted = set(groups)
    needs = [need for need in NEEDS if need.group in wanted]
    libraries = ", ".join(need.name for need in needs)
    where = {"apt": "Debian/Ubuntu", "dnf": "Fedora"}.get(probe.manager() or "")
    if where:
        return f"It needs {libraries}; on {where} install it with: {install_command(needs, probe)}"
    return f"It needs {libraries} (on Debian/Ubuntu: {install_command(needs, probe)})."


_NOT_LOADED = re.compile(r"(lib[\w.+-]+?\.so(?:\.\d+)*): cannot open shared object file")


def hint_for_error(message: str, probe: Probe | None = None) -> str | None:
    """For an error that says a shared library could not be loaded (``libpulse.so.0: cannot open
    shared object file``): the sentence that names its package and the command, else None."""
    found = _NOT_LOADED.search(message)
    if found is None:
        return None
    soname = found.group(1)
    probe = probe or Probe()
    needs = [need for need in NEEDS if need.name == soname]
    if not needs:
        return f"{soname} is missing from this system: install the package that provides it."
    where = {"apt": "Debian/Ubuntu", "dnf": "Fedora"}.get(probe.manager() or "", "Debian/Ubuntu")
    return f"{soname} is missing; on {where} install it with: {install_command(needs, probe)}"


class CannotInstall(Exception):
    """What is missing could not be installed; the message says what and the command to run."""


Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # the package manager with fixed arguments and our own package names
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=1800)  # noqa: S603


def _privilege(run: Runner, euid: int, probe: Probe) -> tuple[list[str] | None, str]:
    """How to run the package manager: directly as root, else ``sudo -n`` when it needs no password;
    None and why not otherwise."""
    if euid == 0:
        return [], ""
    if probe.which("sudo") is None:
        return None, "Not running as root, and sudo is not installed."
    try:
        ok = run(["sudo", "-n", "true"]).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (["sudo", "-n"], "") if ok else (None, "Not running as root, and sudo asks for a password.")


def _explain(needs: Sequence[Need], probe: Probe, reason: str) -> str:
    listed = ", ".join(f"{pkg} ({', '.join(n.name for n in needs if _packages([n], probe.manager()) == [pkg])})"
                       for pkg in _packages(needs, probe.manager()))  # fmt: skip
    return (
        f"Castdeck needs system packages that are missing: {listed}. {reason} "
        f"Install them with:\n    {install_command(needs, probe)}"
    )


def ensure(
    groups: Iterable[Group] = GROUPS,
    *,
    probe: Probe | None = None,
    run: Runner = _run,
    euid: int | None = None,
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True),
) -> list[Need]:
    """Install what ``groups`` need and is missing; return what was installed.

    Raises :class:`CannotInstall` (at once, without trying) when there is no known package manager,
    no root and no password-less sudo, and when the install fails or leaves something missing."""
    probe = probe or Probe()
    groups = tuple(groups)
    absent = missing(groups, probe)
    if not absent:
        return []
    manager = probe.manager()
    if manager is None:
        raise CannotInstall(
            _explain(absent, probe, "This system's package manager is not one Castdeck knows.")
        )
    prefix, why_not = _privilege(run, os.geteuid() if euid is None else euid, probe)
    if prefix is None:
        raise CannotInstall(_explain(absent, probe, why_not))
    packages = _packages(absent, manager)
    say(f"castdeck: installing system packages: {' '.join(packages)} ({'sudo ' if prefix else ''}{manager})")
    if manager == "apt":
        steps = [
            [*prefix, "apt-get", "update", "-qq"],
            [*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq",
             "--no-install-recommends", *packages],
        ]  # fmt: skip
    else:
        steps = [[*prefix, "dnf", "install", "-y", "-q", *packages]]
    for step in steps:
        try:
            done = run(step)
        except (OSError, subprocess.SubprocessError) as error:
            raise CannotInstall(
                _explain(absent, probe, f"`{shlex.join(step)}` could not run ({error}).")
            ) from error
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
            raise CannotInstall(
                _explain(absent, probe, f"`{shlex.join(step)}` failed (exit {done.returncode}):\n{tail}\n")
            )
    probe.libraries = None  # the linker's cache changed
    still = missing(groups, probe)
    if still:
        raise CannotInstall(_explain(still, probe, "They were installed, yet these are still not found."))
    return absent


def main(
    argv: Sequence[str] | None = None,
    *,
    probe: Probe | None = None,
    run: Runner = _run,
    euid: int | None = None,
) -> int:
    """The command line; ``probe``, ``run`` and ``euid`` stand in for the machine in tests."""
    parser = argparse.ArgumentParser(
        prog="python -m castdeck.system_packages",
        description="List (or install) the Linux system packages Castdeck needs.",
    )
    parser.add_argument(
        "--install", action="store_true", help="install what is missing (as root or with sudo -n)"
    )
    parser.add_argument("--for", dest="groups", action="append", choices=GROUPS,
                        help="only what this needs (app: Qt; player: QtMultimedia; tests: the test suite)")  # fmt: skip
    args = parser.parse_args(argv)
    groups: tuple[Group, ...] = tuple(args.groups or GROUPS)
    probe = probe or Probe()
    if args.install:
        try:
            installed = ensure(groups, probe=probe, run=run, euid=euid)
        except CannotInstall as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(
            "installed: " + " ".join(_packages(installed, probe.manager()))
            if installed
            else "nothing missing"
        )
        return 0
    absent = missing(groups, probe)
    if not absent:
        print("nothing missing")
        return 0
    for need in absent:
        print(f"missing: {need.name} ({need.why}), package {_packages([need], probe.manager())[0]}")
    print(install_command(absent, probe))
    return 1


if __name__ == "__main__":
    sys.exit(main())
