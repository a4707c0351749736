"""Smart group resources: ``smart_groups`` (``GET /users/v1/smart-groups``) and
``smart_group_segments`` (``GET /users/v1/smart-group-segments``): the groups (departments,
locations, teams) users belong to, as the users' ``smartGroupsIds`` name them, and the segments
that hold them. Neither endpoint is paged nor carries a time: both are listed in full every run,
the changed records load, and a record the listing no longer holds is marked deleted."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, BOOL, JSON, TEXT, hints
from ..client import ConnecteamClient
from ..registry import STREAMS
from .common import DELETION_MARK, diff_listing, listing_tables

logger = logging.getLogger("sources.connecteam")

GROUP_COLUMNS: dict[str, str] = {
    "id": BIGINT, "name": TEXT, "description": TEXT, "group_segment_id": BIGINT,
    "number_of_users": BIGINT, "is_automatically_created": BOOL, "admin_user_ids": JSON,
    **DELETION_MARK,
}  # fmt: skip
SEGMENT_COLUMNS: dict[str, str] = {"id": BIGINT, "name": TEXT, "color": TEXT, "sort_order": BIGINT,
                                   **DELETION_MARK}  # fmt: skip


def smart_groups(client: ConnecteamClient) -> DltResource:
    """``smart_groups``: every smart group (``SmartGroup``), merged on ``id``."""
    return _full_listing(client, "smart_groups", GROUP_COLUMNS, group_row)


def smart_group_segments(client: ConnecteamClient) -> DltResource:
    """``smart_group_segments``: every segment (``SmartGroupSegment``), merged on ``id``."""
    return _full_listing(client, "smart_group_segments", SEGMENT_COLUMNS, segment_row)


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


def _full_listing(
    client: ConnecteamClient, name: str, columns: dict[str, str], to_row: Any
) -> DltResource:
    """``name``: the unpaged listing of its stream, rows by ``to_row``, merged on ``id``; only
    changed ones load; one the listing no longer holds is marked deleted."""

    @dlt.resource(name=name, primary_key="id", write_disposition="merge", columns=hints(columns))
    def _listing() -> Iterator[pa.Table]:
        progress = Progress(name, logger=logger)
        rows = []
        for page in client.paginate(STREAMS[name]):
            progress.page(len(page))
            rows += [to_row(record) for record in page]
        changed, gone = diff_listing(name, "id", rows, True)
        progress.done(f" ({len(rows)} listed, {len(changed)} new or changed, {len(gone)} deleted)")
        yield from listing_tables(client, name, columns, changed, gone)

    return _listing
