"""The set-up script (``castdeck.system_packages``): what it finds missing, the one command it names,
how it installs, and that it stops at once, saying what to run, where it cannot install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from castdeck.system_packages import (
    NEEDS,
    CannotInstall,
    Probe,
    ensure,
    hint_for_error,
    install_command,
    main,
    missing,
)

DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'
UBUNTU = "ID=ubuntu\nID_LIKE=debian\n"
FEDORA = "ID=fedora\n"
ARCH = "ID=arch\n"


def machine(tmp_path: Path, release: str = DEBIAN, *, lacking: set[str] = frozenset(), fonts: bool = True) -> Probe:  # type: ignore[assignment]  # fmt: skip
    """A Linux machine with everything Castdeck needs but ``lacking`` (sonames and program names)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "os-release").write_text(release, encoding="utf-8")
    font_dir = tmp_path / "fonts"
    font_dir.mkdir(exist_ok=True)
    if fonts:
        (font_dir / "DejaVuSans.ttf").write_bytes(b"\0")
    libraries = frozenset(n.name for n in NEEDS if n.kind == "library" and n.name not in lacking)
    programs = {"sudo"} - lacking | {n.name for n in NEEDS if n.kind == "program" and n.name not in lacking}
    return Probe(
        system="Linux",
        libraries=libraries,
        which=lambda name: f"/usr/bin/{name}" if name in programs else None,
        font_folders=(font_dir,),
        os_release=tmp_path / "os-release",
    )


class Runner:
    """Stands in for the commands the script runs (a root machine cannot be made to lack sudo):
    records them, answers ``sudo -n true`` as told, and installs by changing the probe."""

    def __init__(self, probe: Probe, *, sudo: bool, fails: str = "") -> None:
        self.probe, self.sudo, self.fails = probe, sudo, fails
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str]) -> subprocess.CompletedProcess[str]:
        self.commands.append(command)
        if command == ["sudo", "-n", "true"]:
            return subprocess.CompletedProcess(
                command, 0 if self.sudo else 1, "", "sudo: a password is required"
            )
        if self.fails and self.fails in command:
            return subprocess.CompletedProcess(command, 100, "", "E: Unable to locate package")
        if "install" in command:
            self.probe.libraries = frozenset(n.name for n in NEEDS if n.kind == "library")
            self.probe.which = lambda name: f"/usr/bin/{name}"
        return subprocess.CompletedProcess(command, 0, "", "")


def test_what_is_missing_is_found_by_what_qt_loads_and_the_tests_run(tmp_path: Path) -> None:
    probe = machine(tmp_path, lacking={"libpulse.so.0", "xdotool", "libxcb-cursor.so.0"})
    assert [n.name for n in missing(probe=probe)] == ["libxcb-cursor.so.0", "libpulse.so.0", "xdotool"]
    assert [n.name for n in missing(["player"], probe)] == ["libpulse.so.0"]
    assert missing(["tests"], machine(tmp_path)) == []
    assert [n.name for n in missing(["app"], machine(tmp_path / "bare", fonts=False))] == ["a TrueType font"]
    assert missing(probe=Probe(system="Windows")) == []  # the wheels carry what Qt needs elsewhere


def test_the_one_command_names_each_package_once_for_the_system(tmp_path: Path) -> None:
    lacking = {"libxcb-randr.so.0", "libxcb-shape.so.0", "pactl", "parec", "libpulse.so.0"}
    debian = machine(tmp_path / "debian", lacking=lacking)
    fedora = machine(tmp_path / "fedora", FEDORA, lacking=lacking)
    assert install_command(missing(probe=debian), debian) == (
        "sudo apt-get install -y libxcb-randr0 libxcb-shape0 libpulse0 pulseaudio-utils"
    )
    assert install_command(missing(probe=fedora), fedora) == (
        "sudo dnf install -y libxcb pulseaudio-libs pulseaudio-utils"
    )


def test_as_root_it_installs_what_is_missing_with_apt(tmp_path: Path) -> None:
    probe = machine(tmp_path, UBUNTU, lacking={"libpulse.so.0", "Xvfb"})
    run = Runner(probe, sudo=False)
    said: list[str] = []
    installed = ensure(probe=probe, run=run, euid=0, say=said.append)
    assert [n.name for n in installed] == ["libpulse.so.0", "Xvfb"]
    assert run.commands == [
        ["apt-get", "update", "-qq"],
        ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "--no-install-recommends",
         "libpulse0", "xvfb"],
    ]  # fmt: skip
    assert said == ["castdeck: installing system packages: libpulse0 xvfb (apt)"]
    assert missing(probe=probe) == []


def test_without_root_it_uses_sudo_when_sudo_asks_no_password(tmp_path: Path) -> None:
    probe = machine(tmp_path, FEDORA, lacking={"libpulse.so.0"})
    run = Runner(probe, sudo=True)
    ensure(probe=probe, run=run, euid=1000, say=lambda _text: None)
    assert run.commands == [
        ["sudo", "-n", "true"],
        ["sudo", "-n", "dnf", "install", "-y", "-q", "pulseaudio-libs"],
    ]


def test_nothing_missing_runs_nothing(tmp_path: Path) -> None:
    probe = machine(tmp_path)
    run = Runner(probe, sudo=False)
    assert ensure(probe=probe, run=run, euid=1000) == []
    assert run.commands == []


def test_without_root_or_sudo_it_stops_at_once_with_the_packages_and_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probe = machine(tmp_path, lacking={"libpulse.so.0", "xdotool", "pactl"})
    run = Runner(probe, sudo=False)
    code = main(["--install"], probe=probe, run=run, euid=1000)
    out, err = capsys.readouterr()
    assert code == 2
    assert run.commands == [["sudo", "-n", "true"]]  # nothing was tried but asking sudo
    assert out == ""
    assert err.startswith("error: Castdeck needs system packages that are missing: ")
    assert "libpulse0 (libpulse.so.0), xdotool (xdotool), pulseaudio-utils (pactl)" in err
    assert "Not running as root, and sudo asks for a password." in err
    assert err.rstrip().endswith("sudo apt-get install -y libpulse0 xdotool pulseaudio-utils")


def test_an_unknown_system_names_the_libraries_and_the_debian_command(tmp_path: Path) -> None:
    probe = machine(tmp_path, ARCH, lacking={"libpulse.so.0"})
    run = Runner(probe, sudo=True)
    with pytest.raises(CannotInstall) as raised:
        ensure(probe=probe, run=run, euid=0)
    assert run.commands == []
    assert "package manager is not one Castdeck knows" in str(raised.value)
    assert "libpulse0 (libpulse.so.0)" in str(raised.value)


def test_a_failed_install_says_which_step_and_what_it_printed(tmp_path: Path) -> None:
    probe = machine(tmp_path, lacking={"libpulse.so.0"})
    run = Runner(probe, sudo=False, fails="install")
    with pytest.raises(CannotInstall) as raised:
        ensure(probe=probe, run=run, euid=0, say=lambda _text: None)
    text = str(raised.value)
    assert "failed (exit 100)" in text and "E: Unable to locate package" in text
    assert text.rstrip().endswith("sudo apt-get install -y libpulse0")


def test_the_check_alone_lists_what_is_missing_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    probe = machine(tmp_path, lacking={"libpulse.so.0"})
    assert main(["--for", "player"], probe=probe) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "missing: libpulse.so.0 (QtMultimedia, the audio player), package libpulse0",
        "sudo apt-get install -y libpulse0",
    ]
    assert main(["--for", "player"], probe=machine(tmp_path)) == 0
    assert capsys.readouterr().out == "nothing missing\n"


def test_an_error_that_names_a_library_gets_its_package(tmp_path: Path) -> None:
    probe = machine(tmp_path)
    error = "libpulse.so.0: cannot open shared object file: No such file or directory"
    assert hint_for_error(error, probe) == (
        "libpulse.so.0 is missing; on Debian/Ubuntu install it with: sudo apt-get install -y libpulse0"
    )
    assert hint_for_error("libEGL.so.1: cannot open shared object file", machine(tmp_path, FEDORA)) == (
        "libEGL.so.1 is missing; on Fedora install it with: sudo dnf install -y libglvnd-egl"
    )
    assert hint_for_error("No module named 'castdeck.nothing'", probe) is None


def test_this_machine_has_what_the_suite_needs() -> None:
    """The suite's own set-up ran before this test (tests/conftest.py): nothing is missing now, as
    the script itself reports in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "castdeck.system_packages"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "nothing missing\n"), done.stdout + done.stderr


def test_without_sudo_installed_it_says_so(tmp_path: Path) -> None:
    probe = machine(tmp_path, lacking={"libpulse.so.0", "sudo"})
    run = Runner(probe, sudo=True)
    with pytest.raises(CannotInstall) as raised:
        ensure(probe=probe, run=run, euid=1000)
    assert run.commands == []
    assert "Not running as root, and sudo is not installed." in str(raised.value)
    assert str(raised.value).rstrip().endswith("sudo apt-get install -y libpulse0")
