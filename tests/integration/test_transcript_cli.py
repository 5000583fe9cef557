"""``castdeck transcript`` run as a separate process against the real sandbox: exports that parse,
the saved profile, and the exits for every way it can fail (no file written, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QSettings

from castdeck.services.profiles import Profile, ProfileStore
from castdeck.transcript import normalise
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.gui.listen_helpers import generate_spoken_episode, server_words
from tests.subtitle_parsers import parse_srt, parse_vtt
from tests.tls import SHARED_TLS


@pytest.fixture(scope="module")
def spoken(sandbox: RunningSandbox) -> dict[str, Any]:
    return generate_spoken_episode(sandbox, "Transcripts on the command line")


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment with its own settings folder and no keychain, without a connection."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASTDECK_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    yield env


def run(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "castdeck", "transcript", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def connected(env: dict[str, str], sandbox: RunningSandbox) -> dict[str, str]:
    return {**env, "CASTDECK_BASE_URL": sandbox.base_url, "CASTDECK_API_KEY": DEMO_KEY}


def test_srt_to_standard_output_holds_every_word(
    home: dict[str, str], sandbox: RunningSandbox, spoken: dict[str, Any]
) -> None:
    result = run(connected(home, sandbox), spoken["id"], "--format", "srt")
    assert result.returncode == 0, result.stderr
    truth = normalise(server_words(sandbox, spoken["id"]))
    words: list[str] = []
    for cue in parse_srt(result.stdout):
        text = cue.text
        for speaker in truth.speakers:
            text = text.removeprefix(f"{speaker.name}: ")
        words += text.split()
    assert words == [w.text for w in truth.words]


def test_vtt_txt_and_json_to_files(
    home: dict[str, str], sandbox: RunningSandbox, spoken: dict[str, Any], tmp_path: Path
) -> None:
    truth = normalise(server_words(sandbox, spoken["id"]))
    env = connected(home, sandbox)
    for fmt in ("vtt", "txt", "json"):
        out = tmp_path / f"out.{fmt}"
        result = run(env, spoken["id"], "--format", fmt, "-o", str(out))
        assert result.returncode == 0, result.stderr
        assert result.stdout == ""
    vtt = parse_vtt((tmp_path / "out.vtt").read_text(encoding="utf-8"))
    assert [w for cue in vtt for w in cue.text.split()] == [w.text for w in truth.words]
    assert {cue.voice for cue in vtt} == {s.name for s in truth.speakers}
    assert normalise(json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))).words == truth.words
    text = (tmp_path / "out.txt").read_text(encoding="utf-8")
    assert " ".join(line for line in text.splitlines() if line and not line.endswith("]")).split() == [
        w.text for w in truth.words
    ]


def test_the_saved_profile_is_used(
    home: dict[str, str], sandbox: RunningSandbox, spoken: dict[str, Any], tmp_path: Path
) -> None:
    settings = QSettings(str(tmp_path / "config" / "Castdeck" / "Castdeck.conf"), QSettings.Format.IniFormat)
    store = ProfileStore(settings)
    store.save(Profile("Studio sandbox", sandbox.base_url))
    store.set_last_used("Studio sandbox")
    del settings
    result = run({**home, "CASTDECK_API_KEY": DEMO_KEY}, spoken["id"], "-f", "txt")
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.split()[0] == normalise(server_words(sandbox, spoken["id"])).speakers[0].name.split()[0]
    )
    missing = run({**home, "CASTDECK_API_KEY": DEMO_KEY}, spoken["id"], "--profile", "Nope")
    assert missing.returncode == 2 and "no saved profile named 'Nope'" in missing.stderr
    keyless = run(home, spoken["id"])  # the keychain has nothing (and there is no key in the environment)
    assert keyless.returncode == 2 and "no API key for the profile 'Studio sandbox'" in keyless.stderr


def test_unknown_episode_or_no_audio_exit_1_and_write_nothing(
    home: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    env = connected(home, sandbox)
    out = tmp_path / "never.srt"
    unknown = run(env, "00000000-0000-4000-8000-000000000000", "-o", str(out))
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == (
        "castdeck transcript: error: episode 00000000-0000-4000-8000-000000000000 not found"
    )
    podcast = httpx.get(
        f"{sandbox.base_url}/v1/podcasts", headers={"Authorization": f"Bearer {DEMO_KEY}"}, verify=SHARED_TLS
    )
    draft = httpx.post(
        f"{sandbox.base_url}/v1/episodes",
        json={"podcast_id": podcast.json()["data"][0]["id"], "title": "Silent draft"},
        headers={"Authorization": f"Bearer {DEMO_KEY}"},
        verify=SHARED_TLS,
    ).json()["data"]
    silent = run(env, draft["id"], "-o", str(out))
    assert silent.returncode == 1
    assert "has no audio yet" in silent.stderr and "Silent draft" in silent.stderr
    not_an_id = run(env, "episode-7", "-o", str(out))
    assert not_an_id.returncode == 1 and "must be a UUID" in not_an_id.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no partial file either


def test_cannot_run_exits_2(
    home: dict[str, str], sandbox: RunningSandbox, spoken: dict[str, Any], tmp_path: Path
) -> None:
    nothing = run(home, spoken["id"])
    assert nothing.returncode == 2
    assert "set CASTDECK_BASE_URL and CASTDECK_API_KEY" in nothing.stderr
    unreachable = run(
        {**home, "CASTDECK_BASE_URL": "http://127.0.0.1:9", "CASTDECK_API_KEY": "x"}, spoken["id"]
    )
    assert unreachable.returncode == 2 and "cannot reach the service" in unreachable.stderr
    refused = run(
        {**home, "CASTDECK_BASE_URL": sandbox.base_url, "CASTDECK_API_KEY": "sk_wrong"}, spoken["id"]
    )
    assert refused.returncode == 2 and "refused the API key" in refused.stderr
    bad_format = run(connected(home, sandbox), spoken["id"], "--format", "docx")
    assert bad_format.returncode == 2 and "invalid choice: 'docx'" in bad_format.stderr
    unwritable = run(connected(home, sandbox), spoken["id"], "-o", str(tmp_path / "missing" / "out.srt"))
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr
