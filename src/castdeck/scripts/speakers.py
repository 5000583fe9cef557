"""Speaker labels and hosts: which host each label of a script will be, as the service decides on import.

Spec 4.2 (import behaviour 1, 2): a label matches a host by name, or is assigned by
``speaker_characters``; assignments override name matching, and unmapped labels still match names.
A label that matches nothing is refused (422 ``unresolved_speakers``). The name matching below is
the one the embedded sandbox uses (a test compares them): the whole name without case, honorifics
("Dr.") or notes in parentheses, or a first name that only one host has ("Alex" for "Alex Rivera").

The mapping (label -> host id) is the one table that converts a text script into a structured
one and back; :func:`speaker_characters` turns it into the import's ``speaker_characters``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from castdeck.api.models.import_rules import first_name_match, label_key, name_tokens
from castdeck.api.models.limits import MAX_SPEAKER_CHARACTERS, MAX_SPEAKER_LABEL_CHARS

__all__ = [
    "HostRef",
    "Resolution",
    "match_by_name",
    "resolve",
    "speaker_characters",
    "suggest_hosts",
]


@dataclass(frozen=True, slots=True)
class HostRef:
    """A host as the script model needs it: its id and its name."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Resolution:
    """What one label becomes: ``host_id`` (None: unresolved), ``how`` ("mapped" or "name"), and
    for an unresolved label the hosts that come closest."""

    label: str
    host_id: str | None
    how: str | None
    suggestions: tuple[HostRef, ...] = ()


def match_by_name(label: str, hosts: Iterable[HostRef]) -> str | None:
    """The host a label names, or None (no host, or a first name several hosts share)."""
    hosts = list(hosts)
    key = label_key(label)
    for host in hosts:
        if label_key(host.name) == key:
            return host.id
    tokens = name_tokens(label)
    if not tokens:
        return None
    for host in hosts:
        if name_tokens(host.name) == tokens:
            return host.id
    candidates = {h.id for h in hosts if first_name_match(tokens, name_tokens(h.name))}
    return next(iter(candidates)) if len(candidates) == 1 else None


def suggest_hosts(label: str, hosts: Iterable[HostRef], limit: int = 3) -> tuple[HostRef, ...]:
    """The hosts whose names come closest to ``label`` (best first)."""
    key = label_key(label)
    tokens = set(name_tokens(label))
    scored: list[tuple[float, str, HostRef]] = []
    for host in hosts:
        name = label_key(host.name)
        score = difflib.SequenceMatcher(None, key, name).ratio()
        host_tokens = set(name_tokens(host.name))
        if tokens & host_tokens:
            score += 0.5
        if any(difflib.get_close_matches(t, list(host_tokens), n=1, cutoff=0.75) for t in tokens):
            score += 0.25
        scored.append((score, name, host))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return tuple(host for score, _name, host in scored[:limit] if score >= 0.3)


def _mapped(mapping: Mapping[str, str]) -> dict[str, str]:
    return {label_key(k): v for k, v in mapping.items() if v}


def resolve(
    labels: Iterable[str], hosts: Iterable[HostRef] | None, mapping: Mapping[str, str] | None = None
) -> dict[str, Resolution]:
    """Resolve each label: the mapping first, then host names. ``hosts`` None: the hosts are not
    known (offline and never read), so only mapped labels resolve and none is called unresolved
    by name (their ``how`` is None and ``host_id`` None)."""
    assigned = _mapped(mapping or {})
    known = list(hosts) if hosts is not None else None
    result: dict[str, Resolution] = {}
    for label in labels:
        host_id = assigned.get(label_key(label))
        if host_id is not None:
            result[label] = Resolution(label, host_id, "mapped")
            continue
        if known is None:
            result[label] = Resolution(label, None, None)
            continue
        host_id = match_by_name(label, known)
        if host_id is not None:
            result[label] = Resolution(label, host_id, "name")
        else:
            result[label] = Resolution(label, None, None, suggest_hosts(label, known))
    return result


def speaker_characters(labels: Iterable[str], mapping: Mapping[str, str]) -> list[dict[str, str]]:
    """The import's ``speaker_characters`` for the labels the script uses (only mapped ones, in the
    script's order; at most 200, labels at most 200 characters: checked by the validator)."""
    assigned = _mapped(mapping)
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for label in labels:
        key = label_key(label)
        if key in assigned and key not in seen:
            seen.add(key)
            out.append({"character_id": assigned[key], "label": label[:MAX_SPEAKER_LABEL_CHARS]})
    return out[:MAX_SPEAKER_CHARACTERS]
