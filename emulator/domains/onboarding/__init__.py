"""The onboarding domain, small enough for one module: its records (:class:`Onboarding`), the
tidy account's (:func:`tidy`), the spec data mode's (:func:`spec`) and its routes
(:func:`add_routes`), both with scope ``onboarding.read`` and not paged:

* ``GET /onboarding/v1/packs``: ``{"packs": [PackResponse]}`` (``{id, name, description?,
  isDefault}``);
* ``GET /onboarding/v1/packs/{packId}/assignments``: ``{"assignments": [AssignmentResponse]}``
  (``{id, userId, status, isWaitingApproval}``; ``status`` ``in_progress`` or ``completed``);
  404 "Onboarding pack not found" for an unknown pack, as the spec declares.

The tidy account has three packs, ids 5100..5102 (5100 the default). Every active user is in the
default pack, about one in seven also in "Drivers" and managers in "Shift leads". A user created
in the 30 days before the anchor is still in progress (about a third of them waiting for an
admin's approval: every required step done); an older one has completed, but for about one in
twenty who never finished.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response

from ...auth import requirement
from ...protocols import Account, Server
from ...responses import envelope, json_response
from ...spec_records import SpecData
from ..domain import Domain, records_of

NAME = "onboarding"
SCOPE = "onboarding.read"
PACKS = [
    (5100, "New hires", "Paperwork, policies and safety training before the first shift", True),
    (5101, "Shift leads", "Opening and closing, cash handling, handing over a shift", False),
    (5102, "Drivers", None, False),
]
"""``(id, name, description or None, isDefault)`` of the tidy account's packs."""
RECENT_SECONDS = 30 * 86_400
"""A user created this long before the anchor or less is still onboarding."""


@dataclass
class Onboarding:
    """Onboarding packs of one account and their assignments.

    Attributes:
        packs: ``PackResponse`` records, in id order.
        assignments: ``AssignmentResponse`` records by pack id, each list in id order.
    """

    packs: list[dict[str, Any]] = field(default_factory=list)
    assignments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def onboarding_of(account: Account) -> Onboarding:
    """The account's onboarding records (see :func:`~emulator.domains.domain.records_of`)."""
    return records_of(account, NAME, Onboarding)


def tidy(account: Account, anchor: int) -> Onboarding:
    """The tidy account's packs and assignments (see the module docstring); ``anchor`` is the
    account's day (UTC epoch seconds) users' ``createdAt`` are measured from."""
    rng = random.Random(account.config.seed * 104_729 + 17)
    out = Onboarding()
    for pid, name, description, default in PACKS:
        pack = {"id": pid, "name": name, "isDefault": default}
        out.packs.append(pack if description is None else {**pack, "description": description})
        out.assignments[pid] = []
    next_id = 1
    for uid in account.active_users():
        user = account.users[uid]
        packs = [5100]
        packs += [5101] if user.get("userType") == "manager" else []
        packs += [5102] if rng.random() < 1 / 7 else []
        recent = anchor - int(user.get("createdAt") or 0) <= RECENT_SECONDS
        for pid in packs:
            done = not recent and rng.random() >= 0.05
            waiting = not done and rng.random() < 1 / 3
            out.assignments[pid].append({
                "id": next_id, "userId": uid, "status": "completed" if done else "in_progress",
                "isWaitingApproval": waiting,
            })  # fmt: skip
            next_id += 1
    return out


def spec(gen: SpecData, account: Account) -> Onboarding:
    """The spec data mode's records: three packs (ids 1..3) and five assignments each (ids
    unique over the account, ``userId`` one of the account's users), drawn from the schemas
    ``PackResponse`` and ``AssignmentResponse``; only those fields are set here."""
    users = sorted(account.users) or [1]
    out = Onboarding()
    for pid in (1, 2, 3):
        out.packs.append(gen.record("PackResponse", "onboarding_packs", pid, {"id": pid}, 3))
        out.assignments[pid] = [
            gen.record("AssignmentResponse", "onboarding_pack_assignments", f"{pid}:{aid}",
                       {"id": aid, "userId": users[aid % len(users)]}, 15)
            for aid in range(pid * 100, pid * 100 + 5)
        ]  # fmt: skip
    return out


def listed(account: Account) -> dict[str, list[dict[str, Any]]]:
    """Every pack, and every assignment with its ``packId`` (see :attr:`Domain.listed`)."""
    found = onboarding_of(account)
    return {
        "onboarding_packs": found.packs,
        "onboarding_pack_assignments": [
            {"packId": pid, **item} for pid, rows in found.assignments.items() for item in rows
        ],
    }


def add_routes(app: FastAPI, state: Server) -> None:
    """Register the onboarding endpoints on ``app`` (see the module docstring)."""

    @app.get("/onboarding/v1/packs", dependencies=[requirement(state, SCOPE)])
    async def get_packs() -> Response:
        return envelope({"packs": onboarding_of(state.dataset).packs})

    @app.get("/onboarding/v1/packs/{packId}/assignments", dependencies=[requirement(state, SCOPE)])
    async def get_pack_assignments(packId: int) -> Response:  # noqa: N803
        found = onboarding_of(state.dataset).assignments.get(packId)
        if found is None:
            return json_response({"detail": "Onboarding pack not found"}, 404)
        return envelope({"assignments": found})


DOMAIN = Domain(name=NAME, order=5, add_routes=add_routes, tidy=tidy, spec=spec, listed=listed)
