"""The JSON answers every route of the emulator builds: plain, 422 validation errors, the
provider's ``{requestId, data}`` envelope and its paged variant; and the check of a date window's
query parameters (:func:`parse_window`)."""

from __future__ import annotations

import json
import re
import uuid
from datetime import date
from typing import Any

import orjson
from fastapi.responses import Response

CONTROL_PREFIX = "/_emulator"
"""Path prefix of the control endpoints (not the provider's API: no authentication, no rate
limit, not counted)."""


def json_bytes(body: Any) -> bytes:
    """``body`` as compact UTF-8 JSON; integers beyond 64 bits (which spec data may hold) are
    written exactly."""
    try:
        return orjson.dumps(body)
    except TypeError:  # orjson refuses integers beyond 64 bits; the standard library does not
        return json.dumps(body, ensure_ascii=False).encode()


def json_response(body: Any, status: int = 200) -> Response:
    """``body`` as a JSON answer (:func:`json_bytes`) with ``status``."""
    return Response(json_bytes(body), status_code=status, media_type="application/json")


def invalid(loc: list[Any], msg: str) -> Response:
    """A 422 ``HTTPValidationError`` with one error at ``loc`` (``["query", "startDate"]``)."""
    return json_response({"detail": [{"loc": loc, "msg": msg, "type": "value_error"}]}, 422)


def envelope(data: dict[str, Any]) -> Response:
    """The provider's answer ``{requestId: <new UUID>, data}``."""
    return json_response({"requestId": str(uuid.uuid4()), "data": data})


def paged(
    key: str, items: list[dict[str, Any]], offset: int, limit: int, with_total: bool
) -> Response:
    """One page of ``items``: ``{requestId, data: {key: items[offset:offset + limit]},
    paging: {offset: <offset of the next page>, total?}}``; ``total`` (the length of ``items``)
    only ``with_total``."""
    page = items[offset : offset + limit]
    paging: dict[str, Any] = {"offset": offset + len(page)}
    if with_total:
        paging["total"] = len(items)
    return json_response({"requestId": str(uuid.uuid4()), "data": {key: page}, "paging": paging})


def parse_window(start: str, end: str, max_days: int) -> tuple[date, date] | Response:
    """``(first, last)`` dates of a ``YYYY-MM-DD`` window, or the 422 the provider answers."""
    for name, value in (("startDate", start), ("endDate", end)):
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return invalid(["query", name], "dates must be YYYY-MM-DD")
    try:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
    except ValueError:
        return invalid(["query", "startDate"], "dates must be YYYY-MM-DD")
    if last < first:
        return invalid(["query", "endDate"], "endDate must not be before startDate")
    if (last - first).days + 1 > max_days:
        return invalid(["query", "endDate"], f"the date range may not exceed {max_days} days")
    return first, last
