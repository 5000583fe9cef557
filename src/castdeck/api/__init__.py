"""Typed access to the service: the wire contract lives in ``castdeck.api.models``."""
