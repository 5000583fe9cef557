"""The front door of every request: request ids, authentication, rate limits and chaos.

A pure ASGI middleware, outermost, so that every response (errors included) carries
``X-Request-Id`` and every failure is problem+json.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .clock import CLOCK
from .db import Database, Org
from .problems import ApiProblem, new_request_id

PLANS_WITH_API = {"creator", "pro", "business", "enterprise"}
CHAOS_FAULTS = ("500", "502", "503", "429", "slow", "drop_before", "drop_after")


@dataclass
class Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token bucket per organization: ``limit`` requests a minute, refilled continuously."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buckets: dict[str, Bucket] = {}

    def take(self, org_id: str, now: float | None = None) -> tuple[bool, dict[str, str]]:
        now = CLOCK.monotonic() if now is None else now
        rate = self.limit / 60.0
        bucket = self.buckets.setdefault(org_id, Bucket(float(self.limit), now))
        bucket.tokens = min(float(self.limit), bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        allowed = bucket.tokens >= 1.0
        if allowed:
            bucket.tokens -= 1.0
        remaining = int(bucket.tokens)
        reset = math.ceil((self.limit - bucket.tokens) / rate) if bucket.tokens < self.limit else 0
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(remaining),
            "RateLimit-Reset": str(reset),
            "RateLimit-Policy": f"{self.limit};w=60",
            "RateLimit": f"limit={self.limit}, remaining={remaining}, reset={reset}",
        }
        if not allowed:
            headers["Retry-After"] = str(max(1, math.ceil((1.0 - bucket.tokens) / rate)))
        return allowed, headers


class Chaos:
    """Makes a repeatable fraction of ``/v1`` requests fail the way real services fail."""

    def __init__(self, probability: float, seed: int | None) -> None:
        self.probability = probability
        self.random = random.Random(seed)
        self.injected: dict[str, int] = {}

    def draw(self) -> str | None:
        if self.probability <= 0:
            return None
        roll = self.random.random()
        fault = self.random.choice(CHAOS_FAULTS)
        if roll >= self.probability:
            return None
        self.injected[fault] = self.injected.get(fault, 0) + 1
        return fault


def bearer_key(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            text = str(value.decode("latin-1")).strip()
            scheme, _, key = text.partition(" ")
            if scheme.lower() == "bearer" and key.strip():
                return key.strip()
            return ""
    return None


class Gateway:
    def __init__(self, app: ASGIApp, db: Database, limiter: RateLimiter | None, chaos: Chaos) -> None:
        self.app = app
        self.db = db
        self.limiter = limiter
        self.chaos = chaos

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        extra: dict[str, str] = {"X-Request-Id": request_id}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in extra.items():
                    if name.lower().encode() not in present:
                        headers.append((name.lower().encode(), value.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        path: str = scope["path"]
        try:
            if path == "/v1" or path.startswith("/v1/"):
                fault = self.chaos.draw()
                if fault in ("500", "502", "503", "429"):
                    raise _chaos_problem(fault)
                if fault == "drop_before":
                    await _drop(send)
                    return
                org = self._authenticate(scope)
                state["org"] = org
                if self.limiter is not None and self.limiter.limit > 0:
                    allowed, headers = self.limiter.take(org.id)
                    extra.update({k: v for k, v in headers.items() if k != "Retry-After"})
                    if not allowed:
                        raise ApiProblem(
                            429,
                            f"More than {self.limiter.limit} requests a minute for this organization.",
                            recovery={"action": "retry", "poll_after_seconds": float(headers["Retry-After"])},
                            headers=headers,
                        )
                if fault == "slow":
                    await CLOCK.sleep(self.chaos.random.uniform(1.0, 2.5))
                if fault == "drop_after":
                    # The work is done and stored; only the answer is lost on the way back.
                    async def discard(message: Message) -> None:
                        return None

                    await self.app(scope, receive, discard)
                    await _drop(send)
                    return
            await self.app(scope, receive, send_with_headers)
        except ApiProblem as problem:
            response = problem.response(request_id)
            await response(scope, receive, send_with_headers)

    def _authenticate(self, scope: Scope) -> Org:
        key = bearer_key(scope)
        challenge = {"WWW-Authenticate": 'Bearer realm="castdeck-sandbox"'}
        if key is None:
            raise ApiProblem(
                401,
                "Send the API key as 'Authorization: Bearer <key>'.",
                headers=challenge,
                recovery={"action": "check_account"},
            )
        org = self.db.org_for_key(key) if key else None
        if org is None:
            raise ApiProblem(
                401, "The API key is not valid.", headers=challenge, recovery={"action": "check_account"}
            )
        if org.plan not in PLANS_WITH_API:
            raise ApiProblem(
                403,
                f"API access requires the Creator plan or higher; this organization is on {org.plan!r}.",
                recovery={"action": "check_account"},
            )
        return org


def _chaos_problem(fault: str) -> ApiProblem:
    if fault == "429":
        return ApiProblem(
            429,
            "Too many requests (injected by --chaos).",
            headers={"Retry-After": "1"},
            recovery={"action": "retry", "poll_after_seconds": 1.0},
        )
    status = int(fault)
    return ApiProblem(
        status, f"A simulated {status} failure (injected by --chaos).", recovery={"action": "retry"}
    )


async def _drop(send: Send) -> None:
    """Close the connection without an answer, as a crashed proxy would."""
    owner = getattr(send, "__self__", None)
    transport = getattr(owner, "transport", None)
    if transport is not None:
        transport.abort() if hasattr(transport, "abort") else transport.close()
        return
    # Not on uvicorn: start an answer and break it off, which a client also sees as a dropped connection.
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1000")]})
    raise ConnectionAbortedError("connection dropped by --chaos")
