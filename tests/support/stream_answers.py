"""Answers of every stream's endpoint generated from the provider's spec, served in-process.

:func:`item_strategy` gives, per stream of the registry, a Hypothesis strategy of one list item
from the spec's own response schema (``$ref`` inlined a few levels deep, lists kept short so an
example stays small); ``user_documents``, a beta endpoint absent from the spec, gets the shape the
provider notes give. :class:`Answers` serves pages of given items for every list endpoint by
path template (a parent id in a path is read back), through ``httpx.MockTransport``: the sync's
extract and load run without a server or a socket.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import httpx
from conftest import SPEC_FILE
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from sources.connecteam.registry import SHIFTS_V2_PATH, STREAMS, Stream

SPEC = json.loads(SPEC_FILE.read_text())
SCHEMAS = SPEC["components"]["schemas"]
MAX_ITEMS = 2
"""Items of any list inside a generated item, at most."""
DEPTH = 7
"""``$ref`` levels inlined; deeper ones become any object (a job's sub-jobs are recursive)."""

USER_DOCUMENT = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"}, "userId": {"type": "integer"},
        "documentId": {"type": "integer"}, "updatedAt": {"type": "integer"},
        "fields": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["id", "userId", "documentId"],
}  # fmt: skip
"""A user document as the provider notes describe it (the endpoint is beta, not in the spec)."""


def _inline(schema: Any, depth: int) -> Any:
    """``schema`` with ``$ref`` resolved ``depth`` levels deep and every array capped at
    :data:`MAX_ITEMS` items."""
    if isinstance(schema, list):
        return [_inline(s, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth <= 0:
            return {"type": "object"}
        target = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _inline({**target, **rest}, depth - 1)
    out = {k: _inline(v, depth) for k, v in schema.items() if k not in ("title", "description")}
    if out.get("type") == "array":
        out["maxItems"] = min(out.get("maxItems", MAX_ITEMS), MAX_ITEMS)
        if out.get("minItems", 0) > MAX_ITEMS:
            del out["minItems"]
    return out


def item_schema(stream: Stream) -> dict[str, Any]:
    """The spec's schema of one item of ``stream``'s list (``data.<data_key>[]``)."""
    if not stream.in_spec:
        return USER_DOCUMENT
    operation = SPEC["paths"][stream.path]["get"]
    answer = _inline(operation["responses"]["200"]["content"]["application/json"]["schema"], 4)
    data = answer["properties"]["data"]
    data = data["allOf"][0] if "allOf" in data else data
    listed = data["properties"][stream.data_key]
    return _inline(listed["items"], DEPTH)


@functools.cache
def item_strategy(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Items of stream ``name`` as its endpoint's schema allows them."""
    return from_schema(item_schema(STREAMS[name]))


def integer_fields(item: dict[str, Any]) -> list[str]:
    """Top-level fields of ``item`` that hold an integer (not a boolean)."""
    return [k for k, v in item.items() if isinstance(v, int) and not isinstance(v, bool)]


def enum_fields(stream: Stream) -> dict[str, list[Any]]:
    """Top-level string fields of ``stream``'s items whose schema lists an ``enum``."""
    schema = item_schema(stream)
    found: dict[str, list[Any]] = {}
    for name, prop in (schema.get("properties") or {}).items():
        for option in [prop, *prop.get("anyOf", []), *prop.get("allOf", [])]:
            if isinstance(option, dict) and option.get("enum") and option.get("type") == "string":
                found[name] = option["enum"]
    return found


Body = Callable[[Stream, int], httpx.Response | None]
"""An answer that replaces the page of ``(stream, offset)`` (``None``: the items' page)."""


class Answers:
    """Every list endpoint answered from ``items[stream]`` (pages of the stream's ``limit``,
    ``paging.total`` given), by path template; ``body`` may replace an answer. The paths asked
    (parent ids filled in) are noted per stream."""

    def __init__(self, items: dict[str, list[Any]], body: Body | None = None) -> None:
        self.items = items
        self.body = body
        self.paths: dict[str, set[str]] = {}
        routes = [(s, s.path) for s in STREAMS.values()]
        routes.append((STREAMS["shifts"], SHIFTS_V2_PATH))
        self.routes = [(s, re.compile("^" + re.sub(r"\{\w+\}", "[^/]+", p) + "$"))
                       for s, p in routes]  # fmt: skip

    def transport(self) -> httpx.MockTransport:
        """An in-process transport answering as :meth:`handle`."""
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """One answer: the page at ``offset`` of the stream whose path template matches."""
        path = request.url.raw_path.decode().split("?", 1)[0]
        stream = next((s for s, route in self.routes if route.match(path)), None)
        if stream is None:
            return httpx.Response(404, json={"detail": f"no route {unquote(path)}"})
        self.paths.setdefault(stream.name, set()).add(path)
        offset = int(request.url.params.get("offset", 0))
        replaced = self.body(stream, offset) if self.body else None
        if replaced is not None:
            return replaced
        items = self.items.get(stream.name, [])
        limit = stream.max_limit or max(1, len(items))
        page = items[offset : offset + limit]
        answer: dict[str, Any] = {"data": {stream.data_key: page}}
        if stream.paged:
            answer["paging"] = {"offset": offset, "total": len(items)}
        text = json.dumps(answer)  # integers past 64 bits stay exact
        return httpx.Response(200, content=text, headers={"content-type": "application/json"})


def asgi_app(answers: Answers) -> Any:
    """``answers`` as an ASGI app (any path, GET), to serve over real HTTP
    (:class:`emulator.server.BackgroundServer`)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    def page(request: Request) -> Response:
        raw = request.scope.get("raw_path") or request.url.path.encode()
        query = request.scope.get("query_string", b"").decode()
        url = f"http://answers{raw.decode()}" + (f"?{query}" if query else "")
        answer = answers.handle(httpx.Request("GET", url))
        content_type = answer.headers.get("content-type", "application/json")
        return Response(answer.content, answer.status_code, media_type=content_type)

    return Starlette(routes=[Route("/{path:path}", page, methods=["GET"])])
