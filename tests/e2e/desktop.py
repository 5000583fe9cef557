"""A desktop for the installed app: a real X server (Xvfb), a sound server with a virtual speaker
(PulseAudio's null sink) and the tools a person's hands and ears stand in for: xdotool for keys,
window lookups and focus; the sink's monitor to hear what plays; Pillow to see the screen.

The tools are the "tests" group of :mod:`castdeck.system_packages`, which the suite's set-up
installs when missing (tests/conftest.py).
"""

from __future__ import annotations

import array
import math
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from castdeck.system_packages import missing
from tests.conftest import wait_for


def missing_tools() -> list[str]:
    return [f"{need.name} ({need.debian})" for need in missing(["tests"])]


# --- the X server ------------------------------------------------------------------------------------------


@dataclass
class Display:
    name: str  # ":N"
    process: subprocess.Popen[bytes]

    def env(self) -> dict[str, str]:
        return {"DISPLAY": self.name}

    def run(self, *args: str) -> str:
        result = subprocess.run(
            list(args), env={**os.environ, "DISPLAY": self.name}, capture_output=True, text=True, timeout=30
        )
        return result.stdout if result.returncode == 0 else ""

    def windows(self, title: str) -> list[str]:
        """Ids of the windows whose whole title is ``title``."""
        return self.run("xdotool", "search", "--name", f"^{re.escape(title)}$").split()

    def titles(self) -> list[str]:
        ids = self.run("xdotool", "search", "--name", ".").split()
        return sorted({self.run("xdotool", "getwindowname", wid).strip() for wid in ids} - {""})

    def viewable(self, window: str) -> bool:
        return "Map State: IsViewable" in self.run("xwininfo", "-id", window)

    def focused_title(self) -> str:
        return self.run("xdotool", "getwindowfocus", "getwindowname").strip()

    def focus(self, window: str) -> None:
        self.run("xdotool", "windowfocus", "--sync", window)

    def keys(self, *keys: str) -> None:
        """Key presses into the focused window, as typed on a keyboard."""
        self.run("xdotool", "key", "--clearmodifiers", *keys)

    def type(self, text: str) -> None:
        self.run("xdotool", "type", "--delay", "15", text)

    def screenshot(self, path: Path) -> Path:
        from PIL import ImageGrab

        path.parent.mkdir(parents=True, exist_ok=True)
        ImageGrab.grab(xdisplay=self.name).save(path)
        return path


@contextmanager
def x_server(folder: Path) -> Iterator[Display]:
    """Xvfb on a free display number (it picks one and says which through -displayfd)."""
    read, write = os.pipe()
    log = (folder / "xvfb.log").open("wb")
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset"],
        pass_fds=(write,),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    os.close(write)
    try:
        with os.fdopen(read, "rb") as pipe:
            number = pipe.readline().decode().strip()
        assert number.isdigit(), f"Xvfb did not start: {(folder / 'xvfb.log').read_text(errors='replace')}"
        yield Display(f":{number}", process)
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


# --- the sound server --------------------------------------------------------------------------------------

SINK = "castdeck_speakers"
RATE = 16_000


@dataclass
class SoundServer:
    socket: Path
    process: subprocess.Popen[bytes]

    def env(self) -> dict[str, str]:
        return {"PULSE_SERVER": f"unix:{self.socket}"}

    def _pactl(self, *args: str) -> str:
        result = subprocess.run(
            ["pactl", *args], env={**os.environ, **self.env()}, capture_output=True, text=True, timeout=30
        )
        return result.stdout if result.returncode == 0 else ""

    def streams(self) -> list[dict[str, str]]:
        """The playback streams now connected (``pactl list sink-inputs``): their properties, and
        ``Corked`` (yes while paused)."""
        found: list[dict[str, str]] = []
        for block in self._pactl("list", "sink-inputs").split("Sink Input #")[1:]:
            stream: dict[str, str] = {}
            for line in block.splitlines():
                line = line.strip()
                if line.startswith("Corked:"):
                    stream["Corked"] = line.split(":", 1)[1].strip()
                match = re.match(r'^([\w.]+) = "(.*)"$', line)
                if match:
                    stream[match.group(1)] = match.group(2)
            found.append(stream)
        return found

    def loudest(self, seconds: float, threshold: float) -> float:
        """Listen to the speakers for up to ``seconds`` and return the loudest 100 ms heard (RMS
        of 16-bit samples), stopping as soon as one passes ``threshold``."""
        recorder = subprocess.Popen(
            ["parec", f"--device={SINK}.monitor", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
             "--latency-msec=50"],
            env={**os.environ, **self.env()},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert recorder.stdout is not None
        loudest = 0.0
        deadline = time.monotonic() + seconds
        chunk = RATE // 10 * 2  # 100 ms of 16-bit samples
        try:
            while time.monotonic() < deadline and loudest < threshold:
                data = recorder.stdout.read(chunk)
                if not data:
                    break
                samples = array.array("h", data[: len(data) // 2 * 2])
                if samples:
                    loudest = max(loudest, math.sqrt(sum(s * s for s in samples) / len(samples)))
        finally:
            recorder.terminate()
            recorder.wait(timeout=10)
        return loudest


@contextmanager
def sound_server(folder: Path) -> Iterator[SoundServer]:
    """A PulseAudio server of our own with one virtual speaker (a null sink whose monitor records
    what is played), on a socket in ``folder``; nothing of the machine's sound is touched."""
    home = folder / "pulse-home"
    runtime = folder / "pulse-runtime"
    home.mkdir(parents=True, exist_ok=True)
    runtime.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    socket = folder / "pulse.socket"
    log = (folder / "pulseaudio.log").open("wb")
    process = subprocess.Popen(
        ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes",
         "-F", "/dev/null", f"--load=module-null-sink sink_name={SINK}",
         f"--load=module-native-protocol-unix socket={socket} auth-anonymous=1"],
        env={**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime), "XDG_CONFIG_HOME": str(home)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    server = SoundServer(socket, process)
    try:
        wait_for(
            lambda: process.poll() is not None or SINK in server._pactl("list", "short", "sinks"), timeout=20
        )
        assert process.poll() is None, (folder / "pulseaudio.log").read_text(errors="replace")
        yield server
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


# --- processes ---------------------------------------------------------------------------------------------


def descendants(pid: int) -> set[int]:
    """Every process started by ``pid``, and by those, and so on (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def processes_running(executable: Path) -> list[int]:
    """Processes whose program is ``executable``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "exe")) == executable:
                    found.append(int(entry.name))
            except OSError:
                continue
    return [pid for pid in found if alive(pid)]
