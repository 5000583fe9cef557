"""Signed addresses keep their secrets out of the log and the terminal."""

from __future__ import annotations

import logging
from pathlib import Path

from castdeck.redact import RedactingFilter, redact_urls

SIGNED = "https://files.example.org/media/ep.mp3?X-Amz-Signature=abc123SECRET&X-Amz-Expires=900"


def test_an_address_keeps_its_path_and_loses_its_query() -> None:
    said = f"This plugin does not support QPlatformServices::openUrl() for '{SIGNED}'."
    assert redact_urls(said) == (
        "This plugin does not support QPlatformServices::openUrl() for 'https://files.example.org/media/ep.mp3?…'."
    )
    assert redact_urls("see http://127.0.0.1:8123/v1/x#frag then") == "see http://127.0.0.1:8123/v1/x?… then"
    plain = "nothing here: https://example.org/a/b and words"
    assert redact_urls(plain) == plain


def test_the_log_file_never_holds_a_signature(tmp_path: Path) -> None:
    handler = logging.FileHandler(tmp_path / "castdeck.log")
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("castdeck.tests.redact")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("download from %s failed", SIGNED)
        try:
            raise OSError(f"cannot fetch {SIGNED}")
        except OSError:
            log.exception("saving")
    finally:
        log.removeHandler(handler)
        handler.close()
    written = (tmp_path / "castdeck.log").read_text(encoding="utf-8")
    assert "SECRET" not in written
    assert written.count("https://files.example.org/media/ep.mp3?…") == 2  # the message, the exception
