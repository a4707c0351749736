"""The emulator's core listings, as the provider's OpenAPI spec
(``sources/connecteam/spec/connecteam-openapi.json``) describes them:

* ``GET /users/v1/users`` (limit 1..500, offset, ``userStatus`` active|archived|all, default active;
  ``modifiedAt`` / ``createdAt`` = modified / created strictly after that epoch second;
  ``userIds``; ``sort`` created_at
  with ``order`` asc|desc, else in id order),
* ``GET /forms/v1/forms`` (limit 1..300),
* ``GET /scheduler/v1/schedulers`` (not paged),
* ``GET /scheduler/v1/schedulers/{schedulerId}/shifts`` (required ``startTime``/``endTime``; a
  shift is listed when it overlaps ``[startTime, endTime)``; ``sort`` created_at|updated_at;
  ``order`` asc|desc; limit 1..500; one row per assigned user as V1 does; 404 for an unknown
  scheduler),
* ``GET /documents/v1/user-documents`` (beta, absent from the spec file, which defines no
  ``documents.*`` read scope: any valid API key or Bearer token is served). The interface leaves
  its shape "not shown"; the emulator's choice, modelled on the provider's other lists:
  ``limit`` 1..100 (default 10), ``offset``, ``userIds``; envelope
  ``{requestId, data: {userDocuments: [...]}, paging: {offset}}``; each record
  ``{id, userId, documentId, documentName, documentType (ApiDocumentType), packId,
  status (ApiDocumentStatus), createdAt, updatedAt}`` with epoch-second times (and, once an
  entry was PUT, its ``fileId``; neither ``fileId`` nor ``updatedAt`` with
  :attr:`~emulator.state.ServerOptions.user_documents_untold`).

``paging.offset`` is the offset of the next page; ``paging.total`` is sent only when configured
(:attr:`~emulator.state.ServerOptions.paging_total`). A listing named in
:attr:`~emulator.state.ServerOptions.delete_while_paging` (``shifts``, ``user_documents``) loses
the first record of a first page it served, right after serving it, as a concurrent deletion
would: the next page's offsets shift by one.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Path, Query
from fastapi.responses import Response

from .auth import requirement
from .options import ShiftSort, SortOrder
from .responses import envelope, json_response, paged
from .state import EmulatorState


class UserStatus(StrEnum):
    """The users listing's ``userStatus`` parameter."""

    active = "active"
    archived = "archived"
    all = "all"


def _created(user: dict[str, Any]) -> tuple[int | float, str]:
    """A user's place when sorted by ``created_at``: its ``createdAt`` (a drawn spec record may
    hold none, or no number: first), then its id."""
    value = user.get("createdAt")
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
    return number, str(user.get("userId"))


def add_listing_routes(app: FastAPI, state: EmulatorState) -> None:
    """Register the core listings on ``app`` (see the module docstring)."""
    _add_account_listings(app, state)
    _add_shift_listing(app, state)

    @app.get("/documents/v1/user-documents", dependencies=[requirement(state, None)])
    async def get_user_documents(
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        docs = [
            d
            for d in state.dataset.user_documents.values()
            if not userIds or d.get("userId") in set(userIds)
        ]
        shown = docs
        if state.options.user_documents_untold:
            shown = [{k: v for k, v in d.items() if k not in ("fileId", "updatedAt")} for d in docs]
        answer = paged("userDocuments", shown, offset, limit, state.options.paging_total)
        if offset == 0 and len(docs) > limit and state.take_paging_deletion("user_documents"):
            with state.lock:
                state.dataset.user_documents.pop(docs[0]["id"], None)
                state.dataset.version += 1
        return answer


def _add_account_listings(app: FastAPI, state: EmulatorState) -> None:
    """``GET /users/v1/users``, ``/forms/v1/forms`` and ``/scheduler/v1/schedulers``."""

    @app.get("/users/v1/users", dependencies=[requirement(state, "users.read")])
    async def get_users(
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        userStatus: UserStatus = UserStatus.active,  # noqa: N803 - the provider's name
        modifiedAt: Annotated[int | None, Query(ge=1)] = None,  # noqa: N803
        createdAt: Annotated[int | None, Query(ge=1)] = None,  # noqa: N803
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        sort: Literal["created_at"] | None = None,
        order: SortOrder = SortOrder.asc,
    ) -> Response:
        after = {"modifiedAt": modifiedAt, "createdAt": createdAt}
        users = listed_users(state, userStatus, after, userIds, sort, order)
        return paged("users", users, offset, limit, state.options.paging_total)

    @app.get("/forms/v1/forms", dependencies=[requirement(state, "forms.read")])
    async def get_forms(
        limit: Annotated[int, Query(ge=1, le=300)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        forms = list(state.dataset.forms.values())
        return paged("forms", forms, offset, limit, state.options.paging_total)

    @app.get("/scheduler/v1/schedulers", dependencies=[requirement(state, "schedule.read")])
    async def get_schedulers() -> Response:
        return envelope({"schedulers": list(state.dataset.schedulers.values())})


def listed_users(
    state: EmulatorState,
    status: UserStatus,
    after: dict[str, int | None],
    user_ids: list[int] | None,
    sort: str | None,
    order: SortOrder,
) -> list[dict[str, Any]]:
    """The users ``GET /users/v1/users`` lists: of ``status``, modified and created after
    ``after["modifiedAt"]`` and ``after["createdAt"]`` (epoch seconds; ``None``: any), among
    ``user_ids``; sorted by ``created_at`` in ``order`` when ``sort`` asks, else in id order."""
    wanted = set(user_ids or [])
    every = state.dataset.users
    users = state.cached_listing(
        ("users", len(every), sort, order),
        lambda: (
            sorted(every.values(), key=_created, reverse=order is SortOrder.desc)
            if sort is not None
            else list(every.values())
        ),
    )
    modified_after, created_after = after.get("modifiedAt"), after.get("createdAt")
    if status is UserStatus.all and modified_after is None and created_after is None and not wanted:
        return users
    return [
        u
        for u in users
        if (status is UserStatus.all or u["isArchived"] == (status is UserStatus.archived))
        and (modified_after is None or u["modifiedAt"] > modified_after)
        and (created_after is None or _created(u)[0] > created_after)
        and (not wanted or u["userId"] in wanted)
    ]


def _add_shift_listing(app: FastAPI, state: EmulatorState) -> None:
    """``GET /scheduler/v1/schedulers/{schedulerId}/shifts``."""

    @app.get(
        "/scheduler/v1/schedulers/{schedulerId}/shifts",
        dependencies=[requirement(state, "schedule.read")],
    )
    async def get_shifts(
        schedulerId: Annotated[int, Path()],  # noqa: N803
        startTime: Annotated[int, Query()],  # noqa: N803
        endTime: Annotated[int, Query()],  # noqa: N803
        sort: ShiftSort = ShiftSort.created_at,
        order: SortOrder = SortOrder.asc,
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        isOpenShift: bool | None = None,  # noqa: N803
        assignedUserIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        shiftId: Annotated[list[str] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        if schedulerId not in state.dataset.schedulers:
            return json_response({"detail": f"Scheduler {schedulerId} not found"}, 404)
        rows = state.shift_listing(schedulerId, startTime, endTime, sort, order)
        rows = filtered_shifts(rows, isOpenShift, assignedUserIds, shiftId)
        answer = paged("shifts", rows, offset, limit, state.options.paging_total)
        if offset == 0 and len(rows) > limit and state.take_paging_deletion("shifts"):
            with state.lock:
                kept = [r for r in state.dataset.shifts[schedulerId] if r["id"] != rows[0]["id"]]
                state.dataset.shifts[schedulerId] = kept
                state.dataset.version += 1
        return answer


def filtered_shifts(
    rows: list[dict[str, Any]],
    is_open: bool | None,
    user_ids: list[int] | None,
    shift_ids: list[str] | None,
) -> list[dict[str, Any]]:
    """The V1 shift ``rows`` that are open or not (``is_open``), assigned to one of
    ``user_ids``, of one of ``shift_ids`` (a slot id or its base shift id); ``rows`` itself when
    no filter is given."""
    if is_open is None and not user_ids and not shift_ids:
        return rows
    users, ids = set(user_ids or []), set(shift_ids or [])
    return [
        r
        for r in rows
        if (is_open is None or r["isOpenShift"] == is_open)
        and (not users or users & set(r.get("assignedUserIds") or []))
        and (not ids or r["id"] in ids or r["id"].split(":")[0] in ids)
    ]
