"""Strategies for what comes with an answer: the status, and headers as the spec describes them
(``Retry-After``, ``RateLimit-*``, ``Link``, ``Location``, ``X-Request-Id``) or broken."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

from .hostile import ODD_TEXT, huge_strings

BASE_URL = "http://127.0.0.1:9"
"""The service address of the fuzzed clients (loopback, never contacted: a MockTransport answers)."""

SUCCESS = st.sampled_from([200, 200, 200, 200, 201, 202, 204, 206, 299])
FAILURE = st.sampled_from(
    [400, 401, 403, 404, 405, 409, 415, 418, 422, 429, 451, 499, 500, 501, 502, 503, 504, 599]
)
ODD = st.sampled_from([100, 101, 203, 300, 301, 302, 303, 304, 307, 308, 399, 600, 999])
STATUS = st.one_of(SUCCESS, SUCCESS, SUCCESS, FAILURE, ODD)

CONTENT_TYPE = st.sampled_from(
    [
        "application/json",
        "application/json",
        "application/json",
        "application/problem+json",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/vnd.api+json",
        "application/json; charset=latin-1",
        "text/html; charset=utf-8",
        "text/plain",
        "application/octet-stream",
        "multipart/mixed; boundary=x",
        "",
        ";;;",
        "application/json\x00",
    ]
)

RETRY_AFTER = st.one_of(
    st.sampled_from(
        [
            "0",
            "1",
            "10",
            "120",
            "-5",
            "1.5",
            "1e9",
            "1e400",
            "nan",
            "NaN",
            "inf",
            "-inf",
            "",
            "   ",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Mon, 01 Jan 99999999999999999999 00:00:00 GMT",
            "Tue, 32 Jan 2030 25:61:61 GMT",
            "Thu, 01 Jan 1970 00:00:00 +9999",
            "Thu, 01 Jan 0001 00:00:00 -2359",
            "Mon, 01 Jan 2100 00:00:00 GMT",
            "120, 60",
            "soon",
            "١٢",
            "²",
            "0x10",
            "1_000",
        ]
    ),
    st.integers().map(str),
    st.floats().map(repr),
    st.text(max_size=30),
    st.builds(
        "{}, {:02d} {} {} {:02d}:{:02d}:{:02d} {}".format,
        st.sampled_from(["Mon", "Xyz", ""]),
        st.integers(-5, 99),
        st.sampled_from(["Jan", "Feb", "Foo"]),
        st.integers(-10, 10**12),
        st.integers(0, 99),
        st.integers(0, 99),
        st.integers(0, 99),
        st.sampled_from(["GMT", "+0000", "-2359", "+9999", "UT", "PST", ""]),
    ),
)

NUMBER_TEXT = st.one_of(
    st.sampled_from(["0", "1", "100", "-1", "1.5", "nan", "inf", "1e400", "", "x", "1.2.3", "²", "٣"]),
    st.integers().map(str),
    st.floats().map(repr),
)
RATE_LIMIT: st.SearchStrategy[dict[str, str]] = st.fixed_dictionaries(
    {},
    optional={
        "RateLimit-Limit": NUMBER_TEXT,
        "RateLimit-Remaining": NUMBER_TEXT,
        "RateLimit-Reset": NUMBER_TEXT,
        "RateLimit": st.one_of(
            st.builds("limit={}, remaining={}, reset={}".format, NUMBER_TEXT, NUMBER_TEXT, NUMBER_TEXT),
            st.builds('"default";r={};t={}'.format, NUMBER_TEXT, NUMBER_TEXT),
            st.text(max_size=40),
        ),
        "RateLimit-Policy": st.one_of(
            st.builds("{};w={}".format, NUMBER_TEXT, NUMBER_TEXT), st.sampled_from(["w=0", "w=", "q=1"])
        ),
    },
)

HOSTILE_URL = st.sampled_from(
    [
        "http://[::1",
        "http://[not-an-address]/x",
        "http://127.0.0.1:99999/v1/x",
        "http://127.0.0.1:-1/v1/x",
        "http://127.0.0.1:9:9/v1/x",
        "http://h\x00st/",
        "http://exa mple.com/",
        "http://%zz/",
        "http:///v1/podcasts",
        "http://",
        "://",
        "",
        " ",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "//evil.example/v1/podcasts",
        "\\\\evil.example\\share",
        "https://evil.example/v1/podcasts?cursor=2",
        "http://127.0.0.1:9@evil.example/v1",
        "http://user:pass@127.0.0.1:9/v1/podcasts",
        "http://xn--/x",
        "http://ü.example/x",
        "http://" + "a" * 300 + ".example/x",
        "/v1/podcasts?cursor=" + "c" * 5000,
        "?cursor=2",
        "v1/podcasts?cursor=relative",
        "http://127.0.0.1:9/v1/podcasts?cursor=%00%ff",
        "http://127.0.0.1:9/v1/podcasts#frag",
        "http://127.0.0.1:9/v1/\u202epodcasts",
        "http://127.0.0.1:9\r\nX-Injected: 1",
    ]
)
SAME_ORIGIN_URL = st.builds(
    "{}{}?cursor={}".format,
    st.sampled_from([BASE_URL, "", BASE_URL + ":80", "HTTP://127.0.0.1:9"]),
    st.sampled_from(["/v1/podcasts", "/v1/episodes", "/v1/voices", "/elsewhere"]),
    st.text("abc123%+/=&", max_size=8),
)
URL_VALUE = st.one_of(SAME_ORIGIN_URL, HOSTILE_URL, st.text(max_size=20))

LINK = st.one_of(
    st.builds('<{}>; rel="next"'.format, URL_VALUE),
    st.builds('<{}>; rel=next; title="a, b; c", <{}>; rel=prev'.format, URL_VALUE, URL_VALUE),
    st.builds('<{}>; rel="prev next"'.format, URL_VALUE),
    st.builds('<{}>; rel="next'.format, URL_VALUE),  # an unterminated quote
    st.builds("{}".format, URL_VALUE),  # no angle brackets at all
    st.sampled_from(
        ['<>; rel="next"', "<", ">", ";;;,,,", 'rel="next"', "<a>" * 500, '<x>; rel="next"' + "; a=b" * 500]
    ),
    st.text(max_size=40),
)

REQUEST_ID = st.one_of(
    st.sampled_from(["req_1", "", " ", "req\x00id", "\u202ereq"]), ODD_TEXT, huge_strings(70_000)
)


def _to_bytes(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


@functools.cache
def answer_headers(*, link: bool = False, location: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return _answer_headers(link=link, location=location)


@st.composite
def _answer_headers(draw: st.DrawFn, *, link: bool, location: bool) -> dict[str, Any]:
    """Headers of one answer (values as bytes, so any character can travel)."""
    headers: dict[str, str] = {}
    content_type = draw(CONTENT_TYPE)
    if content_type:
        headers["Content-Type"] = content_type
    if draw(st.booleans()):
        headers["X-Request-Id"] = draw(REQUEST_ID)
    if draw(st.integers(0, 3)) == 0:
        headers["Retry-After"] = draw(RETRY_AFTER)
    if draw(st.integers(0, 4)) == 0:
        headers.update(draw(RATE_LIMIT))
    if link and draw(st.integers(0, 2)) == 0:
        headers["Link"] = draw(LINK)
    if location or draw(st.integers(0, 6)) == 0:
        headers["Location"] = draw(URL_VALUE)
    return {name: _to_bytes(value) for name, value in headers.items()}
