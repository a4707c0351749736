"""Smart group resources: ``smart_groups`` (``GET /users/v1/smart-groups``) and
``smart_group_segments`` (``GET /users/v1/smart-group-segments``): the groups (departments,
locations, teams) users belong to, as the users' ``smartGroupsIds`` name them, and the segments
that hold them. Neither endpoint is paged nor carries a time: both are listed in full every run,
the changed records load, and a record the listing no longer holds is marked deleted."""

from __future__ import annotations

from typing import Any

from dlt.sources import DltResource

from ..arrow_rows import BIGINT, BOOL, JSON, TEXT
from ..client import ConnecteamClient
from .common import DELETION_MARK, record_listing
from .run import Builders

GROUP_COLUMNS: dict[str, str] = {
    "id": BIGINT, "name": TEXT, "description": TEXT, "group_segment_id": BIGINT,
    "number_of_users": BIGINT, "is_automatically_created": BOOL, "admin_user_ids": JSON,
    **DELETION_MARK,
}  # fmt: skip
SEGMENT_COLUMNS: dict[str, str] = {"id": BIGINT, "name": TEXT, "color": TEXT, "sort_order": BIGINT,
                                   **DELETION_MARK}  # fmt: skip


def smart_groups(client: ConnecteamClient) -> DltResource:
    """``smart_groups``: every smart group (``SmartGroup``), merged on ``id``."""
    return record_listing(client, "smart_groups", GROUP_COLUMNS, group_row)


def smart_group_segments(client: ConnecteamClient) -> DltResource:
    """``smart_group_segments``: every segment (``SmartGroupSegment``), merged on ``id``."""
    return record_listing(client, "smart_group_segments", SEGMENT_COLUMNS, segment_row)


def group_row(record: dict[str, Any]) -> dict[str, Any]:
    """One ``SmartGroup`` as a warehouse row."""
    return {
        "id": record.get("id"),
        "name": record.get("name"),
        "description": record.get("description"),
        "group_segment_id": record.get("groupSegmentId"),
        "number_of_users": record.get("numberOfUsers"),
        "is_automatically_created": record.get("isAutomaticallyCreated"),
        "admin_user_ids": record.get("adminUserIds") or [],
    }


def segment_row(record: dict[str, Any]) -> dict[str, Any]:
    """One ``SmartGroupSegment`` as a warehouse row."""
    return {"id": record.get("id"), "name": record.get("name"), "color": record.get("color"),
            "sort_order": record.get("sortOrder")}  # fmt: skip


RESOURCES: Builders = {
    "smart_groups": lambda run: smart_groups(run.client),
    "smart_group_segments": lambda run: smart_group_segments(run.client),
}
"""This domain's streams and how each one's resource is built for a run."""
