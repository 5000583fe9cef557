"""Discovery, health and account (spec 2.1, 2.11, 4.1)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from castdeck.api.models import Account, ApiIndex, Health

from ..routing import route
from ..service import org_of, sandbox_of
from ..web import data_response, json_response


@route(
    "GET",
    "/",
    tag="Health",
    summary="API index",
    auth=False,
    response=ApiIndex,
    errors=(500,),
    extra={"bare": True},
)
async def index(request: Request) -> Response:
    base = sandbox_of(request).base_url
    return json_response(
        {
            "name": "Castdeck sandbox",
            "description": "A local implementation of the podcast, video, short and voiceover generation interface.",
            "version": "1.0.0",
            "openapi_url": f"{base}/openapi.json",
            "documentation_url": f"{base}/docs",
            "developers_url": f"{base}/docs#developers",
            "llms_txt_url": f"{base}/llms.txt",
            "authentication": {
                "type": "bearer",
                "header": "Authorization",
                "documentation_url": f"{base}/docs#authentication",
                "keys_url": f"{base}/docs#keys",
            },
            "errors": {
                "format": "application/problem+json",
                "specification": "https://www.rfc-editor.org/rfc/rfc9457",
            },
            "mcp": {
                "url": f"{base}/mcp",
                "documentation_url": f"{base}/docs#mcp",
                "server_card_url": f"{base}/.well-known/mcp.json",
                "transport": "streamable-http",
            },
        }
    )


@route(
    "GET",
    "/health",
    tag="Health",
    summary="Liveness",
    auth=False,
    response=Health,
    errors=(500,),
    extra={"bare": True},
)
async def health(request: Request) -> Response:
    return json_response({"status": "ok"})


@route(
    "GET",
    "/v1/account",
    tag="Account",
    summary="The caller's organization, plan and credit balance",
    response=Account,
)
async def account(request: Request) -> Response:
    db = sandbox_of(request).db
    org = db.org(org_of(request).id)
    held = db.held(org.id)
    return data_response(
        {
            "organization_id": org.id,
            "organization_name": org.name,
            "plan": org.plan,
            "credits": {
                "balance": round(org.balance - held, 2),
                "held": round(held, 2),
                "total": round(org.balance, 2),
            },
            "rates": {"narration_minute": 30, "image": 7, "video_clip": 20},
        }
    )
