"""Real speech (eSpeak NG) and real media (PyAV): synthesis, narration, MP3, MP4, worker entry points.

What encodes or decodes with PyAV runs in a child process (tests/media_child.py): PyAV's FFmpeg must not be
loaded next to QtMultimedia's in the test process."""

from __future__ import annotations

import multiprocessing
import pickle
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from castdeck.sandbox.render import (
    Narration,
    Slide,
    SynthesisFailed,
    Turn,
    as_written,
    encode_mp3,
    narrate,
    render_cover,
    render_episode,
    render_media,
    render_video,
)
from castdeck.sandbox.speech import Speech, VoiceSpec, available_variants, synthesize
from tests.media_child import in_child, probe

SENTENCE = "The quick brown fox jumps over the lazy dog, and then it runs home for dinner."
US = VoiceSpec("en-US", "en-us", "m3")
GB = VoiceSpec("en-GB", "en-gb-x-rp", "f2", rate=150, pitch=65)


def words_of(text: str) -> list[str]:
    return re.findall(r"\w+(?:[-'’]\w+)*", text)


def check_speech(speech: Speech, text: str) -> None:
    assert speech.samples.dtype == np.int16
    assert np.abs(speech.samples.astype(np.int32)).mean() > 300  # audible, not silence
    words = words_of(text)
    assert [w.text for w in speech.words] == words
    assert 0.2 * len(words) <= speech.duration <= 1.0 * len(words)
    starts = [w.start for w in speech.words]
    assert starts == sorted(starts)
    for w in speech.words:
        assert 0.0 <= w.start <= w.end <= speech.duration + 1e-9
        assert text[w.char_start : w.char_end] == w.text


@pytest.mark.parametrize("voice", [US, GB])
def test_synthesize_real_speech_with_word_timings(voice: VoiceSpec) -> None:
    speech = synthesize(SENTENCE, voice)
    assert speech.sample_rate == 22050
    check_speech(speech, SENTENCE)


def test_voices_differ() -> None:
    a, b = synthesize(SENTENCE, US).samples, synthesize(SENTENCE, GB).samples
    n = min(len(a), len(b))
    assert len(a) != len(b) or not np.array_equal(a[:n], b[:n])


def test_non_ascii_and_markup_characters() -> None:
    french = "Ça va très bien, merci. Où êtes-vous allé hier?"
    check_speech(synthesize(french, VoiceSpec("fr-FR", "fr-fr")), french)
    german = "Grüße aus München: schöne Straße."
    check_speech(synthesize(german, VoiceSpec("de-DE", "de")), german)
    markup = "Fish & chips <b>are</b> cheap, 3 < 4."
    speech = synthesize(markup, US)
    assert speech.duration > 1.0
    assert [w.text for w in speech.words][:3] == ["Fish", "&", "chips"]


def test_empty_text_and_unknown_voices() -> None:
    empty = synthesize("  \n ", US)
    assert empty.duration == 0.0 and empty.words == []
    with pytest.raises(ValueError):
        synthesize("hello", VoiceSpec("xx", "no-such-voice"))
    with pytest.raises(ValueError):
        synthesize("hello", VoiceSpec("en", "en-us", "no-such-variant"))
    assert {"m3", "f2", "klatt"} <= set(available_variants())


def test_long_text_is_batched_with_continuous_timestamps() -> None:
    text = " ".join(f"Sentence number {i} is short." for i in range(200))  # ~6000 characters
    speech = synthesize(text, US)
    assert [w.text for w in speech.words] == words_of(text)
    starts = np.array([w.start for w in speech.words])
    assert np.all(np.diff(starts) >= 0)
    assert speech.words[-1].end <= speech.duration
    assert speech.duration - speech.words[-1].end < 2.0


def two_turns() -> list[Turn]:
    return [Turn(0, "Hello and welcome to the show.", US), Turn(1, "Thanks, it is great to be here.", GB)]


def test_narrate_shifts_timestamps_and_labels_speakers() -> None:
    seen: list[float] = []
    narration = narrate(two_turns(), pause=0.5, progress=seen.append)
    first = synthesize("Hello and welcome to the show.", US)
    assert seen and seen[-1] == pytest.approx(1.0)
    assert narration.turn_starts[0] == 0.0
    assert narration.turn_starts[1] == pytest.approx(first.duration + 0.5, abs=1e-3)
    speakers = [w.speaker for w in narration.words]
    assert speakers == [0] * 6 + [1] * 7
    second = [w for w in narration.words if w.speaker == 1]
    assert second[0].start >= narration.turn_starts[1]
    assert narration.words[-1].end <= narration.duration
    # each word carries the punctuation written against it, as speech services give word timings
    assert [w.text for w in narration.words] == " ".join(t.text for t in two_turns()).split()


def test_a_word_as_written_keeps_its_marks_but_not_a_hyphen_to_the_next_word() -> None:
    text = "“Floodplains,” she said (quietly)... state-of-the-art? ¡Sí!"
    assert as_written(text, 1, 12) == "“Floodplains,”"
    assert as_written(text, 25, 32) == "(quietly)..."
    assert as_written(text, 37, 42) == "state"  # the hyphen belongs to no word
    assert as_written(text, 50, 53) == "art?"
    assert as_written(text, 56, 58) == "¡Sí!"


def test_encode_mp3_round_trip(tmp_path: Path) -> None:
    narration = narrate(two_turns())
    path = tmp_path / "episode.mp3"
    in_child(encode_mp3, narration, path)
    media = probe(path)
    assert media.format_name == "mp3"
    stream = media.audio[0]
    assert stream.codec is not None and stream.codec.startswith("mp3") and stream.channels == 1
    assert stream.seconds == pytest.approx(narration.duration, abs=0.15)


def test_render_video_mp4(tmp_path: Path) -> None:
    narration = narrate(two_turns())
    picture = tmp_path / "picture.png"
    Image.new("RGB", (320, 200), (200, 40, 40)).save(picture)
    slides = [Slide(0.0, "Welcome", "An episode about foxes."), Slide(1.5, "Guest", "Say hello.", picture)]
    path = tmp_path / "video.mp4"
    in_child(render_video, path, narration, slides, size=(320, 180), captions=True, motion="dynamic")
    media = probe(path)
    assert len(media.video) == 1 and len(media.audio) == 1
    video, audio = media.video[0], media.audio[0]
    assert video.codec == "h264" and audio.codec == "aac"
    assert (video.width, video.height) == (320, 180)
    for stream in (video, audio):
        assert stream.duration is not None  # the stream's duration and time base, in seconds
        assert stream.duration == pytest.approx(narration.duration, abs=0.1)
    assert video.frames and video.first_format == "yuv420p"


def test_render_cover(tmp_path: Path) -> None:
    path = tmp_path / "cover.jpg"
    render_cover(path, "A Podcast About Foxes", "Episode 1", seed=3, size=(400, 400))
    with Image.open(path) as img:
        assert img.format == "JPEG" and img.size == (400, 400)


def turn_specs() -> list[dict[str, object]]:
    return [{"speaker": t.speaker, "text": t.text, "voice": asdict(t.voice)} for t in two_turns()]


def test_render_episode_and_failure(tmp_path: Path) -> None:
    spec = {"turns": turn_specs(), "audio_path": str(tmp_path / "e.mp3"), "video_path": None, "title": "T"}
    result = in_child(render_episode, {**spec, "fail": False})
    assert result["duration"] > 2.0 and Path(result["audio_path"]).stat().st_size > 1000
    assert result["words"][0][2] == "Hello" and result["words"][-1][3] == 1
    with pytest.raises(SynthesisFailed) as info:
        render_episode({**spec, "fail": True})
    assert 0.0 < info.value.seconds_synthesized < result["duration"]
    copy = pickle.loads(pickle.dumps(info.value))  # noqa: S301 - crosses process boundaries intact
    assert copy.seconds_synthesized == info.value.seconds_synthesized and str(copy) == str(info.value)


def test_worker_entry_points_in_a_spawned_process(tmp_path: Path) -> None:
    spec = {
        "turns": turn_specs(),
        "slides": [
            {"start": None, "title": "One", "body": "First"},
            {"start": None, "title": "Two", "body": ""},
        ],
        "video_path": str(tmp_path / "short.mp4"),
        "size": [180, 320],
        "captions": True,
        "motion": "auto",
        "fail": False,
    }
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        result = pool.submit(render_media, spec).result(timeout=60)
    assert Path(result["video_path"]).stat().st_size > 1000
    assert result["duration"] == pytest.approx(narrate(two_turns()).duration, abs=0.05)


def test_narration_type_is_plain_data() -> None:
    empty = narrate([])
    assert isinstance(empty, Narration) and empty.duration == 0.0 and empty.words == []
