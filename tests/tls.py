"""One TLS context for every HTTP client the tests make.

An ``httpx`` client or transport made without ``verify`` builds a TLS context of its own and loads
the whole CA bundle into it: about 0.1 s of CPU each on the 2-core machine, for clients that only
ever speak plain HTTP to a sandbox on the loopback address. Every client the tests make is given
this one context (``verify=SHARED_TLS``), loaded once per process; it verifies like the default.
"""

from __future__ import annotations

import ssl

__all__ = ["SHARED_TLS"]

SHARED_TLS = ssl.create_default_context()
