"""uvicorn's httptools protocol, answering a request it cannot read the way every other error is answered.

httptools refuses a request line with a method it does not know (``FOO /v1/episodes``) before the
application sees it, and uvicorn then writes a bare ``text/plain`` 400. Here that answer carries the
problem+json body and the ``X-Request-Id`` of every other error, and names the method when that is what
was wrong. Requests httptools can read are untouched.
"""

from __future__ import annotations

import json
import re

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .problems import PROBLEM_MEDIA_TYPE, ApiProblem, new_request_id

KNOWN_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
_REQUEST_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) [^ \r\n]+ HTTP/1\.[01]\r?\n")


def unreadable_request_problem(data: bytes) -> ApiProblem:
    """The problem for a request that could not be parsed; ``data`` is what arrived last."""
    line = _REQUEST_LINE.match(data)
    method = line.group(1).decode("ascii") if line else ""
    if method and method.upper() not in KNOWN_METHODS:
        return ApiProblem(
            400,
            f"{method} is not an HTTP method this service knows; it answers {', '.join(KNOWN_METHODS)}.",
        )
    return ApiProblem(
        400, "The request is not valid HTTP/1.1 (its request line or headers could not be read)."
    )


class ProblemHttpToolsProtocol(HttpToolsProtocol):
    _last_data = b""

    def data_received(self, data: bytes) -> None:
        self._last_data = data
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        request_id = new_request_id()
        problem = unreadable_request_problem(self._last_data)
        body = json.dumps(problem.body(request_id), separators=(",", ":")).encode()
        head = [
            b"HTTP/1.1 400 Bad Request\r\n",
            *(name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers),
            b"content-type: " + PROBLEM_MEDIA_TYPE.encode() + b"\r\n",
            b"x-request-id: " + request_id.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()
