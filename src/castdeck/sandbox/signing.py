"""Signed addresses for uploads and downloads: HMAC-SHA256 over method, target and expiry.

They carry no API key; the key must never be sent to them (spec part 5.5).
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote

from .clock import CLOCK


def signature(secret: bytes, method: str, target: str, expires: int) -> str:
    message = f"{method.upper()}\n{target}\n{expires}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def sign_url(base_url: str, path: str, secret: bytes, method: str, target: str, expires: int) -> str:
    sig = signature(secret, method, target, expires)
    return f"{base_url}{quote(path)}?expires={expires}&signature={sig}"


def verify(secret: bytes, method: str, target: str, expires: str | None, sig: str | None) -> str | None:
    """None when the signature is good and current, else the reason it is refused."""
    if not expires or not sig:
        return "the address is not signed"
    try:
        expires_at = int(expires)
    except ValueError:
        return "the signature's expiry is malformed"
    expected = signature(secret, method, target, expires_at)
    if not hmac.compare_digest(expected, sig):
        return "the signature does not match"
    if expires_at < CLOCK.time():
        return "the signed address has expired"
    return None


def download_expiry(now: float | None = None, lifetime: int = 86_400) -> int:
    """Download addresses last at least a day; rounded so repeated reads return the same URL."""
    now = CLOCK.time() if now is None else now
    return (int(now) // 3600 + 1) * 3600 + lifetime
