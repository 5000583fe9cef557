"""The sandbox's shared state and the helpers every route module uses."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from .acceptance import Acceptances
from .clock import CLOCK
from .config import Settings
from .db import Database, Org, Record
from .problems import not_found
from .signing import download_expiry, sign_url

if TYPE_CHECKING:
    from .jobs import JobRunner

PLAN_MAX_EPISODE_MINUTES = {"creator": 75, "pro": 75, "business": 75, "enterprise": 75, "free": 10}
PLAN_MAX_VOICEOVER_SECONDS = {"creator": 1800, "pro": 3600, "business": 3600, "enterprise": 3600, "free": 300}


class Sandbox:
    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        self.base_url = f"http://{host}:{settings.port}"
        self.signed_base_url = (settings.signed_base_url or self.base_url).rstrip("/")
        """Where signed addresses point: the sandbox itself, or a proxy in front of it (its
        ``/files/…`` and ``/uploads/…`` paths unchanged)."""
        self.secret = db.secret()
        self.files_dir = settings.data_dir / "files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        self.jobs: JobRunner | None = None
        self.acceptances = Acceptances()

    # files -------------------------------------------------------------------------------------------
    def file_path(self, relative: str) -> Path:
        return self.files_dir / relative

    def file_url(self, relative: str) -> str:
        """A signed download address: no API key needed, none must be sent."""
        expires = download_expiry()
        return sign_url(self.signed_base_url, f"/files/{relative}", self.secret, "GET", relative, expires)

    def poll_hint(self, seconds: float) -> int:
        """``Retry-After`` in whole seconds (>= 1), scaled by ``--speed``."""
        return max(1, round(seconds / self.settings.speed))


def sandbox_of(request: Request) -> Sandbox:
    sandbox: Sandbox = request.app.state.sandbox
    return sandbox


def org_of(request: Request) -> Org:
    org: Org = request.state.org
    return org


def request_id_of(request: Request) -> str:
    return str(request.state.request_id)


def now_iso(moment: datetime | None = None) -> str:
    moment = moment or CLOCK.now()
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def new_id() -> str:
    return str(uuid.uuid4())


def owned(db: Database, kind: str, record_id: str, org: Org, what: str | None = None) -> Record:
    """The record, when it exists and belongs to the caller's organization; otherwise 404.

    A resource of another organization is indistinguishable from one that does not exist.
    """
    record = db.get(kind, record_id)
    if record is None or record.org_id != org.id:
        raise not_found(what or kind, record_id)
    return record


_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")  # a tag starts right after "<" ("a < b > c" is text)


def as_html(text: str | None) -> str | None:
    """Plain text is returned wrapped in ``<p>`` tags; HTML is kept as given."""
    if text is None:
        return None
    if _TAG.search(text):
        return text
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if p.strip()]
    return "".join(f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in paragraphs) or "<p></p>"


def plain_text(markup: str | None) -> str:
    if not markup:
        return ""
    text = re.sub(r"</p\s*>|<br\s*/?>", "\n", markup, flags=re.I)
    return html.unescape(_TAG.sub("", text)).strip()


def touch(record: Record) -> None:
    record.data["updated_at"] = now_iso()


def save_changes(db: Database, record: Record) -> None:
    """Stamp ``updated_at`` and store the record in one transaction."""
    touch(record)
    with db.transaction():
        db.save(record)


def json_safe(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    return value


def hold_credits(db: Database, org: Org, amount: float, kind: str, resource_id: str) -> None:
    """Reserve the estimate of a generation; 422 ``check_account`` when the balance cannot cover it."""
    from .problems import ApiProblem

    current = db.org(org.id)
    available = current.balance - db.held(org.id)
    if available < amount:
        raise ApiProblem(
            422,
            f"This generation needs about {amount:.0f} credits but {max(available, 0):.0f} are available.",
            title="Insufficient credits",
            recovery={"action": "check_account"},
            extra={"credits_required": round(amount, 2), "credits_available": round(max(available, 0), 2)},
        )
    db.hold(org.id, round(amount, 2), kind, resource_id)
