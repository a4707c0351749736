"""The groups domain's routes: smart groups (``GET /users/v1/smart-groups``) and their segments
(``GET /users/v1/smart-group-segments``), scope ``users.read``, not paged.

The tidy account has the segments Departments, Locations and Teams and eleven groups, ids 1..11
(the ids its users' ``smartGroupsIds`` name); a group's ``numberOfUsers`` is counted from the
users at the time of the request (the spec: "The total number of users in the group (excluding
admins)"). Filters: ``id`` / ``name`` of groups, ``segmentIds`` / ``names`` of segments.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import Response

from ...auth import requirement
from ...protocols import Server
from ...responses import envelope
from .data import groups_of


def add_routes(app: FastAPI, state: Server) -> None:
    """Register the smart group endpoints on ``app`` (see the module docstring)."""

    @app.get("/users/v1/smart-groups", dependencies=[requirement(state, "users.read")])
    async def get_smart_groups(
        id: Annotated[list[int] | None, Query()] = None,
        name: Annotated[list[str] | None, Query()] = None,
    ) -> Response:
        members: dict[Any, int] = {}
        for user in state.dataset.users.values():
            if user.get("userType") != "admin":
                for group in user.get("smartGroupsIds") or []:
                    members[group] = members.get(group, 0) + 1
        records = groups_of(state.dataset)
        rows = [
            {**g, "numberOfUsers": members.get(g.get("id"), 0)} if records.tidy else g
            for g in records.groups
            if (not id or g.get("id") in set(id)) and (not name or g.get("name") in set(name))
        ]
        return envelope({"groups": rows})

    @app.get("/users/v1/smart-group-segments", dependencies=[requirement(state, "users.read")])
    async def get_smart_group_segments(
        segmentIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        names: Annotated[list[str] | None, Query()] = None,
    ) -> Response:
        rows = [
            s
            for s in groups_of(state.dataset).segments
            if (not segmentIds or s.get("id") in set(segmentIds))
            and (not names or s.get("name") in set(names))
        ]
        return envelope({"segments": rows})
