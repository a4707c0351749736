"""Users resources: ``users`` (``GET /users/v1/users?userStatus=all``, merged on ``user_id``)
and ``user_custom_field_definitions`` (``GET /users/v1/custom-fields``, merged on ``id``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import JSON, ArrowRows, hints
from ..client import ConnecteamClient
from ..listing import content_hash
from ..registry import STREAMS
from .common import DELETION_MARK, Listing, record_listing, versions
from .run import Builders

logger = logging.getLogger("sources.connecteam")

USER_COLUMNS = {"custom_fields": JSON, "smart_groups_ids": JSON}
CUSTOM_FIELD_COLUMNS = {"dropdown_options": JSON, **DELETION_MARK}


def users(client: ConnecteamClient) -> DltResource:
    """``users``: every user (active and archived), merged on ``user_id``.

    The first run lists all users. A later run asks for users modified after the second before
    the newest ``modifiedAt`` already loaded (the API's ``modifiedAt`` filter is exclusive), so
    a user changed within that same second after the last pull comes back too. Of the users at
    that second, the ones loaded last time with the same content (a digest per user of that
    second, in the resource state) are skipped; any other is loaded, and the merge on
    ``user_id`` replaces the earlier row. An unchanged account costs one request and loads
    nothing. Every user loaded is also appended to ``user_versions`` with the run's time
    (:func:`~.common.versions`): the user history.
    """

    @dlt.resource(
        name="users",
        parallelized=True,
        primary_key="user_id",
        write_disposition="merge",
        columns=hints(USER_COLUMNS),
    )
    def _users() -> Iterator[Any]:
        now = int(client.now)
        for batch in user_tables(client, user_cursor(dlt.current.resource_state())):
            yield batch
            yield versions(batch, "users", ("userId",), USER_COLUMNS, now)

    return _users


def user_cursor(state: dict[str, Any]) -> dict[str, Any]:
    """The users' cursor in the resource ``state``: ``{"modified_at": the newest modifiedAt
    loaded (epoch seconds) or None, "at_newest": {userId: digest} of the users loaded at that
    second}``; a warehouse loaded with dlt's incremental cursor starts from its last value."""
    cursor: dict[str, Any] = state.setdefault("cursor", {})
    if "modified_at" not in cursor:  # a warehouse loaded with dlt's incremental cursor
        earlier = state.get("incremental", {}).get("modifiedAt", {}).get("last_value")
        cursor.update(modified_at=earlier, at_newest={})
    return cursor


def user_tables(client: ConnecteamClient, cursor: dict[str, Any]) -> Iterator[pa.Table]:
    """Arrow tables of the users modified from the second of the ``cursor`` (:func:`user_cursor`)
    on (``GET /users/v1/users?userStatus=all``, ``modifiedAt`` = that second minus one: the
    filter is exclusive), without those loaded last run unchanged (:class:`FreshUsers`); the
    cursor is moved to the newest ``modifiedAt`` read once the listing is read."""
    newest, at_newest = cursor["modified_at"], dict(cursor["at_newest"])
    params: dict[str, Any] = {"userStatus": "all"}
    if isinstance(newest, int) and newest > 1:
        params["modifiedAt"] = newest - 1  # the boundary second again
    progress = Progress("users", logger=logger)
    arrow = ArrowRows("users", USER_COLUMNS, client.stats.untyped_values)
    fresh = FreshUsers(newest, at_newest)
    pages = progress.track(client.paginate(STREAMS["users"], params))
    yield from arrow.batches(fresh.page(page) for page in pages)
    if fresh.top != newest:
        cursor.update(modified_at=fresh.top, at_newest=fresh.seen)
    elif fresh.top is not None:
        cursor["at_newest"] = {**at_newest, **fresh.seen}
    since = f" modified from {newest}" if "modifiedAt" in params else ""
    progress.done(since)


class FreshUsers:
    """The users of a listing that are to be loaded, page by page: all but those at the
    cursor's second loaded last run with the same content.

    Args:
        newest: The cursor's ``modifiedAt`` (epoch seconds), or ``None`` before any load.
        at_newest: Digests by ``userId`` (text) of the users loaded at ``newest``.

    Attributes:
        top: The newest ``modifiedAt`` seen so far (``newest`` before any newer one).
        seen: Digests by ``userId`` of the users seen at ``top`` (only those read since ``top``
            was first seen).
    """

    def __init__(self, newest: Any, at_newest: dict[str, str]) -> None:
        self.newest, self.at_newest = newest, at_newest
        self.top: Any = newest
        self.seen: dict[str, str] = {}

    def page(self, page: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The users of ``page`` to load (the provider's records, in order)."""
        out = []
        for user in page:
            at = user.get("modifiedAt")
            digest = content_hash(user)
            if isinstance(at, int) and not isinstance(at, bool):
                if self.top is None or at > self.top:
                    self.top, self.seen = at, {}
                if at == self.top:
                    self.seen[str(user.get("userId"))] = digest
                if at == self.newest and self.at_newest.get(str(user.get("userId"))) == digest:
                    continue  # loaded last run, unchanged since
            out.append(user)
        return out


def custom_field_row(field: dict[str, Any]) -> dict[str, Any]:
    """One user custom field definition (``CustomFieldSettingsResponse``) as a warehouse row."""
    return {
        "id": field["id"],
        "name": field.get("name"),
        "type": field.get("type", "dropdown"),
        "category_id": field.get("categoryId"),
        "is_required": field.get("isRequired"),
        "is_multi_select": field.get("isMultiSelect"),
        "dropdown_options": field.get("dropdownOptions") or [],
        "is_visible_to_users": field.get("isVisibleToUsers"),
        "is_editable_for_users": field.get("isEditableForUsers"),
    }


def user_custom_field_definitions(client: ConnecteamClient, shared: Listing) -> DltResource:
    """``user_custom_field_definitions``: the account's user custom fields (type, category,
    dropdown options), merged on ``id``; only changed ones load; one a consistent listing no
    longer holds is marked deleted. ``shared`` is their listing, fetched once per run (it also
    gives ``user_custom_field_options`` its dropdown fields)."""
    name = "user_custom_field_definitions"
    return record_listing(client, name, CUSTOM_FIELD_COLUMNS, custom_field_row, shared)


def category_row(category: dict[str, Any]) -> dict[str, Any]:
    """One user custom field category (``CustomFieldCategory``: ``id``, ``name``)."""
    return {"id": category["id"], "name": category.get("name")}


def user_custom_field_categories(client: ConnecteamClient) -> DltResource:
    """``user_custom_field_categories``: the categories a definition's ``category_id`` names,
    merged on ``id``; only changed ones load; one no longer listed is marked deleted."""
    return record_listing(client, "user_custom_field_categories", DELETION_MARK, category_row)


RESOURCES: Builders = {
    "users": lambda run: users(run.client),
    "user_custom_field_definitions": lambda run: user_custom_field_definitions(
        run.client, run.definitions
    ),
    "user_custom_field_categories": lambda run: user_custom_field_categories(run.client),
}
"""This domain's streams and how each one's resource is built for a run."""
