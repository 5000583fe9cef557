"""The app a creator downloads: built by packaging/build.py, unpacked from its .tar.gz, started
on a real X server with a sound server, with a fresh home, and used through the keyboard.

It starts its own sandbox (its executable run again as ``castdeck sandbox-service``), shows its
window, generates an episode from a prompt with real speech, plays it to the speakers, and quits
leaving no process behind. What the test sees, it sees from outside as a person would: windows
and keys through the X server, sound through the sound server, the service through HTTP.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests import media_child
from tests.conftest import DEMO_KEY, wait_for
from tests.e2e.conftest import ARTIFACTS, DownloadedApp
from tests.e2e.desktop import (
    Display,
    SoundServer,
    alive,
    command_line,
    descendants,
    missing_tools,
    processes_running,
    sound_server,
    x_server,
)
from tests.tls import SHARED_TLS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the first one builds the app

PROMPT = "How lighthouses guided ships before radio"
SANDBOX_ORANGE = (0xF9, 0xA8, 0x25)  # the "SANDBOX" strip across the top of the window
LOUD = 300.0  # RMS of 16-bit samples: speech is thousands, a silent stream 0


def fresh_home(folder: Path) -> dict[str, str]:
    """A first start: nothing in the home folder, the data, config, cache or state folders."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(folder / "home")}
    for name in ("DATA", "CONFIG", "CACHE", "STATE"):
        env[f"XDG_{name}_HOME"] = str(folder / "xdg" / name.lower())
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700)
    env["XDG_RUNTIME_DIR"] = str(runtime)
    for value in env.values():
        if value.startswith(str(folder)):
            Path(value).mkdir(parents=True, exist_ok=True)
    return env


class Lines:
    """The app's standard output, line by line, read as it comes."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        assert process.stdout is not None
        stream = process.stdout
        threading.Thread(target=lambda: [self.lines.put(line) for line in stream], daemon=True).start()

    def next(self, timeout: float) -> str:
        return self.lines.get(timeout=timeout)


def audio_level(data: bytes) -> tuple[float, float]:
    """(seconds, RMS on the 16-bit scale) of an audio file, decoded with PyAV in a child process
    (tests/media_child.py)."""
    stream = media_child.probe(data).audio[0]
    assert stream.samples > 0, stream  # as before: the first decoded frame decides the scale
    return stream.seconds, stream.rms


def test_the_downloaded_app_starts_its_sandbox_speaks_plays_and_quits(
    downloaded_app: DownloadedApp, tmp_path: Path
) -> None:
    assert not missing_tools(), (
        f"install these to run the installed app: {missing_tools()} (python -m castdeck.system_packages --install)"
    )
    executable = downloaded_app.executable
    env = fresh_home(tmp_path)
    with x_server(tmp_path) as display, sound_server(tmp_path) as sound:
        env |= display.env() | sound.env()
        stderr = (tmp_path / "castdeck.stderr").open("w")
        app = subprocess.Popen(
            [str(executable), "--sandbox", "--speed", "50"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=tmp_path,
        )
        family: set[int] = set()
        try:
            base_url = started_sandbox(app, Lines(app), executable)
            family = descendants(app.pid)
            window = main_window(display)
            episode = generate_from_prompt(display, window, base_url)
            check_real_speech(base_url, episode)
            listen_and_hear(display, sound, window, episode, app.pid)
            check_transcript_command(executable, env, base_url, episode)
            family |= descendants(app.pid)  # the sandbox, its speech workers and their helper
            assert len(family) >= 3, [command_line(pid) for pid in family]
            display.focus(window)
            display.keys("ctrl+q")
            assert app.wait(timeout=60) == 0
            # nothing left behind: every process the app started ended with it
            wait_for(lambda: not [command_line(pid) for pid in family if alive(pid)], timeout=30)
            assert processes_running(executable) == []
        finally:  # only after a failure is anything still running here
            if app.poll() is None:
                app.kill()
                app.wait(timeout=10)
            for pid in family | descendants(app.pid):
                if alive(pid):
                    os.kill(pid, 9)
            stderr.close()
    log = Path(env["XDG_DATA_HOME"]) / "castdeck" / "castdeck.log"
    assert log.is_file()
    assert "unexpected error" not in log.read_text(encoding="utf-8"), log.read_text(encoding="utf-8")
    assert "no icon named" not in log.read_text(encoding="utf-8")  # the app's icons are in the bundle
    errors = (tmp_path / "castdeck.stderr").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in errors, errors


def started_sandbox(app: subprocess.Popen[str], output: Lines, executable: Path) -> str:
    """The app says where its sandbox listens; the sandbox is the app's own executable run again
    with ``sandbox-service``, and it answers with the demo organization."""
    line = output.next(timeout=90)
    assert line.startswith("Castdeck sandbox running at http://127.0.0.1:"), line
    base_url = line.split(" at ", 1)[1].strip()
    children = [pid for pid in descendants(app.pid) if command_line(pid)[1:2] == ["sandbox-service"]]
    assert len(children) == 1, [command_line(pid) for pid in descendants(app.pid)]
    assert Path(os.readlink(f"/proc/{children[0]}/exe")) == executable
    account = httpx.get(
        f"{base_url}/v1/account",
        headers={"Authorization": f"Bearer {DEMO_KEY}"},
        timeout=30,
        verify=SHARED_TLS,
    )
    assert account.status_code == 200, account.text
    assert account.json()["data"]["plan"] == "creator"
    return base_url


def main_window(display: Display) -> str:
    """The main window is up, shown, drawn (the sandbox strip is on screen) and has its icon."""

    # Qt names the X window when it creates it and maps it a moment later; the icon is set after
    # the first paint. So wait for a window so titled that is viewable, then for its icon.
    def shown() -> list[str]:
        return [w for w in display.windows("Castdeck — Sandbox") if display.viewable(w)]

    window = wait_for(shown, timeout=90)[0]
    assert wait_for(
        lambda: "_NET_WM_ICON(CARDINAL)" in display.run("xprop", "-id", window, "_NET_WM_ICON"), timeout=30
    )

    def strip_drawn() -> int:
        image = display.screenshot(ARTIFACTS / "installed-app-window.png")
        from PIL import Image

        with Image.open(image) as picture:
            pixels = np.asarray(picture.convert("RGB"))
        return int(np.all(pixels == SANDBOX_ORANGE, axis=-1).sum())

    assert wait_for(lambda: strip_drawn() > 1280 * 10, timeout=60)
    return window


def episodes(base_url: str) -> dict[str, dict[str, object]]:
    headers = {"Authorization": f"Bearer {DEMO_KEY}"}
    found: dict[str, dict[str, object]] = {}
    url: str | None = f"{base_url}/v1/episodes?limit=100"
    while url:
        page = httpx.get(url, headers=headers, timeout=30, verify=SHARED_TLS).json()
        found |= {item["id"]: item for item in page["data"]}
        cursor = (page.get("pagination") or {}).get("next_cursor")
        url = f"{base_url}/v1/episodes?limit=100&cursor={cursor}" if cursor else None
    return found


def generate_from_prompt(display: Display, window: str, base_url: str) -> dict[str, object]:
    """Ctrl+G in the Episodes pane, the prompt typed, Enter: one new episode, generated."""
    before = set(episodes(base_url))
    display.focus(window)
    display.keys("ctrl+f")  # into the Episodes pane (its filter), where Ctrl+G belongs
    display.keys("ctrl+g")
    dialog = wait_for(lambda: display.windows("Generate an episode"), timeout=30)[0]
    wait_for(lambda: display.focused_title() == "Generate an episode", timeout=30)
    display.type(PROMPT)  # into the prompt, which has the focus
    display.keys("Tab")  # out of the prompt (Enter there is a new line)
    display.screenshot(ARTIFACTS / "installed-app-generate.png")

    # Enter presses Generate. Until the dialog has read the podcasts it says what is missing and
    # stays open, as it would for a person who pressed too early; they press again.
    def accepted() -> bool:
        if not display.windows("Generate an episode"):
            return True
        display.keys("Return")
        return not display.windows("Generate an episode")

    wait_for(accepted, timeout=60, interval=1.0)
    assert dialog not in display.windows("Generate an episode")
    new = wait_for(lambda: set(episodes(base_url)) - before, timeout=30)
    assert len(new) == 1, new
    episode_id = next(iter(new))

    def finished() -> dict[str, object] | None:
        episode = episodes(base_url)[episode_id]
        generation = episode.get("generation") or {}
        assert isinstance(generation, dict)
        assert generation.get("state") != "failed", episode
        return episode if generation.get("state") == "completed" and episode.get("audio_url") else None

    return wait_for(finished, timeout=180, interval=1.0)


def check_real_speech(base_url: str, episode: dict[str, object]) -> None:
    """The episode's narration is speech: minutes of sound, not silence, with its words timed."""
    audio = httpx.get(str(episode["audio_url"]), timeout=60, verify=SHARED_TLS)
    assert audio.status_code == 200
    seconds, level = audio_level(audio.content)
    assert seconds > 20, seconds
    assert level > LOUD, level
    stamps = httpx.get(
        f"{base_url}/v1/episodes/{episode['id']}/timestamps",
        headers={"Authorization": f"Bearer {DEMO_KEY}"},
        timeout=30,
        verify=SHARED_TLS,
    )
    assert stamps.status_code == 200, stamps.text
    assert len(str(stamps.json())) > 1000


def listen_and_hear(display: Display, sound: SoundServer, window: str, episode: dict[str, object],
                    pid: int) -> None:  # fmt: skip
    """Ctrl+L opens the Listen window on the new episode; K plays it; the app's stream reaches the
    speakers, and what they play is loud enough to be speech."""
    title = f"{episode['title']} — Listen"

    def listen_open() -> bool:
        if display.windows(title):
            return True
        display.focus(window)
        display.keys("ctrl+l")  # the episode is selected; its audio row appears once it is read
        return bool(display.windows(title))

    listen = wait_for(listen_open, timeout=60, interval=1.0)
    assert listen
    listen_window = display.windows(title)[0]

    def playing() -> list[dict[str, str]]:
        streams = [s for s in sound.streams() if s.get("application.process.id") == str(pid)]
        if not any(s.get("Corked") == "no" for s in streams):
            display.focus(listen_window)
            display.keys("k")  # play (once the audio is downloaded; before that nothing happens)
        return [
            s
            for s in sound.streams()
            if s.get("application.process.id") == str(pid) and s.get("Corked") == "no"
        ]

    streams = wait_for(playing, timeout=60, interval=2.0)
    assert streams[0].get("application.process.binary") == "castdeck", streams
    loudest = sound.loudest(seconds=20, threshold=LOUD)
    display.screenshot(ARTIFACTS / "installed-app-listen.png")
    assert loudest >= LOUD, f"the speakers stayed quiet (loudest RMS {loudest:.0f})"


def check_transcript_command(executable: Path, env: dict[str, str], base_url: str,
                             episode: dict[str, object]) -> None:  # fmt: skip
    """The command-line companion runs from the same executable."""
    result = subprocess.run(
        [str(executable), "transcript", str(episode["id"]), "--format", "srt"],
        env={**env, "CASTDECK_BASE_URL": base_url, "CASTDECK_API_KEY": DEMO_KEY},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("1\n00:00:"), result.stdout[:200]
