"""The emulator's authentication: the OAuth token endpoint and the check every API route runs.

* ``POST /oauth/v1/token`` (client credentials, HTTP Basic; Bearer tokens carry scopes; without a
  ``scope`` parameter the client's configured scopes are granted; tokens last 86,400 s).
* 401 ``{"detail": ...}`` without valid credentials (``X-API-KEY`` or ``Authorization: Bearer``),
  403 when a Bearer token lacks the endpoint's scope.
* Token requests asking for scopes beyond the client's: 403 ``{"detail": "Unauthorized scopes
  requested: <scopes>"}`` (the spec's 403). With ``oauth_strict_scopes`` the token endpoint
  refuses, as RFC 6749 §5.2 says, with 400 ``{"error": "invalid_scope", "error_description"}``
  naming the scopes: any scope the provider does not define (:data:`KNOWN_SCOPES`) and any
  beyond the client's.
"""

from __future__ import annotations

import base64
import contextlib
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from . import parameters
from .protocols import Server
from .responses import json_response
from .spec_schemas import spec

TOKEN_PATH = "/oauth/v1/token"
TOKEN_SECONDS = 86_400


def _known_scopes() -> frozenset[str]:
    flows = spec()["components"]["securitySchemes"]["OAuth2"]["flows"]
    return frozenset(flows["clientCredentials"]["scopes"]) | {"documents.write"}


KNOWN_SCOPES = _known_scopes()
"""The scopes the provider defines: the spec's OAuth2 scheme, plus ``documents.write``, which
``sources/connecteam/spec/service-interface.md`` names for the beta document-entry PUT (absent
from the spec file)."""


def identify(state: Server, scope_name: str | None) -> Callable[[Request], str]:
    """A FastAPI dependency that authenticates the request and returns the caller's identity:
    ``"api-key"`` or the OAuth client id.

    Raises (from the dependency):
        HTTPException: 401 without valid credentials, 403 when the Bearer token lacks
            ``scope_name`` (``None``: any valid token will do).
    """

    def check(request: Request) -> str:
        key = request.headers.get("x-api-key")
        if key is not None:
            if secrets.compare_digest(key.encode(), state.options.api_key.encode()):
                return "api-key"
            raise HTTPException(401, "Invalid API key")
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            token = state.tokens.get(auth[7:].strip())
            if token is None or token[1] < time.time():
                raise HTTPException(401, "Invalid or expired access token")
            if scope_name is not None and scope_name not in token[0]:
                raise HTTPException(403, f"The access token lacks the scope {scope_name}")
            return token[2]
        raise HTTPException(401, "Missing credentials: send X-API-KEY or a Bearer token")

    return check


def requirement(state: Server, scope_name: str | None) -> Any:
    """For a route's ``dependencies``: the credential check (:func:`identify`), then, on a GET
    the spec declares, the check of its query and path parameters against the spec
    (:mod:`emulator.parameters`).

    Raises (from the dependency):
        HTTPException: 401 or 403, as :func:`identify`.
        RequestValidationError: a parameter the spec refuses (FastAPI answers 422
            ``{"detail": [{type, loc, msg, input}]}``).
    """
    caller = identify(state, scope_name)

    def check(request: Request) -> str:
        identity = caller(request)
        if request.method == "GET":
            route = request.scope.get("route")
            template = getattr(route, "path", request.url.path)
            found = parameters.errors(
                template, request.query_params.multi_items(), request.path_params
            )
            if found:
                raise RequestValidationError(found)
        return identity

    return Depends(check)


def add_token_route(app: FastAPI, state: Server) -> None:
    """Register ``POST /oauth/v1/token`` on ``app`` (see the module docstring)."""

    @app.post(TOKEN_PATH)
    async def oauth_token(request: Request) -> Response:
        auth = request.headers.get("authorization", "")
        client_id = secret = ""
        if auth.lower().startswith("basic "):
            with contextlib.suppress(ValueError):
                client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        client = state.options.oauth_clients.get(client_id)
        if client is None or not secrets.compare_digest(secret.encode(), client["secret"].encode()):
            return json_response({"detail": "Invalid client credentials"}, 401)
        form = parse_qs((await request.body()).decode())
        if form.get("grant_type", ["client_credentials"])[0] != "client_credentials":
            return json_response({"detail": "Invalid grant type"}, 400)
        allowed = set(client["scopes"])
        asked = set(" ".join(form.get("scope", [])).split()) or allowed
        refused = sorted(asked - allowed)
        if state.options.oauth_strict_scopes:
            unknown = sorted(asked - KNOWN_SCOPES)
            if unknown or refused:
                parts = [f"unknown scope(s): {' '.join(unknown)}"] if unknown else []
                if refused:
                    parts.append(f"scope(s) not granted to this client: {' '.join(refused)}")
                return json_response(
                    {"error": "invalid_scope", "error_description": "; ".join(parts)}, 400
                )
        elif refused:
            return json_response(
                {"detail": f"Unauthorized scopes requested: {' '.join(refused)}"}, 403
            )
        token = secrets.token_urlsafe(24)
        state.tokens[token] = (asked, time.time() + TOKEN_SECONDS, client_id)
        return json_response(
            {"access_token": token, "token_type": "Bearer", "expires_in": TOKEN_SECONDS,
             "scope": " ".join(sorted(asked))}
        )  # fmt: skip
