"""Addresses with their secrets taken out, for logs and messages.

Signed upload and download addresses carry their signature in the query (``?X-Amz-Signature=…``,
``?sig=…``): anyone holding the whole address can fetch or replace the file until it expires. Text
bound for the log or a terminal keeps each address up to its path, and says a query was there.
Standard library only: the log's set-up and Qt's message handler use it before the app loads.
"""

from __future__ import annotations

import logging
import re

__all__ = ["RedactingFilter", "redact_urls"]

_QUERY = re.compile(r"(?P<address>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s?#'\"<>]+)[?#][^\s'\"<>]*")


def redact_urls(text: str) -> str:
    """``text`` with every address's query and fragment replaced by ``?…``."""
    return _QUERY.sub(lambda match: match.group("address") + "?…", text)


class RedactingFilter(logging.Filter):
    """A log handler's filter: the record's message (and its traceback) with addresses redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact_urls(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_urls(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact_urls(record.exc_text)
        return True
