"""Onboarding resources: ``onboarding_packs`` (``GET /onboarding/v1/packs``) and
``onboarding_pack_assignments`` (``GET /onboarding/v1/packs/{packId}/assignments``): the packs
new hires work through, and who is assigned to each pack with their progress (``status``:
``in_progress`` or ``completed``; ``isWaitingApproval`` once every required step is done and an
admin has still to approve). Neither endpoint is paged nor carries a time: both are listed in
full every run, the changed records load, and one no longer listed is marked deleted. A pack
that answers 404 (removed since the packs were listed) keeps its assignments' rows as they are.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from dlt.sources import DltResource

from ..arrow_rows import BIGINT, BOOL, TEXT
from .children import Parent, child_listing
from .common import DELETION_MARK, record_listing
from .run import Builders, Run

PACK_COLUMNS: dict[str, str] = {"id": BIGINT, "name": TEXT, "description": TEXT,
                                "is_default": BOOL, **DELETION_MARK}  # fmt: skip
ASSIGNMENT_COLUMNS: dict[str, str] = {
    "pack_id": "bigint!", "id": BIGINT, "user_id": BIGINT, "status": TEXT,
    "is_waiting_approval": BOOL, **DELETION_MARK,
}  # fmt: skip


def pack_row(record: dict[str, Any]) -> dict[str, Any]:
    """One ``PackResponse`` (``{id, name, description?, isDefault}``) as a warehouse row."""
    return {"id": record.get("id"), "name": record.get("name"),
            "description": record.get("description"),
            "is_default": record.get("isDefault")}  # fmt: skip


def assignment_row(pack_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One ``AssignmentResponse`` (``{id, userId, status, isWaitingApproval}``) of pack
    ``pack_id``, keyed ``onboarding_assignment_key`` = pack:assignment."""
    return {"onboarding_assignment_key": f"{pack_id}:{record['id']}", "pack_id": pack_id,
            "id": record["id"], "user_id": record.get("userId"), "status": record.get("status"),
            "is_waiting_approval": record.get("isWaitingApproval")}  # fmt: skip


def onboarding_packs(run: Run) -> DltResource:
    """``onboarding_packs``: every pack, merged on ``id`` (its listing is also the parents of
    the assignments, fetched once per run)."""
    listing = run.listing("onboarding_packs")
    return record_listing(run.client, "onboarding_packs", PACK_COLUMNS, pack_row, listing)


def onboarding_pack_assignments(run: Run) -> DltResource:
    """``onboarding_pack_assignments``: every listed pack's assignments, merged on
    ``onboarding_assignment_key``."""
    packs = run.listing("onboarding_packs")

    def parents() -> list[Parent]:
        ids = [int(pack["id"]) for pack in packs()[0]]
        return [Parent({"packId": pid}, f"{pid}:", partial(assignment_row, pid)) for pid in ids]

    return child_listing(
        run.client, "onboarding_pack_assignments", "onboarding_assignment_key",
        ASSIGNMENT_COLUMNS, parents,
    )  # fmt: skip


RESOURCES: Builders = {
    "onboarding_packs": onboarding_packs,
    "onboarding_pack_assignments": onboarding_pack_assignments,
}
"""This domain's streams and how each one's resource is built for a run."""
